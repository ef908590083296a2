"""The fake API server itself, through the real `kubernetes` client: if these hold, the integration
tests exercise the client's real code paths (deserialisers, Status errors, watch handling)."""

from __future__ import annotations

import json

import pytest
from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from tests.fakes.k8s import FakeKube
from tests.fakes.k8s import objects as o


def names(pods: client.V1PodList) -> list[str]:
    return [p.metadata.name for p in pods.items]


def test_label_and_field_selectors(api: client.ApiClient, kube: FakeKube):
    for name, labels, node in (
        ("a", {"app": "x", "tier": "1"}, "n1"),
        ("b", {"app": "y"}, "n2"),
        ("c", {}, "n1"),
    ):
        kube.put("pods", o.pod(name, labels=labels, node_name=node))
    core = client.CoreV1Api(api)
    assert names(core.list_namespaced_pod("default", label_selector="app=x")) == ["a"]
    assert names(core.list_namespaced_pod("default", label_selector="app!=x")) == ["b", "c"]
    assert names(core.list_namespaced_pod("default", label_selector="app in (x,y),!tier")) == ["b"]
    assert names(core.list_namespaced_pod("default", label_selector="app notin (y)")) == ["a", "c"]
    assert names(core.list_namespaced_pod("default", label_selector="app")) == ["a", "b"]
    assert names(core.list_pod_for_all_namespaces(field_selector="spec.nodeName=n1")) == ["a", "c"]
    assert names(core.list_namespaced_pod("other")) == []


def test_status_bodies_of_errors(api: client.ApiClient, kube: FakeKube):
    core = client.CoreV1Api(api)
    with pytest.raises(ApiException) as err:
        core.read_namespaced_pod("ghost", "default")
    body = json.loads(err.value.body)
    assert (
        err.value.status == 404
        and body["reason"] == "NotFound"
        and body["message"] == 'pods "ghost" not found'
    )
    kube.put("pods", o.pod("two", extra_containers=("sidecar",)))
    with pytest.raises(ApiException) as err:
        core.read_namespaced_pod_log("two", "default")
    assert err.value.status == 400
    assert json.loads(err.value.body)["message"] == (
        "a container name must be specified for pod two, choose one of: [pytorch sidecar]"
    )
    with pytest.raises(ApiException) as err:
        core.read_namespaced_pod_log("two", "default", container="pytorch", previous=True)
    assert (
        json.loads(err.value.body)["message"]
        == 'previous terminated container "pytorch" in pod "two" not found'
    )


def test_log_parameters(api: client.ApiClient, kube: FakeKube):
    kube.put("pods", o.pod("p"))
    kube.set_log("default", "p", "pytorch", [f"line {i}" for i in range(10)], step=60)
    core = client.CoreV1Api(api)
    assert core.read_namespaced_pod_log("p", "default", tail_lines=2) == "line 8\nline 9\n"
    assert core.read_namespaced_pod_log("p", "default", limit_bytes=9) == "line 0\nli"
    # the log started 10 minutes ago, a line a minute: the last 150 s hold lines 8 and 9
    assert core.read_namespaced_pod_log("p", "default", since_seconds=150) == "line 8\nline 9\n"
    stamped = core.read_namespaced_pod_log("p", "default", timestamps=True, tail_lines=1)
    assert stamped.endswith("Z line 9\n") and stamped[:4].isdigit()


def test_watch_from_resource_version_bookmarks_and_410(api: client.ApiClient, kube: FakeKube):
    core = client.CoreV1Api(api)
    kube.put("pods", o.pod("before"))
    rv = core.list_namespaced_pod("default").metadata.resource_version
    kube.put("pods", o.pod("after"))
    w = watch.Watch()
    seen = []
    for event in w.stream(
        core.list_namespaced_pod,
        "default",
        resource_version=rv,
        timeout_seconds=1,
        allow_watch_bookmarks=True,
    ):
        seen.append((event["type"], event["raw_object"]["metadata"].get("name")))
    assert ("ADDED", "after") in seen and ("ADDED", "before") not in seen
    assert any(t == "BOOKMARK" for t, _ in seen) and int(w.resource_version) >= int(rv) + 1
    initial = [
        e["object"].metadata.name
        for e in watch.Watch().stream(core.list_namespaced_pod, "default", timeout_seconds=1)
    ]
    assert initial == ["after", "before"]  # no resourceVersion: synthetic ADDED for what exists
    kube.store.compact()
    with pytest.raises(ApiException) as err:
        list(
            watch.Watch().stream(core.list_namespaced_pod, "default", resource_version=rv, timeout_seconds=1)
        )
    assert err.value.status == 410


def test_custom_objects_discovery_and_restart(api: client.ApiClient, kube: FakeKube):
    kube.put("pytorchjobs", o.pytorchjob("pj", 2))
    custom = client.CustomObjectsApi(api)
    assert (
        custom.get_namespaced_custom_object("kubeflow.org", "v1", "default", "pytorchjobs", "pj")["kind"]
        == "PyTorchJob"
    )
    groups = {g.name for g in client.ApisApi(api).get_api_versions().groups}
    assert {"batch", "kubeflow.org", "jobset.x-k8s.io"} <= groups
    kube.store.crds.discard("pytorchjobs")
    with pytest.raises(ApiException) as err:
        custom.list_namespaced_custom_object("kubeflow.org", "v1", "default", "pytorchjobs")
    assert err.value.status == 404
    kube.restart()
    assert client.CoreV1Api(api).list_namespaced_pod("default").items == []  # same port, still serving
