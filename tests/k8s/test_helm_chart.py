"""The Helm chart, linted and rendered by Helm's own Go engine (helm-python-sdk binds Helm's official
SDK; no helm binary is installable here), and every rendered manifest validated against the
`kubernetes` client's OpenAPI models: a field the schema does not know, a missing required field or a
wrong type fails the test."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client

helm = pytest.importorskip("helm_python", reason="helm-python-sdk (dev extra) renders the chart")

CHART = Path(__file__).resolve().parents[2] / "deploy" / "helm" / "denpex"
MODELS = {
    ("v1", "Secret"): "V1Secret",
    ("v1", "Service"): "V1Service",
    ("v1", "ServiceAccount"): "V1ServiceAccount",
    ("apps/v1", "Deployment"): "V1Deployment",
    ("apps/v1", "DaemonSet"): "V1DaemonSet",
    ("apps/v1", "StatefulSet"): "V1StatefulSet",
    ("rbac.authorization.k8s.io/v1", "ClusterRole"): "V1ClusterRole",
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): "V1ClusterRoleBinding",
    ("rbac.authorization.k8s.io/v1", "Role"): "V1Role",
    ("rbac.authorization.k8s.io/v1", "RoleBinding"): "V1RoleBinding",
}
VARIANTS = {
    "defaults": {},
    "namespaced": {"watcher": {"namespaces": ["ml", "research"]}},
    "node-proxy": {"rbac": {"nodeProxy": True}},
    "own-redis-and-secret": {
        "redis": {"url": "redis://redis.infra:6379/3"},
        "secrets": {"existingSecret": "mine"},
    },
    "file-source": {
        "nodeAgent": {"source": "/var/log/kern.log"},
        "redis": {"persistence": {"enabled": False}},
    },
    "tokens": {"secrets": {"webhookSecret": "w", "slackBotToken": "xoxb-1", "nodeAgentToken": "n"}},
}


def render(values: dict[str, Any]) -> list[dict[str, Any]]:
    chart = helm.Chart.load(str(CHART))
    out = chart.render(values=values, name="rel", namespace="denpex", is_install=True)
    docs = []
    for path, text in sorted(out.items()):
        if path.endswith(".txt"):
            continue
        docs.extend(d for d in yaml.safe_load_all(text) if d)
    return docs


def _unknown_fields(original: Any, roundtrip: Any, path: str = "") -> list[str]:
    """Keys of the manifest that the model dropped (not in the OpenAPI schema)."""
    if isinstance(original, dict):
        if not isinstance(roundtrip, dict):
            return [path or "/"]
        out = []
        for key, value in original.items():
            if key not in roundtrip and value not in (None, {}, []):
                out.append(f"{path}.{key}")
            elif key in roundtrip:
                out.extend(_unknown_fields(value, roundtrip[key], f"{path}.{key}"))
        return out
    if isinstance(original, list) and isinstance(roundtrip, list):
        return [
            p
            for i, (a, b) in enumerate(zip(original, roundtrip, strict=False))
            for p in _unknown_fields(a, b, f"{path}[{i}]")
        ]
    return []


def validate(doc: dict[str, Any]) -> Any:
    api = client.ApiClient()
    model = MODELS[(doc["apiVersion"], doc["kind"])]
    import json

    obj = api.deserialize(json.dumps(doc), model, "application/json")  # pydantic: required fields, types
    unknown = _unknown_fields(doc, api.sanitize_for_serialization(obj))
    assert not unknown, f"{doc['kind']} {doc['metadata']['name']}: fields not in the schema: {unknown}"
    return obj


def test_helm_lint_strict_is_clean():
    report = helm.lint(str(CHART), strict=True)
    problems = [m for m in report["messages"] if m["severity"] >= 2]
    assert report["errors"] == [] and problems == []


#: the one variant with a write verb: the Drain button (off by default), checked on its own below
DRAIN = {"nodeDrain": {"enabled": True, "admins": "U0ADMIN1,U0ADMIN2"}}


@pytest.mark.parametrize("variant", [*VARIANTS, "node-drain"])
def test_rendered_manifests_match_the_kubernetes_schema(variant: str):
    docs = render(VARIANTS.get(variant, DRAIN))
    assert docs
    for doc in docs:
        validate(doc)


def by_kind(docs: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


def test_defaults_deploy_every_component_with_probes_and_requests():
    docs = render({})
    workloads = by_kind(docs, "Deployment") | by_kind(docs, "DaemonSet") | by_kind(docs, "StatefulSet")
    assert set(workloads) == {
        "rel-denpex-server",
        "rel-denpex-worker",
        "rel-denpex-watcher",
        "rel-denpex-node-agent",
        "rel-denpex-redis",
    }
    for name, w in workloads.items():
        (container,) = w["spec"]["template"]["spec"]["containers"]
        assert container["resources"]["requests"], name
        if not name.endswith("worker"):
            assert "livenessProbe" in container, name
    server = workloads["rel-denpex-server"]["spec"]["template"]["spec"]["containers"][0]
    assert server["readinessProbe"]["httpGet"]["path"] == "/healthz"
    env = {
        e["name"]: e
        for e in workloads["rel-denpex-watcher"]["spec"]["template"]["spec"]["containers"][0]["env"]
    }
    assert env["DENPEX_URL"]["value"] == "http://rel-denpex-server:80"
    assert env["DENPEX_WEBHOOK_SECRET"]["valueFrom"]["secretKeyRef"]["name"] == "rel-denpex"
    assert env["REDIS_URL"]["value"] == "redis://rel-denpex-redis:6379/0"


def test_node_agent_has_only_cap_syslog():
    agent = by_kind(render({}), "DaemonSet")["rel-denpex-node-agent"]["spec"]["template"]["spec"]
    sc = agent["containers"][0]["securityContext"]
    assert sc["capabilities"] == {"drop": ["ALL"], "add": ["SYSLOG"]}
    assert sc["privileged"] is False and sc["allowPrivilegeEscalation"] is False
    assert (
        agent["automountServiceAccountToken"] is False and "hostPID" not in agent and "volumes" not in agent
    )
    assert agent["containers"][0]["ports"] == [{"name": "kernel-log", "containerPort": 8475}]
    filed = by_kind(render(VARIANTS["file-source"]), "DaemonSet")["rel-denpex-node-agent"]["spec"][
        "template"
    ]["spec"]
    assert filed["containers"][0]["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert filed["volumes"][0]["hostPath"]["path"] == "/var/log"


def rules(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for d in docs if d["kind"] in ("Role", "ClusterRole") for r in d["rules"]]


@pytest.mark.parametrize("variant", VARIANTS)
def test_rbac_is_read_only_and_never_touches_secrets(variant: str):
    for rule in rules(render(VARIANTS[variant])):
        assert "secrets" not in rule["resources"] and "*" not in rule["resources"]
        assert set(rule["verbs"]) <= {"get", "list", "watch"}
        assert "*" not in rule["apiGroups"]


def test_rbac_scope_follows_the_watched_namespaces():
    default = render({})
    assert set(by_kind(default, "ClusterRole")) == {"rel-denpex-jobs-reader"}
    assert not any("nodes/proxy" in r["resources"] for r in rules(default))
    namespaced = render(VARIANTS["namespaced"])
    assert by_kind(namespaced, "ClusterRole") == {}
    assert sorted(d["metadata"]["namespace"] for d in namespaced if d["kind"] == "Role") == [
        "denpex",
        "ml",
        "research",
    ]
    proxy = render(VARIANTS["node-proxy"])
    assert {"apiGroups": [""], "resources": ["nodes/proxy"], "verbs": ["get"]} in rules(proxy)


def test_the_drain_button_gets_its_own_account_with_get_and_patch_on_nodes_only():
    assert not by_kind(render({}), "ServiceAccount").keys() & {"rel-denpex-drain"}
    docs = render(DRAIN)
    cordon = by_kind(docs, "ClusterRole")["rel-denpex-node-cordon"]
    assert cordon["rules"] == [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "patch"]}]
    bound = by_kind(docs, "ClusterRoleBinding")["rel-denpex-node-cordon"]["subjects"]
    assert [s["name"] for s in bound] == ["rel-denpex-drain"]
    for name, role in by_kind(docs, "ClusterRole").items():  # the watcher and worker stay read-only
        if name != "rel-denpex-node-cordon":
            assert all(set(r["verbs"]) <= {"get", "list", "watch"} for r in role["rules"])
    server = by_kind(docs, "Deployment")["rel-denpex-server"]["spec"]["template"]["spec"]
    assert server["serviceAccountName"] == "rel-denpex-drain" and server["automountServiceAccountToken"]
    env = {e["name"]: e.get("value") for e in server["containers"][0]["env"]}
    assert env["DENPEX_DRAIN_ACTION"] == "kubernetes" and env["DENPEX_ADMINS"] == "U0ADMIN1,U0ADMIN2"
    default = by_kind(render({}), "Deployment")["rel-denpex-server"]["spec"]["template"]["spec"]
    assert default["automountServiceAccountToken"] is False and "serviceAccountName" not in default
    assert "DENPEX_DRAIN_ACTION" not in {e["name"] for e in default["containers"][0]["env"]}


def test_secrets_generated_or_supplied_or_brought():
    default = by_kind(render({}), "Secret")["rel-denpex"]["data"]
    assert set(default) == {"DENPEX_WEBHOOK_SECRET", "DENPEX_NODE_AGENT_TOKEN"}  # generated
    supplied = by_kind(render(VARIANTS["tokens"]), "Secret")["rel-denpex"]["data"]
    assert supplied["SLACK_BOT_TOKEN"] == "eG94Yi0x"  # base64 of xoxb-1
    brought = render(VARIANTS["own-redis-and-secret"])
    assert by_kind(brought, "Secret") == {} and by_kind(brought, "StatefulSet") == {}
    worker = by_kind(brought, "Deployment")["rel-denpex-worker"]["spec"]["template"]["spec"]["containers"][0]
    refs = {
        e["valueFrom"]["secretKeyRef"]["name"]
        for e in worker["env"]
        if "valueFrom" in e and "secretKeyRef" in e["valueFrom"]
    }
    assert refs == {"mine"}


def _leaf_paths(values: Any, prefix: str = "") -> list[str]:
    if (
        isinstance(values, dict)
        and values
        and prefix.split(".")[-1]
        not in {
            "resources",
            "requests",
            "limits",
            "nodeSelector",
            "affinity",
            "annotations",
            "podAnnotations",
        }
    ):
        return [p for k, v in values.items() for p in _leaf_paths(v, f"{prefix}.{k}" if prefix else k)]
    return [prefix]


def test_values_yaml_documents_and_uses_every_setting():
    text = (CHART / "values.yaml").read_text()
    values = yaml.safe_load(text)
    templates = "\n".join(p.read_text() for p in (CHART / "templates").iterdir())
    lines = text.splitlines()
    for path in _leaf_paths(values):
        parts = path.split(".")
        documented = False
        for depth in range(len(parts), 0, -1):  # the key or one of its parents carries a comment
            key = parts[depth - 1]
            idx = next(
                i
                for i, line in enumerate(lines)
                if re.match(rf"^{'  ' * (depth - 1)}{re.escape(key)}:", line)
            )
            if idx > 0 and lines[idx - 1].strip().startswith("#"):
                documented = True
                break
        assert documented, f"values.yaml: {path} has no comment"
        used = any(
            f".Values.{'.'.join(parts[:n])}" in templates
            for n in range(len(parts), 0, -1)
            if n >= 2 or len(parts) == 1
        )
        assert used, f"values.yaml: {path} is not used by any template"
