"""Block Kit rendering of a failure: the short root message and the diagnosis thread.

Implements `workers.ports.Renderer`. Every text that came from a log, a webhook or a user is escaped
(`mrkdwn.escape`) so a log line can never ping `@channel`, mention someone or render a link. Every
message stays within Slack's limits (50 blocks, 3,000 characters a section, 40,000 a message): long
parts are clipped and the full evidence goes into a files v2 upload instead. The thread's first reply
stays about `THREAD_LINES` lines, read on a phone at 3 a.m.: what would not fit is behind its Details
button (`details_messages`, posted by `bot.slack.details`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from bot.slack import groups as group_blocks
from bot.slack.evidence import LOG_PREFIX, frame_row, initiating_lines, trigger_line, user_frame
from bot.slack.mrkdwn import (
    actions,
    button,
    clip,
    code_safe,
    context,
    divider,
    escape,
    header,
    inline_code,
    rank_ranges,
    section,
    shorten,
    verbatim,
)
from bot.slack.nodes import NodeHistory, node_history_blocks
from bot.web.links import entry_url
from denpex.core.models import Diagnosis, EvidenceLine, JobRef
from denpex.core.settings import DrainAction
from denpex.core.texts import actions as action_texts
from denpex.core.texts import cli as cli_texts
from denpex.core.texts import collateral as collateral_texts
from denpex.core.texts import flightrec as fr_texts
from denpex.core.texts import thread as texts
from knowledge.jobfacts import JobFacts
from knowledge.jobfill import fill
from knowledge.schema import Entry
from knowledge.wording import phase_words
from workers.ports import EvidenceFile, FoldSummary, GroupView, SlackMessage

MAX_BLOCKS = 50
MAX_MESSAGE = 40_000
ROOT_BLOCK = "denpex_root"
EVIDENCE_LINES = 12
LINE_CHARS = 300
TAIL_LINES = 12  # of the initiating rank, under Details
#: the thread's first reply stays about this many lines; the rest is behind the Details button
THREAD_LINES = 25
WRAP_CHARS = 120  # a line longer than this counts as several (Slack wraps it)
DETAILS_ACTION = "denpex_details"
DETAILS_BLOCK = "denpex_details"
#: the "Fixed — how?" button (`bot.slack.fixnote` opens the modal)
FIX_ACTION = "denpex_fix_note"
FIX_BLOCK = "denpex_fix_note"


def incident_job(job: JobRef) -> str:
    """The job as the incident history names it (`/denpex solved <job>`): `ns/name` on Kubernetes."""
    return job.job_id if not job.namespace else f"{job.namespace}/{job.job_id}"


def root_block_id(job: JobRef) -> str:
    """The root message's first block id names the job, so a thread leads back to its diagnosis."""
    block_id = f"{ROOT_BLOCK}:{job.key}"
    return block_id if len(block_id) <= 255 else ROOT_BLOCK


def job_key_from_message(message: Mapping[str, Any]) -> str | None:
    """The job key of a Denpex root message (None for any other message)."""
    for block in message.get("blocks") or []:
        block_id = str(block.get("block_id") or "")
        if block_id.startswith(ROOT_BLOCK + ":"):
            return block_id[len(ROOT_BLOCK) + 1 :]
    meta = (message.get("metadata") or {}).get("event_payload") or {}
    return str(meta["job_key"]) if meta.get("job_key") else None


def _evidence_code(lines: Sequence[EvidenceLine], limit: int = EVIDENCE_LINES) -> str:
    ordered = sorted(lines[:limit], key=lambda ln: (ln.source, ln.line))  # in the log's own order
    chars = LINE_CHARS if limit > 3 else 2 * WRAP_CHARS  # the short form: two screen lines each
    rows = [f"{ln.ref}  {shorten(ln.text, chars)}" for ln in ordered]
    return "```" + code_safe("\n".join(rows)) + "```" if rows else ""


def _job_title(job: JobRef) -> str:
    name = f" ({verbatim(job.name)})" if job.name else ""  # as typed: `*prod*` is not bold, no links
    return f"Job {inline_code(job.job_id)}{name} on {inline_code(job.cluster)}"


def _job_facts(job: JobRef) -> str:
    facts = [f"state {verbatim(job.state or 'FAILED')}"]
    if job.exit_code:
        facts.append(f"exit {inline_code(job.exit_code)}")
    if job.user:
        facts.append(f"user {verbatim(job.user)}")
    if job.nodes:
        shown = ", ".join(job.nodes[:5]) + (f" +{len(job.nodes) - 5}" if len(job.nodes) > 5 else "")
        facts.append(f"nodes {escape(shown)}")
    return " · ".join(facts)


def _who(d: Diagnosis) -> str:
    seen = cli_texts.ranks_seen(d.stats.files, d.stats.ranks)
    return cli_texts.initiator(d.initiating.rank, category=d.category, ranks_seen=seen)


def _rank_phrase(d: Diagnosis) -> str:
    rank = _who(d)
    node = f" on {inline_code(d.initiating.node)}" if d.initiating.node else ""
    return f"{rank}{node}"


def _later(first: str | None, then: str | None) -> str:
    """ " 10 min later" between two ISO times of the diagnosis, or "" when either is missing."""
    if not first or not then:
        return ""
    try:
        gap = (datetime.fromisoformat(then) - datetime.fromisoformat(first)).total_seconds()
    except ValueError:
        return ""
    if gap < 1:
        return ""
    return f", {gap / 60:.0f} min later" if gap >= 120 else f", {gap:.0f} s later"


def _phase_phrase(d: Diagnosis) -> str:
    """ ", while saving a checkpoint (40 s after `Saving model checkpoint to …`)" when the engine knows."""
    ini = d.initiating
    if not ini.phase:
        return ""
    words = escape(phase_words(ini.phase))
    ev = ini.phase_evidence
    when = "probably while" if ini.phase_inferred else "while"  # inferred from a bar frozen on a round step
    if ev is None:
        return f", {when} {words}"
    return f", {when} {words} (`{escape(ev.ref)}`)"


def headline(d: Diagnosis) -> str:
    """One line: what failed first and why."""
    title = d.entry.title if d.entry else d.category.replace("_", " ")
    return f"{escape(title)} — initiating {_rank_phrase(d)} ({round(d.confidence * 100)}% confidence)"


#: (evidence lines, fix steps, root-cause characters, collateral groups, missing items) of the
#: ever shorter forms of the thread's first reply; the Details button posts the rest
_LEVELS: tuple[tuple[int, int | None, int | None, int | None, int | None], ...] = (
    (3, None, None, 3, 2),
    (2, 2, 300, 2, 1),
    (1, 1, 200, 1, 1),
    (1, 1, 120, 1, 0),
    (1, 0, 120, 1, 0),
)


def line_count(blocks: Sequence[Mapping[str, Any]]) -> int:
    """The lines the blocks take on screen (a long line counts as the lines Slack wraps it into)."""
    total = 0
    for block in blocks:
        texts_ = [(block.get("text") or {}).get("text", "")] + [
            e.get("text", "") for e in block.get("elements", [])
        ]
        for text in texts_:
            if isinstance(text, str) and text:
                total += sum(
                    max(1, math.ceil(len(ln) / WRAP_CHARS)) for ln in text.replace("```", "").split("\n")
                )
    return total


def flight_recorder_rows(d: Diagnosis) -> list[str]:
    """ "Flight Recorder: ranks 12 and 14 never entered all_gather #39416 in TP (the 14 others did)"."""
    rows = []
    for g in d.collectives.groups:
        if g.missing:
            line = fr_texts.summary(
                g.missing, g.front_op or "collective", g.front_seq, g.group_desc or g.group_id, g.entered
            )
            rows.append(escape(line))
    return rows[:3]


class BlockKitRenderer:
    """Renders failures for Slack; `entries` (knowledge id → Entry) supplies fix snippets."""

    def __init__(
        self,
        entries: Mapping[str, Entry] | None = None,
        *,
        evidence_lines: int = EVIDENCE_LINES,
        public_url: str | None = None,
        drain_action: DrainAction = DrainAction.off,
        history_on: Callable[[], bool] | None = None,
    ):
        self.entries = dict(entries or {})
        self.evidence_lines = evidence_lines
        self.public_url = public_url  # DENPEX_PUBLIC_URL: entry names link to their /kb/ page
        #: DENPEX_DRAIN_ACTION: advised nodes get a Drain button (`bot.slack.drain`)
        self.drain_action = drain_action
        #: asked when a thread is rendered: does the workspace keep the incident history (Scale)?
        #: Then the thread has a "Fixed — how?" button; None: never (the press checks the plan again)
        self.history_on = history_on

    # ------------------------------------------------------------------ root
    def root_message(
        self, job: JobRef, diagnosis: Diagnosis | None, *, quota_note: str | None
    ) -> SlackMessage:
        title = f":rotating_light: *{_job_title(job)} failed*"
        blocks: list[dict[str, Any]] = [
            dict(section(f"{title}\n{_job_facts(job)}", verbatim=True), block_id=root_block_id(job))
        ]
        if diagnosis is not None:
            blocks.append(section(f"*Cause:* {headline(diagnosis)}"))
            blocks.append(context("Diagnosis, fix and verify command in the thread :thread:"))
            text = f"Job {job.job_id} on {job.cluster} failed: {headline(diagnosis)}"
        else:
            note = escape(quota_note or "No diagnosis was made for this failure.")
            blocks.append(section(f":no_entry: {note}"))
            text = f"Job {job.job_id} on {job.cluster} failed. {quota_note or ''}".strip()
        return SlackMessage(text=clip(escape(text), 3000), blocks=blocks)

    # ------------------------------------------------------------------ thread
    def _initiating_blocks(self, d: Diagnosis, evidence: int) -> list[dict[str, Any]]:
        ini = d.initiating
        when = escape(texts.failed_when(ini.time, ini.time_borrowed)) if ini.time else ""
        rows = [f"*Failed first:* {_rank_phrase(d)}{when}{_phase_phrase(d)}"]
        lines = initiating_lines(d)
        if (trig := trigger_line(lines)) is not None:
            said = escape(shorten(LOG_PREFIX.sub("", trig.text).strip(), 110))
            rows.append(f"*Trigger:* `{escape(trig.ref)}` {said}")
        if (frame := user_frame(lines)) is not None:
            rows.append(frame_row(frame))
        code = _evidence_code(d.initiating.evidence, evidence)
        return [section("\n".join(rows) + (f"\n{code}" if code else ""))]

    def _fix_blocks(self, d: Diagnosis, steps: int | None, cause: int | None) -> list[dict[str, Any]]:
        root = shorten(d.root_cause, cause) if cause is not None else d.root_cause
        blocks = [section(f"*Root cause:* {escape(root)}")] if root else []
        entry = self.entries.get(d.entry.id) if d.entry else None
        rows = d.fix.split("\n") if d.fix else []
        if not rows and entry is not None:
            rows = [f"{i}. {s}" for i, s in enumerate(entry.fix.steps, 1)]
        if rows:
            shown = (
                rows
                if steps is None or len(rows) <= steps
                else [*rows[:steps], texts.more_in_details(len(rows) - steps)]
            )
            blocks.append(section("*Fix:*\n" + "\n".join(escape(r) for r in shown)))
        snippet = d.fix_snippet or (fill(entry.fix.snippet, JobFacts()).strip() if entry is not None else "")
        if snippet:  # shown whole, once: half a command is worse than none
            blocks.append(section("```" + code_safe(clip(snippet, 2800)) + "```"))
        if d.verify:
            blocks.append(section(f"*Verify the fix:*\n```{code_safe(d.verify)}```"))
        return blocks

    def _collateral_blocks(self, d: Diagnosis, groups: int | None = None) -> list[dict[str, Any]]:
        rows = []
        for group in d.collateral[:groups]:
            why = f" — {escape(group.why)}" if group.why else ""
            later = "" if group.first_time_borrowed else _later(d.initiating.time, group.first_time)
            what = collateral_texts.row(group.what, group.category)  # the ranks' own end, not the category
            rows.append(f"• ranks {rank_ranges(group.ranks)}: {escape(what)}{later}{why}")
        if groups is not None and len(d.collateral) > groups:
            rows.append(texts.more_in_details(len(d.collateral) - groups))
        blocks = [section("*Collateral (failed because of it):*\n" + "\n".join(rows))] if rows else []
        if fr := flight_recorder_rows(d):
            blocks.append(section("\n".join(fr)))
        return blocks

    def _missing_blocks(self, d: Diagnosis, items: int | None = None) -> list[dict[str, Any]]:
        if not d.missing_evidence:
            return []
        rows = [f"• {escape(m.what)} → {escape(m.next_action)}" for m in d.missing_evidence[:items]]
        if items is not None and len(d.missing_evidence) > items:
            rows.append(texts.more_in_details(len(d.missing_evidence) - items))
        return [section("*Missing evidence:*\n" + "\n".join(rows))]

    def _footer(self, d: Diagnosis, short: bool = False) -> dict[str, Any]:
        s = d.stats
        parts = [f"confidence {round(d.confidence * 100)}%", f"category `{escape(d.category)}`"]
        if d.entry:  # a link to the entry's page when DENPEX_PUBLIC_URL is set (bot.web.links)
            url = entry_url(self.public_url, d.entry.id)
            parts.append(f"entry <{url}|{escape(d.entry.id)}>" if url else f"entry `{escape(d.entry.id)}`")
        if short:  # the rest is under Details
            return context(" · ".join(parts))
        if d.alternatives:
            parts.append("also possible: " + ", ".join(escape(a.title) for a in d.alternatives[:3]))
        parts.append(f"{s.ranks} ranks, {s.files} files, {s.bytes:,} bytes in {s.seconds:.2f}s")
        return context(" · ".join(parts))

    def _body(self, d: Diagnosis, level: int | None) -> list[dict[str, Any]]:
        """The thread's content: all of it (`level` None), or ever shorter (0-2) behind a Details button."""
        caps = (None, None, None, None, None) if level is None else _LEVELS[level]
        evidence, steps, cause, groups, items = caps
        return [
            *self._initiating_blocks(d, self.evidence_lines if evidence is None else evidence),
            *self._fix_blocks(d, steps, cause),
            *self._collateral_blocks(d, groups),
            *self._missing_blocks(d, items),
        ]

    def thread_messages(
        self, job: JobRef, diagnosis: Diagnosis, *, history: NodeHistory | None = None
    ) -> list[SlackMessage]:
        d = diagnosis
        title = d.entry.title if d.entry else d.category.replace("_", " ")
        text = clip(escape(f"{title}: started by {_who(d)} — {d.root_cause}"), 3000)
        footer = [divider(), self._footer(d)]
        blocks = [header(title), *self._body(d, None), *footer]
        if line_count(blocks) > THREAD_LINES:  # the short form, the rest behind the Details button
            more = actions(DETAILS_BLOCK, button(texts.DETAILS_BUTTON, DETAILS_ACTION, job.key))
            footer = [divider(), self._footer(d, short=True)]
            for level in range(len(_LEVELS)):
                blocks = [header(title), *self._body(d, level), more, *footer]
                if line_count(blocks) <= THREAD_LINES:
                    break
        # the nodes' incident history (workers.nodehealth), then the "Fixed — how?" button
        blocks[-2:-2] = [
            *node_history_blocks(history, drain=self.drain_action, cluster=job.cluster),
            *self._fix_note_button(job),
        ]
        return _split(blocks, text)

    def _fix_note_button(self, job: JobRef) -> list[dict[str, Any]]:
        if self.history_on is None or not self.history_on():
            return []
        return [actions(FIX_BLOCK, button(action_texts.FIX_BUTTON, FIX_ACTION, incident_job(job)))]

    def details_messages(self, job: JobRef, diagnosis: Diagnosis) -> list[SlackMessage]:
        """Everything the short thread left out: all evidence, every fix step, group and missing item."""
        d = diagnosis
        blocks = [header(texts.DETAILS_HEADER), *self._body(d, None)]
        tail = next((t for t in d.tails if t.rank is not None and t.rank == d.initiating.rank), None)
        if tail is not None and tail.lines:
            last = "\n".join(f"{ln.line}  {shorten(ln.text, LINE_CHARS)}" for ln in tail.lines[-TAIL_LINES:])
            heading = f"*Last lines of rank {tail.rank}* (`{escape(tail.source)}`)"
            blocks.append(section(f"{heading}\n```{code_safe(last)}```"))
        if d.alternatives:
            rows = [
                f"• {escape(a.title)} — {escape(a.why)}" if a.why else f"• {escape(a.title)}"
                for a in d.alternatives
            ]
            blocks.append(section("*Also possible:*\n" + "\n".join(rows)))
        blocks += [divider(), self._footer(d)]
        return _split(blocks, clip(escape(texts.details_text(job.job_id, job.cluster)), 3000))

    # ------------------------------------------------------------------ file
    # ------------------------------------------------------------------ no floods
    def group_root(
        self, job: JobRef, diagnosis: Diagnosis | None, group: GroupView, *, quota_note: str | None
    ) -> SlackMessage:
        base = self.root_message(job, diagnosis, quota_note=quota_note)
        return group_blocks.group_root(base, job.job_id, job.cluster, group)

    def fold_summary(self, summary: FoldSummary) -> SlackMessage:
        return group_blocks.fold_summary(summary)

    def evidence_file(self, job: JobRef, diagnosis: Diagnosis) -> EvidenceFile | None:
        return EvidenceFile(
            filename=f"denpex-{job.cluster}-{job.job_id}-evidence.txt".replace("/", "_"),
            title=f"Full evidence for job {job.job_id} on {job.cluster}",
            content=evidence_text(job, diagnosis),
        )


def _split(blocks: list[dict[str, Any]], text: str) -> list[SlackMessage]:
    """Pack blocks into as few messages as Slack's block and size limits allow."""
    messages: list[SlackMessage] = []
    current: list[dict[str, Any]] = []
    size = len(text)
    for block in blocks:
        block_size = len(json.dumps(block))
        if current and (len(current) >= MAX_BLOCKS or size + block_size > MAX_MESSAGE - 1000):
            messages.append(SlackMessage(text=text, blocks=current))
            current, size = [], len(text)
        current.append(block)
        size += block_size
    if current:
        messages.append(SlackMessage(text=text, blocks=current))
    return messages


def evidence_text(job: JobRef, d: Diagnosis) -> str:
    """The full (already masked) evidence as plain text: files are not parsed as mrkdwn."""
    out = [f"Denpex diagnosis for {job.key}", f"category: {d.category}  confidence: {d.confidence:.2f}"]
    if d.entry:
        out.append(f"entry: {d.entry.id} — {d.entry.title}")
    ini = d.initiating
    where = "".join(f" {k} {v}" for k, v in (("on", ini.node), ("at", ini.time)) if v)
    out += ["", f"== initiating: {_who(d)}{where}"]
    out += [f"{ln.ref}: {ln.text}" for ln in d.initiating.evidence]
    for group in d.collateral:
        what = collateral_texts.row(group.what, group.category)
        out.append(f"== collateral ranks {rank_ranges(group.ranks)}: {what} — {group.why}")
    for tail in d.tails:
        out += ["", f"== last lines of rank {tail.rank} ({tail.source}, node {tail.node})"]
        out += [f"{ln.line}: {ln.text}" for ln in tail.lines]
    for node, lines in d.nodes.items():
        out += ["", f"== node {node}"] + [f"{ln.ref}: {ln.text}" for ln in lines]
    if d.missing_evidence:
        out += ["", "== missing evidence"] + [f"- {m.what}: {m.next_action}" for m in d.missing_evidence]
    out += ["", "== diagnosis JSON", d.model_dump_json(indent=2)]
    return "\n".join(out) + "\n"
