"""What named the rank, for a reader who doubts it ("how can you pin it on rank 3 with nothing in its
log", "how do you know pid 51234 is rank 2", "the traceback is on rank 0 but you say rank 2, which is
it").

The answer is the evidence that named the rank, not the verdict again: the kernel's OOM victim pid and
the launcher's line that maps that pid to a local rank; the other ranks' timeouts, with the timeout,
that waited on it; and, when the named rank logged nothing of its own, that it is the one rank with no
timeout. Why: a doubt answered with the ranking or the rank's last line leaves the reader's question
(what ties this rank to the failure) unanswered.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tff
from knowledge.answer_types import Ctx, duration, ref
from knowledge.answer_types import rank_list as rl
from knowledge.intents import named_ranks

#: a doubt of which rank it was
DOUBT = re.compile(
    r"\bhow (?:do|did|can|could|would) (?:you|u) (?:\w+ )?"
    r"(?:know|tell|pin|blame|be sure|say|conclude|claim)\b"
    r"|\bwhy (?:do (?:you|u) )?(?:blame|pin|pick|single out)\b|\bpin (?:it|this|that) on\b"
    # "why do you name rank 2 as initiating?", "why did you call rank 5 the culprit?"
    r"|\bwhy (?:do|did|would) (?:you|u|denpex|the bot) (?:name|call|say|flag|mark|label|choose|finger"
    r"|point (?:at|to)|think|list|have)\b"
    r"|\bwhich (?:one )?is it\b|\bcontradict\w*\b|\bwhat (?:ties|links|maps)\b"
    # "the traceback is from rank0 though, why is the initiating rank 2?": the verdict's rank doubted
    r"|\bwhy (?:is|was|'s) (?:the )?(?:initiating|culprit|first|failing|root[- ]cause|blamed|guilty)"
    r"(?: rank| one)?\b"
    r"|\b(?:traceback|stack ?trace|error) (?:is |was )?(?:from|on|in) (?:rank ?\d+|r\d+) (?:though|but)\b"
)
#: a choice asked between the rank the logs seem to show and the verdict's
_WHICH = re.compile(r"\bwhich (?:one )?is it\b|\bwhich one\b")
_KILLED = re.compile(r"\bKilled process (\d+)\b")
_LOCAL = re.compile(r"\blocal_rank:? (\d+) \(pid: (\d+)\)")
_TIMEOUT_MS = re.compile(r"Timed out waiting (\d+) ?ms|Timeout\(ms\)=(\d+)")
_PID = re.compile(r"\b(?:pid|process) (\d{2,7})\b")
_STOPPED = re.compile(r"SIGTERM|Signal 15|exitcode ?: ?-15")


def evidence(c: Ctx, text: str, which: bool = True) -> tuple[str, list[EvidenceLine]]:
    """The sentences that say what named the initiating rank, and their lines; nothing when the
    question doubts no rank of this job's verdict. `which`: a choice between ranks ("which is it")
    is answered here too, unless the culprit's yes or no already answers it."""
    ini = c.view.initiating
    if ini is None or not DOUBT.search(text):
        return "", []
    named = named_ranks(text)
    pids = set(_PID.findall(text))
    if ini.rank not in named and not pids:
        return "", []
    out: list[str] = []
    lines: list[EvidenceLine] = []
    for said, shown in (pid_tie(c, pids), _waiters(c)):
        if said:
            out.append(said)
            lines += shown
    if not out:
        return "", []
    if which and _WHICH.search(text) and any(r != ini.rank for r in named):
        out.insert(0, tff.DOUBT_WHICH.format(rank=ini.rank))
    return " ".join(out), lines


def _pool(c: Ctx) -> list[EvidenceLine]:
    node_lines = [ln for lines in c.d.nodes.values() for ln in lines]
    return c.view.evidence + node_lines + [ln for tl in c.d.tails for ln in tl.lines]


def pid_tie(c: Ctx, asked: set[str] | None = None) -> tuple[str, list[EvidenceLine]]:
    """The OOM killer's victim pid and the launcher's line that gives that pid's local rank: what ties
    a kernel kill (no traceback of the rank's own) to the rank the verdict names."""
    asked = asked or set()
    ini = c.view.initiating
    pool = _pool(c)
    for kill in pool:
        victim = _KILLED.search(kill.text)
        if ini is None or victim is None or (asked and victim.group(1) not in asked):
            continue
        pid = victim.group(1)
        for ln in pool:
            local = _LOCAL.search(ln.text)
            if local is None or local.group(2) != pid:
                continue
            is_rank = f", rank {ini.rank}" if int(local.group(1)) == ini.rank else ""
            node = f" on {ini.node}" if ini.node else ""
            said = tff.DOUBT_PID.format(
                pid=pid, kref=ref(kill), local=local.group(1), lref=ref(ln), rank=is_rank, node=node
            )
            return said, [kill, ln]
    return "", []


def _waiters(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """The other ranks' timeouts that waited on the initiating rank; when it logged no failure of its
    own (only the launcher's SIGTERM, or nothing), that it is the one rank with no timeout."""
    ini = c.view.initiating
    if ini is None:
        return "", []
    waited = [
        r
        for r in c.view.with_role("collateral")
        if r.first_line is not None and f"rank {ini.rank}" in r.why and _TIMEOUT_MS.search(r.first_line.text)
    ]
    if not waited or waited[0].first_line is None:
        return "", []
    first = waited[0].first_line
    found = _TIMEOUT_MS.search(first.text)
    ms = int(next(g for g in found.groups() if g)) if found else 0
    said = tff.DOUBT_WAITERS.format(
        ranks=rl(waited), rank=ini.rank, timeout=duration(ms / 1000), ref=ref(first)
    )
    lines = [first]
    own = ini.first_line
    if own is None or ini.inferred or _STOPPED.search(own.text):
        said += " " + tff.DOUBT_NO_TIMEOUT.format(rank=ini.rank)
        if own is not None and _STOPPED.search(own.text):
            said += " " + tff.DOUBT_STOPPED.format(ref=ref(own))
            lines.append(own)
    return said, lines
