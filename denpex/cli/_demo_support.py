"""Processes and terminal output for `denpex demo`: a private redis-server, a worker, the thread.

Every process started here is started in its own session and ended by its process group id, so the
demo never leaves a redis-server or a work-horse behind, even when interrupted.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from denpex.core.texts import service as texts


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Proc:
    """A child process in its own session, stopped by process group (TERM, then KILL)."""

    def __init__(
        self, args: list[str], env: dict[str, str] | None = None, log: IO[bytes] | None = None
    ) -> None:
        self.popen = subprocess.Popen(
            args,
            env=env,
            stdout=log or subprocess.DEVNULL,
            stderr=subprocess.STDOUT if log else subprocess.DEVNULL,
            start_new_session=True,
        )

    def stop(self, timeout: float = 5.0) -> None:
        if self.popen.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGTERM)
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout)


def start_redis(workdir: Path, timeout: float = 10.0) -> tuple[Proc, str]:
    import redis

    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError(texts.no_redis_server())
    port = free_port()
    proc = Proc(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
            "--loglevel",
            "warning",
        ]
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url, socket_connect_timeout=0.2)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(redis.ConnectionError):
            if client.ping():
                client.close()
                return proc, url
        time.sleep(0.03)
    proc.stop()
    raise RuntimeError(f"redis-server did not start on port {port}")


def start_worker(env: dict[str, str], log: IO[bytes]) -> Proc:
    denpex = Path(sys.executable).with_name("denpex")
    args = [str(denpex)] if denpex.exists() else [sys.executable, "-m", "denpex.cli"]
    return Proc([*args, "worker", "--maintenance-interval", "5"], env=env, log=log)


def stage_logs(source: Path, root: Path, cluster: str, job_id: str) -> Path:
    folder = root / cluster / job_id
    shutil.copytree(source, folder)
    return folder


def make_workdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="denpex-demo-"))


# ---------------------------------------------------------------------------------- terminal


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _block_texts(block: dict[str, Any]) -> list[str]:
    kind = block.get("type")
    out: list[str] = []
    if kind == "divider":
        return ["─" * 40]
    text = block.get("text")
    if isinstance(text, dict) and text.get("text"):
        out.append(text["text"])
    for fld in block.get("fields") or []:
        out.append(fld.get("text", ""))
    for element in block.get("elements") or []:
        if isinstance(element, dict) and isinstance(element.get("text"), str):
            out.append(element["text"])
        elif isinstance(element, dict) and element.get("type") == "button":  # the thread's Details button
            out.append(f"[ {element['text']['text']} ]")
        elif isinstance(element, dict) and str(element.get("type", "")).startswith("rich_text_"):
            out.append("".join(str(e.get("text", "")) for e in element.get("elements") or []))
    return out


def message_text(message: Any) -> str:
    """A SlackMessage as terminal text: its blocks' texts when it has blocks, else its `text`."""
    blocks = getattr(message, "blocks", None) or []
    parts = [t for block in blocks for t in _block_texts(block)]
    return _unescape("\n".join(parts) if parts else message.text)


def print_thread(root: Any, replies: list[Any], evidence: Any, heading: str) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.panel import Panel

    console = Console(highlight=False, soft_wrap=False)
    console.print(f"\n[bold]{escape(heading)}[/bold]\n")
    console.print(Panel(escape(message_text(root)), title="#channel", title_align="left"))
    for i, reply in enumerate(replies, 1):
        console.print(
            Panel(
                escape(message_text(reply)),
                title=f"thread reply {i}",
                title_align="left",
                border_style="cyan",
            )
        )
    if evidence is not None:
        console.print(
            f"[dim]+ file in the thread: {escape(evidence.filename)} "
            f"({len(evidence.content)} characters of masked evidence)[/dim]"
        )
