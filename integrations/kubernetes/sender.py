"""Sending reports to the Denpex server: the signed POST, and the outbox loop that retries it.

`HookSender` POSTs a `KubernetesReport` to `{DENPEX_URL}/hooks/kubernetes`, signed with the shared
webhook secret. `Outbox` is the watcher's sender thread: reports wait in it while the server is
unreachable (retried with backoff); one the server rejects for good (bad secret, bad body) is
dropped but not marked reported, so a watcher restarted with a fixed configuration sends it again.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

import structlog
import urllib3

from integrations.kubernetes.report import KubernetesReport
from integrations.kubernetes.reported import Reported
from integrations.kubernetes.watching import Backoff
from integrations.signing import sign

log = structlog.get_logger("denpex.k8s.sender")


class SendError(RuntimeError):
    def __init__(self, message: str, *, retry: bool) -> None:
        super().__init__(message)
        self.retry = retry


class HookSender:
    """Signs with `integrations.signing` (HMAC-SHA256 over `v2:{ts}:{path}:{body}`), POSTs the JSON."""

    def __init__(
        self, base_url: str, secret: str, *, timeout: float = 15.0, http: urllib3.PoolManager | None = None
    ) -> None:
        self.path = "/hooks/kubernetes"
        self.url = base_url.rstrip("/") + self.path
        self.secret = secret
        self.http = http or urllib3.PoolManager(retries=False, timeout=urllib3.Timeout(total=timeout))

    def send(self, report: KubernetesReport) -> int:
        """Raise `SendError(retry=True)` for network errors, 429 and 5xx; `retry=False` for other 4xx."""
        body = report.model_dump_json().encode()
        headers = {"Content-Type": "application/json", **sign(self.secret, body, path=self.path)}
        try:
            resp = self.http.request("POST", self.url, body=body, headers=headers)
        except urllib3.exceptions.HTTPError as exc:
            raise SendError(f"POST {self.url}: {type(exc).__name__}", retry=True) from exc
        if resp.status == 429 or resp.status >= 500:
            raise SendError(f"POST {self.url}: HTTP {resp.status}", retry=True)
        if resp.status >= 400:
            text = resp.data[:300].decode("utf-8", "replace")
            raise SendError(f"POST {self.url}: HTTP {resp.status}: {text}", retry=False)
        return resp.status


Send = Callable[[KubernetesReport], Any]


class Outbox:
    """Claimed reports waiting to be sent; `run` is the sender thread."""

    def __init__(
        self, send: Send, reported: Reported, *, stop: threading.Event, backoff: tuple[float, float]
    ) -> None:
        self.send, self.reported, self.stop, self.backoff = send, reported, stop, backoff
        self.waiting: queue.Queue[tuple[str, KubernetesReport]] = queue.Queue()

    def put(self, key: str, report: KubernetesReport) -> None:
        self.waiting.put((key, report))

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                key, report = self.waiting.get(timeout=0.2)
            except queue.Empty:
                continue
            self._deliver(key, report)

    def _deliver(self, key: str, report: KubernetesReport) -> None:
        backoff = Backoff(self.stop, *self.backoff)
        while not self.stop.is_set():
            try:
                self.send(report)
                self.reported.confirm(key)
                log.info(
                    "k8s_failure_reported",
                    kind=report.kind,
                    namespace=report.namespace,
                    name=report.name,
                    reason=report.reason,
                )
                return
            except SendError as exc:
                if not exc.retry:
                    log.error("k8s_report_rejected", key=key, error=str(exc))
                    self.reported.release(key)
                    return
                log.warning("k8s_report_failed", key=key, error=str(exc), retry_in=backoff.delay)
                backoff.pause()
            except Exception:
                log.exception("k8s_report_unsendable", key=key)
                self.reported.release(key)
                return
