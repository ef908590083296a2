"""Asked "what does <a phrase of the summary> mean here?": the plain meaning, then what it means for this job.

A new engineer reads the verdict ("GPU fell off the bus", "Host RAM exhausted saving a checkpoint",
"hang", "scheduler_kill") and asks what the words mean. The glossary line alone answers half: they also
need what it means for *this* run (whose fault, which rank, what to do). So a phrase naming this job's
kind of failure gets its meaning in plain words (`denpex.core.texts.followups_meaning`) and then this
job's first fact (which rank, when, doing what); a glossary term the summary uses ("Flight Recorder",
"ZeRO-3") asked about *here* gets the term and the same fact. Every fact comes from the job's view.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_meaning as tm
from knowledge import answer_advice, answer_facts, answer_launcher, answer_memory
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.glossary import find
from knowledge.intents import Match, named_ranks
from knowledge.jobfacts_answers import launcher_exits

#: an ask for what something means ("what does X mean", "whats 'X' mean", "not sure what X means",
#: "what's a segfault"), as opposed to what happened or what to do
ASKS_MEANING = re.compile(
    r"\bwhat(?:s| does| do| did| is)?\b[^?]{0,80}\bmean(?:s|t)?\b|\bmeaning of\b|\bstand for\b"
    r"|\bnot sure what\b|\bwhat (?:is|are|s)\b (?:a|an)\b|\bwhats (?:a|an)\b"
)
#: the ask is about this job, not the term in general ("mean here", "what did it tell us")
_HERE = re.compile(
    r"\b(?:here|this job|this run|our job|our run|for us|in our case|in this case)\b"
    r"|\bwhat (?:did|does) (?:it|that|this) (?:tell|show|say|find)\b|\btell us\b"
)
#: the phrases that name each failure kind, as the summary and the logs put them
_PHRASES: dict[str, re.Pattern[str]] = {
    "gpu_hardware_xid": re.compile(r"\boff the bus\b|\bxid ?79\b"),
    "gpu_oom_checkpoint_gather": re.compile(
        r"\bzero[- ]?3\b|\bzero stage 3\b|\bcheckpoint save\b|\bgather\w* the (?:full )?weights\b"
    ),
    "cpu_oom_checkpoint": re.compile(
        r"\bhost ram\b|\bram exhausted\b|\bhost (?:cpu )?memory\b|\bsystem memory\b|\bcpu memory\b"
        r"|\b(?:cpu|host) oom\b"
    ),
    "nccl_timeout": re.compile(r"\bhang\w*\b|\bhung\b|\bstall\w*\b|\b(?:watchdog|collective) timeout\b"),
    "segfault": re.compile(r"\bseg ?faults?\b|\bsegmentation fault\b|\bsigsegv\b|\bsignal 11\b"),
    "nan_divergence": re.compile(r"\bnan\b|\bloss is inf\b|\bdiverg\w*"),
    "scheduler_kill": re.compile(r"\bscheduler[_ ]kill\b|\btime limit\b|\bdue to time\b"),
    "dataloader_worker_killed": re.compile(r"\bdataloader worker\b.{0,60}\bkilled\b|\bkilled by signal\b"),
}
_XID_OFF_BUS = 79


def meaning(c: Ctx, m: Match) -> Reply | None:
    """The meaning of a phrase naming this job's failure, then this job's first fact; None when the
    ask is no meaning ask or names nothing of this job (a term elsewhere is `explain`'s)."""
    if not ASKS_MEANING.search(m.text) and not _ASKS_CODE.search(m.text):
        return None
    if (exited := _exit_here(c, m)) is not None:
        return exited  # "what does exitcode -11 mean, which process": the signal, then whose process
    said = _kind_meaning(c, m)
    if said is None:
        return _term_here(c, m)
    facts, lines = _memory_fact(c, m) if c.view.category in _MEMORY_KINDS else ("", [])
    if not facts:
        facts, lines = _first_fact(c, m)
    lead = " ".join(x for x in (said, tm.HERE.format(facts=facts) if facts else "") if x)
    return reply("explain", lead, lines)


def _kind_meaning(c: Ctx, m: Match) -> str | None:
    """The plain meaning of this job's kind of failure, when the ask names it."""
    kind = c.view.category
    phrase = _PHRASES.get(kind)
    if phrase is None or not phrase.search(m.text):
        return None
    if kind == "gpu_hardware_xid" and not _off_the_bus(c):
        return None  # another Xid may well be the code's doing: "not your code" is said of 79 only
    said = tm.MEANINGS[kind]
    if kind == "scheduler_kill" and c.view.initiating is None:
        said += " " + tm.NOTHING_BROKE  # no rank failed on its own before the scheduler stopped it
    return said


def _off_the_bus(c: Ctx) -> bool:
    xid = c.view.numbers.xid
    return xid is not None and xid[0].code == _XID_OFF_BUS


#: the kinds whose own figures (the kill, the bytes asked) say more about this job than who failed first
_MEMORY_KINDS = frozenset({"cpu_oom_checkpoint"})


def _memory_fact(c: Ctx, m: Match) -> tuple[str, list[EvidenceLine]]:
    """The memory answer's first sentence ("the OOM killer … killed rank 2's process … 239.60 GiB")."""
    got = answer_memory.answer(c, replace(m, rank=None, ranks=()))
    if got is None or got.intent != "memory":
        return "", []
    return _sentence(got.lead), list(got.lines[:1])


def _sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s+(?=[A-Z`*])", text.strip(), maxsplit=1)[0]


def _first_fact(c: Ctx, m: Match) -> tuple[str, list[EvidenceLine]]:
    """The summary's first sentence (who failed first, when, doing what) and its line."""
    base = answer_facts.which_rank(c, replace(m, rank=None, ranks=()))
    if base is None:
        return "", []
    return _sentence(base.lead), list(base.lines[:1])


def _term_here(c: Ctx, m: Match) -> Reply | None:
    """A glossary term the summary uses, asked about here: the term, then this job's first fact."""
    if not _HERE.search(m.text):
        return None
    named = find(m.text, c.glossary)
    summary = " ".join([c.view.title or "", *(e.text for e in c.view.evidence)]).lower()
    if named is None or not any(k.lower() in summary for k in (named.name, *named.aliases)):
        return None  # a term this job's summary never used: the glossary line alone answers it
    term = answer_advice.explain(c, m)
    if term is None:
        return None
    facts, lines = _first_fact(c, m)
    if not facts or facts.lower() in term.lead.lower():
        return term
    return replace(
        term,
        lead=f"{term.lead} {tm.HERE.format(facts=facts)}",
        lines=[*lines, *(ln for ln in term.lines if ln not in lines)],
        material=[*term.material, facts],
    )


#: an exit code asked about without "mean" ("what's exit code -11?", "is -11 like -9?")
_ASKS_CODE = re.compile(
    r"\b(?:whats|what is|wat is|wats)\s+(?:an? |the )?(?:exit ?code|exitcode|rc|exit status)\b"
    r"|\b(?:like|same as|vs\.?|versus|different from|compared to|or) -\d{1,3}\b"
)
#: a negative exit code named anywhere in the ask ("-9"), to read the asked one against
_NEG_CODE = re.compile(r"(?<![\w-])(-\d{1,3})\b")
#: an exit code quoted in the ask ("exitcode -11", "exit code: 137", "rc=-15")
_EXIT_CODE = re.compile(r"\b(?:exit ?(?:code|status)?|rc)\s*[:=]?\s*(-?\d{1,3})\b")


def _exit_here(c: Ctx, m: Match) -> Reply | None:
    """An exit code the launcher's summary holds: what it means (the signal), then whose process
    exited with it and how the others ended; None when no rank of this job exited with that code."""
    asked = _EXIT_CODE.search(m.text) or (_NEG_CODE.search(m.text) if _ASKS_CODE.search(m.text) else None)
    if asked is None:
        return None
    code = int(asked.group(1))
    exits = launcher_exits(c.d)
    hit = [e for e in exits if e.code == code]
    if not hit:
        return None
    term = answer_advice.explain(c, m)
    signal = f" ({hit[0].signal})" if hit[0].signal else ""
    said = term.lead if term is not None else ""
    if not said and code < 0:
        said = tm.EXIT_SIGNAL.format(code=code, num=-code, signal=signal)
    who = ", ".join(
        tm.EXITED_WHO.format(rank=e.rank, pid=e.pid)
        if e.pid is not None
        else tm.EXITED_WHO_NO_PID.format(rank=e.rank)
        for e in hit
    )
    here = tm.EXITED_HERE.format(who=who, code=code, signal=signal, ref=ref(hit[0].line))
    rest = [e for e in exits if e.code != code]
    others = tm.EXITED_OTHERS.format(rows="; ".join(answer_launcher.row(e) for e in rest)) if rest else ""
    lead = " ".join(x for x in (said, here, others, _versus(m.text, code)) if x)
    return reply("explain", lead, [e.line for e in hit])


def _versus(text: str, code: int) -> str:
    """The asked code read against another the ask names ("is -11 like -9?"): what each signal says."""
    means = tm.SIGNAL_MEANS.get(-code)
    other = next((int(n) for n in _NEG_CODE.findall(text) if int(n) != code), None)
    if means is None or other is None or (other_means := tm.SIGNAL_MEANS.get(-other)) is None:
        return ""
    return tm.EXIT_VERSUS.format(other=other, other_means=other_means, code=code, means=means)


#: the answers that retell who failed first, when and with what: the meaning's "Here:" already did
_RETOLD = frozenset({"rank_why", "which_rank", "summary"})


def restates(first: Reply, later: Reply, part: str) -> bool:
    """A later ask of the message whose answer would only retell the meaning's fact ("what's a
    segfault and why is it not just a python error": the meaning says why); one naming a rank is its own."""
    here = tm.HERE.format(facts="")
    return (
        first.intent == "explain" and here in first.lead and later.intent in _RETOLD and not named_ranks(part)
    )
