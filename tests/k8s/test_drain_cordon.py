"""The Drain button's Kubernetes executor: a cordon (`spec.unschedulable`) through the real client
against the fake API server's node PATCH, and that fake's own answers to the patch types."""

from __future__ import annotations

import json
from typing import Any

import pytest
import urllib3
from kubernetes import client

from integrations.kubernetes.drain import REASON_ANNOTATION, KubernetesCordon
from integrations.nodedrain import DrainError, DrainRequest
from tests.fakes.k8s import FakeKube
from tests.fakes.k8s import objects as o

REASON = "denpex: Xid 79 (by admin)"


def read(api: client.ApiClient, name: str) -> dict[str, Any]:
    """The node as the real client reads it back, as plain JSON."""
    node = api.sanitize_for_serialization(client.CoreV1Api(api).read_node(name))
    assert isinstance(node, dict)
    return node


def test_cordon_sets_unschedulable_and_the_reason(kube: FakeKube, api: client.ApiClient) -> None:
    kube.put("nodes", o.node("gpu-07"))
    kube.put("nodes", o.node("gpu-06"))
    done = KubernetesCordon(api).drain(DrainRequest(node="gpu-07", reason=REASON))
    assert done == "node gpu-07 cordoned (spec.unschedulable=true)"
    node = read(api, "gpu-07")
    assert node["spec"] == {"unschedulable": True}
    assert node["metadata"]["annotations"] == {REASON_ANNOTATION: REASON}
    assert node["metadata"]["labels"] == {"kubernetes.io/hostname": "gpu-07"}  # the rest is untouched
    assert "spec" not in read(api, "gpu-06")  # only the node asked for
    (patch,) = [p for m, p in kube.store.requests if m == "PATCH"]
    assert patch == "/api/v1/nodes/gpu-07"
    # a second press is harmless: the node stays cordoned
    KubernetesCordon(api).drain(DrainRequest(node="gpu-07", reason=REASON))
    assert read(api, "gpu-07")["spec"] == {"unschedulable": True}


def test_an_unknown_node_or_no_cluster_is_a_drain_error(kube: FakeKube, api: client.ApiClient) -> None:
    with pytest.raises(DrainError, match="404 Not Found"):
        KubernetesCordon(api).drain(DrainRequest(node="gpu-99", reason=REASON))
    with pytest.raises(DrainError, match="no Kubernetes cluster is configured"):
        KubernetesCordon(lambda: None).drain(DrainRequest(node="gpu-07", reason=REASON))
    kube.stop()
    with pytest.raises(DrainError, match="unreachable"):
        KubernetesCordon(api, timeout=2).drain(DrainRequest(node="gpu-07", reason=REASON))


def test_the_api_client_is_made_on_first_use(kube: FakeKube) -> None:
    kube.put("nodes", o.node("gpu-07"))
    made: list[client.ApiClient] = []

    def factory() -> client.ApiClient:
        made.append(kube.api_client())
        return made[-1]

    cordon = KubernetesCordon(factory)
    assert made == []
    cordon.drain(DrainRequest(node="gpu-07", reason=REASON))
    cordon.drain(DrainRequest(node="gpu-07", reason=REASON))
    assert len(made) == 1


def test_node_names_that_are_not_one_node_are_refused_before_any_request() -> None:
    for bad in ("gpu-[01-08]", "a,b", "gpu-07 --all", "-gpu", "", "gpu-07;reboot", "n" * 254):
        with pytest.raises(ValueError):
            DrainRequest(node=bad, reason=REASON)


def raw_patch(kube: FakeKube, body: str, content_type: str) -> tuple[int, dict[str, object]]:
    """A PATCH as bytes on the wire (the client would correct the media type of a dict itself)."""
    resp = urllib3.PoolManager().request(
        "PATCH", f"{kube.url}/api/v1/nodes/gpu-07", body=body.encode(), headers={"Content-Type": content_type}
    )
    return resp.status, json.loads(resp.data)


def test_the_fake_answers_patch_types_as_the_api_server_does(kube: FakeKube, api: client.ApiClient) -> None:
    kube.put("nodes", o.node("gpu-07"))
    cordon = json.dumps({"spec": {"unschedulable": True}})
    status, body = raw_patch(kube, cordon, "application/json-patch+json")  # an object as a JSON patch
    assert (status, body["reason"]) == (400, "BadRequest") and "jsonpatch.Patch" in str(body["message"])
    status, body = raw_patch(kube, cordon, "text/plain")
    assert (status, body["reason"]) == (415, "UnsupportedMediaType")
    status, body = raw_patch(kube, "{not json", "application/merge-patch+json")
    assert status == 400
    core = client.CoreV1Api(api)
    ops = [{"op": "add", "path": "/spec/unschedulable", "value": True}]
    core.patch_node("gpu-07", ops)  # a JSON patch, through the client
    assert read(api, "gpu-07")["spec"] == {"unschedulable": True}
    core.patch_node("gpu-07", {"spec": {"unschedulable": None}}, _content_type="application/merge-patch+json")
    assert read(api, "gpu-07")["spec"] == {}  # null deletes (RFC 7386)
