"""`denpex node-agent`: serve this node's masked kernel log to the Denpex worker (a DaemonSet)."""

from __future__ import annotations

import sys

import typer

from denpex.core.texts import k8s as texts
from denpex.core.texts import service as service_texts


def register(app: typer.Typer) -> None:
    @app.command("node-agent", help=texts.NODE_AGENT_HELP)
    def node_agent(
        host: str = typer.Option("0.0.0.0", "--host", help="Address to listen on."),
        port: int = typer.Option(8475, "--port", help="Port to listen on (the pod's `kernel-log` port)."),
        source: str = typer.Option(
            "klog",
            "--source",
            help="klog (the syslog(2) syscall; needs only "
            "CAP_SYSLOG), /dev/kmsg, or a kernel log file such as /var/log/kern.log.",
        ),
        max_bytes: int = typer.Option(
            4 << 20, "--max-bytes", help="Answer at most this many bytes (the newest lines)."
        ),
    ) -> None:
        raise typer.Exit(run(host, port, source, max_bytes))


def run(host: str, port: int, source: str, max_bytes: int) -> int:
    from aiohttp import web

    from denpex.cli._runtime import configure_logging
    from denpex.core.settings import MissingSetting, Settings
    from integrations.kubernetes.node_agent import create_app
    from knowledge.masking import Masker

    settings = Settings()
    configure_logging(settings.log_level)
    try:
        settings.require("DENPEX_NODE_AGENT_TOKEN")
    except MissingSetting as exc:
        print(service_texts.error("node-agent", str(exc)), file=sys.stderr)
        return 2
    assert settings.node_agent_token is not None
    masker = Masker.default()
    app = create_app(
        token=settings.node_agent_token.get_secret_value(),
        mask=masker.mask,
        source=source,
        max_bytes=max_bytes,
        dumps_root=settings.fr_host_path,  # Flight Recorder dumps of the pods (off when unset)
        dump_max_bytes=settings.fr_max_bytes,
    )
    web.run_app(app, host=host, port=port, access_log=None, print=None, shutdown_timeout=5)
    return 0
