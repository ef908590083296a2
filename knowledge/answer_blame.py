"""Blame put on the wrong call or the wrong order, as a question: "is the barrier the bug I need to
fix?", "is my backward pass broken?", "did ranks 1-3 fail before rank 0?".

People read the last frame of a traceback as the bug, and the loudest ranks as the first to fail. The
usual answers gave the fix, the traceback or the rank count and left the premise standing. Each check
here says no (or yes) first, then the fact of this job that decides it: the call the collaterals died
in is where they waited on the first rank (its own failure and line named); the call the first rank
was in when an outside event reached it (a killed worker, a full disk, memory) did not fail itself;
the first failure's rank and time against the ranks named.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_blame as tb
from denpex.core.texts import thread as t
from knowledge import answer_code, answer_rerun, answer_save_copy, answer_silent
from knowledge.answer_types import Ctx, Reply, at_rank, duration, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.answer_where import strip_prefix
from knowledge.intents import Match, named_ranks
from knowledge.jobfacts_answers import RankView, seconds_between
from knowledge.wording import phase_words

#: a call (or a pass of the model) named as the bug: "is the barrier the bug", "is my backward pass broken"
BLAME_Q = re.compile(
    r"\b(?:is|was|are|were|isnt|wasnt) (?:my |our |the |this |that )?(?P<thing>[\w.()]+(?: [\w.()]+){0,2}?)"
    r" (?:really |actually |just )?(?:the (?:real |actual |root |main )?"
    r"(?:bug|problem|culprit|issue|cause|fault)|broken|buggy|at fault|to blame|faulty|wrong"
    r"|what (?:i|we) (?:need|have|should) to fix)\b"
)
#: words of a named thing that name no call ("the backward *pass*", "my *code*")
_NOT_CALL = frozenset(
    "pass call function code line op step it this that thing model script".split()  # noqa: SIM905
)
#: failures that reach a rank from outside the call it was in: that call did not fail of itself
_FROM_OUTSIDE = frozenset(
    {
        "dataloader_worker_killed",
        "host_oom",
        "disk_full_or_io",
        "gpu_hardware_xid",
        "scheduler_kill",
        "gpu_oom",
        "gpu_oom_checkpoint_gather",
        "cpu_oom_checkpoint",
    }
)
_CALLED = re.compile(r"([A-Za-z_][\w.]*)\s*\(")


def _terms(thing: str) -> set[str]:
    """The names a question's thing may match: `dist.barrier()` -> {dist, barrier}, `backward pass`."""
    return {w for w in re.findall(r"[a-z_][a-z0-9_]*", thing.lower()) if w not in _NOT_CALL and len(w) > 2}


def _calls(c: Ctx, rank: int) -> tuple[set[str], str, str] | None:
    """The names of what the rank was in (its statement's calls, the collective), the call as the
    statement writes it, and where (file and line); None when no frame of the user's code was kept."""
    found = answer_code.user_frame(c, rank)
    if found is None:
        return None
    frame, stmt, _ = found
    called = _CALLED.findall(stmt)
    names = {name.rsplit(".", 1)[-1].lower() for name in called}  # `loss.backward()`: backward, not loss
    names.add(frame.func.lower())  # "ranks 1 and 3 died inside reduce_metric": the function they were in
    op = answer_code.collective_of(c, rank)
    if op is not None:
        names.add(op[0].lower())
    call = f"{called[0]}()" if called else frame.func
    return names, call, f"{frame.path.rsplit('/', 1)[-1]} line {frame.number}"


def _first_failure(c: Ctx, ini: RankView) -> str:
    """What the first rank hit, while doing what, and its own line of code."""
    if ini.inferred or answer_silent.silent(ini):
        return (
            f"no error of its own ({ini.suspect})" if ini.suspect else "no error of its own: it went silent"
        )
    what = t.category_words(ini.category or c.view.category)
    if ini.phase:
        what += f" while {phase_words(ini.phase)}"
    found = answer_code.user_frame(c, ini.rank)
    if found is not None:
        frame, stmt, _ = found
        code = f": `{stmt.split('  #')[0].strip()}`" if stmt else ""
        what += f", in `{frame.func}` ({frame.path.rsplit('/', 1)[-1]} line {frame.number}){code}"
    return what


def blame_call(c: Ctx, m: Match) -> Reply | None:
    """ "Is the barrier the bug?": no, when the call named is where collateral ranks waited on the first
    rank, or where the first rank was when a failure from outside the call reached it; None when the
    call is no rank's, or the ranks were in different collectives (then the call may be the bug)."""
    ini = c.view.initiating
    asked = BLAME_Q.search(m.text)
    if ini is None or asked is None or answer_code.desync_note(c):
        return None
    terms = _terms(asked.group("thing"))
    hit = {r: got for r in sorted(c.view.ranks) if (got := _calls(c, r)) is not None and terms & got[0]}
    if m.ranks and (asked_of := {r: got for r, got in hit.items() if r in m.ranks}):
        hit = asked_of  # "rank 0 died in loss.backward()": the ranks named, not every rank in that call
    if not hit:
        return None
    if ini.rank in hit:
        return _reached(c, ini, hit[ini.rank])
    _, call, where = hit[min(hit)]
    many = len(hit) > 1
    lead = tb.CALL_WAITED.format(
        ranks=("ranks " if many else "rank ") + rl(hit),
        call=call,
        where=where,
        they="they" if many else "it",
        verb="were" if many else "was",
        rank=ini.rank,
        started="most likely started it" if ini.inferred or answer_silent.silent(ini) else "failed first",
        what=_first_failure(c, ini),
    )
    named = [ln for r in hit if (ln := c.view.ranks[r].first_line) is not None][:1]
    return reply("rank_why", lead, [*c.view.key_line(), *named])


def _reached(c: Ctx, ini: RankView, got: tuple[set[str], str, str]) -> Reply | None:
    """The first rank was in the call named when a failure from outside it reached the rank."""
    category = ini.category or c.view.category
    line = ini.first_line
    if category not in _FROM_OUTSIDE or line is None:
        return None
    _, call, where = got
    if (built := answer_save_copy.builds_copy(c, ini, call, where)) is not None:
        return built  # "it's the get_state_dict call right?": yes, that call built the copy
    found = answer_code.user_frame(c, ini.rank)
    inner = found[2] if found is not None else ""
    lead = tb.CALL_REACHED.format(
        rank=ini.rank,
        call=call,
        where=where,
        what=t.category_words(category),
        error=strip_prefix(line.text)[:200],
        ref=ref(line),
        inside=tb.CALL_REACHED_INSIDE.format(inner=inner) if inner else "",
    )
    if step := answer_rerun.change_step(c):
        lead += " " + tb.CALL_CHANGE.format(step=step)
    return reply("rank_why", lead, [line])


#: an order of failures put as a question: "did they fail before rank 0?", "did ranks 1 and 3 go down
#: before rank 2 did?"
ORDER_Q = re.compile(
    r"\b(?:did|do|were|was|are|is) (?P<subj>they|those|these|the (?:others|rest|other ranks)"
    r"|ranks? \d+(?:(?:,? and |, ?| & |-| )\d+)*)(?: all| both| really| actually| even| already)*"
    r" (?:\w+ )?(?:fail|die|died|crash|error|go down|went down|break|blow up|time out|exit|stop|get killed"
    r"|dead)"
    r"\w*(?: \w+){0,2}? (?:before|earlier than|ahead of) rank (?P<obj>\d+)\b"
)
#: the same claim put as a possibility: "couldn't one of them have failed first and broken rank 0's save?"
ORDER_FIRST_Q = re.compile(
    r"\b(?:could(?:n\x27?t| not)?|might(?:n\x27?t)?|may|did|didn\x27?t|wasn\x27?t|was) (?:it )?"
    r"(?P<subj>(?:one|any|some|either) of (?:them|those|these|the (?:others|rest|other ranks))|they|those"
    r"|the (?:others|rest|other ranks)|ranks? \d+(?:(?:,? and |, ?| & |-| )\d+)*)"
    r" (?:have |has )?(?:\w+ )?(?:fail|die|died|crash|error|go(?:ne)? down|went down|break|broke|blow"
    r"|time|exit|stop|dead)\w*(?: out)? first\b[^?]{0,60}?\brank ?(?P<obj>\d+)\b"
)


def order_claim(c: Ctx, m: Match) -> Reply | None:
    """ "Did ranks 1-3 fail before rank 0?": no or yes, from which rank failed first (its failure and
    line) and when the ranks named failed after it; None when the logs name no first rank."""
    ini = c.view.initiating
    asked = ORDER_Q.search(m.text) or ORDER_FIRST_Q.search(m.text)
    if ini is None or asked is None or answer_code.desync_note(c):
        return None  # a desync: every rank waits in its own collective, no order to check
    obj = int(asked.group("obj"))
    subj = named_ranks(asked.group("subj")) or named_ranks(m.text[: asked.start()])
    named = [c.view.ranks[r] for r in subj if r != obj and r in c.view.ranks]
    if not named or obj not in c.view.ranks:
        return None
    what = _first_failure(c, ini)
    quiet = ini.inferred or answer_silent.silent(ini)  # no failure line of its own: no time to order by
    verb = "most likely started it" if quiet else "failed first"
    when = "" if quiet else at_rank(ini)
    if ini.rank in {r.rank for r in named}:
        gap = "" if quiet else _gap(ini, [c.view.ranks[obj]])
        lead = tb.ORDER_YES.format(first=ini.rank, verb=verb, when=when, what=what, other=obj, gap=gap)
        return reply("rank_why", lead, c.view.key_line())
    lead = tb.ORDER_NO.format(
        first=ini.rank,
        verb=verb,
        when=when,
        what=what,
        ranks=("ranks " if len(named) > 1 else "rank ") + rl(named),
        gap="" if quiet else _gap(ini, named),
        role=_role(c, ini, named),
    )
    shown = [*c.view.key_line(), *(ln for ln in [named[0].first_line] if ln is not None)]
    return reply("rank_why", lead, shown)


def _gap(ini: RankView, later: list[RankView]) -> str:
    """ ", 3 s later": from the first failure to the latest of the others' (none without both times)."""
    gaps = [g for r in later if (g := seconds_between(ini.first_time, r.first_time)) is not None]
    return tb.ORDER_GAP.format(gap=duration(max(gaps))) if gaps and max(gaps) > 0 else ""


def _role(c: Ctx, ini: RankView, named: list[RankView]) -> str:
    """What the later ranks were doing: waiting on the first in a collective, or only its collateral."""
    if any(r.role != "collateral" for r in named):
        return ""
    ops = {answer_code.collective_of(c, r.rank) for r in named}
    if len(ops) == 1 and (op := ops.pop()) is not None:
        return tb.ORDER_WAITED.format(rank=ini.rank, op=op[0], where=f" ({op[1]})" if op[1] else "")
    return tb.ORDER_COLLATERAL.format(rank=ini.rank, they="they" if len(named) > 1 else "it")


__all__ = ["BLAME_Q", "ORDER_FIRST_Q", "ORDER_Q", "blame_call", "order_claim"]
