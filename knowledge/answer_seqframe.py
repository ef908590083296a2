"""Two facts a write-up asks for beside the failure's own figures: the collaterals' stuck collective
(its SeqNum, OpType, the time it timed out and how long it ran) against the first rank's failure, and
the library frame the first rank's error was raised in (`deepspeed/runtime/engine.py` line 3466, in
`_zero3_consolidated_16bit_state_dict`).

Why: "ranks 1-7 timed out in ALLREDUCE - seqnum and when, vs rank0's oom" and "exact OOM numbers plus
which deepspeed frame/line" are answered by the memory answer, which gives the allocation's figures and
not these; both are this job's facts, read from the ranks' own lines (each watchdog line as printed,
the innermost frame of the first rank's traceback), so they are added when asked and not yet said.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tf
from knowledge import answer_code
from knowledge.answer_asks import said, with_lead
from knowledge.answer_types import Ctx, Reply, duration, rank_lines, ref, when
from knowledge.answer_types import rank_list as rl
from knowledge.jobfacts_answers import seconds_between

#: asks for the stuck collective's sequence number ("seqnum and when", "which seq no")
ASKS_SEQ = re.compile(r"\bseq ?nums?\b|\bsequence (?:numbers?|nos?)\b|\bseq (?:no|#)\b")
#: asks for the frame or line the error was raised in ("which deepspeed frame/line", "what frame")
ASKS_FRAME = re.compile(
    r"\b(?:which|what|the|plus|and) (?:\w+ )?(?:frame|call ?site)s?(?: ?/ ?line| and line)?\b"
    r"|\bframe ?/ ?line\b"
)
#: a message whose premise is the other ranks' timeouts or deaths ("ranks 1-7 all logged NCCL watchdog
#: timeouts at 03:18:20", "ranks 0, 1, 3 died at 03:24:06, ten minutes after the kill")
PREMISE_TIMEOUTS = re.compile(
    r"\bwatchdog (?:time ?outs?|errors?|lines?|fired)\b"
    r"|\b(?:nccl|collective) (?:watchdog )?time ?outs?\b"
    r"|\b(?:died|timed out|failed|crashed|exited|errored)(?: out)? at \d{1,2}:\d{2}\b"
    r"|\b(?:ten|\d+) ?min(?:ute)?s? (?:after|later)\b"
)
#: a watchdog's work item and how long it ran
_WORK = re.compile(
    r"WorkNCCL\(SeqNum=(\d+), OpType=(\w+)[^)]*?Timeout\(ms\)=(\d+)\)(?: ran for (\d+) milliseconds)?"
)


def _watchdog(c: Ctx, rank: int) -> EvidenceLine | None:
    lines = (ln for src in rank_lines(c, rank).values() for ln in src)
    return next((ln for ln in lines if _WORK.search(ln.text)), None)


def seq_sentence(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """ "Ranks 1-7 timed out in ALLREDUCE (SeqNum 4512) at 2026-11-20 03:18:20 UTC (rank1.log:102): it
    ran for 600012 ms against Timeout(ms)=600000, 600 s (10 min) after rank 0 failed at …" """
    ini = c.view.initiating
    groups: dict[tuple[str, str, str, str], list[tuple[int, EvidenceLine]]] = {}
    stamps: dict[tuple[str, str, str, str], str] = {}
    for r in c.view.with_role("collateral"):
        line = _watchdog(c, r.rank)
        found = _WORK.search(line.text) if line is not None else None
        if line is None or found is None or r.first_time is None or r.borrowed:
            continue
        key = (found.group(2), found.group(1), found.group(4) or "", when(r.first_time))
        groups.setdefault(key, []).append((r.rank, line))  # one sentence per second, not per stamp
        stamps.setdefault(key, r.first_time)
    parts: list[str] = []
    shown: list[EvidenceLine] = []
    for key, rows in groups.items():
        op, seq, ran, _ = key
        stamp = stamps[key]
        found = _WORK.search(rows[0][1].text)
        assert found is not None
        ran_for = tf.SEQ_RAN.format(ran=ran, limit=found.group(3)) if ran else ""
        gap = seconds_between(ini.first_time, stamp) if ini is not None and not ini.borrowed else None
        after = ""
        if ini is not None and gap is not None and gap >= 0:
            after = tf.SEQ_AFTER.format(gap=duration(gap), ini=ini.rank, at=when(ini.first_time))
        parts.append(
            tf.SEQ_TIMED_OUT.format(
                ranks=rl(r for r, _ in rows),
                many="s" if len(rows) > 1 else "",
                op=op,
                seq=seq,
                at=when(stamp),
                ref=ref(rows[0][1]),
                ran=ran_for,
                after=after,
            )
        )
        shown.append(rows[0][1])
    return " ".join(parts), shown


def frame_sentence(c: Ctx) -> tuple[str, list[EvidenceLine], str]:
    """The innermost frame of the first rank's traceback (the library call its error came from), its
    line, and the function's name; ("", [], "") when the rank kept no traceback."""
    ini = c.view.initiating
    if ini is None:
        return "", [], ""
    _, frames, _ = answer_code.traceback(c, ini.rank)
    if not frames:
        return "", [], ""
    inner = frames[-1]
    path = re.split(r"/(?:site|dist)-packages/", inner.path)[-1]
    sentence = tf.RAISED_IN_FRAME.format(
        rank=ini.rank, func=inner.func, path=path, line=inner.number, ref=ref(inner.line)
    )
    return sentence, [inner.line], inner.func


def added(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the collaterals' SeqNum and the raising frame, each when asked and not yet said."""
    if ASKS_SEQ.search(text) and "seqnum" not in said(got).replace(" ", ""):
        sentence, lines = seq_sentence(c)
        if sentence:
            got = with_lead(got, sentence, lines)
    if ASKS_FRAME.search(text):
        sentence, lines, func = frame_sentence(c)
        if sentence and func.lower() not in said(got):
            got = with_lead(got, sentence, lines)
    return got


def premised(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the collaterals' watchdog line when the message's premise is their timeouts or the
    time they died: whether the cause is the fabric or the node, "why so late" and "how much did we
    lose" all rest on which collective they sat in, for how long, and after whose failure."""
    if not PREMISE_TIMEOUTS.search(text) or "seqnum" in said(got).replace(" ", ""):
        return got
    sentence, lines = seq_sentence(c)
    return with_lead(got, sentence, lines) if sentence else got


__all__ = ["ASKS_FRAME", "ASKS_SEQ", "PREMISE_TIMEOUTS", "added", "premised"]
