"""Yes/no checks whose premise may be false: "rank 1 started it, right?", "it died at step 9 of 10?",
"same as the desync one?".

People on call put the story they already believe as a question. When the story is wrong, an answer
that goes on about the rank or step they named (or lists example questions) leaves the false premise
standing. Each check here says no (or yes) first, then the true fact that decides it: which rank
started it and where, the last step logged, whether any rank was in a different collective.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_verdicts as tv
from denpex.core.texts import thread as t
from knowledge import answer_code, answer_more
from knowledge.answer_types import Ctx, Reply, duration, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView, seconds_between
from knowledge.lines import parse_timestamp
from knowledge.wording import phase_words

_FAIL = r"(?:died|failed|crashed|broke|errored|erred|went down|blew up|oomed|segfaulted|exited|stopped|hung)"
#: a claim that the named rank is the one that started the failure
_STARTED = re.compile(
    r"\b(?:started|kicked off|triggered|set off|began|caused) (?:it|this|the (?:failure|crash|whole thing))\b"
    r"|\b(?:start|kick|trigger)\w* (?:it|this|that|everything)(?: off| all)?\b"
    r"|\b" + _FAIL + r"\b[^?!,;]{0,40}?\bfirst\b"
    r"|\b(?:was|is|went) (?:the )?first\b|\bfirst (?:one )?to (?:die|fail|crash|go|error|break|oom|hang)\b"
    r"|\bthe (?:one|rank|process) (?:that|which|who) (?:got |was )?(?:oom[- ]?)?(?:killed|died|failed|crashed"
    r"|oomed|blew up|started it|went down)\b"
    r"|\b(?:patient zero|the origin|the initiator|where it (?:started|began))\b"
    # "took rank 3 down with it", "rank 0 got oom killed", "rank 3's disk is the full one"
    r"|\btook (?:rank \d+|r\d+|it|them|the (?:others?|rest|job)|everyone|everything) down\b"
    r"|\brank \d+ (?:got|was) (?:oom[- ]?)?killed\b"
    r"|\brank \d+(?:'?s)? (?:disk|gpu|node|box|card|memory|ram) (?:is|was) the (?:\w+ )?one\b"
)
#: a rank named in the ask ("rank 0", "r3"): the claim is about the last one named before its verb
_RANK_NAMED = re.compile(r"\b(?:rank|r)\s?(\d+)\b")
#: the ask is a check of a statement, not an open question ("…, right?", "did rank 1 …?", "is it …?")
_CHECK = re.compile(
    r"\b(?:right|correct|yeah|yes|no|true|yep|confirm\w*|isn'?t it|wasn'?t it|didn'?t it|innit)\W*$"
    # "theory: rank 0 crashed first … correct me", "just double check me": a claim put up to be checked
    r"|\b(?:correct|check|double[- ]check|sanity[- ]check|fact[- ]check) me\b"
    r"|^(?:my )?(?:theory|hypothesis)\b"
    r"|^(?:so |and |but |ok )?(?:did|was|is|were|has|had)\b|\?\s*$|\?\s+\S"
)
_KILLED = re.compile(r"\b(?:got|was|been) (?:oom[- ]?)?killed\b")
#: an open question anywhere in the ask ("… with no error. what did it die of?"): not a check of a claim
_OPEN = re.compile(r"\b(?:which|who|what|whats|why|how|when|where)\b")


def rank_started(c: Ctx, m: Match) -> Reply | None:
    """ "rank 1 started it right?", "rank 0 is the one that got killed?": no or yes first, with the
    rank that started it, what it hit and where (its code line, its pid)."""
    ini = c.view.initiating
    claim = _STARTED.search(m.text)
    if ini is None or claim is None or not _CHECK.search(m.text) or _OPEN.search(m.text):
        return None
    claimed = _claimed(m, claim.start(), claim.end())
    if claimed is None or claimed not in c.view.ranks:
        return None
    what = _what(c, ini)
    pid = answer_more.launcher_pid(c, ini) or _killed_pid(c, ini)
    if claimed == ini.rank:
        killed = _KILLED.search(m.text) and c.view.numbers.kill is None
        lead = (tv.PREMISE_RANK_NOT_KILLED if killed else tv.PREMISE_RANK_YES).format(
            rank=ini.rank, what=what
        )
        return reply("rank_why", f"{lead} {pid}".strip(), c.view.key_line())
    named = c.view.ranks[claimed]
    role = "collateral" if named.role == "collateral" else "not the one that started it"
    if named.role == "collateral" and (waited := answer_code.collective_of(c, claimed)) is not None:
        where = f" ({waited[1]})" if waited[1] else ""
        role = tv.PREMISE_WAITED_IN.format(rank=ini.rank, op=waited[0], where=where)
    verb = "most likely started it" if ini.inferred else "started it"
    lead = tv.PREMISE_RANK_NO.format(rank=ini.rank, verb=verb, what=what, named=claimed, role=role)
    shown = [*c.view.key_line(), *([named.first_line] if named.first_line is not None else [])]
    return reply("rank_why", f"{lead} {pid}".strip(), shown)


def _claimed(m: Match, start: int, end: int) -> int | None:
    """The rank the claim is about: the one named in it, else the last named before it ("ranks 0 and 2
    show resets, so rank 0 died first and took rank 3 down": rank 0), else the one rank the ask names."""
    inside = [int(x.group(1)) for x in _RANK_NAMED.finditer(m.text[start:end])]
    if inside and not re.match(r"took\b", m.text[start:end]):
        return inside[0]
    before = [int(x.group(1)) for x in _RANK_NAMED.finditer(m.text[:start])]
    if before:
        return before[-1]
    return m.rank if m.rank is not None and len(set(m.ranks)) <= 1 else None


def _what(c: Ctx, ini: RankView) -> str:
    """What the starting rank hit, while doing what, and where in the user's code."""
    what = t.category_words(ini.category or c.view.category)
    if ini.inferred:
        return (
            f"no error of its own ({ini.suspect})" if ini.suspect else "no error of its own: it went silent"
        )
    if ini.phase:
        what += f" while {phase_words(ini.phase)}"
    found = answer_code.user_frame(c, ini.rank)
    if found is not None:
        frame = found[0]
        op = answer_code.collective_of(c, ini.rank)  # "in `broadcast`, called from `reduce_metric`"
        inside = f"`{op[0]}`, called from `{frame.func}`" if op is not None and op[0] != frame.func else ""
        what += f", in {inside or f'`{frame.func}`'} ({frame.path.rsplit('/', 1)[-1]} line {frame.number})"
    return what


def _killed_pid(c: Ctx, ini: RankView) -> str:
    """The kernel OOM killer's victim pid, when it killed the starting rank's process."""
    kill = c.view.numbers.kill
    if kill is None:
        return ""
    return tv.PREMISE_KILLED_PID.format(rank=ini.rank, pid=kill[0].pid)


# ---------------------------------------------------------------- the step it failed at

_STEP_CLAIM = re.compile(
    r"\b(?:at|on|in|around|during|after|near) (?:step|iter(?:ation)?) ?#?(\d+)(?: ?(?:of|/) ?\d+)?\b"
    r"|\bstep ?#?(\d+)(?: ?(?:of|/) ?\d+)? (?:was|is) (?:where|when)\b"
)
#: a step claim that also says what the job was doing: the phase answer checks that part
_PHASE_CLAIM = re.compile(
    r"\b(?:forward|backward|fwd|bwd|optimi[sz]er|eval\w*|sav(?:e|ing)|checkpoint\w*|load\w*"
    r"|data ?loader|init\w*)\b"
)
_FAILED = re.compile(
    r"\b(?:die|died|fail|failed|crash\w*|break|broke|error\w*|blow up|blew up|oom\w*|segfault\w*|nan\w*|hang"
    r"|hung|stop\w*|went down|go down|diverg\w*|explod\w*|killed|timed out|stuck)\b"
)


def step_claim(c: Ctx, m: Match) -> Reply | None:
    """ "it died at step 9 of 10 right?": the last step any rank logged, against the step named."""
    found = _STEP_CLAIM.search(m.text)
    if found is None or not _FAILED.search(m.text) or _OPEN.search(m.text) or not _CHECK.search(m.text):
        return None
    if _PHASE_CLAIM.search(m.text):
        return None  # "OOMed in the forward pass at step 100?": the phase is the claim to check first
    claimed = int(found.group(1) or found.group(2))
    said, shown, last, at = _last_step(c)
    if not said:
        return reply("phase", tv.PREMISE_NO_STEP.format(step=claimed))
    yes = claimed == last or (claimed == last + 1 and not at)
    verdict = "Yes" if yes else ("Roughly" if claimed == last + 1 else "No")
    if (
        span := _span_claim(c, m.text, shown)
    ) and yes:  # "hung at step 150 for an hour?": the step, not the hour
        return reply("phase", f"{span} {said[:1].upper()}{said[1:]}", shown)
    return reply("phase", f"{verdict}: {said}", shown)


#: a length of time claimed for the stall ("hung there for like an hour", "sat 2 hours at step 150")
_SPAN_CLAIM = re.compile(
    r"\bfor (?:like |about |around |almost |nearly |over |roughly |maybe |a good )?"
    r"(an?|one|two|three|half an?|a couple(?: of)?|several|\d+(?:\.\d+)?) ?"
    r"(hours?|hrs?|h|minutes?|mins?|days?)\b"
)
_UNIT = {"h": 3600.0, "m": 60.0, "d": 86400.0}
_COUNT = {"a": 1.0, "an": 1.0, "one": 1.0, "two": 2.0, "three": 3.0, "half a": 0.5, "half an": 0.5}


def _span_claim(c: Ctx, text: str, shown: list[EvidenceLine]) -> str:
    """ "For an hour?" against the time from the last step line to the job's last line: "No: 100 s"
    when the claim is at least twice the logged span."""
    found = _SPAN_CLAIM.search(text)
    if found is None or not shown or c.view.end is None:
        return ""
    word, unit = found.group(1), found.group(2)[0]
    count = _COUNT.get(word, 2.0 if word.startswith("a couple") else 3.0 if word == "several" else 0.0)
    claimed = (count or float(word)) * _UNIT[unit] if word[:1].isdigit() or count else 0.0
    start = _stamp_of(shown[-1])
    gap = seconds_between(start, c.view.end) if start else None
    if gap is None or gap < 0 or claimed < 2 * max(gap, 1.0):
        return ""
    return tv.PREMISE_SPAN_NO.format(
        claim=f"{word} {found.group(2)}",
        gap=duration(gap),
        start=start.replace("T", " ")[:19],
        end=c.view.end.replace("T", " ")[:19],
    )


def _stamp_of(line: EvidenceLine) -> str:
    st = parse_timestamp(line.text)
    return "" if st is None or st.relative or (iso := st.iso()) is None else iso


def step_sentence(c: Ctx, text: str, said: str) -> tuple[str, list[EvidenceLine]]:
    """ "which rank raised it and around which step": the step, when the answer names none."""
    if not _WHICH_STEP.search(text) or _STEP_SAID.search(said):
        return "", []
    found, shown, _, _ = _last_step(c)
    return (found[0].upper() + found[1:], shown) if found else ("", [])


def last_step_fact(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """The last step any rank logged, as a clause ("it failed at step 6 of 10 …"), and its line."""
    said, shown, _, _ = _last_step(c)
    return said, shown


_WHICH_STEP = re.compile(
    r"\b(?:which|what) step\b|\baround (?:which|what) step\b|\bwhich iter\w*\b"
    # terse: "step when it died", "timeout value last step"
    r"|^(?:the )?step (?:when|it|where)\b|\blast step\W*$"
    # an on-call command joined to another ask ("last step logged before it died, and which rank …")
    r"|^last (?:good |completed )?step (?:logged|printed|reached|seen)\b"
)
_STEP_SAID = re.compile(r"\bstep \d+")


def _last_step(c: Ctx) -> tuple[str, list[EvidenceLine], int, bool]:
    """The last step any rank logged as a sentence (and whether that line is the failure itself)."""
    logged = [r for r in c.view.ranks.values() if r.last_step is not None and r.last_step_line is not None]
    if not logged:
        return "", [], 0, False
    best = max(logged, key=lambda r: (r.last_step or 0, -r.rank))
    last, line = best.last_step or 0, best.last_step_line
    assert line is not None
    total = answer_more.step_of_total(c, best)
    at = bool(_FAILED.search(line.text.lower()))  # "training step 2001 failed": the failure was at it
    ini = c.view.initiating
    doing = f" while {phase_words(ini.phase)}" if ini is not None and ini.phase and not at else ""
    text = tv.PREMISE_STEP_AT if at else tv.PREMISE_STEP
    said = text.format(last=last, total=total, rank=best.rank, ref=ref(line), doing=doing, next=last + 1)
    return said, [line], last, at


# ---------------------------------------------------------------- a desync put as the cause

_DESYNC_Q = re.compile(
    r"\bdesync\w*|\bout of sync\b|\bdifferent (?:branch|collective|code ?path|path|op)\w*"
    r"|\b(?:collective|op) mismatch|\bmismatch\w* (?:collective|op)s?\b|\bwrong collective\b"
    r"|\b(?:skipped|skip) (?:a|the) collective\b"
)
_COLLECTIVE_CATEGORIES = frozenset({"nccl_timeout", "hang_no_error", "nccl_comm_error"})


def desync(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """ "same as the desync one where a rank took a different branch?": yes only when ranks were seen
    in different collectives; otherwise no, and what the starting rank did instead."""
    ini = c.view.initiating
    if not _DESYNC_Q.search(text) or ini is None:
        return "", []
    note = answer_code.desync_note(c)
    if note:
        return tv.DESYNC_YES.format(why=note), []
    if c.view.category in _COLLECTIVE_CATEGORIES:
        others = sorted(r for r, v in c.view.ranks.items() if v.role == "collateral")
        what = (
            f"rank {ini.rank} {ini.suspect}"
            if ini.suspect
            else tv.DESYNC_SILENT.format(rank=ini.rank, ranks=rl(others))
        )
        return tv.DESYNC_NOT_SEEN.format(what=what), []
    what = t.category_words(ini.category or c.view.category)
    return tv.DESYNC_NO.format(rank=ini.rank, what=what), []


__all__ = ["desync", "last_step_fact", "rank_started", "step_claim", "step_sentence"]
