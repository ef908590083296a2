"""Quotas and evaluation codes on a real redis-server, including 20-way races."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
import redis
from rq import Queue

from denpex.core.settings import Settings
from tests.fakes.slack import FakeSlack
from tests.slack.conftest import running_stack
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


# ---------------------------------------------------------------- reservations (issue 13)
DAY0 = 1_800_000_000.0  # 2027-01-15 08:00 UTC; every test below runs on this injected clock


def test_reserve_holds_units_before_posting_idempotently(redis_client: redis.Redis) -> None:
    quota = Quota(redis_client, clock=lambda: DAY0)
    assert [quota.reserve("TR", f"job-{i}").allowed for i in range(3)] == [True, True, True]
    again = quota.reserve("TR", "job-0")  # a retry of the same RQ job: no second unit
    assert again.allowed and quota.status("TR").reserved == 3
    refused = quota.reserve("TR", "job-3")
    assert not refused.allowed and refused.note and "redeem" in refused.note
    assert not quota.consume("TR").allowed  # held units are not available to anyone
    status = quota.status("TR")
    assert (status.used, status.reserved, status.remaining) == (0, 3, 0)
    assert quota.commit("job-0") and not quota.commit("job-0")  # idempotent
    assert quota.release("job-1") and not quota.release("job-1")
    assert not quota.release("job-0")  # a posted unit stays used
    status = quota.status("TR")
    assert (status.used, status.reserved, status.remaining) == (1, 1, 1)
    assert quota.reserve("TR", "job-1").allowed  # a released job asked again takes a unit again
    assert not quota.reserve("TR", "job-4").allowed
    assert not quota.commit("never-reserved") and not quota.release("never-reserved")


def test_lapsed_reservations_are_reclaimed(redis_client: redis.Redis) -> None:
    now = [DAY0]
    quota = Quota(redis_client, clock=lambda: now[0])
    for i in range(3):
        quota.reserve("TL", f"crashed-{i}", ttl=600)  # workers that died without releasing
    assert not quota.reserve("TL", "next", ttl=600).allowed
    now[0] += 599
    assert quota.status("TL").reserved == 3
    now[0] += 2
    assert quota.status("TL").remaining == 3
    assert quota.reserve("TL", "next", ttl=600).allowed
    assert quota.status("TL").reserved == 1
    # a post that lands after its reservation lapsed still counts: it was posted
    assert quota.commit("crashed-0") and quota.status("TL").used == 1


def test_commit_counts_on_the_day_it_was_reserved(redis_client: redis.Redis) -> None:
    midnight = (DAY0 // 86400 + 1) * 86400
    now = [midnight - 30]
    quota = Quota(redis_client, clock=lambda: now[0])
    quota.reserve("TM", "late-job")
    now[0] = midnight + 30  # posted after 00:00 UTC
    assert quota.commit("late-job")
    assert quota.status("TM").used == 0 and quota.status("TM").remaining == 3
    now[0] = midnight - 31
    assert quota.status("TM").used == 1


def test_twenty_concurrent_reservations_take_the_last_unit_once(
    redis_url: str, redis_client: redis.Redis
) -> None:
    quota = Quota(redis_client)
    quota.reserve("TRR", "a")
    quota.consume("TRR")  # one unit left
    ids = iter(f"job-{i}" for i in range(20))
    lock = threading.Lock()

    def reserve(q: Quota) -> bool:
        with lock:
            rid = next(ids)
        return q.reserve("TRR", rid).allowed

    assert sum(_race(20, redis_url, reserve)) == 1
    status = quota.status("TRR")
    assert (status.used, status.reserved) == (1, 2)


async def test_diagnose_command_is_refused_while_the_units_are_held(
    settings: Settings,
    fake_slack: FakeSlack,
    masker: Any,
    redis_client: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three diagnoses in progress (reserved, not yet posted) leave nothing for a fourth request: it
    is refused at once with the over-quota text and never queued."""
    import bot.slack.app

    monkeypatch.setattr(bot.slack.app, "Quota", lambda client: Quota(client, clock=lambda: DAY0))
    quota = Quota(redis_client, clock=lambda: DAY0)
    for i in range(3):
        assert quota.reserve("T0DENPEX", f"in-progress-{i}").allowed
    async with running_stack(settings, fake_slack, masker) as stack:
        await stack.command("diagnose 4242 --cluster ci")
        reply = await fake_slack.wait_for_async(lambda: fake_slack.responses, what="respond")
    assert "free diagnoses" in reply[0]["text"] and "/denpex redeem" in reply[0]["text"]
    assert Queue(settings.queue_name, connection=redis_client).count == 0
    quota.release("in-progress-0")
    async with running_stack(settings, fake_slack, masker) as stack:
        await stack.command("diagnose 4242 --cluster ci")
        await fake_slack.wait_for_async(
            lambda: Queue(settings.queue_name, connection=redis_client).count, what="queued"
        )
