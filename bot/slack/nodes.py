"""Node health in Slack: the thread's node lines and drain advice, `/denpex nodes`, history rows.

The worker computes what to say (`workers.nodehealth.NodeHistory`, from the incident history); this
module only renders it, escaping every name that came from a log or a scheduler, so the renderer
(`bot.slack.render`) adds the lines with one call and owns nothing of the history.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from bot.slack.mrkdwn import actions, button, clip, code_safe, escape, section
from denpex.core.models import PastIncident
from denpex.core.settings import DrainAction
from denpex.core.texts import actions as action_texts
from denpex.core.texts import incidents as texts
from workers.incidents import Incident
from workers.nodehealth import NodeHistory, NodeRecord

#: a Slack permalink we are willing to put inside `<url|label>`
_LINK = re.compile(r"^https://[^\s<>|]+$")
#: rows `/denpex nodes` and a filtered `/denpex history` show at most
MAX_ROWS = 15
#: the Drain buttons beside the drain advice (`bot.slack.drain` handles a press)
DRAIN_ACTION = "denpex_drain"
DRAIN_BLOCK = "denpex_drain"
#: Drain buttons one thread shows at most
MAX_DRAIN_BUTTONS = 5


class DrainValue(BaseModel):
    """What a Drain button carries. Slack hands it back on a press, and anyone who can post to the
    app's URL with a valid signature could forge one, so the handler checks it all again."""

    node: str = Field(max_length=253)
    scheduler: str = Field(max_length=20)
    #: why the node should come out (`Xid 79`, `Xid 48 x2, MCE x1`), for the scheduler's reason
    label: str = Field(max_length=160)
    cluster: str = Field(default="", max_length=160)


def name(text: str) -> str:
    """A node or job name for inside `backticks`: escaped, backticks made quotes."""
    return escape(text).replace("`", "'")


def _link(url: str | None) -> str | None:
    return url if url and _LINK.match(url) else None


def _counts(record: NodeRecord) -> list[tuple[str, int]]:
    return [(escape(label), n) for label, n in record.counts]


def drain_commands(record: NodeRecord) -> tuple[list[str], str]:
    """The scheduler's drain command(s) and the command that puts the node back."""
    node = code_safe(record.node)
    reason = texts.drain_reason(_counts(record)).replace('"', "'")
    if record.scheduler == "kubernetes":
        return [texts.k8s_drain(node)], texts.k8s_resume(node)
    if record.scheduler == "slurm":
        return [texts.slurm_drain(node, reason)], texts.slurm_resume(node)
    return [texts.slurm_drain(node, reason), texts.k8s_drain(node)], texts.slurm_resume(node)


def drain_shown(record: NodeRecord, drain: DrainAction) -> bool:
    """A Drain button for this node: drain advised, and the button is on for its scheduler."""
    return bool(record.drain) and drain is not DrainAction.off and record.scheduler == drain.value


def drain_label(record: NodeRecord) -> str:
    """Why the node should come out, as the scheduler's reason says it (raw: not mrkdwn)."""
    return record.drain_label or ", ".join(f"{label} x{n}" for label, n in record.counts)


def drain_button(record: NodeRecord, cluster: str = "") -> dict[str, Any]:
    """A "Drain gpu-07" button (danger style, with Slack's confirmation dialog before the press)."""
    label = drain_label(record)[:160]
    value = DrainValue(node=record.node, scheduler=record.scheduler, label=label, cluster=cluster[:160])
    shown = clip(record.node, 60)
    element = button(action_texts.drain_button(shown), DRAIN_ACTION, value.model_dump_json())
    element["action_id"] = f"{DRAIN_ACTION}:{clip(record.node, 200)}"  # unique within the block
    element["style"] = "danger"
    element["confirm"] = {
        "title": {"type": "plain_text", "text": action_texts.DRAIN_CONFIRM_TITLE},
        "text": {
            "type": "plain_text",
            "text": clip(action_texts.drain_confirm(shown, record.scheduler), 300),
        },
        "confirm": {"type": "plain_text", "text": action_texts.DRAIN_CONFIRM_OK},
        "deny": {"type": "plain_text", "text": action_texts.DRAIN_CONFIRM_CANCEL},
        "style": "danger",
    }
    return element


def node_lines(record: NodeRecord, drain: DrainAction = DrainAction.off) -> list[str]:
    """One node's lines in the thread: its record, the earlier incidents, the drain advice."""
    node = name(record.node)
    lines = []
    if record.incidents > 1:
        lines.append(texts.node_summary(node, record.initiating, record.total, _counts(record), record.since))
    if record.earlier:
        items = [texts.earlier_incident(name(e.job), e.at, _link(e.permalink)) for e in record.earlier]
        lines.append(texts.earlier_line(items))
    if record.drain:
        label = escape(record.drain_label or "")
        why = texts.why_catalogue(label) if record.drain == "catalogue" else texts.why_count(record.hardware)
        commands, resume = drain_commands(record)
        advice = action_texts.drain_advice if drain_shown(record, drain) else texts.drain_advice
        lines.append(advice(node, why))
        lines.append("```" + "\n".join(commands) + "```")
        lines.append(texts.clear_checks(resume))
    return lines


def seen_line(seen: PastIncident) -> str:
    fix = escape(seen.fix) if seen.fix else None
    node = name(seen.node) if seen.node else None
    return texts.seen_row(name(seen.job), seen.at, node, _link(seen.permalink), fix)


def _sections(history: NodeHistory | None, drain: DrainAction = DrainAction.off) -> list[str]:
    if history is None:
        return []
    parts = []
    if history.nodes:
        rows = (ln for r in history.nodes for ln in node_lines(r, drain))
        parts.append("\n".join([texts.HEADING, *rows]))
    if history.seen:
        parts.append("\n".join([texts.SEEN_HEADING, *(seen_line(s) for s in history.seen)]))
    return parts


def node_history_blocks(
    history: NodeHistory | None, *, drain: DrainAction = DrainAction.off, cluster: str = ""
) -> list[dict[str, Any]]:
    """The thread's node-history and seen-before sections (none when there is nothing to say); with
    `DENPEX_DRAIN_ACTION` on, the Drain buttons of the advised nodes right below the node section."""
    blocks = [section(clip(part, 3000)) for part in _sections(history, drain)]
    shown = [r for r in (history.nodes if history else []) if drain_shown(r, drain)]
    if shown:  # the node section is the first block whenever there are nodes
        buttons = [drain_button(r, cluster) for r in shown[:MAX_DRAIN_BUTTONS]]
        blocks.insert(1, actions(DRAIN_BLOCK, *buttons))
    return blocks


def node_history_text(history: NodeHistory | None) -> str:
    """The same lines as plain mrkdwn text (renderers without Block Kit)."""
    return "\n".join(_sections(history))


def nodes_reply(rows: Sequence[tuple[str, NodeRecord]]) -> str:
    """`/denpex nodes`: the nodes with incidents, worst first."""
    if not rows:
        return texts.NODES_EMPTY
    shown = [
        texts.nodes_row(name(r.node), name(cluster), r.incidents, r.initiating, _counts(r), r.last)
        + (" · drain advised" if r.drain else "")
        for cluster, r in rows[:MAX_ROWS]
    ]
    return "\n".join([texts.NODES_TITLE, *shown])


def history_reply(incidents: Iterable[Incident]) -> str:
    """A filtered `/denpex history`: newest first, from the incident history (incidents kept while
    the workspace was on the free plan name no job, so they are not listed)."""
    rows = [
        texts.history_row(
            name(i.job_id or "?"), name(i.cluster), i.at, escape(i.headline or ""), _link(i.permalink)
        )
        for i in sorted((i for i in incidents if i.job_id), key=lambda i: -i.at)[:MAX_ROWS]
    ]
    return "\n".join([texts.HISTORY_FILTERED_TITLE, *rows]) if rows else texts.HISTORY_FILTERED_EMPTY
