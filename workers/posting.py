"""Posting one diagnosis to Slack exactly once, across retries and worker crashes.

The order of writes is the whole design; each is a step of the job's `PostJournal`
(`workers.store`):

1. `begin_root` before `chat.postMessage` for the root message (`status=posting`, `posting_at`);
2. post it with message metadata `denpex_diagnosis {job_key}`; `root_posted` records channel and ts;
3. each thread reply likewise: `begin_reply(i)`, post (metadata `denpex_reply {job_key, index}`),
   `reply_done(i)`; then the evidence file (`file_done`); then `finish` (`status=posted`).

A retry that finds `ts` continues the same thread from `replies`. A retry that finds `posting` without
`ts` (the worker died between Slack answering and Redis recording) looks the root message up by its
metadata in `conversations.history` before posting again; likewise for a reply in
`conversations.replies`. So a message is never posted twice and a thread never forks. A request that
Slack answered (even with an error) is `answered`: only one that got no answer may still land late.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import structlog
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.web import SlackResponse

from denpex.core.models import Diagnosis, JobRef
from workers.nodehealth import NodeHistory
from workers.ports import QuotaDecision, Renderer, SlackMessage
from workers.store import PostJournal, PostStatus, Store

ROOT_EVENT = "denpex_diagnosis"
REPLY_EVENT = "denpex_reply"
#: a message shown for many jobs (a fold summary, `workers.floods`), posted once like a root
BOARD_EVENT = "denpex_board"
#: errors of conversations.history that retrying cannot fix
UNREADABLE_CHANNEL = frozenset(
    {"channel_not_found", "missing_scope", "not_in_channel", "not_allowed_token_type"}
)
#: look this far before `posting_at` when searching history (clock skew between us and Slack)
LOOKBACK_SECONDS = 120
#: a request that timed out may still land in Slack; until this many client timeouts have passed
#: since it was sent, "not found" means "not yet", so the retry waits instead of posting again
SETTLE_TIMEOUTS = 2.0

log = structlog.get_logger("denpex.posting")


class PostInFlight(RuntimeError):
    """An earlier attempt's message may still land in Slack; RQ retries the job later."""


def _meta(message: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    meta = message.get("metadata") or {}
    return meta.get("event_type"), meta.get("event_payload") or {}


class SlackPoster:
    def __init__(self, client: WebClient, channel: str, store: Store, renderer: Renderer) -> None:
        self.client, self.channel, self.store, self.renderer = client, channel, store, renderer

    # ------------------------------------------------------------- lookups
    def _find_root(self, job_key: str, since: float, event: str = ROOT_EVENT) -> tuple[str, str] | None:
        cursor = None
        for _ in range(20):  # bounded paging
            resp = self.client.conversations_history(
                channel=self.channel,
                oldest=f"{since - LOOKBACK_SECONDS:.6f}",
                include_all_metadata=True,
                limit=200,
                cursor=cursor,
            )
            messages: list[dict[str, Any]] = resp.get("messages", [])
            for message in messages:
                found, payload = _meta(message)
                if found == event and payload.get("job_key") == job_key:
                    return self.channel, message["ts"]
            cursor = (resp.get("response_metadata") or {}).get("next_cursor")
            if not cursor:
                return None
        return None

    def _lookup(self, job_key: str, since: float, event: str = ROOT_EVENT) -> tuple[str, str] | None:
        """`_find_root`, except that a channel we cannot read (a name instead of an ID, no history
        scope) falls back to posting: a possible duplicate beats never posting. Transient errors raise."""
        try:
            return self._find_root(job_key, since, event)
        except SlackApiError as exc:
            error = exc.response.get("error") if exc.response is not None else None
            if error not in UNREADABLE_CHANNEL:
                raise
            log.warning("history_unreadable", job_key=job_key, error=error)
            return None

    def _reply_exists(self, job_key: str, channel: str, ts: str, index: int) -> bool:
        resp = self.client.conversations_replies(
            channel=channel, ts=ts, include_all_metadata=True, limit=1000
        )
        messages: list[dict[str, Any]] = resp.get("messages", [])
        for message in messages:
            event, payload = _meta(message)
            if event == REPLY_EVENT and payload.get("job_key") == job_key and payload.get("index") == index:
                return True
        return False

    def _settle(self, job_key: str, journal: PostJournal, sent_at: str | None) -> None:
        """Raise `PostInFlight` while a timed-out earlier request for this message may still land.

        Only a request that got no answer (timeout, dropped connection) can land late; one Slack
        answered with an error was recorded as `answered` and is settled at once.
        """
        if not sent_at or journal.answered_at == sent_at:
            return
        timeout = float(getattr(self.client, "timeout", 15) or 15)
        if time.time() - float(sent_at) < SETTLE_TIMEOUTS * timeout:
            raise PostInFlight(job_key)

    def _send(self, journal: PostJournal, sent_at: float, *args: Any, **kwargs: Any) -> SlackResponse:
        try:
            return self._post(*args, **kwargs)
        except SlackApiError:  # Slack answered: this request is not in flight any more
            journal.answered(sent_at)
            raise

    # ------------------------------------------------------------- posting
    def _post(
        self,
        channel: str,
        message: SlackMessage,
        event: str,
        payload: dict[str, Any],
        thread_ts: str | None = None,
    ) -> SlackResponse:
        return self.client.chat_postMessage(
            channel=channel,
            text=message.text,
            blocks=message.blocks or None,
            thread_ts=thread_ts,
            metadata={"event_type": event, "event_payload": payload},
            unfurl_links=False,
            unfurl_media=False,
        )

    def _root(
        self, job_key: str, job: JobRef, diagnosis: Diagnosis | None, quota: QuotaDecision
    ) -> tuple[str, str]:
        def render() -> SlackMessage:
            shown = diagnosis if quota.allowed else None
            return self.renderer.root_message(job, shown, quota_note=None if quota.allowed else quota.note)

        return self._post_root(job_key, ROOT_EVENT, render)

    def _post_root(self, job_key: str, event: str, render: Callable[[], SlackMessage]) -> tuple[str, str]:
        """The journal's root steps: a channel message posted exactly once, tagged `event`."""
        journal = self.store.post_journal(job_key)
        if journal.ts:
            return str(journal.channel), journal.ts
        if journal.status is PostStatus.posting:
            found = self._lookup(job_key, float(journal.posting_at or time.time()), event)
            if found:
                log.info("root_recovered", job_key=job_key, ts=found[1])
                journal.root_posted(*found)
                return found
            self._settle(job_key, journal, journal.posting_at)
        sent_at = time.time()
        journal.begin_root(sent_at)
        resp = self._send(journal, sent_at, self.channel, render(), event, {"job_key": job_key})
        channel, ts = str(resp["channel"]), str(resp["ts"])
        journal.root_posted(channel, ts)
        return channel, ts

    def post_board(self, board_key: str, message: SlackMessage) -> tuple[str, str]:
        """Post a board's message (a fold summary) once, journalled under `board_key` like a root."""
        return self._post_root(board_key, BOARD_EVENT, lambda: message)

    def update(self, channel: str, ts: str, message: SlackMessage) -> None:
        """Replace a posted message in place (`chat.update`): a group root, a fold summary."""
        self.client.chat_update(channel=channel, ts=ts, text=message.text, blocks=message.blocks or None)

    def _replies(
        self,
        job_key: str,
        job: JobRef,
        diagnosis: Diagnosis,
        channel: str,
        ts: str,
        history: NodeHistory | None = None,
    ) -> None:
        # only with something to say: renderers written before the node history keep working
        render = self.renderer.thread_messages
        messages = render(job, diagnosis, history=history) if history else render(job, diagnosis)
        journal = self.store.post_journal(job_key)
        # only the first reply of this execution can be one an earlier execution left in flight
        in_flight = journal.reply_posting
        for index in range(journal.replies, len(messages)):
            pending = in_flight == index
            if not (pending and self._reply_exists(job_key, channel, ts, index)):
                if pending:
                    self._settle(job_key, journal, journal.reply_posting_at)
                sent_at = time.time()
                journal.begin_reply(index, sent_at)
                self._send(
                    journal,
                    sent_at,
                    channel,
                    messages[index],
                    REPLY_EVENT,
                    {"job_key": job_key, "index": index},
                    ts,
                )
            journal.reply_done(index)
            in_flight = None
        if not self.store.post_journal(job_key).file_uploaded:
            evidence = self.renderer.evidence_file(job, diagnosis)
            if evidence is not None:
                self.client.files_upload_v2(
                    channel=channel,
                    thread_ts=ts,
                    content=evidence.content,
                    filename=evidence.filename,
                    title=evidence.title,
                )
            journal.file_done()

    def post(
        self,
        job_key: str,
        job: JobRef,
        diagnosis: Diagnosis | None,
        quota: QuotaDecision,
        history: NodeHistory | None = None,
        on_posted: Callable[[str, str], None] | None = None,
    ) -> tuple[str, str]:
        """Post (or finish posting) the job's thread; returns (channel, root ts). `history` is the
        thread's node lines; `on_posted(channel, ts)` (the incident history, idempotent) runs in the
        step that records the post, before `finish`, so a retry after a crash runs it again, never
        after the job counts as posted."""
        channel, ts = self._root(job_key, job, diagnosis, quota)
        if quota.allowed and diagnosis is not None:
            self._replies(job_key, job, diagnosis, channel, ts, history)
        if on_posted is not None:
            on_posted(channel, ts)
        self.store.post_journal(job_key).finish()
        return channel, ts
