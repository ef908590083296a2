"""Every rank's last step line with its stamp, when the message compares the ranks' progress: "the step
40 lines are stamped a second apart — what are the stamps?", "was rank 2 already behind?", "when did
each rank log step 40?".

Why: the answer about who stalled quotes one rank's line, or one line for all ranks at the same step;
these asks compare the ranks, so each rank's own line and stamp is quoted, then whether the rank that
started it was at the others' step (not behind) or short of it, from the step numbers, not the stamps.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_runfacts as tr
from knowledge import answer_asks
from knowledge.answer_types import Ctx, Reply, duration, reply
from knowledge.lines import parse_timestamp

#: compares the ranks' progress or the stamps of their step lines
_ASK = re.compile(
    r"\bstep \d+\b[^?]{0,60}\b(?:stamp\w*|timestamps?|times|clocks?|skew)\b"
    r"|\b(?:stamp\w*|timestamps?)\b[^?]{0,60}\bsteps?\b"
    r"|\b(?:was|is|were) (?:rank \d+|it|that rank|they|any rank) (?:already |still |just |falling )?"
    r"(?:behind|lagging|slower|late|slow)\b|\blagg?ing\b|\bfall(?:ing|en)? behind\b"
    r"|\bwhen did (?:each|every|all(?: the)?) ranks? (?:log|print|reach|hit|write)\b"
    r"|\bclock skew\b",
    re.IGNORECASE,
)
_CLOCK = re.compile(r"\bclocks?\b|\bskew\b|\blog order\b", re.IGNORECASE)
_STEP = re.compile(r"\bstep (\d+)(?:/\d+)?", re.IGNORECASE)


def _rows(c: Ctx) -> list[tuple[int, str, int, float, str, EvidenceLine]]:
    """(rank, `step 40/100`, 40, epoch seconds, clock time, line) of each rank's timed last step line."""
    out = []
    for r in sorted(c.view.ranks.values(), key=lambda r: r.rank):
        ln = r.last_step_line
        stamp = parse_timestamp(ln.text) if ln is not None else None
        step = _STEP.search(ln.text) if ln is not None else None
        iso = stamp.iso() if stamp is not None and not stamp.relative else None
        if ln is None or stamp is None or iso is None or step is None:
            continue
        clock = iso.replace("T", " ")[:19] + " UTC"
        out.append((r.rank, step.group(0), int(step.group(1)), stamp.value, clock, ln))
    return out


def stamps(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """Each rank's last step line and stamp, then whether the first rank was behind; ("", []) when not
    asked or fewer than two ranks logged a timed step."""
    if not _ASK.search(text):
        return "", []
    rows = _rows(c)
    if len(rows) < 2:
        return (tr.STAMPS_NONE, []) if not rows else ("", [])
    listed = "; ".join(
        tr.STAMP_ROW.format(rank=rank, step=step, time=clock, ref=ln.ref)
        for rank, step, _, _, clock, ln in rows
    )
    said = tr.STAMPS.format(rows=listed)
    ini = c.view.initiating
    steps = {rank: number for rank, _, number, *_ in rows}
    top = max(steps.values())
    if ini is not None and ini.rank in steps and steps[ini.rank] < top:
        said += tr.STAMPS_BEHIND.format(rank=ini.rank, step=f"step {steps[ini.rank]}", top=f"step {top}")
    elif ini is not None and ini.rank in steps and len(set(steps.values())) == 1:
        spread = duration(max(r[3] for r in rows) - min(r[3] for r in rows))
        said += tr.STAMPS_SAME.format(n=len(rows), step=f"step {top}", spread=spread, rank=ini.rank)
    if _CLOCK.search(text):
        said += tr.STAMPS_CLOCK
    return said, [ln for *_, ln in rows]


def with_stamps(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with every rank's step stamp when the message compares them and the answer does not."""
    said, shown = stamps(c, text)
    if not said:
        return got
    if all(ln.ref in got.lead for ln in shown):
        return got
    if got.intent == "help":
        return reply("phase", said, shown)
    return answer_asks.with_lead(got, said, shown)


__all__ = ["stamps", "with_stamps"]
