"""The `denpex` command line. Each command lives in its own module and registers itself here.

Commands import their heavy dependencies inside the command function, so `denpex diagnose` does not
pay for Slack, Redis or Kubernetes imports it never uses.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import typer

#: each defines `register(app)`; `denpex --help` lists them in this order
COMMAND_MODULES = ("diagnose", "serve", "worker", "demo", "codes", "watch_k8s", "node_agent")


def create_cli() -> typer.Typer:
    """The Typer app with every command (imported here, not at module import: see `main`)."""
    import importlib

    import typer

    app = typer.Typer(
        name="denpex",
        help="Tells an ML platform team why a distributed training job died.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    for name in COMMAND_MODULES:
        importlib.import_module(f"denpex.cli.{name}").register(app)

    @app.command("version")
    def version() -> None:
        """Print the Denpex version."""
        from denpex import __version__

        typer.echo(__version__)

    return app


def main() -> None:
    """`denpex diagnose` of plain arguments skips Typer's import and parsing (start-up, issue 15)."""
    if sys.argv[1:2] == ["diagnose"]:
        import os

        # pydantic looks for plugins in every installed package's metadata when it builds the first
        # model (~2% of a short run); no plugin observes a one-shot diagnosis. An explicit value wins.
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
        from denpex.cli.diagnose import fast_path

        code = fast_path(sys.argv[2:])
        if code is not None:
            raise SystemExit(code)
    create_cli()()
