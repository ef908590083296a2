"""The `denpex` command line. Each command lives in its own module and registers itself here.

Commands import their heavy dependencies inside the command function, so `denpex diagnose` does not
pay for Slack, Redis or Kubernetes imports it never uses.
"""

from __future__ import annotations

import typer

from denpex.cli import codes, demo, diagnose, node_agent, serve, watch_k8s, worker

#: each defines `register(app)`; `denpex --help` lists them in this order
COMMAND_MODULES = (diagnose, serve, worker, demo, codes, watch_k8s, node_agent)


def create_cli() -> typer.Typer:
    app = typer.Typer(
        name="denpex",
        help="Tells an ML platform team why a distributed training job died.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    for module in COMMAND_MODULES:
        module.register(app)

    @app.command("version")
    def version() -> None:
        """Print the Denpex version."""
        from denpex import __version__

        typer.echo(__version__)

    return app


def main() -> None:
    create_cli()()
