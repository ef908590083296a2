"""Kubernetes integration: the failure watcher, the evidence collector and the node kernel-log agent.

Only this package imports the `kubernetes` client (checked by import-linter). Everything takes an
`ApiClient` (or settings) as an argument; `load_api_client()` builds one the standard way.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from kubernetes import client, config

if TYPE_CHECKING:
    from denpex.settings import Settings
    from integrations.base import Collector


def load_api_client(kubeconfig: str | None = None) -> client.ApiClient:
    """KUBECONFIG (or `kubeconfig`) if set or ~/.kube/config exists, else the in-cluster service account.

    Raises `kubernetes.config.ConfigException` when neither is available.
    """
    cfg = client.Configuration()
    # KUBECONFIG is read now, not when the client library was imported (its default is frozen then)
    kubeconfig = kubeconfig or os.environ.get("KUBECONFIG") or None
    try:
        config.load_kube_config(config_file=kubeconfig, client_configuration=cfg)
    except (config.ConfigException, FileNotFoundError, TypeError):
        config.load_incluster_config(client_configuration=cfg)
    return client.ApiClient(cfg)


class NotConfigured(LookupError):
    """No cluster found: neither KUBECONFIG (~/.kube/config) nor an in-cluster service account."""


def job_id_of(namespace: str, name: str) -> str | None:
    """The pipeline's job id for a training job named `name` in `namespace` (`<name>` for a batch Job,
    `<Kind>/<name>` for a PyTorchJob or JobSet), or None when no such job exists."""
    from integrations.kubernetes.api import find_owner

    try:
        api = load_api_client()
    except config.ConfigException as exc:
        raise NotConfigured(str(exc)) from exc
    with api:
        owner = find_owner(api, namespace, name)
    if owner is None:
        return None
    return owner.name if owner.kind == "Job" else f"{owner.kind}/{owner.name}"


def create_collector(settings: Settings) -> Collector:
    """The worker's factory (see `workers.collect.COLLECTORS`): cluster found the standard way."""
    from integrations.kubernetes.collector import KubernetesCollector

    try:
        api = load_api_client()
    except config.ConfigException as exc:
        raise RuntimeError(f"Kubernetes is not configured: {exc}") from exc
    token = settings.node_agent_token.get_secret_value() if settings.node_agent_token else None
    return KubernetesCollector(
        api,
        node_agent_token=token,
        node_agent_namespace=settings.node_agent_namespace,
        limit_bytes=settings.rank_byte_cap,
    )


def __getattr__(name: str) -> object:
    """Lazy exports, so importing the package does not import every module."""
    if name == "KubernetesCollector":
        from integrations.kubernetes.collector import KubernetesCollector

        return KubernetesCollector
    raise AttributeError(name)


__all__ = ["KubernetesCollector", "NotConfigured", "create_collector", "job_id_of", "load_api_client"]
