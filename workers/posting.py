"""Posting one diagnosis to Slack exactly once, across retries and worker crashes.

The order of writes is the whole design:

1. before `chat.postMessage` for the root message, record `status=posting` and `posting_at`;
2. post it with message metadata `denpex_diagnosis {job_key}`; record `channel` and `ts`;
3. each thread reply likewise: record `reply_posting=i`, post (metadata `denpex_reply {job_key, index}`),
   record `replies=i+1`; then the evidence file; then `status=posted`.

A retry that finds `ts` continues the same thread from `replies`. A retry that finds `posting` without
`ts` (the worker died between Slack answering and Redis recording) looks the root message up by its
metadata in `conversations.history` before posting again; likewise for a reply in
`conversations.replies`. So a message is never posted twice and a thread never forks.
"""

from __future__ import annotations

import time
from typing import Any

import structlog
from slack_sdk.errors import SlackApiError

from denpex.models import Diagnosis, JobRef
from workers.ports import QuotaDecision, Renderer, SlackMessage
from workers.store import Store

ROOT_EVENT = "denpex_diagnosis"
REPLY_EVENT = "denpex_reply"
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
    def __init__(self, client: Any, channel: str, store: Store, renderer: Renderer) -> None:
        self.client, self.channel, self.store, self.renderer = client, channel, store, renderer

    # ------------------------------------------------------------- lookups
    def _find_root(self, work: str, since: float) -> tuple[str, str] | None:
        cursor = None
        for _ in range(20):  # bounded paging
            resp = self.client.conversations_history(
                channel=self.channel, oldest=f"{since - LOOKBACK_SECONDS:.6f}", include_all_metadata=True,
                limit=200, cursor=cursor)
            for message in resp.get("messages", []):
                event, payload = _meta(message)
                if event == ROOT_EVENT and payload.get("job_key") == work:
                    return self.channel, message["ts"]
            cursor = (resp.get("response_metadata") or {}).get("next_cursor")
            if not cursor:
                return None
        return None

    def _lookup(self, work: str, since: float) -> tuple[str, str] | None:
        """`_find_root`, except that a channel we cannot read (a name instead of an ID, no history
        scope) falls back to posting: a possible duplicate beats never posting. Transient errors raise."""
        try:
            return self._find_root(work, since)
        except SlackApiError as exc:
            error = exc.response.get("error") if exc.response is not None else None
            if error not in UNREADABLE_CHANNEL:
                raise
            log.warning("history_unreadable", job_key=work, error=error)
            return None

    def _reply_exists(self, work: str, channel: str, ts: str, index: int) -> bool:
        resp = self.client.conversations_replies(channel=channel, ts=ts, include_all_metadata=True,
                                                 limit=1000)
        for message in resp.get("messages", []):
            event, payload = _meta(message)
            if event == REPLY_EVENT and payload.get("job_key") == work and payload.get("index") == index:
                return True
        return False

    def _settle(self, work: str, state: dict[str, str], field: str) -> None:
        """Raise `PostInFlight` while a timed-out earlier request for this message may still land.

        Only a request that got no answer (timeout, dropped connection) can land late; one Slack
        answered with an error was recorded as `answered` and is settled at once.
        """
        sent_at = state.get(field)
        if not sent_at or state.get("answered") == sent_at:
            return
        timeout = float(getattr(self.client, "timeout", 15) or 15)
        if time.time() - float(sent_at) < SETTLE_TIMEOUTS * timeout:
            raise PostInFlight(work)

    def _send(self, work: str, sent_at: float, *args: Any, **kwargs: Any) -> Any:
        try:
            return self._post(*args, **kwargs)
        except SlackApiError:  # Slack answered: this request is not in flight any more
            self.store.update_post(work, answered=str(sent_at))
            raise

    # ------------------------------------------------------------- posting
    def _post(self, channel: str, message: SlackMessage, event: str, payload: dict[str, Any],
              thread_ts: str | None = None) -> Any:
        return self.client.chat_postMessage(
            channel=channel, text=message.text, blocks=message.blocks or None, thread_ts=thread_ts,
            metadata={"event_type": event, "event_payload": payload}, unfurl_links=False, unfurl_media=False)

    def _root(
        self, work: str, job: JobRef, diagnosis: Diagnosis | None, quota: QuotaDecision
    ) -> tuple[str, str]:
        state = self.store.post_state(work)
        if state.get("ts"):
            return state["channel"], state["ts"]
        if state.get("status") == "posting":
            found = self._lookup(work, float(state.get("posting_at", time.time())))
            if found:
                log.info("root_recovered", job_key=work, ts=found[1])
                self.store.update_post(work, channel=found[0], ts=found[1])
                return found
            self._settle(work, state, "posting_at")
        sent_at = time.time()
        self.store.update_post(work, status="posting", posting_at=str(sent_at))
        message = self.renderer.root_message(job, diagnosis if quota.allowed else None,
                                             quota_note=None if quota.allowed else quota.note)
        resp = self._send(work, sent_at, self.channel, message, ROOT_EVENT, {"job_key": work})
        channel, ts = resp["channel"], resp["ts"]
        self.store.update_post(work, channel=channel, ts=ts)
        return channel, ts

    def _replies(self, work: str, job: JobRef, diagnosis: Diagnosis, channel: str, ts: str) -> None:
        messages = self.renderer.thread_messages(job, diagnosis)
        state = self.store.post_state(work)
        done = int(state.get("replies", 0))
        for index in range(done, len(messages)):
            pending = state.get("reply_posting") == str(index)
            if not (pending and self._reply_exists(work, channel, ts, index)):
                if pending:
                    self._settle(work, state, "reply_posting_at")
                sent_at = time.time()
                self.store.update_post(work, reply_posting=index, reply_posting_at=str(sent_at))
                self._send(work, sent_at, channel, messages[index], REPLY_EVENT,
                           {"job_key": work, "index": index}, ts)
            self.store.update_post(work, replies=index + 1)
            state = {}
        if not self.store.post_state(work).get("file"):
            evidence = self.renderer.evidence_file(job, diagnosis)
            if evidence is not None:
                self.client.files_upload_v2(channel=channel, thread_ts=ts, content=evidence.content,
                                            filename=evidence.filename, title=evidence.title)
            self.store.update_post(work, file=1)

    def post(
        self, work: str, job: JobRef, diagnosis: Diagnosis | None, quota: QuotaDecision
    ) -> tuple[str, str]:
        """Post (or finish posting) the job's thread; returns (channel, root ts)."""
        channel, ts = self._root(work, job, diagnosis, quota)
        if quota.allowed and diagnosis is not None:
            self._replies(work, job, diagnosis, channel, ts)
        self.store.update_post(work, status="posted")
        return channel, ts
