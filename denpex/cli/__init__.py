"""The `denpex` command line. Each command lives in its own module and registers itself here.

Commands import their heavy dependencies inside the command function, so `denpex diagnose` does not
pay for Slack, Redis or Kubernetes imports it never uses.
"""

from __future__ import annotations

import importlib

import typer

#: modules under denpex.cli that each define `register(app)`; a module that is absent is skipped
COMMAND_MODULES = ("diagnose", "serve", "worker", "demo", "codes", "watch_k8s", "node_agent")


def create_cli() -> typer.Typer:
    app = typer.Typer(
        name="denpex",
        help="Tells an ML platform team why a distributed training job died.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"denpex.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"denpex.cli.{name}":
                raise
            continue
        module.register(app)

    @app.command("version")
    def version() -> None:
        """Print the Denpex version."""
        from denpex import __version__

        typer.echo(__version__)

    return app


def main() -> None:
    create_cli()()
