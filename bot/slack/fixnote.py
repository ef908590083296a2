"""The thread's "Fixed — how?" button: a modal asks what fixed the failure, the note joins its incident.

The same record `/denpex solved <job> <what fixed it>` writes (`bot.slack.commands`), reached from
the thread where the engineer already is: the button opens a modal (`views.open` with the press's
`trigger_id`, which Slack honours for 3 s, so it is opened before anything slow); on submit the note
is cut to `FIX_CHARS`, masked with the same masker and stored with the job's newest incident by
`IncidentBook.record_fix`, exactly as `/denpex solved` does, and a short confirmation goes into the
thread. History is a Scale-plan feature: the renderer shows the button only when the workspace keeps
it, and both the press and the submission check the plan again (a plan can lapse, a payload can be
forged).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import structlog
from pydantic import BaseModel, Field, ValidationError

from bot.slack.mrkdwn import escape, section
from bot.slack.render import FIX_ACTION
from denpex.core.ids import K8S_NAMESPACED_NAME, is_safe_id
from denpex.core.texts import actions as texts
from denpex.core.texts.incidents import FIX_CHARS
from knowledge.masking import Masker
from workers.incidents import HistoryLimits, IncidentBook

if TYPE_CHECKING:
    from slack_bolt.async_app import AsyncApp

    from bot.slack.deps import SlackDeps

log = structlog.get_logger("denpex.slack.fixnote")

FIX_MODAL = "denpex_fix_modal"
NOTE_BLOCK = "fix"
NOTE_ACTION = "note"


class FixContext(BaseModel):
    """The modal's `private_metadata`: which job, and the thread to confirm in."""

    job: str = Field(max_length=300)
    channel: str = Field(default="", max_length=40)
    thread_ts: str = Field(default="", max_length=40)


def valid_job(job: str) -> bool:
    return bool(job) and (is_safe_id(job) or bool(K8S_NAMESPACED_NAME.match(job)))


def fix_modal(ctx: FixContext) -> dict[str, Any]:
    """The modal: one multi-line input, limited to what the history keeps of a note."""
    return {
        "type": "modal",
        "callback_id": FIX_MODAL,
        "title": {"type": "plain_text", "text": texts.FIX_MODAL_TITLE},
        "submit": {"type": "plain_text", "text": texts.FIX_MODAL_SUBMIT},
        "close": {"type": "plain_text", "text": texts.FIX_MODAL_CLOSE},
        "private_metadata": ctx.model_dump_json(),
        "blocks": [
            section(texts.fix_modal_intro(escape(ctx.job))),
            {
                "type": "input",
                "block_id": NOTE_BLOCK,
                "label": {"type": "plain_text", "text": texts.FIX_INPUT_LABEL},
                "hint": {"type": "plain_text", "text": texts.FIX_INPUT_HINT},
                "element": {
                    "type": "plain_text_input",
                    "action_id": NOTE_ACTION,
                    "multiline": True,
                    "max_length": FIX_CHARS,
                    "placeholder": {"type": "plain_text", "text": texts.FIX_INPUT_PLACEHOLDER},
                },
            },
        ],
    }


def _team(body: Mapping[str, Any]) -> str:
    return str((body.get("team") or {}).get("id") or (body.get("user") or {}).get("team_id") or "")


class FixNote:
    """Opens the modal on a press and records the note on submit."""

    def __init__(self, deps: SlackDeps) -> None:
        self.deps = deps

    async def _is_scale(self, team: str) -> bool:
        status = await asyncio.to_thread(self.deps.quota.status, team)
        return status.is_scale

    async def open(self, body: Mapping[str, Any], client: Any) -> None:
        action: Mapping[str, Any] = next(iter(body.get("actions") or []), {})
        message = body.get("message") or {}
        user = str((body.get("user") or {}).get("id") or "")
        ctx = FixContext(
            job=str(action.get("value") or "")[:300],
            channel=str((body.get("channel") or {}).get("id") or "")[:40],
            thread_ts=str(message.get("thread_ts") or message.get("ts") or "")[:40],
        )
        if not valid_job(ctx.job) or not body.get("trigger_id"):
            return
        if not await self._is_scale(_team(body)):
            if ctx.channel and user:
                await client.chat_postEphemeral(
                    channel=ctx.channel, user=user, text=texts.FIX_SCALE_ONLY, thread_ts=ctx.thread_ts or None
                )
            return
        await client.views_open(trigger_id=str(body["trigger_id"]), view=fix_modal(ctx))

    async def submit(self, ack: Any, body: Mapping[str, Any], view: Mapping[str, Any], client: Any) -> None:
        values = ((view.get("state") or {}).get("values") or {}).get(NOTE_BLOCK) or {}
        note = str((values.get(NOTE_ACTION) or {}).get("value") or "").strip()
        try:
            ctx = FixContext.model_validate_json(str(view.get("private_metadata") or ""))
        except ValidationError:
            await ack()  # not a modal of ours as we opened it: close it, store nothing
            return
        if not note:
            await ack(response_action="errors", errors={NOTE_BLOCK: texts.FIX_EMPTY})
            return
        if not valid_job(ctx.job) or not await self._is_scale(_team(body)):
            await ack(response_action="errors", errors={NOTE_BLOCK: texts.FIX_SCALE_ONLY_SHORT})
            return
        await ack()
        user = str((body.get("user") or {}).get("id") or "")
        await self._record(client, ctx, user, note[:FIX_CHARS])

    async def _record(self, client: Any, ctx: FixContext, user: str, note: str) -> None:
        """`/denpex solved`'s path: the default masker, then `record_fix` on the job's newest incident."""
        limits = HistoryLimits.from_settings(self.deps.settings)
        masked = Masker.default().mask(note)
        found = await asyncio.to_thread(IncidentBook(self.deps.redis, limits).record_fix, ctx.job, masked)
        log.info("fix_recorded", job=ctx.job, found=found is not None, user_id=user, via="modal")
        if not (ctx.channel and ctx.thread_ts):
            return
        if found is None:
            if user:
                await client.chat_postEphemeral(
                    channel=ctx.channel,
                    user=user,
                    text=texts.fix_unknown(escape(ctx.job)),
                    thread_ts=ctx.thread_ts,
                )
            return
        text = texts.fix_recorded(escape(ctx.job), user, escape(masked))
        await client.chat_postMessage(channel=ctx.channel, thread_ts=ctx.thread_ts, text=text)


def register_fixnote(app: AsyncApp, deps: SlackDeps) -> None:
    fix = FixNote(deps)

    @app.action(FIX_ACTION)
    async def on_fix_button(ack: Any, body: dict[str, Any], client: Any) -> None:
        await ack()
        await fix.open(body, client)

    @app.view(FIX_MODAL)
    async def on_fix_submit(ack: Any, body: dict[str, Any], view: dict[str, Any], client: Any) -> None:
        await fix.submit(ack, body, view, client)
