"""The parts of a multi-part ask that the message's answer left out, added after it.

A message that asks two or three things ("when did the others time out, which SeqNum, what to
change"; "what step, and would a rerun help or what to capture") can be answered as one ask when the
parts are not split, or when one part's answer covers another part's intent. These checks run on the
whole message after it is answered: each names a kind of part and adds this job's fact for it only
when the answer does not already say it, so no fact is said twice and no other answer changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import followups_facts as tff
from denpex.core.texts import followups_parts as tp
from knowledge import answer_asks, answer_code, answer_join
from knowledge.answer_types import Ctx, Reply, rank_list, ref
from knowledge.intents import named_ranks

Ask = Callable[[str], Reply]

#: when the other ranks went down, or how long after the first failure
_OTHERS_WHEN = re.compile(
    r"\bwhen did (?:the |all )?(?:other|rest|remaining|collateral)"
    r"|\bhow long (?:from|between|after|until|till|before)\b.*\b(?:rest|others?|other ranks|remaining)\b"
)
_RERUN = re.compile(
    r"\b(?:would|will|does|do|could) (?:just |only )?(?:a |another )?(?:plain |simple |straight |blind )?"
    r"(?:re-?run|retry|restart|resubmit)\w* (?:help|fix|work)"
    r"|\bwhat (?:should|do|must|would) (?:i|we) (?:capture|collect|grab|turn on)\b"
)
_WHEN_ASK = "when did the other ranks fail?"
#: "what time did it fail and did any rank come up?": the failure's time, asked beside another part
_FAIL_WHEN = re.compile(
    r"\b(?:what time|when(?: exactly)?) did (?:it|the job|the run|training|things) "
    r"(?:fail|die|crash|go down|blow up|stop)\w*\b(?=[^?]{0,10}\b(?:and|\+|also)\b)"
)
_FAIL_WHEN_ASK = "what time did it fail?"
#: the answer already gives a time (or says there is none)
_TIMED = re.compile(r"\d\d:\d\d:\d\d|\btimestamp", re.IGNORECASE)
_RERUN_ASK = "would a plain rerun help, or what should I capture first?"
_RAN = re.compile(r"\bhow long did\b.*\b(?:run|ran|wait|last|go)\b|\bran for\b|\bactually ran\b")
_WATCHDOG = re.compile(r"SeqNum=(\d+), OpType=(\w+).*?Timeout\(ms\)=(\d+)\) ran for (\d+) milli")
_DESYNC = re.compile(
    r"\bgrep\b|\bdistinguish|\btell (?:it|them|this|that) apart"
    r"|\b(?:vs\.?|versus|from|than) (?:a |an )?(?:plain|normal|simple|regular|ordinary) hang\b"
)
_LAUNCHER_ROOT = re.compile(
    r"\b(?:torchrun|launcher|elastic|summary)\b.*\broot[- ]?cause"
    r"|\broot[- ]?cause\b.*\b(?:torchrun|launcher|summary)\b"
)
_ROOT_LINE = re.compile(r"Root Cause \(first observed failure\)")
_RANK_LINE = re.compile(r"^\s*rank\s*:\s*(\d+)\b")
_COMPARE = re.compile(
    r"\bcompare\b.*\brank\b.*\bwhich\b|\brank \d+ (?:vs\.?|versus|or|and|with) (?:rank )?\d+\b.*\bwhich\b"
)


def complete(c: Ctx, text: str, got: Reply, ask: Ask) -> Reply:
    """`got` with each part of `text` it left out: its own fact added, or the part asked alone."""
    low = text.lower()
    if _OTHERS_WHEN.search(low) and c.view.with_role("collateral"):
        got = answer_asks.add(got, _WHEN_ASK, ask(_WHEN_ASK))
    if _FAIL_WHEN.search(low) and not _TIMED.search(got.lead):
        got = answer_asks.add(got, _FAIL_WHEN_ASK, ask(_FAIL_WHEN_ASK))
    if _RERUN.search(low) and got.intent != "restart":
        got = answer_asks.add(got, _RERUN_ASK, ask(_RERUN_ASK))
    for said, shown in (_ran(c, low), _desync(c, low), _launcher_root(c, low)):
        if said and said.lower() not in answer_asks.said(got):
            got = answer_asks.with_lead(got, said, shown)
    said, shown = _compare(c, low)
    if said and said.lower() not in answer_asks.said(got):
        got = answer_join.first(got, said, shown)
    return got


def _ran(c: Ctx, low: str) -> tuple[str, list[EvidenceLine]]:
    """ "How long did the allreduce actually run before it gave up?": the watchdog's own figures."""
    if not _RAN.search(low):
        return "", []
    for r in sorted(c.view.ranks.values(), key=lambda r: r.rank):
        line = r.first_line
        if line is not None and (m := _WATCHDOG.search(line.text)) is not None:
            seq, op, timeout, ran = m.groups()
            secs = f"{int(timeout) / 1000:g}"
            said = tp.RAN_FOR.format(timeout=timeout, secs=secs, op=op, seq=seq, ran=ran, ref=ref(line))
            return said, [line]
    return "", []


def _desync(c: Ctx, low: str) -> tuple[str, list[EvidenceLine]]:
    """ "What tells it apart from a plain hang, what do I grep for?": the collectives the ranks were
    in, when their tracebacks differ (the mark of a desync)."""
    if not _DESYNC.search(low):
        return "", []
    by_op: dict[tuple[str, str], list[int]] = {}
    for r in c.view.ranks.values():
        if (got := answer_code.collective_of(c, r.rank)) is not None:
            by_op.setdefault(got, []).append(r.rank)
    if len({op for op, _ in by_op}) < 2:
        return "", []
    rows = [tf.collective_row(rank_list(sorted(n)), op, where) for (op, where), n in by_op.items()]
    return f"{tp.DESYNC_GREP} {tf.collectives(rows)}", []


def _launcher_root(c: Ctx, low: str) -> tuple[str, list[EvidenceLine]]:
    """ "Which rank does torchrun's summary list as the root cause, and is that the one to look at?":
    the summary's rank, and whether it is the rank that failed first."""
    ini = c.view.initiating
    if not _LAUNCHER_ROOT.search(low) or named_ranks(low) or ini is None:
        return "", []
    for tail in c.d.tails:
        after = False
        for ln in tail.lines:
            after = after or bool(_ROOT_LINE.search(ln.text))
            if after and (m := _RANK_LINE.match(ln.text)) is not None:
                rank = int(m.group(1))
                said = tp.LAUNCHER_ROOT.format(rank=rank, ref=ref(ln))
                if rank == ini.rank:
                    return f"{said} {tp.LAUNCHER_SAME.format(rank=rank)}", [ln]
                more = tp.LAUNCHER_OTHER.format(ini=ini.rank, rank=rank)
                return f"{said} {more} {tff.LAUNCHER_FIRST_EXIT}", [ln]
    return "", []


def _compare(c: Ctx, low: str) -> tuple[str, list[EvidenceLine]]:
    """ "Compare rank 0 with rank 3: which is the cause?": the one that started it, then what each
    other named rank was (collateral: what it waited on)."""
    ini = c.view.initiating
    named = named_ranks(low)
    if not _COMPARE.search(low) or len(named) < 2 or ini is None or ini.rank not in named:
        return "", []
    said = [tf.CULPRIT_WHICH.format(ini=ini.rank)]
    shown: list[EvidenceLine] = []
    for n in named:
        r = c.view.ranks.get(n)
        if n == ini.rank or r is None or r.role != "collateral" or not r.why:
            continue
        said.append(tp.COMPARE_OTHER.format(rank=n, what="collateral", why=r.why))
        shown += [r.first_line] if r.first_line is not None else []
    return " ".join(said), shown
