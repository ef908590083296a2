"""The thread's Drain button (issue 17): the real Slack app (Bolt on aiohttp) over real HTTP, signed
`block_actions` payloads, the fake Slack, real Redis. The executor is a recorder of what it was
asked (the real Slurm and Kubernetes executors are tested in tests/slurm and tests/k8s): the
question here is who may press, what runs, and what is written down."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest
import redis
from aiohttp import web
from structlog.testing import capture_logs

from bot.slack.app import create_slack_app, install_slack_routes
from bot.slack.audit import AuditEntry, AuditLog, Outcome
from bot.slack.drain import make_drainer
from bot.slack.nodes import DRAIN_BLOCK, drain_button
from bot.slack.render import BlockKitRenderer
from denpex.cli._runtime import make_renderer
from denpex.core.settings import DrainAction, Settings
from integrations.kubernetes.drain import KubernetesCordon
from integrations.nodedrain import DrainError, DrainRequest
from integrations.slurm.drain import SlurmDrainer
from tests.fakes.slack import FakeSlack, payloads
from tests.slack import helpers
from tests.slack.conftest import SlackStack
from workers.nodehealth import NodeHistory, NodeRecord
from workers.ports import QuotaDecision
from workers.posting import SlackPoster
from workers.store import Store

pytestmark = pytest.mark.timeout(60)

WORK = helpers.job().key
ADMIN, OTHER = "U0ADMIN", "U0ALICE"
NOW = 1_800_000_000.0  # the audit's clock
GPU07 = NodeRecord(
    node="gpu-07",
    scheduler="slurm",
    total=3,
    incidents=3,
    initiating=3,
    counts=[("Xid 79", 3)],
    since=NOW - 7200,
    last=NOW,
    drain="catalogue",
    drain_label="Xid 79",
)


@dataclass
class RecordingDrainer:
    """A `NodeDrainer` that writes down each request (and fails when told to)."""

    scheduler: str = "slurm"
    fail: str | None = None
    requests: list[DrainRequest] = field(default_factory=list)

    def drain(self, request: DrainRequest) -> str:
        self.requests.append(request)
        if self.fail:
            raise DrainError(self.fail)
        return f"recorded {request.node}"


def post_thread(fake: FakeSlack, client: redis.Redis, drain: DrainAction) -> str:
    """The worker's poster with the Block Kit renderer and gpu-07's drain advice in the thread."""
    renderer = BlockKitRenderer(helpers.entries(), drain_action=drain)
    poster = SlackPoster(fake.web_client(), "C0ALERTS", Store(client, result_ttl=3600), renderer)
    decision = QuotaDecision(allowed=True, plan="free")
    _, ts = poster.post(WORK, helpers.job(), helpers.diagnosis(), decision, NodeHistory(nodes=[GPU07]))
    return ts


def drain_buttons(fake: FakeSlack, root_ts: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(message, button) of every Drain button in the thread."""
    return [
        (m, e)
        for m in fake.thread(root_ts)
        for b in m.get("blocks") or []
        if b.get("block_id") == DRAIN_BLOCK
        for e in b["elements"]
    ]


def press(fake: FakeSlack, message: dict[str, Any], element: dict[str, Any], root_ts: str, user: str) -> str:
    payload = payloads.block_actions(
        message,
        element,
        block_id=DRAIN_BLOCK,
        channel="C0ALERTS",
        root_ts=root_ts,
        user_id=user,
        username="admin" if user == ADMIN else "alice",
        trigger_id=fake.trigger_id(),
    )
    return urlencode({"payload": json.dumps(payload)})


@contextlib.asynccontextmanager
async def app_stack(
    settings: Settings, fake: FakeSlack, client: redis.Redis, drainer: RecordingDrainer
) -> AsyncIterator[SlackStack]:
    """The Slack app as `denpex serve` mounts it, with the recording executor and a fixed clock."""
    slack_app = create_slack_app(
        settings,
        client=fake.async_client(),
        redis=client,
        entries=helpers.entries(),
        llm=None,
        drainer=drainer,
        audit=AuditLog(client, clock=lambda: NOW),
    )
    web_app = web.Application()
    install_slack_routes(web_app, slack_app)
    runner = web.AppRunner(web_app, shutdown_timeout=1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        async with aiohttp.ClientSession(trust_env=False) as session:
            yield SlackStack(f"http://127.0.0.1:{port}/slack/events", fake, session)
    finally:
        await runner.cleanup()


def with_drain(settings: Settings, action: DrainAction) -> Settings:
    return settings.model_copy(update={"drain_action": action, "admins": f" {ADMIN} , U0OTHERADMIN"})


async def audited(client: redis.Redis, fake: FakeSlack) -> list[AuditEntry]:
    log = AuditLog(client)
    return await fake.wait_for_async(lambda: log.entries("T0DENPEX"), what="the audit entry")


def thread_texts(fake: FakeSlack, root_ts: str) -> list[str]:
    return [str(m.get("text") or "") for m in fake.thread(root_ts)]


async def test_a_non_admin_is_refused_audited_and_nothing_runs(
    settings: Settings, fake_slack: FakeSlack, redis_client: redis.Redis
) -> None:
    drainer = RecordingDrainer()
    root_ts = await asyncio.to_thread(post_thread, fake_slack, redis_client, DrainAction.slurm)
    ((message, button),) = drain_buttons(fake_slack, root_ts)
    assert button["text"]["text"] == "Drain gpu-07" and button["style"] == "danger"
    assert "confirm" in button  # Slack asks "Drain this node?" before it sends the press
    async with app_stack(with_drain(settings, DrainAction.slurm), fake_slack, redis_client, drainer) as stack:
        with capture_logs() as logs:
            status, _ = await stack.post(
                press(fake_slack, message, button, root_ts, OTHER), "application/x-www-form-urlencoded"
            )
            assert status == 200
            (entry,) = await audited(redis_client, fake_slack)
        (refusal,) = await fake_slack.wait_for_async(lambda: fake_slack.ephemerals, what="the refusal")
    assert entry == AuditEntry(
        at=NOW,
        team="T0DENPEX",
        user=OTHER,
        node="gpu-07",
        outcome=Outcome.refused_not_admin,
        scheduler="slurm",
        cluster="ci",
        channel="C0ALERTS",
    )
    assert refusal["user"] == OTHER and "Only Denpex admins" in refusal["text"]
    assert drainer.requests == []
    assert not any("drained by" in t for t in thread_texts(fake_slack, root_ts))
    (line,) = [e for e in logs if e["event"] == "drain_pressed"]
    assert (line["user_id"], line["node"], line["outcome"]) == (OTHER, "gpu-07", "refused_not_admin")


async def test_with_the_action_off_there_is_no_button_and_a_forged_press_is_refused(
    settings: Settings, fake_slack: FakeSlack, redis_client: redis.Redis
) -> None:
    root_ts = await asyncio.to_thread(post_thread, fake_slack, redis_client, DrainAction.off)
    assert drain_buttons(fake_slack, root_ts) == []
    section = json.dumps([m.get("blocks") for m in fake_slack.thread(root_ts)])
    assert "scontrol update nodename=gpu-07 state=drain" in section  # the advice is still there
    assert "Advice only: Denpex drains nothing." in section
    message = fake_slack.thread(root_ts)[0]
    forged = drain_button(GPU07, "ci")  # exactly what the button would carry, pressed by an admin
    drainer = RecordingDrainer()
    async with app_stack(settings, fake_slack, redis_client, drainer) as stack:
        assert settings.drain_action is DrainAction.off  # the default
        status, _ = await stack.post(
            press(fake_slack, message, forged, root_ts, ADMIN), "application/x-www-form-urlencoded"
        )
        assert status == 200
        (entry,) = await audited(redis_client, fake_slack)
        (refusal,) = await fake_slack.wait_for_async(lambda: fake_slack.ephemerals, what="the refusal")
    assert (entry.user, entry.node, entry.outcome) == (ADMIN, "gpu-07", Outcome.refused_off)
    assert "turned off" in refusal["text"] and refusal["user"] == ADMIN
    assert drainer.requests == []


async def test_an_admin_drains_the_node_audited_and_said_in_the_thread(
    settings: Settings, fake_slack: FakeSlack, redis_client: redis.Redis
) -> None:
    drainer = RecordingDrainer()
    root_ts = await asyncio.to_thread(post_thread, fake_slack, redis_client, DrainAction.slurm)
    ((message, button),) = drain_buttons(fake_slack, root_ts)
    section = json.dumps(message["blocks"])
    assert "An admin can press *Drain* below." in section and "Advice only" not in section
    async with app_stack(with_drain(settings, DrainAction.slurm), fake_slack, redis_client, drainer) as stack:
        status, _ = await stack.post(
            press(fake_slack, message, button, root_ts, ADMIN), "application/x-www-form-urlencoded"
        )
        assert status == 200
        (reply,) = await fake_slack.wait_for_async(
            lambda: [t for t in thread_texts(fake_slack, root_ts) if "drained by" in t], what="the reply"
        )
    assert drainer.requests == [DrainRequest(node="gpu-07", reason="denpex: Xid 79 (by admin)")]
    assert reply == ":construction: `gpu-07` drained by <@U0ADMIN>."
    (entry,) = AuditLog(redis_client).entries("T0DENPEX")
    assert (entry.user, entry.node, entry.outcome, entry.at) == (ADMIN, "gpu-07", Outcome.drained, NOW)
    assert "denpex: Xid 79 (by admin)" in entry.detail
    assert fake_slack.ephemerals == []


async def test_a_forged_value_and_a_failed_drain_are_refused_and_audited(
    settings: Settings, fake_slack: FakeSlack, redis_client: redis.Redis
) -> None:
    """An admin's press whose value names a host list, a shell string or the other scheduler's node
    runs nothing; a scheduler that refuses is audited as failed and the admin is told why."""
    root_ts = await asyncio.to_thread(post_thread, fake_slack, redis_client, DrainAction.slurm)
    ((message, button),) = drain_buttons(fake_slack, root_ts)
    drainer = RecordingDrainer(fail="scontrol exited 1: Invalid node name specified")
    async with app_stack(with_drain(settings, DrainAction.slurm), fake_slack, redis_client, drainer) as stack:
        for node, scheduler in (
            ("gpu-[01-08]", "slurm"),
            ("gpu-07;reboot", "slurm"),
            ("gpu-07", "kubernetes"),
        ):
            value = json.loads(button["value"]) | {"node": node, "scheduler": scheduler}
            forged = {**button, "value": json.dumps(value)}
            await stack.post(
                press(fake_slack, message, forged, root_ts, ADMIN), "application/x-www-form-urlencoded"
            )
        await fake_slack.wait_for_async(
            lambda: len(AuditLog(redis_client).entries("T0DENPEX")) == 3, what="3"
        )
        assert drainer.requests == []
        await stack.post(
            press(fake_slack, message, button, root_ts, ADMIN), "application/x-www-form-urlencoded"
        )
        await fake_slack.wait_for_async(lambda: len(fake_slack.ephemerals) == 4, what="4 answers")
    entries = AuditLog(redis_client).entries("T0DENPEX")
    assert [e.outcome for e in reversed(entries)] == [Outcome.refused_bad_request] * 3 + [Outcome.failed]
    assert entries[0].detail == "scontrol exited 1: Invalid node name specified"
    assert [r.node for r in drainer.requests] == ["gpu-07"]
    assert "Draining `gpu-07` failed" in fake_slack.ephemerals[-1]["text"]
    assert not any("drained by" in t for t in thread_texts(fake_slack, root_ts))


def test_the_audit_list_is_bounded(redis_client: redis.Redis) -> None:
    log = AuditLog(redis_client, clock=lambda: NOW, limit=3)
    for i in range(5):
        entry = AuditEntry(at=NOW + i, team="T1", user=ADMIN, node=f"n{i}", outcome=Outcome.drained)
        log.record(entry)
    assert [e.node for e in log.entries("T1")] == ["n4", "n3", "n2"]
    assert 0 < int(redis_client.ttl(AuditLog.key("T1"))) <= 365 * 86400


def test_admins_setting_and_button_value_stay_within_slack_limits(settings: Settings) -> None:
    assert with_drain(settings, DrainAction.slurm).admin_ids == {ADMIN, "U0OTHERADMIN"}
    assert settings.admin_ids == frozenset()
    long = GPU07.model_copy(update={"node": "n" * 253, "counts": [(f"Xid {i}", i) for i in range(60)]})
    element = drain_button(long.model_copy(update={"drain_label": None}), "ci")
    assert len(element["value"]) <= 2000 and len(element["text"]["text"]) <= 75
    assert len(element["action_id"]) <= 255


def test_the_setting_picks_the_executor_and_the_worker_renderer_gets_it(settings: Settings) -> None:
    assert make_drainer(settings) is None  # off by default
    assert isinstance(make_drainer(with_drain(settings, DrainAction.slurm)), SlurmDrainer)
    # Kubernetes finds its cluster on the first press, so none is needed to build it
    assert isinstance(make_drainer(with_drain(settings, DrainAction.kubernetes)), KubernetesCordon)
    renderer = make_renderer(helpers.entries(), drain_action=DrainAction.slurm, history_on=lambda: True)
    assert isinstance(renderer, BlockKitRenderer) and renderer.drain_action is DrainAction.slurm
    (message,) = renderer.thread_messages(
        helpers.job(), helpers.diagnosis(), history=NodeHistory(nodes=[GPU07])
    )
    ids = [b.get("block_id") for b in message.blocks]
    assert ids.index(DRAIN_BLOCK) < ids.index("denpex_fix_note")  # drain beside the advice, then the fix
