"""Redis state of the Slack app itself (its own keys, under `denpex:slack:`) and thread lookups.

- `event:{event_id}`       — SET NX: Slack retries an event it thinks we missed; answer it once.
- `thread:{channel}:{ts}`  — which job a thread belongs to (`-` for threads that are not ours).
- `upsell:{channel}:{ts}`  — the "follow-ups are a Scale feature" note is said once a thread.

A thread is Denpex's when its root message was posted by this bot and names a job: in its
`denpex_diagnosis` metadata (written by `workers.posting`) or its first block id (`render.py`).
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis

from bot.slack.render import job_key_from_message
from workers.store import as_str

PREFIX = "denpex:slack:"
EVENT_TTL = 3600
THREAD_TTL = 14 * 86400


class SlackState:
    def __init__(self, client: redis.Redis) -> None:
        self.r = client

    async def first_delivery(self, event_id: str | None) -> bool:
        """True the first time an event id is seen (Slack's retries carry the same id)."""
        if not event_id:
            return True
        return bool(
            await asyncio.to_thread(self.r.set, f"{PREFIX}event:{event_id}", "1", nx=True, ex=EVENT_TTL)
        )

    async def once_per_thread(self, channel: str, ts: str, what: str) -> bool:
        key = f"{PREFIX}{what}:{channel}:{ts}"
        return bool(await asyncio.to_thread(self.r.set, key, "1", nx=True, ex=THREAD_TTL))

    async def thread_job(self, client: Any, channel: str, thread_ts: str, bot_ids: set[str]) -> str | None:
        """The job key of the Denpex thread rooted at `thread_ts`, or None."""
        key = f"{PREFIX}thread:{channel}:{thread_ts}"
        cached = await asyncio.to_thread(self.r.get, key)
        if cached is not None:
            value = as_str(cached)
            return None if value == "-" else value
        resp = await client.conversations_replies(
            channel=channel, ts=thread_ts, limit=1, include_all_metadata=True
        )
        messages = resp.get("messages") or []
        root = messages[0] if messages else {}
        ours = bool({root.get("bot_id"), root.get("user")} & bot_ids)
        job_key = job_key_from_message(root) if ours and root.get("ts") == thread_ts else None
        await asyncio.to_thread(self.r.set, key, job_key or "-", ex=THREAD_TTL)
        return job_key
