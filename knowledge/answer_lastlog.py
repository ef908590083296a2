"""The last lines a rank logged, with their time: "rank 2 went quiet - when was the last thing it
logged?", "what was the last line it logged (time pls)", "the gpu-01 ranks, what was their last step
and mem_alloc", "time of the segv vs last training step logged", "last step line before 'saving
checkpoint'?".

Why: the failure answers quote a rank's last line *before its failure phase* (often "Starting
training" or "saving checkpoint"), which is not the last step it logged nor the last thing a silent
rank wrote; an engineer lines these up with the kernel log or the save. The asked ranks (named, on a
named node, all when the message says "ranks"/"their", else the one that started it) each get their
last timestamped line of their own and, when a step is asked and that line is no step line, their
last `step N … loss` line; ranks at the same step share one quoted line.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.ranks import ranges
from denpex.core.texts import followups_lastlog as tl
from knowledge.answer_types import Ctx, Reply, rank_lines, when
from knowledge.intents import named_ranks
from knowledge.lines import parse_timestamp

#: the message asks for the last thing a rank logged, or its last step line
_ASK = re.compile(
    r"\blast (?:thing|line|message|entry|output|step line|log line)s? (?:\w+ ){0,3}"
    r"(?:logged|printed|wrote|said|log)\b"
    r"|\b(?:went|gone|goes) (?:quiet|silent|dark)\b"
    r"|\blast (?:training |logged )?step (?:line|logged|printed)\b"
    r"|\b(?:their|its|his) last (?:step|line|logged)\b"
    r"|\brank ?\d+s? last (?:line|log line|logged line|message|output|entry)\b"  # "whats rank 0 last line"
    r"|\blast step line\b"
    # "what's the last thing it's known to have done?": its last line of its own, the last sign of it
    r"|\blast (?:thing|things|sign) (?:it|its|rank \d+|they|that rank)(?:'s| is| was)? (?:\w+ ){0,3}?"
    r"(?:did|done)\b",
    re.IGNORECASE,
)
_STEP_ASK = re.compile(r"\bstep\b|\bmem_alloc\b|\bloss\b|\biteration\b", re.IGNORECASE)
_ALL = re.compile(r"\b(?:the |all )ranks\b|\btheir\b|\beach rank\b|\bthey\b", re.IGNORECASE)
#: a step line with its figures: `step 40/100 loss=1.2`, `step 50 loss 2.4800`
_STEP = re.compile(r"\bstep \d+(?:/\d+)?\b.*\b(?:loss|mem_alloc|grad_norm)\b", re.IGNORECASE)
_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")
#: a failure or launcher report, not a line of the rank's own progress
_ERRORISH = re.compile(r"\bERROR\b|\bexitcode\b|\w(?:Error|Exception)\b|Traceback|\bSignal \d+|Watchdog")
_NODE = re.compile(r"\b([a-z][\w-]*-\d+)\b", re.IGNORECASE)


def _own_timed(c: Ctx, rank: int) -> list[tuple[str, EvidenceLine]]:
    """The rank's own timestamped lines up to its failure, by time (iso, line)."""
    r = c.view.ranks[rank]
    out: list[tuple[str, EvidenceLine]] = []
    for lines in rank_lines(c, rank).values():
        for ln in lines:
            stamp = parse_timestamp(_PREFIX.sub("", ln.text))
            iso = stamp.iso() if stamp is not None else None
            if iso and not _failed(ln, r.first_line) and not _ERRORISH.search(ln.text):
                out.append((iso, ln))
    return sorted(out, key=lambda p: (p[0], p[1].source, p[1].line))


def last_own(c: Ctx, rank: int) -> EvidenceLine | None:
    """The rank's last timestamped line of its own before its failure, if any."""
    timed = _own_timed(c, rank) if rank in c.view.ranks else []
    return timed[-1][1] if timed else None


def _failed(ln: EvidenceLine, first: EvidenceLine | None) -> bool:
    """Whether `ln` is the rank's failure line or after it in the same file."""
    return first is not None and ln.source == first.source and ln.line >= first.line


def _asked(c: Ctx, text: str) -> list[int]:
    known = set(c.view.ranks)
    named = [r for r in named_ranks(text) if r in known]
    if named:
        return sorted(set(named))
    nodes = {m.lower() for m in _NODE.findall(text)}
    on_node = [r.rank for r in c.view.ranks.values() if r.node and r.node.lower() in nodes]
    if on_node:
        return sorted(on_node)
    if _ALL.search(text):
        return sorted(known)
    ini = c.view.initiating
    return [ini.rank] if ini is not None else []


def _quote(ln: EvidenceLine) -> str:
    text = _PREFIX.sub("", ln.text).strip()
    return text if len(text) <= 160 else text[:160] + "…"


def _sentences(c: Ctx, text: str, ranks: list[int]) -> tuple[list[str], list[EvidenceLine]]:
    said: list[str] = []
    shown: list[EvidenceLine] = []
    steps: dict[str, list[tuple[int, str, EvidenceLine]]] = {}
    step_asked = bool(_STEP_ASK.search(text))
    for rank in ranks:
        timed = _own_timed(c, rank)
        if not timed:
            continue
        iso, last = timed[-1]
        stepped = [p for p in timed if _STEP.search(p[1].text)]
        if not (step_asked and _STEP.search(last.text)) and (not step_asked or len(ranks) <= 2):
            said.append(tl.last_line(f"Rank {rank}", _quote(last), last.ref, when(iso)))
            shown.append(last)
        if step_asked and stepped:
            s_iso, s_line = stepped[-1]
            key = re.search(r"\bstep \d+", s_line.text, re.I)
            steps.setdefault(key.group(0) if key else s_line.text, []).append((rank, s_iso, s_line))
    furthest = max(steps, key=_step_number, default=None)
    for group in [steps[furthest]] if furthest is not None else []:
        rank, iso, ln = group[-1]
        shown.append(ln)
        if len(group) > 1:
            said.append(tl.same_step(ranges(r for r, _, _ in group), _quote(ln), ln.ref, when(iso)))
        else:
            said.append(tl.last_step(f"Rank {rank}", _quote(ln), ln.ref, when(iso)))
    return said, shown


def _step_number(key: str) -> int:
    found = re.search(r"\d+", key)
    return int(found.group(0)) if found else -1


def with_last(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the asked ranks' last logged lines, those it does not quote yet."""
    if not _ASK.search(text) or not c.view.ranks:
        return got
    asked = _asked(c, text)
    said, shown = _sentences(c, text, asked[:8])
    if _STEP_ASK.search(text) and not any(_STEP.search(ln.text) for ln in shown) and not named_ranks(text):
        more, extra = _sentences(c, "step", sorted(set(c.view.ranks) - set(asked)))  # the job's last step
        said, shown = said + more, shown + extra
    new = [s for s in said if not any(ln.ref in s and ln.ref in got.lead for ln in shown)]
    if not new:
        return got
    lines = got.lines + [ln for ln in shown if all(ln.ref != x.ref for x in got.lines)]
    return replace(got, lead=f"{got.lead} {' '.join(new)}".strip(), lines=lines)
