"""The incident commander's status update ("status update: ranks, where it died, progress lost, owner").

Why: a status update asks for several facts at once, as terse nouns ("rank count, step, owner") that
match no single intent well; answered as one ask, it got one part (the ranks, or the time) and dropped
the rest. Here each part asked is told in one sentence of this job's numbers, after one sentence that
says who failed first, where, when and with what: one short paragraph, nothing asked left out.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_status as ts
from denpex.core.texts import thread as t
from knowledge import answer_advice, answer_checks, answer_lost, answer_silent
from knowledge.answer_doubt_owner import JOBS_OWN
from knowledge.answer_more import step_of_total
from knowledge.answer_quote import saving_line
from knowledge.answer_types import Ctx, Reply, at, duration, ref, reply
from knowledge.answer_where import own_error, strip_prefix
from knowledge.facts import parse_xid
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView, seconds_between
from knowledge.wording import phase_words

#: a message written for a status update ("status update:", "IC update pls", "owner for the update")
STATUS_Q = re.compile(
    r"\b(?:status|ic|incident|sitrep|sit rep)(?: update| report| summary)?\b\s*[:,\-—–]"
    r"|\b(?:status|ic|incident|sitrep) (?:update|report)\b"
    r"|\b(?:for|in) (?:the|my|our|an?) (?:status |ic |incident )?(?:update|postmortem|post-mortem|incident)\b"
    r"|\bwriting (?:the|a|an|my|up the) (?:status|ic|incident)? ?(?:update|report)\b"
    r"|\bstand-?\s?ups?(?: (?:line|update|note))?\b|\bstatus line\b"  # "standup: step reached, which rank"
)
#: the parts a status update asks for, each answered in its own sentence
PARTS: dict[str, re.Pattern[str]] = {
    "counts": re.compile(
        r"\b(?:ranks|gpus|nodes?|workers|processes)\b|\b(?:rank|gpu|node|worker|process) count\b"
        r"|\bhow many\b|\bworld size\b"
    ),
    "step": re.compile(r"\bsteps?\b|\bhow far\b|\bwhere (?:it|did it|we) (?:died|die|failed|stopped)\b"),
    "ran": re.compile(
        r"\bhow long\b(?! (?:\w+ )?before (?:the )?(?:watchdog|timeout|nccl))|\bruntime\b|\bduration\b"
    ),
    "timeout": re.compile(r"\bwatchdog\b|\btime ?outs?\b|\btimed out\b"),
    "lost": re.compile(r"\blos[ets]\b|\blose\b|\bcheckpoints?\b|\bresume\b"),
    # "which rank blew up", "cause in a few words": told by the first sentence (who failed first, with what)
    "first": re.compile(
        r"\bwhich rank\b(?! (?:is|was|were|are|had|has|did|does|do|on|ran)\b)"
        r"|\bcause in (?:a few|\w+) words\b|\bwhat happened\b(?! (?:to|with|on|at|before)\b)"
    ),
    "owner": re.compile(
        r"\bowners?\b|\bowns?\b|\binfra\w*\b|\bwho(?:se)?\b|\bblame\b|\bfault\b|\bour side\b|\bor us\b"
        r"|\bus or\b|\bcluster or\b|\bor (?:the )?cluster\b"
    ),
}
#: a part that asks for the lines themselves ("paste the run log lines around the failure"): shown
PASTE = re.compile(r"\b(?:paste|show|quote|lines?|logs?|traceback)\b")


def parts_asked(text: str) -> list[str]:
    """The status parts the message names, in a fixed order (the update reads the same every time)."""
    return [name for name, rx in PARTS.items() if rx.search(text)]


#: where one item of a status update's list ends ("node, time of kill, step reached, and owner")
_ITEM = re.compile(r"\s*(?:[,;?/+]|\s[—–-]+\s|\band\b|\balso\b)\s*")


def listed(text: str) -> int:
    """How many items of the message each name a status part: two or more make it a status update's
    list, not one question that happens to say "for the postmortem"."""
    return sum(bool(parts_asked(item)) for item in _ITEM.split(STATUS_Q.sub(" ", text)))


def covers(part: str) -> bool:
    """Whether one ask of the message is a status part this answer tells (or the lines it shows)."""
    return bool(parts_asked(part)) or bool(PASTE.search(part)) or bool(STATUS_Q.search(part))


def status(c: Ctx, m: Match) -> Reply | None:
    """One short paragraph: who failed first, then each part the update asked for, in this job's numbers."""
    ini = c.view.initiating
    asked = parts_asked(STATUS_Q.sub(" ", m.text))
    if ini is None or not STATUS_Q.search(m.text) or not asked:
        return None
    said, lines = [_first(c, ini)], [ln for ln in (ini.first_line, c.view.phase_line) if ln is not None]
    if "lost" in asked and "step" in asked:
        asked.remove("step")  # what was lost is told against the step reached: said once, there
    for part in asked:
        sentence, shown = _PART[part](c, ini, m)
        if sentence:
            said.append(sentence)
            lines += [ln for ln in shown if ln not in lines]
    return reply("summary", " ".join(said), lines[:4])


def _first(c: Ctx, r: RankView) -> str:
    node = f" on {r.node}" if r.node else ""
    doing = f" while {phase_words(r.phase)}" if r.phase else ""
    saved = saving_line(c) if r.phase == "checkpoint_save" else None
    doing += f" (`{saved[0]}`)" if saved else ""
    what = t.category_words(c.view.category)
    if answer_silent.silent(r):  # its own failure has no time: it went quiet, the others timed out
        return ts.FIRST_SILENT.format(rank=r.rank, node=node, what=what, doing=doing)
    return ts.FIRST.format(rank=r.rank, node=node, when=at(r.first_time), what=what, doing=doing)


def _counts(c: Ctx, ini: RankView, m: Match) -> tuple[str, list[EvidenceLine]]:
    v = c.view
    coll = v.with_role("collateral")
    failed = len(coll) + 1
    nodes = f" on {len(v.nodes)} node(s) ({', '.join(v.nodes)})" if v.nodes else ""
    counts = ts.COUNTS if v.world_size else ts.COUNTS_NO_WORLD
    text = counts.format(
        world=v.world_size, nodes=nodes, failed=failed, coll=len(coll) or "none", rank=ini.rank
    )
    return text, []


def _step(c: Ctx, ini: RankView, m: Match) -> tuple[str, list[EvidenceLine]]:
    reached = [r for r in c.view.ranks.values() if r.last_step is not None]
    if ini.last_step is not None:
        line = ini.last_step_line
        total = step_of_total(c, ini)
        text = ts.STEP_OWN.format(step=ini.last_step, total=total, rank=ini.rank, ref=ref(line) or "its log")
        return text, [line] if line is not None else []
    if not reached:
        return ts.STEP_NONE, []
    top = max(reached, key=lambda r: (r.last_step or 0, -r.rank))
    line = top.last_step_line
    text = ts.STEP_ANY.format(
        ini=ini.rank,
        step=top.last_step,
        total=step_of_total(c, top),
        rank=top.rank,
        ref=ref(line) or "its log",
    )
    return text, [line] if line is not None else []


def _ran(c: Ctx, ini: RankView, m: Match) -> tuple[str, list[EvidenceLine]]:
    span = seconds_between(c.view.start, ini.first_time)
    if span is None:
        return "", []
    return ts.RAN.format(span=duration(span), start=at(c.view.start)), []


def _lost(c: Ctx, ini: RankView, m: Match) -> tuple[str, list[EvidenceLine]]:
    got = answer_lost.lost(c, replace(m, text="how much progress did we lose"))
    return (got.lead, got.lines[:1]) if got is not None else ("", [])


def _owner(c: Ctx, ini: RankView, m: Match) -> tuple[str, list[EvidenceLine]]:
    faq = c.entry.faq.hardware_or_software.strip() if c.entry is not None else ""
    xids = answer_advice.xid_lines(c)
    event = parse_xid(xids[0].text) if xids else None
    row = c.xids.get(event.code) if event is not None else None
    if event is not None and (row is None or row.hardware):
        node = next((n for n, ls in c.d.nodes.items() if xids[0] in ls), ini.node) or "the node"
        return ts.OWNER_INFRA.format(node=node, code=event.code), xids[:1]
    if c.view.category in JOBS_OWN:
        return ts.OWNER_JOB, []
    if faq.lower().startswith("software"):
        return ts.OWNER_SOFTWARE.format(faq=faq.rstrip(".")), []
    return (ts.OWNER_OPEN.format(faq=faq), []) if faq else ("", [])


def _timeout(c: Ctx, ini: RankView, m: Match) -> tuple[str, list[EvidenceLine]]:
    return answer_checks.timeout_was(c), []


def _told(c: Ctx, ini: RankView, m: Match) -> tuple[str, list[EvidenceLine]]:
    """The first sentence names the rank and what failed; its own error line, quoted, says it exactly."""
    ln = own_error(c, ini) or ini.first_line
    quoted = re.split(r"(?<=[.!])\s", strip_prefix(ln.text), maxsplit=1)[0][:160] if ln else ""
    if ln is None or quoted.startswith("File "):
        return "", []
    return ts.ERROR_LINE.format(ref=ref(ln), text=quoted), [ln]


_PART = {
    "first": _told,
    "counts": _counts,
    "step": _step,
    "ran": _ran,
    "timeout": _timeout,
    "lost": _lost,
    "owner": _owner,
}
