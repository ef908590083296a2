"""Fixtures of the Kubernetes tests: a fake API server per test, or a real cluster (marker k8s_live)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from kubernetes import client

from tests.fakes.k8s import FakeKube


@pytest.fixture
def kube() -> Iterator[FakeKube]:
    fake = FakeKube().start()
    yield fake
    fake.stop()


@pytest.fixture
def api(kube: FakeKube) -> Iterator[client.ApiClient]:
    api_client = kube.api_client()
    yield api_client
    api_client.close()


@pytest.fixture
def live_api() -> Iterator[client.ApiClient]:
    """The cluster of DENPEX_TEST_KUBECONFIG; tests using it carry `@pytest.mark.k8s_live`."""
    path = os.environ.get("DENPEX_TEST_KUBECONFIG")
    if not path:
        pytest.skip("DENPEX_TEST_KUBECONFIG is not set (no real cluster here)")
    from integrations.kubernetes import load_api_client

    api_client = load_api_client(path)
    yield api_client
    api_client.close()
