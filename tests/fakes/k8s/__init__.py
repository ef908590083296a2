"""A protocol-faithful fake Kubernetes API server, driven by the real `kubernetes` client.

Why: no kube-apiserver can be installed here, and the integration must be tested through the real
client over real HTTP (its deserialisers, its watch loop, its 410 handling), never with mocks.

Usage::

    from tests.fakes.k8s import FakeKube, objects as o

    with FakeKube() as kube:                        # or kube = FakeKube().start(); ...; kube.stop()
        api = kube.api_client()                     # kubernetes.client.ApiClient on kube.url
        kube.put("nodes", o.node("gpu-07"))
        kube.put("pods", o.job_pod("train", 6, job_uid="u1", node_name="gpu-07", phase="Failed",
                                   state=o.terminated("OOMKilled", 137)))
        kube.set_log("default", "train-6-xxxxx", "pytorch", ["line 1", "line 2"], previous=False)
        kube.restart()                              # same port, same objects: a restarted API server
        kube.store.compact()                        # watches from older resourceVersions get 410 Gone

Surface: discovery (`/api`, `/apis`, `/api/v1`, `/apis/{g}/{v}`; PyTorchJob/JobSet CRDs present
unless `kube.store.crds` drops them); get/list/watch of pods, events, nodes, jobs, pytorchjobs,
jobsets, namespaced and across namespaces, with `labelSelector` (=, ==, !=, in, notin, exists) and
`fieldSelector`, `limit`/`continue`; watch streams from a resourceVersion (or the synthetic ADDED
events without one), `timeoutSeconds`, BOOKMARKs with `allowWatchBookmarks`, an `ERROR` event with a
410 `Expired` Status for compacted versions; `text/plain` pod logs honouring container, previous,
tailLines, limitBytes, sinceSeconds and timestamps with the API server's 400/404 Status bodies;
`/api/v1/nodes/{node}/proxy/{path}` serving files set with `set_node_file` (403 when
`store.node_proxy_forbidden`); PATCH of a node (`patch_node`: merge, strategic merge and JSON
patches; 415 / 400 / 404 Status bodies as the API server sends them). Every request path is recorded
in `kube.store.requests`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from kubernetes import client as k

from tests.fakes.k8s import objects
from tests.fakes.k8s.server import FakeKubeServer, status_body
from tests.fakes.k8s.state import LogLine, Store


class FakeKube:
    def __init__(self, port: int | None = None) -> None:
        self.store = Store()
        self.server = FakeKubeServer(self.store, port)

    # lifecycle
    def start(self) -> FakeKube:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    def restart(self) -> None:
        """Stop and start on the same port with the same objects (open watches are cut)."""
        self.stop()
        self.start()

    def __enter__(self) -> FakeKube:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return self.server.url

    # clients
    def configuration(self) -> k.Configuration:
        cfg = k.Configuration()
        cfg.host = self.url
        return cfg

    def api_client(self) -> k.ApiClient:
        return k.ApiClient(self.configuration())

    def write_kubeconfig(self, path: Path) -> Path:
        """A kubeconfig for the fake, for processes that find the cluster the standard way."""
        cfg = {
            "apiVersion": "v1",
            "kind": "Config",
            "current-context": "fake",
            "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
            "users": [{"name": "fake", "user": {"token": "fake-token"}}],
            "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake"}}],
        }
        path.write_text(yaml.safe_dump(cfg))
        return path

    # objects
    def put(self, plural: str, obj: Any) -> dict[str, Any]:
        return self.store.put(plural, obj)

    def modify(
        self, plural: str, namespace: str, name: str, change: Callable[[dict[str, Any]], None]
    ) -> dict:
        obj = self.store.get(plural, namespace, name)
        if obj is None:
            raise KeyError(f"{plural}/{namespace}/{name}")
        change(obj)
        return self.store.put(plural, obj)

    def delete(self, plural: str, namespace: str, name: str) -> None:
        self.store.delete(plural, namespace, name)

    def set_log(
        self,
        namespace: str,
        pod: str,
        container: str,
        lines: Iterable[str],
        *,
        previous: bool = False,
        start: datetime | None = None,
        step: float = 1.0,
    ) -> None:
        """The container's log; line i is stamped `start + i*step` seconds (for sinceSeconds/timestamps)."""
        t0 = start or datetime.now(UTC) - timedelta(minutes=10)
        self.store.logs[(namespace, pod, container, previous)] = [
            LogLine(t0 + timedelta(seconds=i * step), text) for i, text in enumerate(lines)
        ]

    def set_node_file(self, node: str, path: str, text: str | bytes) -> None:
        """A file the kubelet serves at /api/v1/nodes/{node}/proxy/{path} (e.g. `logs/kern.log`)."""
        self.store.node_files[(node, path)] = text.encode() if isinstance(text, str) else text

    def requested(self, fragment: str) -> list[str]:
        """Request paths (with query) seen so far that contain `fragment`."""
        return [p for _, p in list(self.store.requests) if fragment in p]


__all__ = ["FakeKube", "objects", "status_body"]
