"""What a full state dict is against a sharded one, and which kind this job was making ("explain like
I'm new what a 'full state dict' is vs a sharded one, and which kind this job was making?").

Why: the ask fell to the help text; the answer must say the two kinds in plain words, then this job's
kind from its own code line (`full_state_dict=True`, `FULL_STATE_DICT`, `SHARDED_STATE_DICT`), or that
the logs don't say when no kept line names one.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_savecopy as ts
from knowledge import answer_asks
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply, ref, reply

#: the ask names a full (or sharded) state dict
_ASK = re.compile(
    r"\b(?:full|unsharded|sharded)[ -]?(?:state[ -]?dict|checkpoint)s?\b"
    r"|\bstate[ -]?dict\b.{0,60}\b(?:sharded|full|unsharded)\b"
)
#: the job's own line that makes each kind
_FULL = re.compile(r"\bfull_state_dict\s*=\s*True\b|\bFULL_STATE_DICT\b|\bFullStateDictConfig\b")
_SHARDED = re.compile(r"\bfull_state_dict\s*=\s*False\b|\bSHARDED_STATE_DICT\b|\bShardedStateDictConfig\b")


def _kind(c: Ctx) -> tuple[str, EvidenceLine | None]:
    """This job's kind, with the code line that shows it ("" when no kept line names one)."""
    lines = pool(c)
    for rx, kind in ((_FULL, ts.STATEDICT_FULL), (_SHARDED, ts.STATEDICT_SHARDED)):
        found = [ln for ln in lines if rx.search(ln.text)]
        own = [ln for ln in found if 'File "' not in ln.text]  # the code line itself, not its frame
        if found:
            line = (own or found)[0]
            hit = rx.search(line.text)
            return kind.format(name=hit.group(0) if hit else "", ref=ref(line)), line
    return "", None


def with_kind(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the two kinds explained and this job's kind, when the message asks about them and
    the answer does not explain them yet."""
    if not _ASK.search(text) or ts.STATEDICT_WHAT[:40].lower() in answer_asks.said(got):
        return got
    kind, line = _kind(c)
    here = kind or ts.STATEDICT_UNSAID
    lead = f"{ts.STATEDICT_WHAT} {here}"
    shown = [line] if line is not None else []
    if got.intent == "help" or not got.known:
        return reply("explain", lead, shown)
    return answer_asks.with_lead(got, lead, shown)


__all__ = ["with_kind"]
