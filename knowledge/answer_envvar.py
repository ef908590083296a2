"""The one debug environment variable the message asks for, by what it should do: "what's the env var
we should set so PyTorch reports the mismatch?", "just the one that produces the desync report naming
the missing rank — which environment variable is it?".

Why: asked for one switch, the answer gave the fix, the rerun advice or "the env vars this job ran
with are not shown" (a reading of "environment variable" as the job's own settings). The switch is
picked by the words of what it should do (a mismatch, a desync report, a dump, an abort), among the
ones that work on this job's backend (no TORCH_NCCL_* switch reaches a gloo process group), preferring
the one this job's own verify command sets; with no such words, the verify command's switch when it
sets exactly one.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_runfacts as tr
from knowledge import answer_asks, answer_checks, answer_join
from knowledge.answer_types import Ctx, Reply, reply

#: asks for one variable ("which environment variable is it", "the env var we should set", "single env var")
_ONE = re.compile(
    r"\b(?:which|what)(?:'s| is)? (?:the )?(?:one |single |only )?(?:env(?:ironment)?[ _-]?var(?:iable)?"
    r"|environment setting|env setting)\b(?!s)"
    r"|\b(?:one|single|only|the) (?:env(?:ironment)?[ _-]?var(?:iable)?|debug (?:flag|switch|setting))\b(?!s)"
    r"|\b(?:env(?:ironment)?[ _-]?var(?:iable)?) (?:is it|should (?:i|we) set|to set|that (?:makes|produces"
    r"|gives|reports))\b",
    re.IGNORECASE,
)
#: what the switch should do, by switch
_DOES = {
    "TORCH_DISTRIBUTED_DEBUG=DETAIL": re.compile(
        r"\bmismatch\w*|\bdifferent (?:collective|call|op)s?\b|\bshapes?\b|\bwrong collective\b", re.I
    ),
    "TORCH_NCCL_DESYNC_DEBUG=1": re.compile(
        r"\bdesync (?:report|debug)\b|\bmissing rank\b|\bnam\w+ the (?:missing|stuck|late)\b", re.I
    ),
    "TORCH_NCCL_DUMP_ON_TIMEOUT=1": re.compile(
        r"\bdumps?\b|\bflight recorder\b|\btrace (?:file|buffer)s?\b", re.I
    ),
    "TORCH_NCCL_ASYNC_ERROR_HANDLING=1": re.compile(
        r"\babort\w*\b|\bexit instead\b|\bnot hang\b|\bfail fast\b", re.I
    ),
    "NCCL_DEBUG=INFO": re.compile(
        r"\bnccl(?:'s)? (?:logs?|logging|output)\b|\bnetwork\b|\binterfaces?\b", re.I
    ),
    "PYTHONFAULTHANDLER=1": re.compile(r"\bpython stack\b|\bsegfault\w*\b|\bon a signal\b", re.I),
    "CUDA_LAUNCH_BLOCKING=1": re.compile(r"\bcuda error\b|\bdevice-side\b|\bwhich kernel\b", re.I),
}
#: asks what this run was set with, not what to set ("which env var was set?", "did we run with it?")
_RAN_WITH = re.compile(
    r"\b(?:was|were) (?:it |they )?(?:set|used|on|enabled|exported)\b|\bdid (?:we|it|they|the job|this run)"
    r" (?:set|use|run with|have)\b",
    re.IGNORECASE,
)
_NAME = re.compile(r"\b([A-Z][A-Z0-9_]{3,})=(\S+)")


def _verify(c: Ctx) -> str:
    return c.d.verify or (c.entry.verify if c.entry is not None else "") or ""


def wanted(c: Ctx, text: str) -> str | None:
    """The switch (`NAME=value`) the message asks for, or None when it asks for no single one."""
    if not _ONE.search(text) or _RAN_WITH.search(text):
        return None
    found = answer_checks.backend_of(c)
    gloo = found is not None and found[0] == "gloo"
    usable = [v for v in _DOES if not (gloo and v.startswith(("TORCH_NCCL_", "NCCL_")))]
    in_verify = {f"{m.group(1)}={m.group(2)}" for m in _NAME.finditer(_verify(c))}
    hits = [(len(_DOES[v].findall(text)), v in in_verify, v) for v in usable]
    best = max(hits, default=(0, False, ""))
    if best[0] > 0:
        return best[2]
    known = [v for v in in_verify if v in usable]
    return known[0] if len(known) == 1 else None


def with_var(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` led by the one switch the message asks for, when it asks one and the answer lacks it."""
    var = wanted(c, text)
    if var is None or var.split("=")[0].lower() in answer_asks.said(got):
        return got
    command = _verify(c).split("  #")[0].strip()
    where = tr.ENV_IN_VERIFY.format(command=command) if var in command else ""
    said = tr.ENV_ONE.format(var=var, what=tr.ENV_WHAT[var], verify=where)
    if got.intent == "help":
        return reply("debug", said)
    return answer_join.first(got, said, [])


__all__ = ["wanted", "with_var"]
