"""Kubernetes integration: the failure watcher, the evidence collector and the node kernel-log agent.

Only this package imports the `kubernetes` client (checked by import-linter). Everything takes an
`ApiClient` (or settings) as an argument; `load_api_client()` builds one the standard way. The
client library is imported when it is used, not with the package: the server imports the wire
model (`report`) and must not pay for the client.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kubernetes import client
    from kubernetes.client import ApiClient as ApiClient  # for annotations outside this package

    from denpex.core.settings import Settings
    from integrations.base import Collector
    from integrations.kubernetes.throttle import RateLimit


def load_api_client(kubeconfig: str | None = None, limit: RateLimit | None = None) -> client.ApiClient:
    """KUBECONFIG (or `kubeconfig`) if set or ~/.kube/config exists, else the in-cluster service account.

    With `limit`, every request waits for its token (`throttle.ThrottledApiClient`).
    Raises `kubernetes.config.ConfigException` when neither is available.
    """
    from kubernetes import client, config

    from integrations.kubernetes.throttle import ThrottledApiClient

    cfg = client.Configuration()
    # KUBECONFIG is read now, not when the client library was imported (its default is frozen then)
    kubeconfig = kubeconfig or os.environ.get("KUBECONFIG") or None
    try:
        config.load_kube_config(config_file=kubeconfig, client_configuration=cfg)
    except (config.ConfigException, FileNotFoundError, TypeError):
        config.load_incluster_config(client_configuration=cfg)
    return client.ApiClient(cfg) if limit is None else ThrottledApiClient(cfg, limit=limit)


def try_api_client(kubeconfig: str | None = None) -> client.ApiClient | None:
    """`load_api_client`, or None when no cluster is configured (neither kubeconfig nor in-cluster)."""
    from kubernetes.config import ConfigException

    try:
        return load_api_client(kubeconfig)
    except ConfigException:
        return None


def preload() -> None:
    """Import the client library and the collector now (`denpex worker`'s supervisor calls this before
    it forks): a work-horse forked per job would otherwise import `kubernetes.client` (seconds of CPU)
    once per job. Nothing is configured or connected here: a socket must not be shared across forks."""
    import kubernetes.client
    import kubernetes.config  # noqa: F401

    import integrations.kubernetes.collector  # noqa: F401


def create_collector(settings: Settings) -> Collector:
    """The worker's factory (see `workers.collect.COLLECTORS`): cluster found the standard way."""
    from kubernetes.config import ConfigException

    from integrations.kubernetes.collector import KubernetesCollector
    from integrations.kubernetes.kernel import KernelLogOptions
    from integrations.kubernetes.throttle import RateLimit

    try:
        api = load_api_client(limit=RateLimit())  # client-side QPS/burst, as client-go's rest.Config
    except ConfigException as exc:
        raise RuntimeError(f"Kubernetes is not configured: {exc}") from exc
    token = settings.node_agent_token.get_secret_value() if settings.node_agent_token else None
    kernel = KernelLogOptions(token=token, agent_namespace=settings.node_agent_namespace)
    from integrations.kubernetes.dumps import DumpOptions

    dumps = DumpOptions(byte_cap=settings.fr_max_bytes)
    return KubernetesCollector(api, kernel=kernel, limit_bytes=settings.rank_byte_cap, dumps=dumps)


def __getattr__(name: str) -> object:
    """Lazy exports, so importing the package does not import every module."""
    if name == "KubernetesCollector":
        from integrations.kubernetes.collector import KubernetesCollector

        return KubernetesCollector
    raise AttributeError(name)


__all__ = ["KubernetesCollector", "create_collector", "load_api_client", "try_api_client"]
