"""Cordon one Kubernetes node: `spec.unschedulable = true`, through the official client.

A cordon, not a drain: no pod is evicted. The thread's button is pressed in chat, often at night,
and evicting pods moves other teams' running work; a cordon only keeps new pods off the node,
which is what the failed job's next attempt needs. The thread's advice still shows
`kubectl drain <node> --ignore-daemonsets` for whoever decides to empty the node. The reason is
kept in the node's `denpex.io/drain-reason` annotation, so `kubectl describe node` tells where the
cordon came from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from integrations.nodedrain import DrainError, DrainRequest

if TYPE_CHECKING:
    from kubernetes.client import ApiClient

REASON_ANNOTATION = "denpex.io/drain-reason"
#: a strategic merge patch, said explicitly: older clients sent a dict body as json-patch+json,
#: which the API server refuses for an object
PATCH_TYPE = "application/strategic-merge-patch+json"


class KubernetesCordon:
    """`NodeDrainer` for Kubernetes. `api` is an ApiClient, or a factory called on first use (the
    cluster found the standard way when the button is first pressed, not at start-up)."""

    scheduler = "kubernetes"

    def __init__(self, api: ApiClient | Callable[[], ApiClient | None], *, timeout: float = 20.0) -> None:
        self._api = api
        self.timeout = timeout

    def _client(self) -> ApiClient:
        if callable(self._api):
            made = self._api()
            if made is None:
                raise DrainError("no Kubernetes cluster is configured (KUBECONFIG or in-cluster)")
            self._api = made
        return self._api

    def drain(self, request: DrainRequest) -> str:
        from kubernetes.client import CoreV1Api
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        body = {
            "metadata": {"annotations": {REASON_ANNOTATION: request.reason[:256]}},
            "spec": {"unschedulable": True},
        }
        try:
            CoreV1Api(self._client()).patch_node(
                request.node, body, _content_type=PATCH_TYPE, _request_timeout=self.timeout
            )
        except ApiException as exc:
            raise DrainError(f"the API server answered {exc.status} {exc.reason}") from exc
        except (HTTPError, OSError) as exc:
            raise DrainError(f"the API server is unreachable: {type(exc).__name__}") from exc
        return f"node {request.node} cordoned (spec.unschedulable=true)"
