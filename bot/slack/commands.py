"""`/denpex` slash commands: diagnose, help, quota, redeem, history, nodes, solved.

Slack wants an acknowledgement within 3 seconds, so `diagnose` acks first (an ephemeral "looking up
the job") and only then resolves the job, checks the quota and queues; the outcome follows as an
ephemeral reply through `respond`. Every refusal says what to do next (`denpex.core.texts.slack`).
"""

from __future__ import annotations

import asyncio
import shlex
from typing import TYPE_CHECKING, Any

import structlog

from bot.slack.jobs import LinkedJobFolder, UnknownCluster, UnknownJobId
from bot.slack.mrkdwn import clip, escape
from bot.slack.nodes import history_reply, nodes_reply
from denpex.core.ids import K8S_NAMESPACED_NAME, is_safe_id
from denpex.core.texts import incidents as incident_texts
from denpex.core.texts import slack as texts
from knowledge.masking import Masker
from workers.incidents import HistoryLimits, Incident, IncidentBook
from workers.nodehealth import ranked_nodes
from workers.posting import ROOT_EVENT
from workers.quota import RedeemLimits, Throttled

if TYPE_CHECKING:
    from slack_bolt.async_app import AsyncApp

    from bot.slack.deps import SlackDeps

log = structlog.get_logger("denpex.slack.commands")


class UsageError(ValueError):
    pass


def parse_diagnose(args: list[str]) -> tuple[str, str | None]:
    """`<jobid> [--cluster X]` (also `--cluster=X`) → (job id, cluster or None)."""
    job_id, cluster, rest = None, None, list(args)
    while rest:
        word = rest.pop(0)
        if word in ("--cluster", "-c"):
            if not rest:
                raise UsageError(texts.DIAGNOSE_USAGE)
            cluster = rest.pop(0)
        elif word.startswith("--cluster="):
            cluster = word.split("=", 1)[1]
        elif word.startswith("-") or job_id is not None:
            raise UsageError(texts.DIAGNOSE_USAGE)
        else:
            job_id = word
    if not job_id:
        raise UsageError(texts.DIAGNOSE_USAGE)
    if not (is_safe_id(job_id) or K8S_NAMESPACED_NAME.match(job_id)):
        raise UsageError(texts.bad_job_id(escape(job_id[:64])))
    if cluster is not None and not is_safe_id(cluster):
        raise UsageError(texts.unknown_cluster(escape(cluster[:64]), []))
    return job_id, cluster


#: `/denpex history` filters: `name:value`
HISTORY_FILTERS = ("node", "category", "job")


def parse_history_filters(args: list[str]) -> dict[str, str]:
    """`node:gpu-07 category:gpu_oom job:4242` → {"node": "gpu-07", ...}; anything else is a usage error."""
    filters: dict[str, str] = {}
    for word in args:
        key, sep, value = word.partition(":")
        if not sep or key.lower() not in HISTORY_FILTERS:
            raise UsageError(incident_texts.unknown_filter(escape(word[:40])))
        if not value:
            raise UsageError(incident_texts.HISTORY_USAGE)
        filters[key.lower()] = value
    return filters


def matches(incident: Incident, filters: dict[str, str]) -> bool:
    node, category, job = filters.get("node"), filters.get("category"), filters.get("job")
    on_node = node is None or node == incident.node or node in incident.nodes or node in incident.signals
    return on_node and category in (None, incident.category) and job in (None, incident.job_id)


def split_words(text: str) -> list[str]:
    try:
        return shlex.split(text or "")
    except ValueError:
        return (text or "").split()


class Commands:
    def __init__(self, deps: SlackDeps) -> None:
        self.deps = deps

    async def diagnose(self, ack: Any, respond: Any, command: dict[str, Any], args: list[str]) -> None:
        try:
            job_id, cluster = parse_diagnose(args)
        except UsageError as exc:
            await ack(str(exc))
            return
        here = command.get("channel_id") or ""
        # the thread goes where it was asked for, if that is a channel the bot can post in (not a DM)
        asked = here if here[:1] in ("C", "G") else None
        where = asked or self.deps.settings.channel or ""
        await ack(texts.diagnose_queued(escape(job_id), escape(cluster or self.deps.settings.cluster), where))
        try:
            job = await self.deps.resolver.resolve(cluster, job_id)
        except UnknownCluster as exc:
            await respond(texts.unknown_cluster(escape(exc.cluster), [escape(c) for c in exc.known]))
            return
        except UnknownJobId:
            await respond(texts.unknown_job(escape(job_id), escape(cluster or self.deps.settings.cluster)))
            return
        except LinkedJobFolder as exc:  # refused now: the collector would fail on every retry
            await respond(texts.job_folder_is_link(escape(exc.job_id), escape(exc.cluster), exc.outside))
            return
        status = await asyncio.to_thread(self.deps.quota.status, command["team_id"])
        # the early answer: units held by diagnoses in progress count too; the worker reserves the
        # unit atomically before any work and posts the same note if a race took the last one
        if status.remaining <= 0:
            await respond(texts.quota_blocked(texts.quota_exhausted_note(status.plan, status.limit)))
            return
        try:
            result = await self.deps.submitter.submit(job, channel=asked)
        except Exception:
            log.exception("enqueue_failed", job_key=job.key)
            await respond(texts.ENQUEUE_FAILED)
            return
        if not result.queued:
            await respond(texts.diagnose_already(escape(job.job_id), escape(job.cluster)))

    async def quota(self, ack: Any, command: dict[str, Any]) -> None:
        status = await asyncio.to_thread(self.deps.quota.status, command["team_id"])
        await ack(
            texts.quota_status(status.plan, status.used, status.limit, status.expires_at, status.reserved)
        )

    async def redeem(self, ack: Any, command: dict[str, Any], args: list[str]) -> None:
        if len(args) != 1:
            await ack(texts.REDEEM_USAGE)
            return
        team, user = command["team_id"], command.get("user_id") or ""
        limits = RedeemLimits.from_settings(self.deps.settings)
        result = await asyncio.to_thread(self.deps.quota.redeem_as, team, user, args[0], limits)
        if isinstance(result, Throttled):
            log.warning("code_redeem_throttled", team_id=team, user_id=user)
            await ack(texts.redeem_throttled(result.minutes))
            return
        log.info("code_redeem", team_id=team, status=result.status)  # never the code itself
        await ack(
            texts.redeem_ok(result.expires_at, result.daily_limit)
            if result.ok
            else texts.REDEEM_ERRORS[result.status]
        )

    def _book(self) -> IncidentBook:
        return IncidentBook(self.deps.redis, HistoryLimits.from_settings(self.deps.settings))

    async def nodes(self, ack: Any) -> None:
        """Every plan: node health is what the free plan's history keeps."""
        incidents = await asyncio.to_thread(lambda: list(self._book().all_incidents()))
        await ack(nodes_reply(ranked_nodes(incidents, self.deps.settings.drain_after)))

    async def solved(self, ack: Any, respond: Any, command: dict[str, Any], args: list[str]) -> None:
        """`/denpex solved <job> <what fixed it>`: the note (masked) is stored with the job's incident
        and shown under "Seen before" in later threads of the same failure mode."""
        if len(args) < 2 or not (is_safe_id(args[0]) or K8S_NAMESPACED_NAME.match(args[0])):
            await ack(incident_texts.SOLVED_USAGE)
            return
        status = await asyncio.to_thread(self.deps.quota.status, command["team_id"])
        if not status.is_scale:
            await ack(incident_texts.SOLVED_SCALE_ONLY)
            return
        await ack()
        job, note = args[0], " ".join(args[1:])[: incident_texts.FIX_CHARS]

        def record() -> Incident | None:
            return self._book().record_fix(job, Masker.default().mask(note))

        found = await asyncio.to_thread(record)
        log.info("fix_recorded", job=job, found=found is not None, user_id=command.get("user_id"))
        shown = escape(job)
        await respond(incident_texts.solved_ok(shown) if found else incident_texts.solved_unknown(shown))

    async def history(
        self, ack: Any, respond: Any, client: Any, command: dict[str, Any], args: list[str]
    ) -> None:
        status = await asyncio.to_thread(self.deps.quota.status, command["team_id"])
        if not status.is_scale:
            await ack(texts.HISTORY_SCALE_ONLY)
            return
        if args:  # filtered: from the incident history (every channel, every cluster)
            try:
                filters = parse_history_filters(args)
            except UsageError as exc:
                await ack(str(exc))
                return
            incidents = await asyncio.to_thread(lambda: list(self._book().all_incidents()))
            await ack(history_reply(i for i in incidents if matches(i, filters)))
            return
        await ack()
        try:
            resp = await client.conversations_history(
                channel=command["channel_id"], limit=200, include_all_metadata=True
            )
        except Exception:
            await respond(texts.NOT_IN_CHANNEL)
            return
        rows = []
        for message in resp.get("messages") or []:
            if (message.get("metadata") or {}).get("event_type") == ROOT_EVENT:
                first = (message.get("text") or "").splitlines()[0] if message.get("text") else ""
                rows.append(f"• {clip(first, 240)}")
        await respond(texts.HISTORY_TITLE + "\n" + "\n".join(rows[:15]) if rows else texts.HISTORY_EMPTY)

    async def handle(self, ack: Any, respond: Any, client: Any, command: dict[str, Any]) -> None:
        words = split_words(command.get("text", ""))
        sub, args = (words[0].lower(), words[1:]) if words else ("help", [])
        if sub == "diagnose":
            await self.diagnose(ack, respond, command, args)
        elif sub == "quota":
            await self.quota(ack, command)
        elif sub == "redeem":
            await self.redeem(ack, command, args)
        elif sub == "history":
            await self.history(ack, respond, client, command, args)
        elif sub == "nodes":
            await self.nodes(ack)
        elif sub == "solved":
            await self.solved(ack, respond, command, args)
        elif sub in ("help", "-h", "--help"):
            await ack(texts.HELP)
        else:
            await ack(texts.unknown_subcommand(escape(sub[:40])))


def register_commands(app: AsyncApp, deps: SlackDeps) -> None:
    commands = Commands(deps)

    @app.command("/denpex")
    async def on_denpex(ack: Any, respond: Any, client: Any, command: dict[str, Any]) -> None:
        await commands.handle(ack, respond, client, command)
