"""Quota writes under Sentinel are on the replica (`WAIT`) before the caller acts on them.

A reserved or committed unit, a redemption or a counted wrong code that the master acknowledged but
lost in a failover would come back: a free workspace would get a fourth diagnosis, a code could be
redeemed twice. So every quota script is followed by the replication mark and `WAIT`, as admission
and the post journal do; counted on the real primary with MONITOR (deterministic: no timing).
"""

from __future__ import annotations

from typing import Any

import pytest
import redis

from tests.failover.cluster import MASTER, SentinelCluster
from workers.quota import Quota
from workers.redisconn import REPLICATION_MARK, RedisTarget, sync_client

pytestmark = pytest.mark.timeout(90)

END = "denpex-test-end-of-capture"


def primary_commands(cluster: SentinelCluster, run: Any) -> list[str]:
    """Names of the commands clients sent the primary while `run()` ran, in order."""
    marker, watcher = cluster.client(cluster.primary_port), cluster.client(cluster.primary_port)
    marker.ping()
    with watcher.monitor() as monitor:
        run()
        marker.echo(END)
        names = []
        for command in monitor.listen():
            if END in command["command"]:
                break
            if command["client_type"] != "lua" and command["client_port"] != "":
                names.append(command["command"])
    marker.close()
    watcher.close()
    return names


def test_every_quota_write_waits_for_the_replica(sentinel_cluster: SentinelCluster) -> None:
    cluster = sentinel_cluster
    target = RedisTarget(sentinels=tuple(("127.0.0.1", p) for p in cluster.sentinel_ports), master=MASTER)
    client = sync_client(target)
    try:
        quota = Quota(client, clock=lambda: 1_800_000_000.0)
        code = quota.create_codes()[0]
        quota.consume("T0")  # scripts loaded, connection made: what follows is steady state

        def writes() -> None:
            assert quota.reserve("T1", "r1").allowed
            assert quota.commit("r1")
            assert quota.reserve("T1", "r2").allowed
            assert quota.release("r2")
            assert quota.redeem("T1", code).status.value == "ok"

        seen = primary_commands(cluster, writes)
        scripts_and_waits: list[str] = []
        for command in seen:
            name = command.split()[0].upper()
            if name in ("EVALSHA", "WAIT") and (not scripts_and_waits or scripts_and_waits[-1] != name):
                scripts_and_waits.append(name)
        assert scripts_and_waits == ["EVALSHA", "WAIT"] * 5
        assert sum(REPLICATION_MARK in c for c in seen) == 5
        replica = cluster.client(cluster.replica_port)
        assert replica.exists(Quota.plan_key("T1"))  # the redemption is on the replica
        replica.close()
    finally:
        client.close()


def test_without_sentinel_quota_never_waits(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    try:
        quota = Quota(client)
        assert quota.reserve("T1", "r1").allowed and quota.commit("r1")
        assert client.get(REPLICATION_MARK) is None  # URL mode: no mark, no WAIT
    finally:
        client.close()
