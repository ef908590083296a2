"""The Helm chart's Sentinel values reach the server, the workers and the watcher.

Rendered by Helm's own engine and validated against the Kubernetes models, as tests/k8s does; the
Sentinel password comes from an existing Secret (never a value in the chart), and no bundled Redis
runs when Sentinels are set.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("helm_python", reason="helm-python-sdk (dev extra) renders the chart")

from tests.k8s.test_helm_chart import render, validate

SENTINEL_VALUES = {
    "redis": {
        "sentinels": ["s0.infra:26379", "s1.infra:26379", "s2.infra:26379"],
        "sentinelMaster": "denpex-master",
        "sentinelPassword": {"existingSecret": "redis-sentinel", "key": "password"},
        "url": "redis://:datapw@ignored:6379/2",
    }
}


def containers_env(docs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Env of the first container of each Deployment, by component."""
    out: dict[str, dict[str, Any]] = {}
    for doc in docs:
        if doc["kind"] == "Deployment":
            component = doc["metadata"]["labels"]["app.kubernetes.io/component"]
            env = doc["spec"]["template"]["spec"]["containers"][0].get("env", [])
            out[component] = {e["name"]: e for e in env}
    return out


def test_sentinel_values_are_wired_into_server_worker_and_watcher() -> None:
    docs = render(SENTINEL_VALUES)
    for doc in docs:
        validate(doc)
    assert not [d for d in docs if d["kind"] == "StatefulSet"], "no bundled Redis with Sentinels"
    envs = containers_env(docs)
    assert {"server", "worker", "watcher"} <= envs.keys()
    for component in ("server", "worker", "watcher"):
        env = envs[component]
        assert env["DENPEX_REDIS_SENTINELS"]["value"] == "s0.infra:26379,s1.infra:26379,s2.infra:26379"
        assert env["DENPEX_REDIS_SENTINEL_MASTER"]["value"] == "denpex-master"
        ref = env["DENPEX_REDIS_SENTINEL_PASSWORD"]["valueFrom"]["secretKeyRef"]
        assert (ref["name"], ref["key"]) == ("redis-sentinel", "password")
        assert env["REDIS_URL"]["value"] == "redis://:datapw@ignored:6379/2"


def test_without_sentinels_nothing_changes() -> None:
    envs = containers_env(render({}))
    for env in envs.values():
        assert "DENPEX_REDIS_SENTINELS" not in env and "DENPEX_REDIS_SENTINEL_PASSWORD" not in env
        assert env["REDIS_URL"]["value"].startswith("redis://rel-denpex-redis:6379/")
