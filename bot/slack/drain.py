"""The thread's Drain button: an admin takes a failing node out of service from Slack, audited.

Off by default (`DENPEX_DRAIN_ACTION=off`: no button, and a forged press is refused). When on, the
node-health section shows "Drain gpu-07" beside the drain advice (`bot.slack.nodes`). A press is
acknowledged at once, then checked here and nowhere else: the action must be on, the presser must
be in `DENPEX_ADMINS`, and the button's value (which Slack hands back and a signed request could
forge) must name one valid node of the configured scheduler. Only then does the executor run the
scheduler's own drain (`integrations.slurm.drain`, `integrations.kubernetes.drain`). Every press,
allowed or refused, is audited (`bot.slack.audit`) before the presser hears the outcome; a success
is also said in the thread, where the rest of the on-call team reads it.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import structlog
from pydantic import ValidationError

from bot.slack.audit import AuditEntry, AuditLog, Outcome
from bot.slack.nodes import DRAIN_ACTION, DrainValue, name
from denpex.core.settings import DrainAction, Settings
from denpex.core.texts import actions as texts
from integrations.nodedrain import DrainError, DrainRequest, NodeDrainer, valid_node
from integrations.slurm.drain import SlurmDrainer

if TYPE_CHECKING:
    from slack_bolt.async_app import AsyncApp

    from bot.slack.deps import SlackDeps

log = structlog.get_logger("denpex.slack.drain")

#: every Drain button's action_id (`denpex_drain:<node>`: unique within its block)
ACTION_PATTERN = re.compile(rf"^{DRAIN_ACTION}(?::.*)?$")
#: a Slack username we put into the scheduler's reason as it is; anything else: the user id
_USERNAME = re.compile(r"^[\w.-]{1,64}$")
#: what a reason label may keep (it came back from Slack: no quotes, newlines or control characters)
_LABEL_DROP = re.compile(r"[^\w .,:/+()#-]")


def make_drainer(settings: Settings) -> NodeDrainer | None:
    """The executor `DENPEX_DRAIN_ACTION` names (None when off). Kubernetes finds its cluster the
    standard way on the first press, so turning the button on never stops `denpex serve` starting."""
    if settings.drain_action is DrainAction.slurm:
        return SlurmDrainer()
    if settings.drain_action is DrainAction.kubernetes:
        from integrations.kubernetes import try_api_client
        from integrations.kubernetes.drain import KubernetesCordon

        return KubernetesCordon(try_api_client)
    return None


@dataclass(frozen=True)
class Press:
    """One press of a Drain button, as the block_actions payload says it."""

    team: str
    user: str
    username: str
    channel: str
    thread_ts: str
    value: DrainValue | None

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> Press:
        user = body.get("user") or {}
        message = body.get("message") or {}
        container = body.get("container") or {}
        action: Mapping[str, Any] = next(iter(body.get("actions") or []), {})
        try:
            value: DrainValue | None = DrainValue.model_validate_json(str(action.get("value") or ""))
        except ValidationError:
            value = None
        return cls(
            team=str((body.get("team") or {}).get("id") or user.get("team_id") or ""),
            user=str(user.get("id") or ""),
            username=str(user.get("username") or ""),
            channel=str((body.get("channel") or {}).get("id") or container.get("channel_id") or ""),
            thread_ts=str(message.get("thread_ts") or container.get("thread_ts") or message.get("ts") or ""),
            value=value,
        )

    @property
    def who(self) -> str:
        """The presser as the scheduler's reason names them."""
        return self.username if _USERNAME.match(self.username) else self.user


class DrainButton:
    """Checks, runs, audits and answers one press."""

    def __init__(self, deps: SlackDeps, drainer: NodeDrainer | None, audit: AuditLog) -> None:
        self.settings = deps.settings
        self.drainer = drainer
        self.audit = audit

    def _refusal(self, press: Press) -> tuple[Outcome, str] | None:
        if self.settings.drain_action is DrainAction.off or self.drainer is None:
            return Outcome.refused_off, texts.DRAIN_OFF
        if not press.user or press.user not in self.settings.admin_ids:
            return Outcome.refused_not_admin, texts.DRAIN_NOT_ADMIN
        v = press.value
        if v is None or not valid_node(v.node) or v.scheduler != self.drainer.scheduler:
            return Outcome.refused_bad_request, texts.DRAIN_BAD_REQUEST
        return None

    async def handle(self, body: Mapping[str, Any], client: Any) -> Outcome:
        press = Press.from_body(body)
        v = press.value
        entry = AuditEntry(
            at=self.audit.clock(),
            team=press.team or "unknown",
            user=press.user,
            node=v.node if v else "",
            outcome=Outcome.refused_bad_request,
            scheduler=v.scheduler if v else "",
            cluster=v.cluster if v else "",
            channel=press.channel,
        )
        refused = self._refusal(press)
        if refused is not None:
            outcome, text = refused
            await asyncio.to_thread(self.audit.record, entry.model_copy(update={"outcome": outcome}))
            await self._tell(client, press, text)
            return outcome
        assert v is not None and self.drainer is not None
        label = _LABEL_DROP.sub("", v.label)[:120] or "node health"
        request = DrainRequest(node=v.node, reason=texts.drain_reason(label, press.who))
        try:
            done = await asyncio.to_thread(self.drainer.drain, request)
        except DrainError as exc:
            failed = entry.model_copy(update={"outcome": Outcome.failed, "detail": str(exc)[:300]})
            await asyncio.to_thread(self.audit.record, failed)
            await self._tell(client, press, texts.drain_failed(name(v.node), name(str(exc)[:300])))
            return Outcome.failed
        drained = entry.model_copy(update={"outcome": Outcome.drained, "detail": f"{done}; {request.reason}"})
        await asyncio.to_thread(self.audit.record, drained)
        if press.channel and press.thread_ts:
            reply = texts.drained(name(v.node), press.user, v.scheduler)
            await client.chat_postMessage(channel=press.channel, thread_ts=press.thread_ts, text=reply)
        return Outcome.drained

    async def _tell(self, client: Any, press: Press, text: str) -> None:
        """An ephemeral answer to the presser only (nothing when the payload named no channel)."""
        if press.channel and press.user:
            await client.chat_postEphemeral(
                channel=press.channel, user=press.user, text=text, thread_ts=press.thread_ts or None
            )


def register_drain(app: AsyncApp, deps: SlackDeps, drainer: NodeDrainer | None, audit: AuditLog) -> None:
    """Registered whatever the setting, so a forged press on an app with the action off is refused
    (and audited) rather than left unanswered."""
    button = DrainButton(deps, drainer, audit)

    @app.action(ACTION_PATTERN)
    async def on_drain(ack: Any, body: dict[str, Any], client: Any) -> None:
        await ack()  # within Slack's 3 s; the drain runs after
        await button.handle(body, client)
