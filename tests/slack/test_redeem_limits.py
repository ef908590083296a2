"""`/denpex redeem` attempt limits (issue 13): wrong codes are counted per user and per workspace in
Redis, atomically with the redemption; past a limit even a right code waits until the window passes.

Through the real Slack app (Bolt behind the server's signature check) and the fake Slack, on a real
redis-server; the quota's clock is injected, so nothing depends on the date or on how long a run takes.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis

from denpex.core.plans import RedemptionStatus
from denpex.core.settings import Settings
from tests.fakes.slack import FakeSlack
from tests.slack.conftest import SlackStack, running_stack
from tests.slack.test_commands_http import ack_text
from workers.quota import Quota, RedeemLimits, Redemption, Throttled

T0 = 1_800_000_000.0  # 2027-01-15 08:00 UTC
WRONG = "DPX-AAAAA-BBBBB-CCCCC-DDDDD"  # well-formed, never minted


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def stack(
    settings: Settings, fake_slack: FakeSlack, masker: Any, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[SlackStack]:
    """`denpex serve`'s app as the other Slack tests run it, its quota on the injected clock."""
    import bot.slack.app

    monkeypatch.setattr(bot.slack.app, "Quota", lambda client: Quota(client, clock=clock))
    async with running_stack(settings, fake_slack, masker) as running:
        yield running


async def redeem(stack: SlackStack, code: str, user: str = "U0ALICE") -> str:
    status, body = await stack.command(f"redeem {code}", user_id=user)
    assert status == 200
    return ack_text(body)


async def test_five_wrong_codes_then_even_the_right_one_waits(
    stack: SlackStack, redis_client: redis.Redis, clock: Clock
) -> None:
    (code,) = Quota(redis_client).create_codes(days=14, daily_limit=50)
    for typed in (WRONG, "DPX-SHORT", WRONG, WRONG, WRONG):  # malformed codes count too
        assert "not valid" in await redeem(stack, typed)
    reply = await redeem(stack, code)  # the right code, after the limit
    assert reply.startswith("Too many wrong codes; try again in 10 minutes")
    assert not Quota(redis_client, clock=clock).status("T0DENPEX").is_scale
    clock.now += 4 * 60
    assert "try again in 6 minutes" in await redeem(stack, code)
    assert "not valid" in await redeem(stack, WRONG, user="U0BOB")  # the limit is per user
    clock.now += 6 * 60  # the first wrong code leaves the 10-minute window
    assert "Scale" in await redeem(stack, code)
    assert Quota(redis_client, clock=clock).status("T0DENPEX").is_scale


async def test_workspace_limit_spans_users(
    stack: SlackStack, redis_client: redis.Redis, clock: Clock
) -> None:
    (code,) = Quota(redis_client).create_codes(days=14, daily_limit=50)
    for i in range(20):  # 20 wrong codes from 5 users, none of them over the per-user limit
        clock.now += 1
        assert "not valid" in await redeem(stack, WRONG, user=f"U0USER{i % 5}")
    reply = await redeem(stack, code, user="U0NEWCOMER")
    assert "Too many wrong codes; try again in 60 minutes" in reply
    clock.now = T0 + 3600  # the first of the 20 (at T0 + 1) is still within the hour
    assert "try again in 1 minute" in await redeem(stack, code, user="U0NEWCOMER")
    clock.now = T0 + 3601  # now it has left: one more attempt is allowed
    assert "Scale" in await redeem(stack, code, user="U0NEWCOMER")


def test_limits_come_from_settings() -> None:
    assert RedeemLimits.from_settings(Settings()) == RedeemLimits(5, 600, 20, 3600)
    custom = Settings(DENPEX_REDEEM_USER_ATTEMPTS=2, DENPEX_REDEEM_TEAM_WINDOW=60)
    assert RedeemLimits.from_settings(custom) == RedeemLimits(2, 600, 20, 60)


def test_twenty_concurrent_wrong_codes_count_atomically(redis_url: str, redis_client: redis.Redis) -> None:
    limits = RedeemLimits(5, 600, 20, 3600)
    barrier = threading.Barrier(20)
    results: list[Redemption | Throttled | None] = [None] * 20

    def attempt(i: int) -> None:
        client = redis.Redis.from_url(redis_url)
        quota = Quota(client, clock=lambda: T0)
        barrier.wait(timeout=10)
        results[i] = quota.redeem_as("TRACE", "U0MALLORY", WRONG, limits)
        client.close()

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    wrong = [r for r in results if isinstance(r, Redemption) and r.status is RedemptionStatus.unknown]
    throttled = [r for r in results if isinstance(r, Throttled)]
    assert (len(wrong), len(throttled)) == (5, 15)
    assert {t.minutes for t in throttled} == {10}


def test_refused_attempts_do_not_extend_the_wait(redis_client: redis.Redis) -> None:
    now = [T0]
    quota = Quota(redis_client, clock=lambda: now[0])
    limits = RedeemLimits(5, 600, 20, 3600)
    for _ in range(5):
        assert isinstance(quota.redeem_as("TW", "U1", WRONG, limits), Redemption)
    for step in range(1, 10):  # hammering while refused
        now[0] = T0 + step * 60
        result = quota.redeem_as("TW", "U1", WRONG, limits)
        assert isinstance(result, Throttled) and result.minutes == 10 - step
    now[0] = T0 + 600
    assert isinstance(quota.redeem_as("TW", "U1", WRONG, limits), Redemption)
    # the unlimited path (CLI, tests) is not throttled
    assert Quota(redis_client, clock=lambda: T0).redeem("TW", WRONG).status is RedemptionStatus.unknown
