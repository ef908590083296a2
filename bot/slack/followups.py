"""Follow-up questions in diagnosis threads: `message` events in threads the bot started, and
`app_mention`. Answers come from the stored diagnosis's facts of this job (ranks, times, figures,
lines) and its knowledge entry (`knowledge.answers`); the optional LLM only rephrases those facts, and
what it was given is logged.

Slack may deliver an event more than once (retries after a slow ack): each event id is answered once.
Bolt runs every listener as its own task, so two questions in one thread are worked on concurrently;
answers are still posted in the order the questions arrived (`ThreadTurns`), because a thread whose
second answer lands above the first reads as nonsense.
The bot's own messages and other bots are ignored; chatter that is not a question is left alone
unless it mentions the bot. Follow-ups are a Scale-plan feature; free workspaces hear so once a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import redis
import structlog

from bot.slack.answers import render
from bot.slack.mrkdwn import clip, escape, section
from denpex.core.models import Diagnosis, PastIncident
from denpex.core.texts import slack as texts
from knowledge.intents import normalise
from workers.incidents import IncidentBook
from workers.nodehealth import earlier_of
from workers.store import Store

if TYPE_CHECKING:
    from slack_bolt.async_app import AsyncApp

    from bot.slack.deps import SlackDeps

log = structlog.get_logger("denpex.slack.followups")
MENTION = re.compile(r"<@[A-Z0-9]+>")
QUESTION = re.compile(
    r"\?|^(?:which|what|why|how|is|are|can|could|should|show|where|when|who|does|did|tell|explain|define"
    r"|was|were|has|have|will|paste|give|do|any|tl;?dr|summari[sz]e)\b",
    re.I,
)


class ThreadTurns:
    """First come, first answered, per thread.

    `take(key)` must be called before the handler's first `await`: Bolt starts listener tasks in the
    order the events arrived, so the order in which tasks take a turn is the arrival order. A turn is
    released when the handler is done, whatever happened, so one failed answer never blocks a thread.
    """

    def __init__(self) -> None:
        self._last: dict[tuple[str, str], asyncio.Future[None]] = {}

    def take(self, key: tuple[str, str]) -> tuple[asyncio.Future[None] | None, asyncio.Future[None]]:
        previous = self._last.get(key)
        mine: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._last[key] = mine
        return previous, mine

    @contextlib.asynccontextmanager
    async def turn(self, key: tuple[str, str]) -> AsyncIterator[None]:
        previous, mine = self.take(key)
        try:
            if previous is not None:
                await asyncio.shield(previous)
            yield
        finally:
            mine.set_result(None)
            if self._last.get(key) is mine:
                del self._last[key]


class Followups:
    def __init__(self, deps: SlackDeps) -> None:
        self.deps = deps
        self.store = Store(deps.redis, result_ttl=deps.settings.result_ttl_seconds)
        self.turns = ThreadTurns()

    async def _reply(self, client: Any, channel: str, thread_ts: str, text: str) -> None:
        await client.chat_postMessage(
            channel=channel,
            thread_ts=thread_ts,
            text=clip(text, 3000),
            blocks=[section(text)],
            unfurl_links=False,
            unfurl_media=False,
        )

    def past_incidents(self, job_key: str, diagnosis: Diagnosis) -> list[PastIncident] | None:
        """Earlier incidents of this failure mode from the incident history; None if unreadable."""
        try:
            history = list(IncidentBook(self.deps.redis).all_incidents())
        except redis.RedisError:
            log.warning("followup_history_unreadable", job_key=job_key)
            return None
        return earlier_of(history, job_key, diagnosis.entry.id if diagnosis.entry else None)

    async def answer_text(
        self, question: str, diagnosis: Diagnosis, past: list[PastIncident] | None = None
    ) -> str:
        """This job's facts for the question's intent; the optional LLM only rephrases them."""
        answer = render(self.deps.answers.answer(diagnosis, question, past))
        log.info("followup_intent", intent=answer.intent, known=answer.known)
        if self.deps.llm is not None and answer.known:
            log.info("followup_llm_material", intent=answer.intent, material=answer.material)
            phrased = await self.deps.llm.phrase(question, answer.material, fallback="")
            if phrased:
                return escape(phrased)
        return answer.text

    async def handle(
        self, body: dict[str, Any], event: dict[str, Any], client: Any, context: Any, mentioned: bool
    ) -> None:
        key = (str(event.get("channel") or ""), str(event.get("thread_ts") or event.get("ts") or ""))
        async with self.turns.turn(key):  # taken before the first await: arrival order
            await self._handle(body, event, client, context, mentioned)

    async def _handle(
        self, body: dict[str, Any], event: dict[str, Any], client: Any, context: Any, mentioned: bool
    ) -> None:
        if event.get("bot_id") or event.get("subtype") or not event.get("user"):
            return
        thread_ts, channel = event.get("thread_ts"), event.get("channel")
        if not channel:
            return
        if not thread_ts:
            if mentioned and await self.deps.state.first_delivery(body.get("event_id")):
                await self._reply(client, channel, str(event.get("ts")), texts.MENTION_OUTSIDE_THREAD)
            return
        text = MENTION.sub("", event.get("text") or "").strip()
        if not mentioned and (
            context.get("bot_user_id") and f"<@{context['bot_user_id']}>" in (event.get("text") or "")
        ):
            return  # the app_mention delivery of the same message answers it
        if not mentioned and not QUESTION.search(normalise(text)):  # `y did r3 die`, `wat happened`
            return
        if not await self.deps.state.first_delivery(body.get("event_id")):
            return
        bot_ids = {i for i in (context.get("bot_user_id"), context.get("bot_id")) if i}
        job_key = await self.deps.state.thread_job(client, channel, thread_ts, bot_ids)
        if job_key is None:
            return
        team = body.get("team_id") or event.get("team") or ""
        status = await asyncio.to_thread(self.deps.quota.status, team)
        if not status.is_scale:
            if mentioned or await self.deps.state.once_per_thread(channel, thread_ts, "upsell"):
                await self._reply(client, channel, thread_ts, texts.FOLLOWUP_SCALE_ONLY)
            return
        diagnosis = await asyncio.to_thread(self.store.load_diagnosis, job_key)
        if diagnosis is None:
            await self._reply(client, channel, thread_ts, texts.DIAGNOSIS_EXPIRED)
            return
        past = await asyncio.to_thread(self.past_incidents, job_key, diagnosis)
        reply = await self.answer_text(text, diagnosis, past)
        await self._reply(client, channel, thread_ts, reply)
        log.info("followup_answered", job_key=job_key)


def register_followups(app: AsyncApp, deps: SlackDeps) -> None:
    followups = Followups(deps)

    @app.event("message")
    async def on_message(body: dict[str, Any], event: dict[str, Any], client: Any, context: Any) -> None:
        await followups.handle(body, event, client, context, mentioned=False)

    @app.event("app_mention")
    async def on_mention(body: dict[str, Any], event: dict[str, Any], client: Any, context: Any) -> None:
        await followups.handle(body, event, client, context, mentioned=True)
