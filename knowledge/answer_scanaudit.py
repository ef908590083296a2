"""Scan-audit asks, added when the message asks them and the answer lacks them: how many files and
ranks Denpex scanned ("how many files and ranks did you scan?"), the runner-up cause and its figure
("the alternative and its confidence", "(0.36?) what's the other thing it might be"), the time
torchrun's failure summary records ("what time did it finally die", "the time the agent logged the
failure"), and, with no rank started, that the job never got going.

Why: these are the diagnosis's own figures (its stats, its alternatives) and the launcher's summary
lines, not part of any rank's error, so the answer about the failure leaves them out; an auditor asks
for them to judge how much the verdict rests on.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_scanaudit as tx
from knowledge import answer_asks
from knowledge.answer_types import Ctx, Reply, rank_lines, ref
from knowledge.intents import named_ranks

ASKS_SCAN = re.compile(
    r"\bhow many (?:log )?files\b|\bfiles? and ranks?\b|\bfiles?, ranks?\b"
    r"|\b(?:scan\w*|read|cover\w*)\b[^?]{0,40}\bfiles?\b|\bfiles?\b[^?]{0,40}\bscan\w*"
    r"|\bhow much (?:log|data)\b[^?]{0,40}\b(?:scan\w*|read)\b"
    # "how many bytes did you scan?"
    r"|\bhow many (?:bytes|mb|megabytes)\b[^?]{0,40}\b(?:scan\w*|read|pars\w*)\b"
)
ASKS_ALT = re.compile(
    r"\balternatives?\b|\bother (?:thing|cause|explanation|diagnos\w*|candidate|option)s?\b"
    r"|\brunner[- ]up\b|\bsecond (?:guess|choice|candidate|best)\b|\bwhat else (?:could|might)\b"
)
ASKS_FAIL_TIME = re.compile(
    r"\b(?:what time|when)\b[^?]{0,50}\b(?:die|died|dead|fail\w*|crash\w*)\b"
    r"|\btime\b[^?]{0,40}\b(?:agent|launcher|torchrun)\b[^?]{0,30}\b(?:log\w*|record\w*)"
    r"|\b(?:agent|launcher|torchrun)\b[^?]{0,30}\b(?:log\w*|record\w*)\b[^?]{0,20}\bfailure\b"
    r"|\bfinally (?:die|died|fail\w*|crash\w*)\b|\bto the (?:launcher|agent) fail\w*"
)
ASKS_NEVER_RAN = re.compile(
    r"\bnever (?:get|got|gets) going\b|\bnever (?:started|ran|began)\b|\blose any training\b"
    r"|\bdid (?:it|training|the job) (?:ever )?(?:start|run|begin)\b"
)

#: "how many Flight Recorder dumps did you parse?": the count of the dumps read
ASKS_DUMPS = re.compile(
    r"\bhow many\b[^?]{0,30}\bdumps\b|\bdumps?\b[^?]{0,30}\b(?:pars\w*|read|scan\w*|count\w*)\b"
    r"|\b(?:pars\w*|read|scan\w*|count\w*)\b[^?]{0,30}\bdumps\b"
)
#: "a check of what owns the port?", "who holds that port": the verify command that shows it
ASKS_OWNER = re.compile(
    r"\b(?:what|who|which process)\b[^?]{0,15}\b(?:owns|holds|held|has|had|is using|was using|is on)\b"
    r"[^?]{0,15}\bport\b|\bport'?s? owner\b"
)
#: "why that port and not the default?": the cause's own sentence about the default
ASKS_DEFAULT = re.compile(r"\bdefault\b")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
#: "were ranks 0-2 all in the same op?": the collective each rank waited in
ASKS_SAME_OP = re.compile(r"\bsame (?:op|operation|collective|call)\b|\b(?:all|both) in (?:the )?same\b")
#: "compare rank 0's and rank 3's last stdout lines": each named rank's last line of its stdout
ASKS_STDOUT = re.compile(r"\bstdout\b")

_ROOT_LINE = re.compile(r"Root Cause \(first observed failure\)")
_TIME = re.compile(r"^\s*time\s*:\s*(\d{4}-\d\d-\d\d)_(\d\d:\d\d:\d\d)")
_RANK = re.compile(r"^\s*rank\s*:\s*(\d+)\b")


def with_audit(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with each scan-audit fact the message asks for and the answer lacks."""
    low = text.lower()
    none_ran = c.d.stats.ranks == 0 and c.view.initiating is None
    if ASKS_SCAN.search(low):
        got = _add(got, _scanned(c), [])
        if none_ran:
            got = _add(got, tx.NO_RANK_RAN, [])
    if ASKS_ALT.search(low):
        got = _add(got, _alternative(c), [])
    if ASKS_DUMPS.search(low) and c.d.collectives.dumps:
        got = _add(got, tx.DUMPS.format(dumps=_plural(c.d.collectives.dumps, "Flight Recorder dump")), [])
    if ASKS_FAIL_TIME.search(low) and (found := _failed_at(c)) is not None:
        got = _add(got, *found)
    if ASKS_NEVER_RAN.search(low) and none_ran:
        got = _add(got, tx.NEVER_STARTED, [])
    if ASKS_OWNER.search(low) and ("ss -" in c.d.verify or "lsof" in c.d.verify):
        got = _add(got, tx.OWNER.format(cmd=c.d.verify.strip()), [])
    if ASKS_DEFAULT.search(low):
        said = [x for x in _SENTENCE.split(c.d.root_cause) if "default" in x.lower()]
        got = _add(got, tx.DEFAULT.format(said=said[0].strip()) if said else "", [])
    return got


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _scanned(c: Ctx) -> str:
    s = c.d.stats
    if s.files == 0:
        return ""
    return tx.SCANNED.format(
        files=_plural(s.files, "file"),
        ranks=_plural(s.ranks, "rank"),
        size=s.bytes,
        mb=f"{s.bytes / 1e6:.3f}".rstrip("0").rstrip(".") or "0",
        secs=s.seconds,
    )


def _alternative(c: Ctx) -> str:
    alts = c.d.alternatives
    if not alts:
        return tx.NO_ALTERNATIVE.format(conf=c.d.confidence)
    a = alts[0]
    why = a.why.rstrip(".") or "it fits less well"
    return tx.ALTERNATIVE.format(conf=c.d.confidence, title=a.title, id=a.id, alt=a.confidence, why=why)


def _failed_at(c: Ctx) -> tuple[str, list[EvidenceLine]] | None:
    """The time torchrun's summary gives its root-cause rank, with that line."""
    for tail in c.d.tails:
        after = False
        stamp: tuple[str, str, EvidenceLine] | None = None
        for ln in tail.lines:
            after = after or bool(_ROOT_LINE.search(ln.text))
            if not after:
                continue
            if (m := _TIME.match(ln.text)) is not None:
                stamp = (m.group(1), m.group(2), ln)
            elif stamp is not None and (r := _RANK.match(ln.text)) is not None:
                day, time, line = stamp
                said = tx.FAILED_AT.format(day=day, time=time, ref=ref(line), rank=r.group(1))
                return said, [line]
    return None


def _add(got: Reply, said: str, shown: list[EvidenceLine]) -> Reply:
    """`got` with `said`, unless empty or the answer already tells it (every figure it names)."""
    told = answer_asks.said(got)
    if not said or said.lower() in told:
        return got
    keys = re.findall(r"\b\d+(?::\d\d)+\b|\b\d+\.\d+\b|\b\d+ (?:files?|ranks?)\b", said)
    if keys and all(k.lower() in told for k in keys):
        return got
    return answer_asks.with_lead(got, said, shown)


def with_rank_facts(c: Ctx, text: str, got: Reply, asked: Callable[[str], Reply]) -> Reply:
    """`got` with the collective the ranks waited in ("all in the same op?") and each named rank's
    last stdout line ("compare rank 0's and rank 3's last stdout lines"), when asked and unsaid."""
    low = text.lower()
    if ASKS_SAME_OP.search(low) and c.view.ranks:
        op = asked("which collective were the others in")
        said = [x for x in _SENTENCE.split(op.lead) if "`" in x] if op.intent != "help" else []
        if said:
            got = _add(got, said[0].strip(), op.lines[:1])
    if ASKS_STDOUT.search(low):
        for rank in named_ranks(text):
            own = rank_lines(c, rank).items()
            outs = [ln for src, lines in own if src.endswith("stdout.log") for ln in lines]
            if outs:
                ln = outs[-1]
                got = _add(got, tx.LAST_STDOUT.format(rank=rank, ref=ref(ln), text=ln.text.strip()), [ln])
    return got
