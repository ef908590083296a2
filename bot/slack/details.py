"""The thread's Details button: posts everything the short first reply left out.

The first reply of a diagnosis thread stays about 25 lines (`render.THREAD_LINES`) so an on-call
engineer reads it on a phone; the button carries the job key, and a click posts the full details
(every evidence line, fix step, collateral group and missing item, the initiating rank's last lines)
from the stored diagnosis into the same thread, then replaces the button with a note. One post per
thread: a second click, or Slack retrying the action, only acknowledges.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import structlog

from bot.slack.mrkdwn import context, section
from bot.slack.render import DETAILS_ACTION, DETAILS_BLOCK, BlockKitRenderer
from denpex.core.texts import slack as texts
from denpex.core.texts import thread
from workers.store import Store

if TYPE_CHECKING:
    from slack_bolt.async_app import AsyncApp

    from bot.slack.deps import SlackDeps

log = structlog.get_logger("denpex.slack.details")


class DetailsButton:
    """Handles clicks on the Details button of a diagnosis thread."""

    def __init__(self, deps: SlackDeps) -> None:
        self.deps = deps
        self.store = Store(deps.redis, result_ttl=deps.settings.result_ttl_seconds)
        self.renderer = BlockKitRenderer(deps.entries, public_url=deps.settings.public_url)

    async def handle(self, body: Mapping[str, Any], client: Any) -> None:
        action: Mapping[str, Any] = next(iter(body.get("actions") or []), {})
        job_key = str(action.get("value") or "")
        channel = str((body.get("channel") or {}).get("id") or "")
        message = body.get("message") or {}
        ts = str(message.get("ts") or "")
        thread_ts = str(message.get("thread_ts") or ts)
        if not (job_key and channel and ts):
            return
        if not await self.deps.state.once_per_thread(channel, f"{thread_ts}:{job_key}", "details"):
            return  # already posted in this thread
        diagnosis = await asyncio.to_thread(self.store.load_diagnosis, job_key)
        record = await asyncio.to_thread(self.store.load_job, job_key)
        if diagnosis is None or record is None:
            await client.chat_postMessage(
                channel=channel, thread_ts=thread_ts, text=texts.DIAGNOSIS_EXPIRED,
                blocks=[section(texts.DIAGNOSIS_EXPIRED)],
            )  # fmt: skip
            return
        for reply in self.renderer.details_messages(record.job, diagnosis):
            await client.chat_postMessage(
                channel=channel, thread_ts=thread_ts, text=reply.text, blocks=reply.blocks,
                unfurl_links=False, unfurl_media=False,
            )  # fmt: skip
        await client.chat_update(
            channel=channel, ts=ts, text=str(message.get("text") or thread.DETAILS_POSTED),
            blocks=without_button(message.get("blocks") or []),
        )  # fmt: skip
        log.info("details_posted", job_key=job_key)


def without_button(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The message's blocks with the Details button replaced by a note that the details are below."""
    return [context(thread.DETAILS_POSTED) if b.get("block_id") == DETAILS_BLOCK else b for b in blocks]


def register_details(app: AsyncApp, deps: SlackDeps) -> None:
    details = DetailsButton(deps)

    @app.action(DETAILS_ACTION)
    async def on_details(ack: Any, body: dict[str, Any], client: Any) -> None:
        await ack()  # within Slack's 3 s; the posting happens after
        await details.handle(body, client)
