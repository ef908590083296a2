"""A hardware Xid held against the user's code, and the checks before its node goes back: "couldn't it
be a CUDA kernel bug, illegal memory access type thing? rank 5 just says launch failure", "what is
'Xid 79'? is it something in my code", "xid pid is 45121 - is that actually rank 5's proc?", "what do I
run to make sure the gpu is healthy before putting gpu-02 back in the pool".

Why: the answers gave the memory figures (none), the glossary's line for "Xid", or the verify command,
and left out what decides it: the catalogue's word on this Xid (hardware, not the code's), the rank's
own CUDA error next to it (what CUDA reports for any kernel once the device is gone), what a kernel
bug would have shown instead (an application Xid), the rank's own pid as its NCCL line prints it, and
the fix's health check to run before the node returns.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_victims as tv
from knowledge import answer_where
from knowledge.answer_asks import said, with_lead
from knowledge.answer_join import first
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import Match
from knowledge.jobfacts_answers import seconds_between
from knowledge.lines import parse_timestamp

_MINE = r"(?:my|our|the) (?:own )?(?:code|kernels?|script|model|training (?:code|loop|script)|cuda code)"
#: the user's code offered as the cause of an Xid
CODE_Q = re.compile(
    rf"\b(?:bug|issue|problem|error|fault|mistake)s? in {_MINE}\b"
    rf"|\b(?:something|anything) (?:in|with|wrong with) {_MINE}\b"
    r"|\b(?:cuda|kernel|software|code|app\w*|driver) bug\b|\billegal (?:memory )?(?:access|address)\b"
    rf"|\bpoints? (?:at|to) {_MINE}\b|\b{_MINE}'?s? (?:fault|bug)\b"
    rf"|\b(?:is|was) (?:it|this|that) {_MINE}\b"
    rf"|\b{_MINE} (?:could|can|might|would|did) (?:cause|trigger|produce|have caused)\b"
)
#: the node going back into service, and what to run first
BACK_Q = re.compile(
    r"\bback (?:in|into|to) (?:the )?(?:pool|service|rotation|production|partition|cluster)\b"
    r"|\b(?:put|putting|return\w*|bring\w*|add\w*|let\w*) (?:it|the (?:node|gpu|box|host)|[a-z]+-\d+) back\b"
    r"|\bbefore (?:resum\w*|undrain\w*|returning|reusing)\b|\bundrain\w*\b"
)
_RUN_Q = re.compile(r"\b(?:run|check|test|verify|make sure|confirm|validate|diag\w*|burn-?in|healthy)\b")
_HEALTH = re.compile(r"\bdcgmi\b|\bnvidia-smi\b|gpu-?burn|\bmemtest|\bibstat\b")
#: the application Xids a kernel's bad address raises (the catalogue's non-hardware ones that say so)
_APP_MARK = re.compile(r"illegal address|out-of-range address|page fault", re.IGNORECASE)
_NCCL = re.compile(r"^[A-Za-z0-9][\w.-]*:(\d+):\d+ \[\d+\] NCCL INFO .*\brank (\d+) nranks\b")


def _xid(c: Ctx) -> tuple[int, str, str, EvidenceLine] | None:
    """The hardware Xid of this job: its code, the catalogue's name, its PCI id and its line."""
    found = c.view.numbers.xid
    if found is None:
        return None
    code, index = found[0], found[1]
    row = c.xids.get(code.code)
    line = c.view.evidence_line(index)
    if row is None or not row.hardware or line is None:
        return None
    return code.code, row.name, code.pci, line


def _stamp(ln: EvidenceLine) -> str:
    stamp = parse_timestamp(ln.text)
    return (stamp.iso() or "") if stamp is not None and not stamp.relative else ""


def _sentences(c: Ctx) -> tuple[list[str], list[EvidenceLine]]:
    ini = c.view.initiating
    xid = _xid(c)
    if ini is None or xid is None:
        return [], []
    code, name, pci, line = xid
    parts = [tv.xid_not_code(code, name, line.ref, ini.rank, pci)]
    shown = [line]
    own = answer_where.own_error(c, ini)
    if own is not None:
        gap = seconds_between(_stamp(line), _stamp(own))
        near = "" if gap is None else ", the same second as the Xid" if abs(gap) < 1 else ""
        text = answer_where.strip_prefix(own.text)
        parts.append(tv.xid_own(ini.rank, re.sub(r"^\[rank\d+\]\s*", "", text)[:140], own.ref, near))
        shown.append(own)
    apps = [f"{x.code}: {x.name.split(' (')[0]}" for x in c.xids.values() if _APP_MARK.search(x.name)]
    if apps:
        parts.append(tv.xid_apps("; ".join(apps[:3])))
    return parts, shown


def code_guess(c: Ctx, m: Match) -> Reply | None:
    """ "Couldn't it be a kernel bug?" on a hardware Xid: no, the catalogue's word, the rank's own CUDA
    error and what a kernel bug would have shown; None for a job with no hardware Xid."""
    if not CODE_Q.search(m.text) or not re.search(r"\b(?:xid|cuda|kernels?)\b", m.text):
        return None
    parts, shown = _sentences(c)
    return reply("hardware", " ".join(parts), shown) if parts else None


def with_not_code(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` led by the Xid's hardware word when the message asks whether it is the user's code and the
    answer (a glossary line, the memory figures) does not say it."""
    if not CODE_Q.search(text) or "xid" not in text:
        return got
    parts, shown = _sentences(c)
    if not parts or "xid catalogue" in said(got):
        return got
    return first(got, " ".join(parts), shown)


def with_back_in(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the fix's health check to run before the node goes back into the pool."""
    ini = c.view.initiating
    if not BACK_Q.search(text) or not _RUN_Q.search(text) or ini is None or not ini.node:
        return got
    cmds = [ln.strip() for ln in c.d.fix_snippet.splitlines() if _HEALTH.search(ln) and ln.strip()]
    steps = [s.split(". ", 1)[-1] for s in c.d.fix.splitlines() if _HEALTH.search(s)]
    if not cmds and not steps:
        return got
    told = said(got)
    if all(x.lower() in told for x in cmds):
        return got
    parts = [*steps[:1], tv.back_cmds(" ; ".join(cmds)) if cmds else ""]
    back = tv.back_in(ini.node, "; ".join(p.rstrip(".") for p in parts if p))
    if got.intent == "help":  # "diag before returning it": the check is the answer, not the help list
        return reply("hardware", back, [])
    return with_lead(got, back, [])


def nccl_pid(c: Ctx, rank: int, pid: str) -> tuple[str, EvidenceLine] | None:
    """The rank's own pid as its NCCL init line prints it, when that is not the kernel's `pid`."""
    for ln in c.d.facts.setup:
        found = _NCCL.search(ln.text)
        if found is not None and int(found.group(2)) == rank and found.group(1) != pid:
            return tv.xid_pid(rank, found.group(1), pid, ln.ref), ln
    return None


__all__ = ["BACK_Q", "CODE_Q", "code_guess", "nccl_pid", "with_back_in", "with_not_code"]
