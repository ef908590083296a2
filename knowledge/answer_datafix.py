"""The data code asked about once the data was the cause: "rank 2 was building an index right before the
kill: why is that a problem and how should I restructure the dataset code?", and a challenge that names
another cause ("are you sure it isn't dataloader workers? what points at something else").

Why: the answers said why the rank failed and stopped there: the fix's steps about the data (memory-map
or stream the dataset, build it once) were not said for a question about the data code, and the line
that points at the verdict over the runner-up (the killed process's own last line, what it was doing)
was left out of the ranking. Both come from this job: the fix's steps that speak of the data, and the
first rank's own last line before it failed, when it names a phase of its own (not plain training).
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_victims as tv
from knowledge.answer_asks import said, with_lead
from knowledge.answer_join import first
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.jobfacts_answers import RankView

#: how to restructure / rewrite / change the data code
RESTRUCTURE_Q = re.compile(
    r"\b(?:restructure|rewrite|refactor|redesign|rework|re-?architect)\b[^?]{0,40}"
    r"\b(?:data\w*|index\w*|loader|loading|pipeline)\b"
    r"|\bhow (?:should|do|can|would) (?:i|we) (?:change|fix|load|build|handle|store)\b[^?]{0,30}"
    r"\b(?:data(?:set)?|index|data loading)\b"
    # "a concrete replacement for building that index in RAM on every rank", "instead of loading it all"
    r"|\b(?:replace\w*|alternative|instead of|avoid)\b[^?]{0,40}"
    r"\b(?:build\w*|load\w*|hold\w*|keep\w*|materiali[sz]\w*)\b[^?]{0,40}\b(?:index\w*|data\w*|samples)\b"
    r"|\b(?:index\w*|data(?:set)?)\b[^?]{0,40}\b(?:in (?:ram|memory)|on every rank)\b[^?]{0,60}"
    r"\b(?:instead|replace\w*|avoid|alternative|pattern|snippet)\b",
    re.IGNORECASE,
)
#: asks for code to drop in ("a code pattern I can drop in", "snippet?", "example code")
_CODE_ASK = re.compile(
    r"\bcode (?:pattern|snippet|example|sample)\b|\bsnippet\b|\bdrop[- ]in\b|\bexample code\b"
    r"|\bshow (?:me )?(?:the |some )?code\b|\bpattern\b",
    re.IGNORECASE,
)
#: the fix step that keeps the data off every rank's heap
_MMAP_STEP = re.compile(r"\bmemory-map|\bmmap\b|\bmemmap\b|\barrow\b", re.I)
#: answers the data-code ask replaces rather than follows
_NOT_DATA = frozenset({"help", "activity", "explain", "summary", "rank_why", "which_rank"})
#: the fix's steps about the data
_DATA_STEP = re.compile(r"\bdata(?:set|loader)?\b|\bmemory-map|\bmmap\b|\bstream|\bnum_workers\b", re.I)
#: a challenge that names another cause ("are you sure it isn't …", "what points at something else")
CHALLENGE_Q = re.compile(
    r"\b(?:are|r) (?:you|u) sure\b|\bwhy not\b|\bwhat points (?:at|to)\b|\bisn\W?t it\b"
    r"|\b(?:could|might)(?:n\W?t| not)? (?:it|this) (?:be|have been)\b"
    r"|\bwhat (?:rules|tells) (?:it|that) out\b"
)
_KILLED = re.compile(r"\bKilled process (\d+)\b")
_FRAME = re.compile(r'\bFile "[^"]+", line \d+|\bTraceback \(most recent call last\)')
_PREFIX = re.compile(r"^(?:\[[^\]]*\][ \t]*)+")
#: phases that say what a rank did of its own; plain training says nothing against another cause
_OWN_PHASES = frozenset({"data", "checkpoint_save", "checkpoint_load", "model_load", "eval"})


def with_data_fix(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the fix's steps about the data, when the message asks how to restructure that code."""
    if not RESTRUCTURE_Q.search(text):
        return got
    steps = [s.split(". ", 1)[-1].strip() for s in c.d.fix.splitlines() if _DATA_STEP.search(s)]
    told = said(got)
    fresh = [s.rstrip(".") for s in steps if s.lower().rstrip(".")[:60] not in told][:2]
    if not fresh:
        return got
    lead = tv.data_fix("; ".join(fresh))
    if _CODE_ASK.search(text) and any(_MMAP_STEP.search(s) for s in steps):
        lead = f"{lead} {tv.MMAP_PATTERN}"
    if got.intent in _NOT_DATA:
        return first(got, lead, [])
    return with_lead(got, lead, [])


#: the message offers model loading as the other cause ("the dataset or maybe the model loading?")
_MODEL_LOAD = re.compile(r"\bmodel[- ]?(?:load\w*|init\w*)\b|\bload\w* (?:the |of the )?model\b", re.I)


_WORKERS = re.compile(r"\bdata ?loader|\bworkers?\b", re.I)


def data_phase(c: Ctx, ini: RankView, what: str, text: str) -> Reply | None:
    """ "Is it really the dataset?" when the first rank failed in its data phase: yes, with the line it
    printed of what it was doing (and not the model loading, when that is the other cause offered)."""
    line = c.view.phase_line_of(ini)
    if ini.phase != "data" or line is None or _FRAME.search(line.text) or _WORKERS.search(text):
        return None  # "the dataloader workers?": a worker is another guess than the rank's own data code
    core = _PREFIX.sub("", line.text).strip() or line.text.strip()
    lead = tv.DATA_PHASE_YES.format(rank=ini.rank, what=what, text=core[:200], ref=line.ref)
    if _MODEL_LOAD.search(text):
        lead = f"{lead} {tv.DATA_NOT_MODEL}"
    return reply("alternatives", lead, [*c.view.key_line(), line])


def with_pointer(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the first rank's own last line before it failed, when the message challenges the
    verdict and that line names what the rank was doing (reading data, saving) and is not said yet."""
    ini = c.view.initiating
    if not CHALLENGE_Q.search(text) or ini is None or ini.phase not in _OWN_PHASES:
        return got
    line = c.view.phase_line_of(ini)
    if line is None or line.ref in got.lead or _FRAME.search(line.text):
        return got  # a traceback's frame is where it was, not a line it printed of what it was doing
    core = _PREFIX.sub("", line.text).strip() or line.text.strip()
    if core.lower()[:60] in said(got):
        return got
    killed = next((k.group(1) for ln in c.view.evidence if (k := _KILLED.search(ln.text))), "")
    pid = killed if killed and re.search(rf"\b{killed}\b", line.text) else ""
    return with_lead(got, tv.points_at(ini.rank, core[:160], line.ref, pid, bool(killed)), [line])


__all__ = ["CHALLENGE_Q", "RESTRUCTURE_Q", "data_phase", "with_data_fix", "with_pointer"]
