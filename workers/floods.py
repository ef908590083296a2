"""No floods: a failure opens a thread, joins its group's thread, or is folded into a summary.

For each diagnosed failure posted to `DENPEX_CHANNEL` (never for an explicit `/denpex diagnose`):

1. A failure with a group key (`workers.groups.membership`) joins its `Alike` group, once per
   occurrence (a Lua script: a retried job adds nothing). The first to join leads; the others are
   members.
2. The leader, or a failure without a group, asks the cap (`workers.groups.decide`, once per
   occurrence) for a new thread. Granted: the normal thread is posted (`workers.posting`), and the
   group records its root in the same step that records the post. Refused: the failure (and later
   its group's members) is folded into the channel's summary message of that minute.
3. A member waits for its leader's outcome (bounded; RQ retries it after that), then brings the
   board (group root or summary) up to date: under the board's lease, whoever holds it renders the
   latest members and `chat.update`s, until the shown count covers everything joined. Each member
   returns only once its own failure is shown, so no count is lost to a concurrent update landing
   out of order; two workers never post two roots, since only the leader posts one.

Every failure records its incident (linked to the thread or summary it is shown in) and its job
state, so history and `/denpex diagnose` know each job. Only a new thread takes a quota unit; a
member or a folded failure gives its reservation back (`workers.pipeline`).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from denpex.core.models import Diagnosis
from workers.context import WorkerContext
from workers.groups import (
    Board,
    BoardView,
    Decision,
    GroupKey,
    GroupKind,
    alike,
    decide,
    fold_board,
    fold_id,
    group_board,
)
from workers.groups import membership as group_membership
from workers.incidents import occurrence_member
from workers.nodehealth import IncidentStep
from workers.ports import FoldedJob, FoldSummary, GroupView, QuotaDecision, SlackMessage
from workers.posting import SlackPoster
from workers.store import JobRecord, Store

log = structlog.get_logger("denpex.floods")

#: how long one execution may hold a board's update lease
BOARD_LEASE_SECONDS = 30
#: how long a member waits for its leader's thread (or fold) before RQ retries it
FOLLOW_SECONDS = 60.0

PostThread = Callable[[Callable[[str, str], None]], tuple[str, str]]


class BoardPending(RuntimeError):
    """The group's leader has not posted yet, or a board's lease is held too long; RQ retries."""


@dataclass(frozen=True)
class Shown:
    """Where a failure ended up: its channel and message ts, and whether it opened a new thread."""

    channel: str
    ts: str
    new_thread: bool


@dataclass(frozen=True)
class _Group:
    key: GroupKey
    board: Board
    leads: bool


class Floods:
    """One failure's way through grouping and the cap (see the module docstring)."""

    def __init__(self, ctx: WorkerContext, store: Store, poster: SlackPoster) -> None:
        self.ctx, self.store, self.poster = ctx, store, poster

    def show(
        self,
        job_key: str,
        record: JobRecord,
        diagnosis: Diagnosis | None,
        step: IncidentStep | None,
        post_thread: PostThread,
    ) -> Shown:
        """Post `post_thread(on_posted)` as a new thread, or show the failure on a board."""
        member = occurrence_member(job_key, record.received_at)
        group = self._join(job_key, record, diagnosis, member)
        if group is not None and not group.leads:
            return self._follow(group, job_key, record, diagnosis, step)
        board = group.board if group is not None else None
        cap = self.ctx.settings.max_threads_per_min
        if decide(self.ctx.redis, self.poster.channel, member, record.received_at, cap) is Decision.fold:
            summary = fold_id(self.poster.channel, record.received_at)
            if board is not None:
                board.set(fold=summary)
            return self._fold(summary, job_key, record, diagnosis, step)

        def on_posted(channel: str, ts: str) -> None:
            if board is not None and board.read().ts is None:
                board.set(channel=channel, ts=ts, shown=1)
            if step is not None:
                step.record(channel, ts)

        channel, ts = post_thread(on_posted)
        if group is not None:
            self._sync_group(group)  # members that joined before the root was known
        return Shown(channel, ts, new_thread=True)

    # ------------------------------------------------------------- members
    def _join(
        self, job_key: str, record: JobRecord, diagnosis: Diagnosis | None, member: str
    ) -> _Group | None:
        """Join the failure's group once (a retry adds nothing); None: it has no group."""
        place = group_membership(record)
        if place is None:
            return None
        board = group_board(self.ctx.redis, alike(place.key, diagnosis))
        leader = board.join(member, job_key, member, place.task)
        return _Group(place.key, board, leads=leader == member)

    def _follow(
        self,
        group: _Group,
        job_key: str,
        record: JobRecord,
        diagnosis: Diagnosis | None,
        step: IncidentStep | None,
    ) -> Shown:
        board, deadline = group.board, time.monotonic() + FOLLOW_SECONDS
        view = board.read()
        while view.ts is None and view.fold is None:
            if time.monotonic() > deadline:
                raise BoardPending(job_key)
            time.sleep(self.ctx.poll_seconds)
            view = board.read()
        if view.fold is not None:
            return self._fold(view.fold, job_key, record, diagnosis, step)
        view = self._sync_group(group)
        channel, ts = str(view.channel), str(view.ts)
        if step is not None:
            step.record(channel, ts)
        log.info("grouped", job_key=job_key, count=len(view.members))
        return Shown(channel, ts, new_thread=False)

    def _fold(
        self,
        summary: str,
        job_key: str,
        record: JobRecord,
        diagnosis: Diagnosis | None,
        step: IncidentStep | None,
    ) -> Shown:
        place = group_membership(record)
        array = place is not None and place.key.kind is GroupKind.array
        task = place.task if place is not None and place.task not in ("", "restart 0") else None
        item = FoldedJob(
            job_id=record.job.job_id,
            category=diagnosis.category if diagnosis else "",
            group=place.key.parent if place is not None and array else None,
            task=task,
        )
        board = fold_board(self.ctx.redis, summary)
        member = occurrence_member(job_key, record.received_at)
        board.join(member, job_key, member, item.model_dump_json())
        view = self._sync(board, self._render_fold, lambda v, m: self._send_fold(summary, v, m))
        channel, ts = str(view.channel), str(view.ts)
        if step is not None:
            step.record(channel, ts)
        log.info("folded", job_key=job_key, summary=summary, count=len(view.members))
        return Shown(channel, ts, new_thread=False)

    # ------------------------------------------------------------- boards
    def _sync_group(self, group: _Group) -> BoardView:
        def send(view: BoardView, message: SlackMessage) -> tuple[str, str]:
            channel, ts = str(view.channel), str(view.ts)
            self.poster.update(channel, ts, message)
            return channel, ts

        return self._sync(group.board, lambda view: self._render_group(view, group.key), send)

    def _sync(
        self,
        board: Board,
        render: Callable[[BoardView], SlackMessage],
        send: Callable[[BoardView, SlackMessage], tuple[str, str]],
    ) -> BoardView:
        """Bring the board's message up to what was joined so far (at least this caller's member)."""
        token, deadline = uuid.uuid4().hex, time.monotonic() + 2 * BOARD_LEASE_SECONDS
        while True:
            view = board.read()
            if view.ts is not None and view.shown >= len(view.members):
                return view
            if board.lock(token, BOARD_LEASE_SECONDS):
                try:
                    view = board.read()
                    channel, ts = send(view, render(view))
                    board.set(channel=channel, ts=ts, shown=len(view.members))
                finally:
                    board.unlock(token)
                continue
            if time.monotonic() > deadline:
                raise BoardPending(board.key)
            time.sleep(min(self.ctx.poll_seconds, 0.05))

    def _render_group(self, view: BoardView, key: GroupKey) -> SlackMessage:
        leader = self.store.load_job(str(view.leader_key))
        if leader is None:
            raise BoardPending(str(view.leader_key))  # expired: nothing sensible to show
        diagnosis = self.store.load_diagnosis(str(view.leader_key))
        raw = self.store.post_journal(str(view.leader_key)).quota
        quota = QuotaDecision.model_validate_json(raw) if raw else QuotaDecision(allowed=True)
        group = GroupView(
            kind=key.kind.value,
            parent=key.parent,
            count=len(view.members),
            tasks=sorted(view.members.values(), key=_task_order),
        )
        shown = diagnosis if quota.allowed else None
        note = None if quota.allowed else quota.note
        return self.ctx.renderer.group_root(leader.job, shown, group, quota_note=note)

    def _render_fold(self, view: BoardView) -> SlackMessage:
        jobs = [FoldedJob.model_validate_json(v) for v in view.members.values()]
        jobs.sort(key=lambda j: (j.group or j.job_id, _task_order(j.task or ""), j.job_id))
        return self.ctx.renderer.fold_summary(FoldSummary(count=len(jobs), jobs=jobs))

    def _send_fold(self, summary: str, view: BoardView, message: SlackMessage) -> tuple[str, str]:
        if view.ts is None:
            return self.poster.post_board(f"flood-fold:{summary}", message)
        self.poster.update(str(view.channel), view.ts, message)
        return str(view.channel), view.ts


def _task_order(task: str) -> tuple[int, int, str]:
    """Numeric task ids in numeric order (`2` before `10`), then the rest by text."""
    digits = task.rsplit(" ", 1)[-1].lstrip("#")
    return (0, int(digits), task) if digits.isdigit() else (1, 0, task)
