"""Thin helpers over the `kubernetes` client (v37) for what its generated methods cannot do.

- `raw_get`: `connect_get_node_proxy_with_path` percent-encodes `/` in the path and cannot pass a
  query string, so node proxy paths (and any other raw GET) go through `param_serialize`/`call_api`
  with the client's own auth and TLS settings, returning the streaming urllib3 response.
- `list_all`: lists in pages (`limit`/`continue`) so a thousand-pod job is not one giant response.
- `find_owner`: which kind of training job a name refers to (Job, PyTorchJob or JobSet).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from kubernetes import client
from kubernetes.client.rest import ApiException

PAGE = 500


# The client types every model field Optional; the API server always sets a listed pod's metadata
# and spec. These read them with that assumption in one place, and give safe defaults otherwise.
def pod_name(pod: client.V1Pod) -> str:
    return str(pod.metadata.name) if pod.metadata and pod.metadata.name else ""


def pod_namespace(pod: client.V1Pod) -> str:
    return str(pod.metadata.namespace) if pod.metadata and pod.metadata.namespace else "default"


def pod_labels(pod: client.V1Pod) -> dict[str, str]:
    return dict(pod.metadata.labels or {}) if pod.metadata else {}


def pod_annotations(pod: client.V1Pod) -> dict[str, str]:
    return dict(pod.metadata.annotations or {}) if pod.metadata else {}


def pod_node(pod: client.V1Pod) -> str | None:
    return pod.spec.node_name if pod.spec else None


def pod_containers(pod: client.V1Pod) -> list[client.V1Container]:
    return list(pod.spec.containers or []) if pod.spec else []


PYTORCHJOB = ("kubeflow.org", "v1", "pytorchjobs")
JOBSET = ("jobset.x-k8s.io", "v1alpha2", "jobsets")


def raw_get(
    api: client.ApiClient,
    path: str,
    *,
    query: list[tuple[str, str]] | None = None,
    timeout: float | tuple[float, float] = 30.0,
) -> Any:
    """GET `path` (already quoted, `/` kept) on the API server; the urllib3 response, unread.

    Raises `ApiException` (with the Status body) for a non-2xx answer.
    """
    method, url, headers, body, post = api.param_serialize(
        "GET", path, query_params=query or [], header_params={"Accept": "*/*"}, auth_settings=["BearerToken"]
    )
    resp = api.call_api(method, url, headers, body, post, _request_timeout=timeout)
    if not 200 <= resp.status <= 299:
        resp.read()
        body = (resp.data or b"").decode("utf-8", "replace")
        raise ApiException.from_response(http_resp=resp, body=body, data=None)
    return resp.response


def node_proxy_path(node: str, path: str) -> str:
    return f"/api/v1/nodes/{quote(node, safe='')}/proxy/" + "/".join(
        quote(p, safe="") for p in path.split("/")
    )


def list_all(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Iterator[Any]:
    """Every item of a paged list call (typed models or custom-object dicts)."""
    token = None
    while True:
        page = fn(*args, limit=PAGE, _continue=token, **kwargs) if token else fn(*args, limit=PAGE, **kwargs)
        if isinstance(page, dict):
            yield from page.get("items", [])
            token = (page.get("metadata") or {}).get("continue")
        else:
            yield from page.items
            token = page.metadata._continue
        if not token:
            return


@dataclass
class Owner:
    """The training job a JobRef names, as found in the API (dict form for every kind)."""

    kind: str  # Job | PyTorchJob | JobSet
    namespace: str
    name: str
    obj: dict[str, Any] = field(default_factory=dict)

    @property
    def uid(self) -> str | None:
        return (self.obj.get("metadata") or {}).get("uid")

    @property
    def conditions(self) -> list[dict[str, Any]]:
        return list((self.obj.get("status") or {}).get("conditions") or [])

    def pod_selectors(self) -> list[str]:
        """Label selectors that find this job's pods, most specific first."""
        if self.kind == "PyTorchJob":
            return [f"training.kubeflow.org/job-name={self.name}"]
        if self.kind == "JobSet":
            return [f"jobset.sigs.k8s.io/jobset-name={self.name}"]
        return [f"batch.kubernetes.io/job-name={self.name}", f"job-name={self.name}"]


def find_owner(api: client.ApiClient, namespace: str, name: str, kind: str | None = None) -> Owner | None:
    """Look the name up as each training-job kind (the one given first); None if none exists."""
    kinds = ["Job", "PyTorchJob", "JobSet"]
    if kind in kinds:
        kinds.remove(kind)
        kinds.insert(0, kind)
    custom = client.CustomObjectsApi(api)
    for k in kinds:
        try:
            if k == "Job":
                job = client.BatchV1Api(api).read_namespaced_job(name, namespace)
                return Owner(k, namespace, name, api.sanitize_for_serialization(job))
            group, version, plural = PYTORCHJOB if k == "PyTorchJob" else JOBSET
            obj = custom.get_namespaced_custom_object(group, version, namespace, plural, name)
            return Owner(k, namespace, name, dict(obj) if isinstance(obj, dict) else {})
        except ApiException as exc:
            if exc.status != 404:
                raise
    return None
