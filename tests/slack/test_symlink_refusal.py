"""`/denpex diagnose` for a job folder that is a link is refused at once, with a reply that says why
(issue 13: it was queued, and the collector, which does not follow links, failed on every retry)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import redis
from rq import Queue

from denpex.core.settings import Settings
from tests.slack.conftest import SlackStack
from tests.slack.test_commands_http import ack_text
from workers import store


@pytest.mark.parametrize(
    ("where", "job_id", "cluster", "expected"),
    [
        ("job folder out of the root", "5151", "ci", "is a link outside the log root"),
        ("cluster folder out of the root", "5151", "linked", "is a link outside the log root"),
        ("job folder to another job's", "6161", "ci", "is a link;"),
    ],
)
async def test_a_linked_job_folder_is_refused_at_once(
    slack_stack: SlackStack,
    settings: Settings,
    redis_client: redis.Redis,
    tmp_path: Path,
    where: str,
    job_id: str,
    cluster: str,
    expected: str,
) -> None:
    root = settings.log_root
    assert root is not None
    outside = tmp_path / "outside"
    (outside / "5151").mkdir(parents=True)
    (outside / "5151" / "rank0.log").write_text("[rank0]: secret stuff\n")
    os.symlink(outside / "5151", root / "ci" / "5151")
    os.symlink(outside, root / "linked")
    os.symlink(root / "ci" / "4242", root / "ci" / "6161")

    status, text = await slack_stack.command(f"diagnose {job_id} --cluster {cluster}")
    assert status == 200 and f"Diagnosing job `{job_id}`" in ack_text(text)
    fake = slack_stack.fake
    (reply,) = await fake.wait_for_async(lambda: fake.responses, what=f"reply for a {where}")
    assert expected in reply["text"] and "Denpex does not follow links" in reply["text"], where
    assert f"`{cluster}/{job_id}/`" in reply["text"]  # says where the logs must go instead
    assert reply.get("response_type", "ephemeral") == "ephemeral"
    assert Queue("denpex-slack-test", connection=redis_client).count == 0
    work = f"files:{cluster}:{job_id}"
    assert store.Store(redis_client, result_ttl=60).load_job(work) is None


async def test_a_real_job_folder_is_still_queued(slack_stack: SlackStack, redis_client: redis.Redis) -> None:
    await slack_stack.command("diagnose 4242 --cluster ci")
    queue = Queue("denpex-slack-test", connection=redis_client)
    await slack_stack.fake.wait_for_async(lambda: queue.count, what="queued RQ job")
    assert slack_stack.fake.responses == []
