"""Block Kit rendering of a failure: the short root message and the diagnosis thread.

Implements `workers.ports.Renderer`. Every text that came from a log, a webhook or a user is escaped
(`mrkdwn.escape`) so a log line can never ping `@channel`, mention someone or render a link. Every
message stays within Slack's limits (50 blocks, 3,000 characters a section, 40,000 a message): long
parts are clipped and the full evidence goes into a files v2 upload instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from bot.slack.mrkdwn import (
    clip,
    code_safe,
    context,
    divider,
    escape,
    header,
    inline_code,
    rank_ranges,
    section,
)
from denpex.core.models import Diagnosis, EvidenceLine, JobRef
from knowledge.schema import Entry
from knowledge.wording import phase_words
from workers.ports import EvidenceFile, SlackMessage

MAX_BLOCKS = 50
MAX_MESSAGE = 40_000
ROOT_BLOCK = "denpex_root"
EVIDENCE_LINES = 12
LINE_CHARS = 300


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


def _evidence_code(lines: list[EvidenceLine], limit: int = EVIDENCE_LINES) -> str:
    rows = [f"{ln.source}:{ln.line}  {clip(ln.text, LINE_CHARS)}" for ln in lines[:limit]]
    return "```" + code_safe("\n".join(rows)) + "```" if rows else ""


def _job_title(job: JobRef) -> str:
    name = f" ({escape(job.name)})" if job.name else ""
    return f"Job {inline_code(job.job_id)}{name} on {inline_code(job.cluster)}"


def _job_facts(job: JobRef) -> str:
    facts = [f"state *{escape(job.state or 'FAILED')}*"]
    if job.exit_code:
        facts.append(f"exit {inline_code(job.exit_code)}")
    if job.user:
        facts.append(f"user {escape(job.user)}")
    if job.nodes:
        shown = ", ".join(job.nodes[:5]) + (f" +{len(job.nodes) - 5}" if len(job.nodes) > 5 else "")
        facts.append(f"nodes {escape(shown)}")
    return " · ".join(facts)


def _rank_phrase(d: Diagnosis) -> str:
    rank = "rank ?" if d.initiating.rank is None else f"rank {d.initiating.rank}"
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
    if ev is None:
        return f", while {words}"
    return f", while {words} (`{escape(ev.source)}:{ev.line}`)"


def headline(d: Diagnosis) -> str:
    """One line: what failed first and why."""
    title = d.entry.title if d.entry else d.category.replace("_", " ")
    return f"{escape(title)} — initiating {_rank_phrase(d)} ({round(d.confidence * 100)}% confidence)"


class BlockKitRenderer:
    """Renders failures for Slack; `entries` (knowledge id → Entry) supplies fix snippets."""

    def __init__(self, entries: Mapping[str, Entry] | None = None, *, evidence_lines: int = EVIDENCE_LINES):
        self.entries = dict(entries or {})
        self.evidence_lines = evidence_lines

    # ------------------------------------------------------------------ root
    def root_message(
        self, job: JobRef, diagnosis: Diagnosis | None, *, quota_note: str | None
    ) -> SlackMessage:
        title = f":rotating_light: *{_job_title(job)} failed*"
        blocks: list[dict[str, Any]] = [
            dict(section(f"{title}\n{_job_facts(job)}"), block_id=root_block_id(job))
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
    def _initiating_blocks(self, d: Diagnosis) -> list[dict[str, Any]]:
        when = f" at {escape(d.initiating.time)}" if d.initiating.time else ""
        text = f"*Failed first:* {_rank_phrase(d)}{when}{_phase_phrase(d)}"
        code = _evidence_code(d.initiating.evidence, self.evidence_lines)
        return [section(f"{text}\n{code}" if code else text)]

    def _fix_blocks(self, d: Diagnosis) -> list[dict[str, Any]]:
        blocks = [section(f"*Root cause:* {escape(d.root_cause)}")] if d.root_cause else []
        entry = self.entries.get(d.entry.id) if d.entry else None
        fix = escape(d.fix) if d.fix else ""
        if not fix and entry is not None:
            fix = "\n".join(f"{i}. {escape(s)}" for i, s in enumerate(entry.fix.steps, 1))
        if fix:
            blocks.append(section(f"*Fix:*\n{fix}"))
        snippet = d.fix_snippet or (entry.fix.snippet if entry is not None else "")
        if snippet:
            blocks.append(section("```" + code_safe(clip(snippet, 2800)) + "```"))
        if d.verify:
            blocks.append(section(f"*Verify the fix:*\n```{code_safe(d.verify)}```"))
        return blocks

    def _collateral_blocks(self, d: Diagnosis) -> list[dict[str, Any]]:
        if not d.collateral:
            return []
        rows = []
        for group in d.collateral:
            why = f" — {escape(group.why)}" if group.why else ""
            later = _later(d.initiating.time, group.first_time)
            rows.append(f"• ranks {rank_ranges(group.ranks)}: {escape(group.category)}{later}{why}")
        return [section("*Collateral (failed because of it):*\n" + "\n".join(rows))]

    def _missing_blocks(self, d: Diagnosis) -> list[dict[str, Any]]:
        if not d.missing_evidence:
            return []
        rows = [f"• {escape(m.what)} → {escape(m.next_action)}" for m in d.missing_evidence]
        return [section("*Missing evidence:*\n" + "\n".join(rows))]

    def _footer(self, d: Diagnosis) -> dict[str, Any]:
        s = d.stats
        parts = [f"confidence {round(d.confidence * 100)}%", f"category `{escape(d.category)}`"]
        if d.entry:
            parts.append(f"entry `{escape(d.entry.id)}`")
        if d.alternatives:
            parts.append("also possible: " + ", ".join(escape(a.title) for a in d.alternatives[:3]))
        parts.append(f"{s.ranks} ranks, {s.files} files, {s.bytes:,} bytes in {s.seconds:.2f}s")
        return context(" · ".join(parts))

    def thread_messages(self, job: JobRef, diagnosis: Diagnosis) -> list[SlackMessage]:
        d = diagnosis
        title = d.entry.title if d.entry else d.category.replace("_", " ")
        blocks = [
            header(title),
            *self._initiating_blocks(d),
            *self._fix_blocks(d),
            *self._collateral_blocks(d),
            *self._missing_blocks(d),
            divider(),
            self._footer(d),
        ]
        text = clip(escape(f"{title}: initiating rank {d.initiating.rank} — {d.root_cause}"), 3000)
        return _split(blocks, text)

    # ------------------------------------------------------------------ file
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
    out += ["", f"== initiating rank {d.initiating.rank} on {d.initiating.node} at {d.initiating.time}"]
    out += [f"{ln.source}:{ln.line}: {ln.text}" for ln in d.initiating.evidence]
    for group in d.collateral:
        out.append(f"== collateral ranks {rank_ranges(group.ranks)}: {group.category} — {group.why}")
    for tail in d.tails:
        out += ["", f"== last lines of rank {tail.rank} ({tail.source}, node {tail.node})"]
        out += [f"{ln.line}: {ln.text}" for ln in tail.lines]
    for node, lines in d.nodes.items():
        out += ["", f"== node {node}"] + [f"{ln.source}:{ln.line}: {ln.text}" for ln in lines]
    if d.missing_evidence:
        out += ["", "== missing evidence"] + [f"- {m.what}: {m.next_action}" for m in d.missing_evidence]
    out += ["", "== diagnosis JSON", d.model_dump_json(indent=2)]
    return "\n".join(out) + "\n"
