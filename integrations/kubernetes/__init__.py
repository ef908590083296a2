"""Kubernetes integration: the failure watcher, the evidence collector and the node kernel-log agent.

Only this package imports the `kubernetes` client (checked by import-linter). Everything takes an
`ApiClient` (or settings) as an argument; `load_api_client()` builds one the standard way.
"""

from __future__ import annotations

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
    try:
        config.load_kube_config(config_file=kubeconfig, client_configuration=cfg)
    except (config.ConfigException, FileNotFoundError, TypeError):
        config.load_incluster_config(client_configuration=cfg)
    return client.ApiClient(cfg)


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


__all__ = ["KubernetesCollector", "create_collector", "load_api_client"]
