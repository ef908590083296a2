"""Failover fixtures: a real Sentinel-managed Redis (tests/failover/cluster.py) and the pipeline's
fake Slack and log root, reused from tests/pipeline."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.failover.cluster import SentinelCluster
from tests.pipeline.conftest import fake_slack, log_root

__all__ = ["fake_slack", "log_root"]


@pytest.fixture
def sentinel_cluster() -> Iterator[SentinelCluster]:
    cluster = SentinelCluster()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
