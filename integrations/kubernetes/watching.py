"""The informer: list, then watch one resource from the list's resourceVersion, for ever.

The classic loop of client-go's reflector: list (every object is handed on, the list's
resourceVersion kept), then watch from that version; a watch that ends normally is resumed from the
last version seen (BOOKMARKs included); `410 Gone` (the v37 client raises `ApiException(410)` for
the watch `ERROR` event) re-lists; any other error or a lost connection (API server restart) backs
off exponentially and resumes. An object is handed on before its version is recorded, so an error
while handling it re-delivers it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import structlog
import urllib3
from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from integrations.kubernetes.api import JOBSET, PYTORCHJOB, list_all, raw_get

log = structlog.get_logger("denpex.k8s.watching")

#: what the informer hands on: (kind, object as the API's JSON dict)
OnObject = Callable[[str, dict[str, Any]], None]


@dataclass
class Target:
    """One list/watch stream: `kind` of object, the list function and its leading arguments."""

    kind: str  # Job | PyTorchJob | JobSet | Pod
    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        sel = self.kwargs.get("label_selector")
        return f"{self.kind}({'/'.join(map(str, self.args))}{' ' + sel if sel else ''})"


def discover(api: client.ApiClient) -> set[str]:
    """Which optional training-job kinds the cluster serves (their CRDs are installed)."""
    found = set()
    for kind, (group, version, plural) in (("PyTorchJob", PYTORCHJOB), ("JobSet", JOBSET)):
        try:
            data = json.loads(raw_get(api, f"/apis/{group}/{version}", timeout=10).data)
            if any(r.get("name") == plural for r in data.get("resources", [])):
                found.add(kind)
        except ApiException as exc:
            if exc.status not in (403, 404):
                raise
    return found


class Backoff:
    """Exponential waits between `first` and `cap` seconds, cut short when `stop` is set."""

    def __init__(self, stop: threading.Event, first: float, cap: float) -> None:
        self.stop, self.first, self.cap = stop, first, cap
        self.delay = first

    def reset(self) -> None:
        self.delay = self.first

    def pause(self) -> None:
        self.stop.wait(self.delay)
        self.delay = min(self.delay * 2, self.cap)


class Informer:
    """Lists and watches one `Target` until `stop` is set, handing every object to `on_object`."""

    def __init__(
        self,
        api: client.ApiClient,
        target: Target,
        on_object: OnObject,
        *,
        stop: threading.Event,
        watch_timeout: int,
        backoff: tuple[float, float],
        on_contact: Callable[[], None] = lambda: None,
    ) -> None:
        self.api, self.target, self.on_object = api, target, on_object
        self.stop, self.watch_timeout, self.on_contact = stop, watch_timeout, on_contact
        self.backoff = Backoff(stop, *backoff)
        #: the last resourceVersion handled; None: list again
        self.rv: str | None = None

    def run(self) -> None:
        """List then watch until stopped (resume on rv, re-list on 410, back off on errors)."""
        label = self.target.label
        while not self.stop.is_set():
            try:
                if self.rv is None:
                    self.rv = self._relist()
                self._watch()
                self.backoff.reset()
                self.on_contact()
            except ApiException as exc:
                if exc.status == 410:
                    log.info("watch_expired_relisting", target=label, resource_version=self.rv)
                    self.rv = None
                    continue
                log.warning(
                    "watch_api_error",
                    target=label,
                    status=exc.status,
                    reason=exc.reason,
                    retry_in=self.backoff.delay,
                )
                self.backoff.pause()
            except (urllib3.exceptions.HTTPError, OSError, ValueError) as exc:
                log.warning(
                    "watch_connection_lost",
                    target=label,
                    error=type(exc).__name__,
                    resource_version=self.rv,
                    retry_in=self.backoff.delay,
                )
                self.backoff.pause()
            except Exception:  # an object we could not handle: keep watching, it is re-delivered
                log.exception("watch_unexpected_error", target=label, retry_in=self.backoff.delay)
                self.backoff.pause()

    def _watch(self) -> None:
        """One watch request from `self.rv`, which follows every event handled."""
        target = self.target
        w = watch.Watch()
        for event in w.stream(
            target.fn,
            *target.args,
            resource_version=self.rv,
            allow_watch_bookmarks=True,
            timeout_seconds=self.watch_timeout,
            _request_timeout=(10, self.watch_timeout + 30),
            **target.kwargs,
        ):
            if event["type"] in ("ADDED", "MODIFIED"):
                self.on_object(target.kind, event["raw_object"])
            # advanced only after the event was handled: an error re-delivers it
            self.rv = w.resource_version or self.rv
            self.on_contact()
            if self.stop.is_set():
                w.stop()

    def _relist(self) -> str:
        target = self.target
        first = target.fn(*target.args, limit=1, **target.kwargs)
        rv = (
            first["metadata"]["resourceVersion"]
            if isinstance(first, dict)
            else first.metadata.resource_version
        )
        for item in list_all(target.fn, *target.args, **target.kwargs):
            obj = item if isinstance(item, dict) else self.api.sanitize_for_serialization(item)
            self.on_object(target.kind, obj)
        self.on_contact()
        return str(rv)
