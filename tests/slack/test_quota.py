"""Quotas and evaluation codes on a real redis-server, including 20-way races."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import redis

from workers.quota import PREFIX, Quota, hash_code, normalize_code


def _race(n: int, redis_url: str, action: Callable[[Quota], Any]) -> list[Any]:
    """Run `action` in n threads, each with its own connection, released together by a barrier."""
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n

    def run(i: int) -> None:
        client = redis.Redis.from_url(redis_url)
        quota = Quota(client)
        barrier.wait(timeout=10)
        results[i] = action(quota)
        client.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return results


def test_free_plan_three_a_day_then_note(redis_client: redis.Redis) -> None:
    quota = Quota(redis_client)
    decisions = [quota.consume("T1") for _ in range(4)]
    assert [d.allowed for d in decisions] == [True, True, True, False]
    assert [d.remaining for d in decisions[:3]] == [2, 1, 0]
    assert decisions[3].note and "redeem" in decisions[3].note
    assert quota.consume("T2").allowed  # per workspace
    assert quota.status("T1").used == 3


def test_twenty_concurrent_requests_take_the_last_unit_once(
    redis_url: str, redis_client: redis.Redis
) -> None:
    quota = Quota(redis_client)
    quota.consume("TRACE")
    quota.consume("TRACE")  # one unit left
    results = _race(20, redis_url, lambda q: q.consume("TRACE"))
    assert sum(d.allowed for d in results) == 1
    assert quota.status("TRACE").used == 3


def test_twenty_concurrent_redemptions_of_one_code(redis_url: str, redis_client: redis.Redis) -> None:
    (code,) = Quota(redis_client).create_codes(days=14, daily_limit=50)
    teams = iter(f"T{i}" for i in range(20))
    lock = threading.Lock()

    def redeem(q: Quota) -> tuple[str, str]:
        with lock:
            team = next(teams)
        return team, q.redeem(team, code).status

    results = _race(20, redis_url, redeem)
    winners = [team for team, status in results if status == "ok"]
    assert len(winners) == 1
    assert {status for _, status in results} == {"ok", "used"}
    status = Quota(redis_client).status(winners[0])
    assert status.is_scale and status.limit == 50


def test_code_is_stored_hashed_and_moves_to_scale(redis_client: redis.Redis) -> None:
    now = [1_800_000_000.0]
    quota = Quota(redis_client, clock=lambda: now[0])
    codes = quota.create_codes(days=14, daily_limit=50, count=3)
    assert len(set(codes)) == 3
    dump = b" ".join(redis_client.keys(f"{PREFIX}*"))
    for key in redis_client.keys(f"{PREFIX}*"):
        dump += b" ".join(redis_client.hvals(key))
    assert not any(normalize_code(c).encode() in dump for c in codes)
    assert redis_client.exists(Quota.code_key(hash_code(codes[0])))
    for _ in range(3):
        quota.consume("TS")
    assert not quota.consume("TS").allowed
    # typed sloppily: lower case, spaces, no dashes
    result = quota.redeem("TS", codes[0].lower().replace("-", " "))
    assert result.ok and result.daily_limit == 50
    assert quota.consume("TS").allowed and quota.status("TS").remaining == 46
    assert quota.redeem("TS2", codes[0]).status == "used"
    assert quota.redeem("TS", "DPX-NOPE").status == "unknown"
    # a second code extends rather than overlaps
    second = quota.redeem("TS", codes[1])
    assert second.expires_at == result.expires_at + 14 * 86400
    now[0] += 29 * 86400  # both codes' 28 days are over
    assert not quota.status("TS").is_scale
    now[0] += 200 * 86400
    assert quota.redeem("TS", codes[2]).status == "expired"


def test_quota_resets_each_utc_day(redis_client: redis.Redis) -> None:
    now = [1_800_000_000.0]
    quota = Quota(redis_client, clock=lambda: now[0])
    for _ in range(3):
        quota.consume("TD")
    assert not quota.consume("TD").allowed
    now[0] += 86400
    assert quota.consume("TD").allowed
