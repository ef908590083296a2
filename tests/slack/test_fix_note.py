"""The thread's "Fixed — how?" button and modal (issue 17): jobs run through the real pipeline (engine,
Block Kit, real Redis, the fake Slack); the real Slack app answers signed `block_actions` and
`view_submission` payloads over HTTP; the note is masked and shown under "Seen before" of the next
thread of the same failure mode."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlencode

import pytest
import redis

from bot.slack.fixnote import FIX_MODAL, NOTE_ACTION, NOTE_BLOCK
from bot.slack.render import FIX_ACTION, FIX_BLOCK, BlockKitRenderer
from denpex.core.settings import Settings
from denpex.core.texts.incidents import SEEN_HEADING
from knowledge.engine import Engine
from tests.fakes.slack import FakeSlack, payloads
from tests.pipeline.test_incidents import DAY0, GPU07, HOUR, node_section, record_job
from tests.slack.conftest import SlackStack
from workers.collect import CollectorRegistry
from workers.context import WorkerContext
from workers.incidents import IncidentBook
from workers.pipeline import Outcome, process
from workers.quota import Quota

pytestmark = pytest.mark.timeout(180)

TEAM = "T0DENPEX"
#: a GitHub token of the real shape (ghp_ + 36 characters), typed into the modal by mistake
SECRET = "ghp_R3alist1cL00kingT0kenV4lue0123456789"
FORM = "application/x-www-form-urlencoded"


@pytest.fixture(scope="module")
def engine(masker: Any) -> Engine:
    return Engine.load(masker=masker)


def worker(settings: Settings, fake: FakeSlack, client: redis.Redis, engine: Engine) -> WorkerContext:
    """The worker as `denpex worker` builds it: the thread gets "Fixed — how?" while on Scale."""
    quota = Quota(client)
    renderer = BlockKitRenderer(engine.entries, history_on=lambda: quota.status(TEAM).is_scale)
    return WorkerContext(
        settings=settings,
        redis=client,
        masker=engine.masker,
        renderer=renderer,
        collectors=CollectorRegistry(settings),
        quota=quota,
        slack=fake.web_client(),
        channel="C0ALERTS",
        team_id=TEAM,
        engine=engine,
    )


def run_job(ctx: WorkerContext, fake: FakeSlack, job_id: str, at: float) -> str:
    """One GPU07 job (gpu-07's GPU falls off the bus) through the pipeline; its root ts."""
    assert ctx.settings.log_root is not None
    work = record_job(ctx.redis, ctx.settings.log_root, job_id, at, **GPU07)
    assert process(ctx, work) == Outcome.posted
    return next(r["ts"] for r in fake.roots("C0ALERTS") if r["text"].split()[1] == job_id)


def fix_button(fake: FakeSlack, root_ts: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    for message in fake.thread(root_ts):
        for block in message.get("blocks") or []:
            if block.get("block_id") == FIX_BLOCK:
                return message, block["elements"][0]
    return None


def press(fake: FakeSlack, root_ts: str, trigger: str, user: str = "U0ALICE") -> str:
    found = fix_button(fake, root_ts)
    assert found is not None
    message, element = found
    payload = payloads.block_actions(
        message,
        element,
        block_id=FIX_BLOCK,
        channel="C0ALERTS",
        root_ts=root_ts,
        user_id=user,
        trigger_id=trigger,
    )
    return urlencode({"payload": json.dumps(payload)})


def submission(view: dict[str, Any], note: str, user: str = "U0ALICE") -> str:
    payload = payloads.view_submission(view, {NOTE_BLOCK: {NOTE_ACTION: note}}, user_id=user)
    return urlencode({"payload": json.dumps(payload)})


async def test_the_modal_stores_a_masked_note_that_the_next_thread_shows(
    slack_stack: SlackStack, settings: Settings, redis_client: redis.Redis, engine: Engine
) -> None:
    fake = slack_stack.fake
    quota = Quota(redis_client)
    assert quota.redeem(TEAM, quota.create_codes()[0]).ok
    ctx = worker(settings, fake, redis_client, engine)
    first = await asyncio.to_thread(run_job, ctx, fake, "1001", DAY0)
    found = fix_button(fake, first)
    assert found is not None
    assert (found[1]["action_id"], found[1]["value"], found[1]["text"]["text"]) == (
        FIX_ACTION,
        "1001",
        "Fixed — how?",
    )

    trigger = fake.trigger_id()
    status, _ = await slack_stack.post(press(fake, first, trigger), FORM)
    assert status == 200
    (opened,) = await fake.wait_for_async(lambda: fake.calls("views.open"), what="views.open")
    assert opened.ok and opened.params["trigger_id"] == trigger
    view = opened.response["view"]
    assert view["callback_id"] == FIX_MODAL and view["id"] in fake.workspace.views
    assert json.loads(view["private_metadata"]) == {"job": "1001", "channel": "C0ALERTS", "thread_ts": first}

    note = f"reseated GPU 5, reflashed the driver (token={SECRET}), dcgmi diag -r 3 clean"
    status, body = await slack_stack.post(submission(view, note), FORM)
    assert status == 200 and body == ""  # an empty ack closes the modal
    (confirmation,) = await fake.wait_for_async(
        lambda: [m["text"] for m in fake.thread(first) if "recorded what fixed" in m.get("text", "")],
        what="the confirmation in the thread",
    )
    assert confirmation.startswith(":white_check_mark: <@U0ALICE> recorded what fixed job `1001`:")
    assert "token=[MASKED:github_token]" in confirmation and SECRET not in confirmation

    (incident,) = [i for i in IncidentBook(redis_client).all_incidents() if i.job_id == "1001"]
    assert (
        incident.fix
        == "reseated GPU 5, reflashed the driver (token=[MASKED:github_token]), dcgmi diag -r 3 clean"
    )
    assert SECRET.encode() not in b"".join(redis_client.dump(k) or b"" for k in redis_client.keys("*"))

    second = await asyncio.to_thread(run_job, ctx, fake, "1002", DAY0 + HOUR)
    seen = node_section(fake, second, SEEN_HEADING)
    assert (
        "job `1001`" in seen
        and "fixed: reseated GPU 5, reflashed the driver (token=[MASKED:github_token])" in seen
    )
    assert SECRET not in fake.workspace.dumps()


async def test_an_empty_note_is_an_error_in_the_modal_and_stores_nothing(
    slack_stack: SlackStack, settings: Settings, redis_client: redis.Redis, engine: Engine
) -> None:
    fake = slack_stack.fake
    quota = Quota(redis_client)
    assert quota.redeem(TEAM, quota.create_codes()[0]).ok
    first = await asyncio.to_thread(run_job, worker(settings, fake, redis_client, engine), fake, "1001", DAY0)
    await slack_stack.post(press(fake, first, fake.trigger_id()), FORM)
    (opened,) = await fake.wait_for_async(lambda: fake.calls("views.open"), what="views.open")
    status, body = await slack_stack.post(submission(opened.response["view"], "   "), FORM)
    assert status == 200
    assert json.loads(body) == {
        "response_action": "errors",
        "errors": {NOTE_BLOCK: "Say what fixed it (a few words are enough)."},
    }
    (incident,) = IncidentBook(redis_client).all_incidents()
    assert incident.fix is None


async def test_on_the_free_plan_there_is_no_button_and_a_forged_press_opens_nothing(
    slack_stack: SlackStack, settings: Settings, redis_client: redis.Redis, engine: Engine
) -> None:
    fake = slack_stack.fake
    first = await asyncio.to_thread(run_job, worker(settings, fake, redis_client, engine), fake, "1001", DAY0)
    assert fix_button(fake, first) is None
    # the same press as on Scale, forged into the free workspace's thread
    message = fake.thread(first)[0]
    element = {"action_id": FIX_ACTION, "value": "1001", "type": "button"}
    payload = payloads.block_actions(
        message,
        element,
        block_id=FIX_BLOCK,
        channel="C0ALERTS",
        root_ts=first,
        user_id="U0ALICE",
        trigger_id=fake.trigger_id(),
    )
    status, _ = await slack_stack.post(urlencode({"payload": json.dumps(payload)}), FORM)
    assert status == 200
    (refusal,) = await fake.wait_for_async(lambda: fake.ephemerals, what="the refusal")
    assert "Scale plan" in refusal["text"] and refusal["user"] == "U0ALICE"
    assert fake.calls("views.open") == []
    # a forged submission (a modal never opened) is refused in the modal too
    view = {
        "id": "V0FORGED",
        "type": "modal",
        "callback_id": FIX_MODAL,
        "private_metadata": json.dumps({"job": "1001"}),
    }
    status, body = await slack_stack.post(submission(view, f"token={SECRET}"), FORM)
    assert status == 200 and json.loads(body)["response_action"] == "errors"
    assert all(i.fix is None for i in IncidentBook(redis_client).all_incidents())
