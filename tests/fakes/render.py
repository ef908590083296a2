"""A minimal plain-text `workers.ports.Renderer` for tests that post without Block Kit.

It renders `text` only (no blocks). Every piece of log text is escaped with the Slack app's own
`mrkdwn.escape`, so a log line can never ping `@channel` or render a link; rank ranges are grouped
the way the engine and the Slack app group them.
"""

from __future__ import annotations

from bot.slack.mrkdwn import escape, rank_ranges
from bot.slack.nodes import NodeHistory, node_history_text
from denpex.core.models import Diagnosis, JobRef
from denpex.core.texts import pipeline as texts
from workers.ports import EvidenceFile, SlackMessage

__all__ = ["MAX_TEXT", "PlainRenderer", "escape", "headline"]

#: Slack's limit for `text` is 40,000 characters; stay well under it
MAX_TEXT = 3500


def _job_label(job: JobRef) -> str:
    return job.job_id if not job.namespace else f"{job.namespace}/{job.job_id}"


def headline(diagnosis: Diagnosis) -> str:
    title = diagnosis.entry.title if diagnosis.entry else diagnosis.category
    rank = diagnosis.initiating.rank
    where = f"rank {rank}" if rank is not None else "no single initiating rank"
    if diagnosis.initiating.node:
        where += f" on {diagnosis.initiating.node}"
    return f"{title} ({where})"


class PlainRenderer:
    def root_message(
        self, job: JobRef, diagnosis: Diagnosis | None, *, quota_note: str | None
    ) -> SlackMessage:
        head = headline(diagnosis) if diagnosis else (quota_note or texts.NO_DIAGNOSIS)
        text = texts.root_text(_job_label(job), job.cluster, (job.state or "failed").lower(), head)
        return SlackMessage(text=escape(text)[:MAX_TEXT])

    def thread_messages(
        self, job: JobRef, diagnosis: Diagnosis, *, history: NodeHistory | None = None
    ) -> list[SlackMessage]:
        d = diagnosis
        lines = [
            f"*Initiating rank:* {d.initiating.rank if d.initiating.rank is not None else 'unknown'}"
            + (f" on {escape(d.initiating.node)}" if d.initiating.node else "")
            + (f" at {escape(d.initiating.time)}" if d.initiating.time else ""),
            f"*Category:* {escape(d.category)} (confidence {d.confidence:.2f})",
        ]
        for ev in d.initiating.evidence[:5]:
            lines.append(f"> `{escape(ev.source)}:{ev.line}` {escape(ev.text)[:300]}")
        if d.root_cause:
            lines.append(f"*Root cause:* {escape(d.root_cause)}")
        if d.fix:
            lines.append(f"*Fix:* {escape(d.fix)}")
        if d.verify:
            lines.append(f"*Verify:* `{escape(d.verify)}`")
        for group in d.collateral:
            lines.append(
                f"*Collateral ranks {rank_ranges(group.ranks)}:* {escape(group.category)}"
                f" — {escape(group.why)}"
            )
        for miss in d.missing_evidence:
            lines.append(f"*Missing:* {escape(miss.what)} — {escape(miss.next_action)}")
        lines += [node_history_text(history)] if history else []
        messages: list[SlackMessage] = []
        chunk: list[str] = []
        for line in lines:
            line = line[:MAX_TEXT]
            if sum(len(x) + 1 for x in chunk) + len(line) > MAX_TEXT:
                messages.append(SlackMessage(text="\n".join(chunk)))
                chunk = []
            chunk.append(line)
        if chunk:
            messages.append(SlackMessage(text="\n".join(chunk)))
        return messages

    def evidence_file(self, job: JobRef, diagnosis: Diagnosis) -> EvidenceFile | None:
        return None
