"""The entry's FSDP1 text fitted to a job that calls torch.distributed.checkpoint's state-dict API.

An entry about a full state dict on every rank is written for FSDP1 (`FullStateDictConfig(offload_to_cpu
=True)` without `rank0_only=True`); a job whose own code line is `get_state_dict(model, optim,
options=StateDictOptions(full_state_dict=True))` uses neither, so "the checkpoint uses FullStateDictConfig"
is not this job's fact and `rank0_only=True` is not its knob. Why: torch/distributed/checkpoint/
state_dict.py says `cpu_offload=True` with `full_state_dict=True` keeps the gathered state dict on rank 0
only ("To prevent CPU OOM … all other ranks will get empty state_dict"), and `full_state_dict=False` (the
default) keeps it sharded for `torch.distributed.checkpoint.save`. So when the job's kept lines show the
DCP call and no FSDP1 one, the entry's cause sentence is said in the job's API, and its FSDP1 fix is
followed by the same fix in the job's API (and its snippet by the DCP one).
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_savecopy as ts
from knowledge import answer_mechanism
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply, first_sentence

#: torch.distributed.checkpoint's state-dict calls, as a job's code line writes them
_DCP_CALL = re.compile(r"\b(get_state_dict|get_model_state_dict)\(|\bStateDictOptions\(")
#: FSDP1's state-dict API: a job that uses it keeps the entry's FSDP1 text
_FSDP1 = re.compile(r"FullStateDictConfig|StateDictType|state_dict_type\(|FULL_STATE_DICT")
_FULL = re.compile(r"\bfull_state_dict\s*=\s*True\b")
_FRAME = re.compile(r'File "[^"]+", line \d+')
_FSDP1_FIX = re.compile(r"FullStateDictConfig\([^)]*rank0_only=True")
#: what the fitted fix says, so it is said once
_SAID = "StateDictOptions(full_state_dict=True, cpu_offload=True)"


def dcp_line(c: Ctx) -> EvidenceLine | None:
    """The job's own code line that calls the DCP state-dict API with `full_state_dict=True`, when no
    kept line uses FSDP1's API (None otherwise)."""
    lines = pool(c)
    if any(_FSDP1.search(ln.text) for ln in lines):
        return None
    calls = [ln for ln in lines if _DCP_CALL.search(ln.text) and _FULL.search(ln.text)]
    return next((ln for ln in calls if not _FRAME.search(ln.text)), None)


def foreign(c: Ctx, step: str) -> bool:
    """Whether a fix step names the other state-dict API than the one the job's kept lines use (a DCP
    step for a job that calls FSDP1's, an FSDP1 step for one that calls DCP's)."""
    if dcp_line(c) is not None:
        return _FSDP1.search(step) is not None
    fsdp1 = any(_FSDP1.search(ln.text) for ln in pool(c))
    return fsdp1 and _DCP_CALL.search(step) is not None


def _func(line: EvidenceLine) -> str:
    found = _DCP_CALL.search(line.text)
    return found.group(1) if found is not None and found.group(1) else "get_state_dict"


def _at(c: Ctx, line: EvidenceLine) -> str:
    """`train.py line 174`, where the job's code makes the call (else the log line)."""
    found = answer_mechanism._cause(c)
    return found[1] if found is not None and found[0] == line else line.ref


def cause(c: Ctx) -> str:
    """The entry's cause said in the job's API ("" when the job's line is not the DCP call, or sets
    `cpu_offload`)."""
    line = dcp_line(c)
    if line is None or "cpu_offload" in line.text:
        return ""
    func = _func(line)
    what = "model and optimizer state" if func == "get_state_dict" else "model state"
    return ts.DCP_CAUSE.format(func=func, what=what)


def fix(c: Ctx, told: str = "") -> str:
    """The entry's rank-0-only fix in the job's API and the sharded DCP save, those `told` does not say
    yet ("" when not a DCP job)."""
    line = dcp_line(c)
    if line is None:
        return ""
    func, at = _func(line), _at(c, line)
    sharded = "torch.distributed.checkpoint.save" not in told and "dcp.save" not in told
    if _SAID in told:
        return ts.DCP_SHARDED_ALONE.format(func=func, at=at) if sharded else ""
    rank0 = ts.DCP_FIX_RANK0.format(func=func, at=at)
    return f"{rank0} {ts.DCP_FIX_SHARDED}" if sharded else rank0


def fit(c: Ctx, got: Reply) -> Reply:
    """`got` with the entry's FSDP1 cause said in the job's API, its FSDP1 fix followed by the job's
    and its FSDP1 snippet led by the job's."""
    if c.entry is None or dcp_line(c) is None:
        return got
    old = first_sentence(c.entry.root_cause) + "."
    new = cause(c)
    if new and "FullStateDictConfig" in old and old in _text(got):
        got = _swap(got, old, new)
    if "FullStateDictConfig" in got.code and "StateDictOptions" not in got.code:
        code = f"{ts.DCP_SNIPPET}\n{ts.DCP_SNIPPET_FSDP1}\n{got.code.strip()}"
        got = replace(got, code=code, material=[m if m != got.code else code for m in got.material])
    return _with_fix(c, got)


def _with_fix(c: Ctx, got: Reply) -> Reply:
    """The job's form of the fix after the entry's step it follows (its DCP step, else its FSDP1 one),
    where the reply gives that step; only what the reply does not say yet."""
    more = fix(c, _text(got))
    steps = c.steps
    anchors = [s for s in steps if _SAID in s] + [s for s in steps if _FSDP1_FIX.search(s)]
    step = next((s for s in anchors if s in got.lead or s in got.bullets), None)
    if not more or step is None:
        return got
    if step in got.bullets:
        at = got.bullets.index(step) + 1
        bullets = [*got.bullets[:at], more, *got.bullets[at:]]
        return replace(got, bullets=bullets, material=[*got.material, more])
    return _swap(got, step, f"{step} {more}", bullets=False)


def _text(got: Reply) -> str:
    return " ".join([got.lead, *got.bullets, got.action])


def _swap(got: Reply, old: str, new: str, *, bullets: bool = True) -> Reply:
    """`old` replaced by `new` in what the reply says (its lead, steps, action and material)."""
    return replace(
        got,
        lead=got.lead.replace(old, new),
        bullets=[b.replace(old, new) for b in got.bullets] if bullets else got.bullets,
        action=got.action.replace(old, new),
        material=[m.replace(old, new) for m in got.material],
    )


__all__ = ["cause", "dcp_line", "fit", "fix", "foreign"]
