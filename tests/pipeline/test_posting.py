"""Posting exactly once through the real slack_sdk client against the fake Slack Web API.

The crash windows are reproduced as they happen: Slack answers (or hangs and then posts) but the
worker never records the ts; the retry must find the message by its metadata instead of posting again.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
import redis
from slack_sdk.errors import SlackApiError

from denpex.core.models import Diagnosis, EntryRef, Initiating, JobRef, MissingEvidence, Scheduler
from integrations.slack_client import make_web_client
from tests.fakes.render import PlainRenderer
from workers.ports import QuotaDecision
from workers.posting import ROOT_EVENT, SlackPoster
from workers.store import Store

pytestmark = pytest.mark.timeout(60)

JOB = JobRef(scheduler=Scheduler.slurm, cluster="hpc", job_id="42", state="FAILED")
WORK = JOB.key
DIAG = Diagnosis(
    category="gpu_oom",
    confidence=0.9,
    entry=EntryRef(id="x", title="CUDA OOM <@channel>"),
    initiating=Initiating(rank=3, node="gpu-02"),
    root_cause="too big",
    fix="smaller batch",
    missing_evidence=[MissingEvidence(what="kernel log of gpu-01", next_action="run dmesg")],
)
ALLOWED = QuotaDecision(allowed=True)


class TwoReplies(PlainRenderer):
    def thread_messages(self, job: JobRef, diagnosis: Diagnosis) -> list[Any]:
        first = super().thread_messages(job, diagnosis)
        return [*first, first[0].model_copy(update={"text": "second reply"})]


def poster(fake_slack: Any, redis_client: redis.Redis, timeout: int = 5) -> SlackPoster:
    client = make_web_client(fake_slack.bot_token, fake_slack.base_url.rstrip("/"), timeout=timeout)
    return SlackPoster(client, "C0ALERTS", Store(redis_client, result_ttl=600), TwoReplies())


def replies(fake_slack: Any) -> list[dict[str, Any]]:
    (root,) = fake_slack.roots("C0ALERTS")
    return [m for m in fake_slack.thread(root["ts"]) if m["ts"] != root["ts"]]


def test_posts_root_and_thread_once_and_is_idempotent(fake_slack: Any, redis_client: redis.Redis) -> None:
    p = poster(fake_slack, redis_client)
    channel, ts = p.post(WORK, JOB, DIAG, ALLOWED)
    assert p.post(WORK, JOB, DIAG, ALLOWED) == (channel, ts)
    assert [r["ts"] for r in fake_slack.roots("C0ALERTS")] == [ts]
    assert [m["text"] for m in replies(fake_slack)][1] == "second reply"
    assert "<@channel>" not in fake_slack.roots("C0ALERTS")[0]["text"]  # escaped: &lt;@channel&gt;


def test_root_posted_but_ts_not_recorded_is_found_not_reposted(
    fake_slack: Any, redis_client: redis.Redis
) -> None:
    store = Store(redis_client, result_ttl=600)
    store.update_post(WORK, status="posting", posting_at=time.time())
    client = make_web_client(fake_slack.bot_token, fake_slack.base_url)
    crashed = client.chat_postMessage(
        channel="C0ALERTS",
        text="root from the crashed attempt",
        metadata={"event_type": ROOT_EVENT, "event_payload": {"job_key": WORK}},
    )
    _, ts = poster(fake_slack, redis_client).post(WORK, JOB, DIAG, ALLOWED)
    assert ts == crashed["ts"]
    assert len(fake_slack.roots("C0ALERTS")) == 1
    assert len(replies(fake_slack)) == 2


def test_reply_posted_but_not_recorded_is_not_duplicated(fake_slack: Any, redis_client: redis.Redis) -> None:
    p = poster(fake_slack, redis_client)
    p.post(WORK, JOB, DIAG, ALLOWED)
    # roll the record back to "reply 1 was being posted" although Slack has it: the crash window
    p.store.update_post(WORK, status="posting", replies=1, reply_posting=1)
    p.post(WORK, JOB, DIAG, ALLOWED)
    assert len(replies(fake_slack)) == 2


def test_rate_limited_is_retried_and_posted_once(fake_slack: Any, redis_client: redis.Redis) -> None:
    fake_slack.fail_next(2, status=429, retry_after=1, method="chat.postMessage")
    poster(fake_slack, redis_client).post(WORK, JOB, DIAG, ALLOWED)
    assert len(fake_slack.roots("C0ALERTS")) == 1 and len(replies(fake_slack)) == 2
    assert [c.status for c in fake_slack.calls("chat.postMessage")][:2] == [429, 429]


def test_server_error_then_retry_posts_once(fake_slack: Any, redis_client: redis.Redis) -> None:
    fake_slack.fail_next(1, status=500, method="chat.postMessage")
    p = poster(fake_slack, redis_client)
    with pytest.raises(SlackApiError):
        p.post(WORK, JOB, DIAG, ALLOWED)
    p.post(WORK, JOB, DIAG, ALLOWED)  # what the RQ retry does
    assert len(fake_slack.roots("C0ALERTS")) == 1 and len(replies(fake_slack)) == 2


def test_timeout_after_slack_posted_is_recovered_without_duplicate(
    fake_slack: Any, redis_client: redis.Redis
) -> None:
    fake_slack.hang_next(2.0, method="chat.postMessage")  # Slack posts, but after our 1 s timeout
    p = poster(fake_slack, redis_client, timeout=1)
    with pytest.raises(Exception):  # noqa: B017 - slack_sdk raises the socket's timeout error
        p.post(WORK, JOB, DIAG, ALLOWED)
    fake_slack.wait_for(lambda: fake_slack.roots("C0ALERTS"), timeout=10, what="the late post")
    p.post(WORK, JOB, DIAG, ALLOWED)
    assert len(fake_slack.roots("C0ALERTS")) == 1 and len(replies(fake_slack)) == 2


def test_quota_out_posts_root_only(fake_slack: Any, redis_client: redis.Redis) -> None:
    decision = QuotaDecision(allowed=False, note="Daily quota used up; /denpex redeem <code> for more.")
    poster(fake_slack, redis_client).post(WORK, JOB, None, decision)
    (root,) = fake_slack.roots("C0ALERTS")
    assert "quota" in root["text"].lower() and replies(fake_slack) == []
