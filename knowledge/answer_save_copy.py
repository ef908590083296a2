"""A save that built a full copy of the state dict on every rank, put as a question about the call, the
option or the lever: "it's the get_state_dict call right?", "is full_state_dict=True the culprit, would
saving sharded fix it?", "one-liner root cause for the report".

Why: the blame check reads a failure that reached a rank from outside the call it was in (memory, a full
disk) as "not that call's own" — but when the call is the job's own line that builds the copy (the
verdict's cause line, `get_state_dict(…, full_state_dict=True)`), the call is the cause and the answer is
yes, with what to change there. A sharded save is the lever that removes the copy, so "would saving
sharded fix it?" is yes for a save that gathered a full copy, with the option that made it and the
job's own form of the fix. A root cause asked in one line names that copy and where it is built, not
only who failed.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_savecopy as ts
from knowledge import answer_code, answer_dcp_api, answer_mechanism, answer_rerun
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.answer_whatif_memory import copies
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView

#: failures of a save that gathers a full copy of the state dict
_SAVE_COPY = frozenset({"cpu_oom_checkpoint", "gpu_oom_checkpoint_gather"})
#: the option of the job's code line that asks for the full copy
_OPTION = re.compile(
    r"\bfull_state_dict\s*=\s*True\b|\bStateDictType\.FULL_STATE_DICT\b|\bFullStateDictConfig\([^)]*\)"
    r"|\b\w*gather_16bit_weights_on_model_save\w*\b"
)
#: a sharded (or rank-0-only) save named as the lever ("would saving sharded fix it", "DCP save")
SHARDED_Q = re.compile(
    r"\bshard(?:ed|ing)?\b[^?]{0,30}?\b(?:save|saving|checkpoint\w*|state[_ ]?dict|dcp)\b"
    r"|\b(?:save|saving|checkpoint\w*)\b[^?]{0,20}?\bshard\w*|\bdcp\b|\bdistributed[._ ]checkpoint\b"
    r"|\brank[- _]?0[- ]only\b|\brank0_only\b|\bcpu_offload\b|\bsharded_state_dict\b",
    re.IGNORECASE,
)
#: the lever weighed, not a how-to nor a fix put as a claim ("would it fix it", "still OOM?", "the
#: culprit?"; not "fix is rank0_only=True, right?")
_WEIGH = re.compile(
    r"\bwould\b|\bwill (?:it|that|this)\b|\bcould\b|\bstill\b|\bculprit\b|\bbe enough\b"
    r"|\b(?:fix|fixes|help|helps|avoid|avoids|prevent|prevents|solve|solves) (?:it|this|that|the \w+)\b"
    r"|\bhave (?:fixed|helped|avoided|prevented|saved)\b"
)
#: an option of the code named as the culprit ("is full_state_dict=True the culprit?")
_OPTION_BLAME = re.compile(
    r"\b(?:is|was|isn'?t|wasn'?t) (?:the |that |this |my |our |it )?`?(?P<opt>[\w.]+\s*=\s*[\w.]+"
    r"|[\w.]+\([^)]*\))`?(?: (?:really|actually|just|the|what))*"
    r" (?:culprit|problem|cause|bug|issue|root cause|to blame|at fault|blew|blow|caus\w*)"
)
#: the lever asked is a rank-0-only gather, not a sharded save
_RANK0_Q = re.compile(
    r"\brank[- _]?0[- ]only\b|\brank0_only\b|\bcpu_offload\b|\bonly (?:on )?rank ?0\b", re.I
)
_SHARD_Q = re.compile(r"\bshard\w*|\bdcp\b|\bdistributed[._ ]checkpoint\b", re.IGNORECASE)
#: "would it still OOM?": the answer is no, not yes
_STILL_Q = re.compile(
    r"\bstill\b[^?]{0,20}?\b(?:oom\w*|fail\w*|die|crash\w*|blow|run out|break|happen)"
    r"|\b(?:oom|fail|die|crash)\w* (?:again|anyway)\b",
    re.IGNORECASE,
)
#: a native source location in the failing line ("alloc_cpu.cpp:127")
_LOC = re.compile(r"\b[\w/]+\.(?:cpp|cc|cu|c|h):\d+\b")


def _memory(c: Ctx) -> str:
    return "GPU memory" if c.view.category.startswith("gpu") else "host RAM"


def _copy_line(c: Ctx, ini: RankView) -> tuple[EvidenceLine, str] | None:
    """The job's code line that builds the copy, and where (`train.py line 174`), for a save that
    gathered a full copy (None for any other failure)."""
    if (ini.category or c.view.category) not in _SAVE_COPY:
        return None
    return answer_mechanism._cause(c)


def _ended(c: Ctx) -> tuple[str, str]:
    """How the first rank's failure ended: a failed allocation, an OOM kill, or another failure."""
    nums = c.view.numbers
    if nums.host is not None or nums.oom is not None:
        return ts.ENDED_ALLOC
    return ts.ENDED_KILL if nums.kill is not None else ts.ENDED_OTHER


def _copies(c: Ctx, ini: RankView) -> str:
    """ "4 copies at once on localhost": the ranks that shared the node, each with its copy."""
    shape = answer_mechanism.ranks_per_node(c)
    return f"{shape[0]} copies at once on {shape[1]}" if shape and shape[0] > 1 else copies(c, ini)


def builds_copy(c: Ctx, ini: RankView, call: str, where: str) -> Reply | None:
    """ "It's the get_state_dict call right?": yes, when the call the first rank failed in is the job's
    line that builds the copy; with what to change there."""
    found = _copy_line(c, ini)
    frame = answer_code.user_frame(c, ini.rank)
    if found is None or frame is None or ini.first_line is None:
        return None
    line, _ = found
    code = answer_mechanism.code_of(line)
    if frame[1].split("  #")[0].strip() != code.split("  #")[0].strip():
        return None
    option = _OPTION.search(code)
    lead = ts.CALL_BUILDS.format(
        rank=ini.rank,
        call=call,
        where=where,
        memory=_memory(c),
        code=code,
        opt=ts.CALL_OPTION.format(option=option.group(0)) if option else "",
        copies=_copies(c, ini),
        ref=ref(ini.first_line),
        ended=_ended(c)[0],
    )
    if step := answer_rerun.change_step(c):
        lead += " " + ts.CALL_CHANGE.format(step=step)
    return reply("rank_why", lead, [ini.first_line, line])


def sharded(c: Ctx, m: Match) -> Reply | None:
    """ "Would saving sharded fix it?": yes for a save that gathered a full copy on every rank ("would it
    still OOM?": no), with the option that asked for it and the job's own form of the fix; None for any
    other failure."""
    if not _WEIGH.search(m.text):
        return None
    return _copy_answer(c, m.text)


def option_blamed(c: Ctx, m: Match) -> Reply | None:
    """ "Is full_state_dict=True the culprit?": yes, when the option named is in the job's line that
    built the copy on every rank."""
    asked = _OPTION_BLAME.search(m.text)
    ini = c.view.initiating
    found = _copy_line(c, ini) if asked is not None and ini is not None else None
    if asked is None or found is None:
        return None
    named = re.sub(r"\s+", "", asked.group("opt")).lower()
    if named not in re.sub(r"\s+", "", answer_mechanism.code_of(found[0])).lower():
        return None
    return _copy_answer(c, m.text)


def _copy_answer(c: Ctx, text: str) -> Reply | None:
    ini = c.view.initiating
    if ini is None or ini.first_line is None or (found := _copy_line(c, ini)) is None:
        return None
    line, at = found
    code = answer_mechanism.code_of(line)
    option = _OPTION.search(code)
    culprit = (
        ts.SHARDED_CULPRIT_OPTION.format(option=option.group(0), code=code, at=at)
        if option
        else ts.SHARDED_CULPRIT_CALL.format(code=code, at=at)
    )
    rank0 = _RANK0_Q.search(text) is not None and _SHARD_Q.search(text) is None
    lever = ts.LEVER_RANK0.format(memory=_memory(c)) if rank0 else ts.LEVER_SHARDED
    lead = ts.SHARDED_YES.format(
        verdict=ts.VERDICT_STILL if _STILL_Q.search(text) else ts.VERDICT_FIXES,
        culprit=culprit,
        memory=_memory(c),
        copies=_copies(c, ini),
        rank=ini.rank,
        ref=ref(ini.first_line),
        ended=_ended(c)[0],
        lever=lever,
        how=answer_dcp_api.fix(c) or " ".join(_steps(c, rank0)),
    )
    return reply("whatif", lead.strip(), [ini.first_line, line])


def _steps(c: Ctx, rank0: bool) -> list[str]:
    """The entry's fix steps for the lever asked (sharded, or rank 0 only) then the other, in the job's
    own state-dict API."""
    steps = [s for s in c.steps if not answer_dcp_api.foreign(c, s)]
    shard = [s for s in steps if re.search(r"shard|consolidat", s, re.IGNORECASE)]
    only = [s for s in steps if re.search(r"rank ?0|rank0", s, re.IGNORECASE)]
    return list(dict.fromkeys([*only, *shard] if rank0 else [*shard, *only]))[:2]


def with_root(c: Ctx, got: Reply) -> Reply:
    """A root cause asked: `got` with the copy every rank built and where, when the answer lacks it."""
    ini = c.view.initiating
    shape = answer_mechanism.ranks_per_node(c)
    found = _copy_line(c, ini) if ini is not None else None
    if ini is None or ini.first_line is None or found is None or shape is None or shape[0] < 2:
        return got
    line, at = found
    code = answer_mechanism.code_of(line)
    if code in got.lead:
        return got
    loc = _LOC.search(ini.first_line.text)
    said = ts.ROOT_COPY.format(
        n=shape[0],
        node=shape[1],
        memory=_memory(c),
        code=code,
        at=at,
        ref=ref(ini.first_line),
        failed=_ended(c)[1],
        where=f" (`{loc.group(0)}`)" if loc else "",
    )
    shown = [*got.lines, *([ini.first_line] if ini.first_line not in got.lines else []), line]
    return reply(
        got.intent, f"{got.lead} {said}", shown, bullets=got.bullets, action=got.action, code=got.code
    )


__all__ = ["SHARDED_Q", "builds_copy", "option_blamed", "sharded", "with_root"]
