"""Counts over the ranks for a ticket: how many printed a Python traceback (and which), how many the
launcher ended with a signal (SIGTERM) and which exited on their own, each rank's exit code and pid.

"how many ranks actually printed a traceback, and which?", "how many got SIGTERM'd?", "exit code per
rank pls": the answer counts from each rank's own saved lines and the launcher's failure summary,
never from the verdict's roles (a collateral rank may print a traceback of its own, or none at all).
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tf
from knowledge import answer_launcher
from knowledge.answer_types import Ctx, Reply, rank_lines, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import LauncherExit, launcher_exits

#: "how many ranks printed a traceback", "which ranks threw a python traceback", "tracebacks: how many"
ASKS_TRACEBACKS = re.compile(
    r"\bhow many\b[^?]{0,50}?\b(?:traceback|stack ?trace)s?\b"
    r"|\b(?:which|what) (?:ranks?|ones|processes|workers)\b[^?]{0,30}?"
    r"\b(?:printed|threw|had|have|has|got|show\w*|logged|wrote|dumped|raised)\b[^?]{0,20}?\btracebacks?\b"
    r"|\b(?:traceback|stack ?trace)s?\b[^?]{0,30}?\bhow many\b"
)
#: "how many got SIGTERM", "how many ranks got sigterm'd total", "how many were killed by the agent"
ASKS_SIGNALLED = re.compile(
    r"\bhow many\b[^?]{0,40}?\b(?:sigterm\w*|sig ?term\w*|-15|signal 15|term'?d"
    r"|(?:killed|stopped|terminated) by (?:the )?(?:agent|launcher|torchrun))"
    # "which errored on their own vs got SIGTERM'd", "did torchrun SIGTERM the others or did they error out"
    r"|\b(?:which|who|what)\b[^?]{0,40}?\b(?:got |were |was )?(?:sigterm'?d|term'?d)\b"
    r"|\bdid (?:torchrun|the launcher|the agent|it) (?:sigterm|sig ?term|kill|terminate|stop)\b"
    r"[^?]{0,90}?\b(?:on (?:their|its) own|by (?:themselves|itself)|of (?:their|its) own accord)\b"
    # "did torchrun SIGTERM anyone this time?": whether any rank got it
    r"|\bdid (?:torchrun|the launcher|the agent) (?:sigterm|sig ?term)\w*"
    r" (?:anyone|anybody|any\b|the (?:others|rest))"
)
#: asks when the ranks ended ("what codes and when?", "exit codes + times"): the summary's own times
ASKS_WHEN = re.compile(r"\bwhen\b|\b(?:what|which) time\b|\btimes?\b(?! ?out)")
#: "which ranks errored on their own", "did rank 3 error at all?", "r0 err??": whose error was its own
ASKS_OWN_ERROR = re.compile(
    r"\b(?:err(?:or)?ed|error(?:ed)? out|threw|raised|failed|died|crashed) on (?:their|its) own\b"
    r"|\bdid (?:rank|r) ?\d+ (?:even )?(?:error|err|throw|raise)\b[^?]{0,12}?(?:at all|anything|\?)"
    r"|^(?:and |so )?(?:rank|r) ?\d+ (?:err|error)s?\?"
)
#: "how many ranks hit the watchdog", "how many timed out", "which ranks timed out"
ASKS_TIMED_OUT = re.compile(
    r"\b(?:how many|which|what) (?:\w+ )?(?:ranks?|workers|processes|gpus)?\b[^?]{0,20}?"
    r"\b(?:hit|got|caught|had|fired|tripped|threw|saw) (?:the |a |its |their )?(?:nccl )?"
    r"(?:watchdog|time ?outs?|collective time ?outs?)\b"
    r"|\bhow many\b[^?]{0,20}?\btimed out\b"
)
#: "exit code per rank", "exit codes for each rank", "pid and exit code", "every rank's exit code"
ASKS_EXITS = re.compile(
    r"\bexit ?codes?\b[^?]{0,25}?\b(?:per|each|every|all)\b"
    r"|\b(?:per|each|every)[- ]rank(?:'s)? exit ?codes?\b"
    r"|^(?:and |also |\+ )?(?:its |their |the |all |every )?(?:pids?,? (?:and |\+ |& )?exit ?codes?"
    r"|exit ?codes?,? (?:and |\+ |& )?pids?)\b"
    r"|^(?:(?:ranks?|r) ?[0-9][0-9 ,&/-]*(?:and [0-9]+)?:? )?exit ?codes\b"  # "ranks 1-3: exit codes"
    r"|^(?:and |also )?what (?:were |are )?(?:the |their )?exit ?codes\W*$"  # "what exit codes?"
)
#: a line pasted from the logs: quoted, or torchrun's summary row as printed
_PASTED = re.compile(r"`[^`]*`|\bexitcode ?: ?-?\d+ ?\(pid: ?\d+\)")
#: at most this many of the counted ranks' lines are shown (the refs name every one)
_SHOWN = 3
#: a rank's own collective-timeout line (NCCL's watchdog, gloo's wait), and its printed time stamp
_TIMEOUT = re.compile(r"Watchdog caught collective operation timeout|\bTimed out waiting \d+ ?ms\b")
_STAMP = re.compile(r"\[?(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)")
#: a Python traceback's head, or its last line (`SomeError: …`) when the head was not kept
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)")
_EXCEPTION = re.compile(r"(?:^|\]:? ?|\s)(?:[\w.]+\.)?\w*(?:Error|Exception)\b:")


def tally(c: Ctx, m: Match) -> Reply | None:
    """The counts the question asks for, each with the lines that show it; None when it asks none."""
    text = _PASTED.sub("", m.text.lower())  # a pasted summary row (`exitcode : 1 (pid: 20603)`) asks nothing
    exits = launcher_exits(c.d)
    parts: list[str] = []
    shown: list[EvidenceLine] = []
    if ASKS_TRACEBACKS.search(text) or ASKS_OWN_ERROR.search(text):
        said, lines = tracebacks(c, exits)
        parts.append(said)
        shown += lines
    if ASKS_TIMED_OUT.search(text):
        said, lines = timed_out(c)
        parts.append(said)
        shown += lines
    if ASKS_SIGNALLED.search(text) and exits:
        said, lines = signalled(exits)
        parts.append(f"{said} {exit_times(exits)}".strip() if ASKS_WHEN.search(text) else said)
        shown += lines
    counted = [p for p in parts if p]
    if ASKS_EXITS.search(text) and exits and not ASKS_SIGNALLED.search(text):
        rows = answer_launcher.exit_codes(c)  # how each rank ended: the exit code's own answer
        if ASKS_WHEN.search(text) and (times := exit_times(exits)):
            rows = f"{rows} {times}"  # "exit codes and times?": the summary's own time of each
        return reply(
            "ranks_count" if counted else "rank_why", " ".join([*counted, rows]), [*shown, exits[0].line]
        )
    return reply("ranks_count", " ".join(counted), shown) if counted else None


def own_traceback(c: Ctx, rank: int) -> EvidenceLine | None:
    """The rank's own traceback head in its saved lines, else its own exception line; None if neither."""
    lines = [ln for src in rank_lines(c, rank).values() for ln in src]
    head = next((ln for ln in lines if _TRACEBACK.search(ln.text)), None)
    return head or next((ln for ln in lines if _EXCEPTION.search(ln.text)), None)


def tracebacks(c: Ctx, exits: list[LauncherExit]) -> tuple[str, list[EvidenceLine]]:
    """ "3 ranks printed a Python traceback: ranks 0, 1 and 2 (…). Rank 3 printed none: the launcher
    ended it with exitcode -15 (SIGTERM) (console.log:98)." """
    ranks = sorted(c.view.ranks)
    own = {r: ln for r in ranks if (ln := own_traceback(c, r)) is not None}
    if not own:
        return "", []
    refs = ", ".join(f"rank {r} {ref(ln)}" for r, ln in own.items())
    said = [tf.TRACEBACKS.format(n=len(own), ranks=_words(list(own)), refs=refs)]
    ended = {e.rank: e for e in exits}
    for r in (x for x in ranks if x not in own):
        e = ended.get(r)
        how = tf.NO_TRACEBACK_ENDED.format(row=answer_launcher.row(e), ref=ref(e.line)) if e else ""
        said.append(tf.NO_TRACEBACK.format(rank=r, how=how))
    extra = [e.line for e in exits if e.rank not in own]
    return " ".join(said), [*own.values(), *extra][: 2 * _SHOWN]


def timed_out(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """ "3 rank(s) logged a collective timeout (watchdog): ranks 0, 1 and 3, at `2026-11-20 03:10:01,004`
    as printed (rank0.log:2, …). Rank 2 logged none." — each rank's own first timeout line."""
    own: dict[int, EvidenceLine] = {}
    for r in sorted(c.view.ranks):
        lines = [ln for src in rank_lines(c, r).values() for ln in src]
        hit = next((ln for ln in lines if _TIMEOUT.search(ln.text)), None)
        if hit is not None:
            own[r] = hit
    if not own:
        return "", []
    stamps = {r: m.group(1) for r, ln in own.items() if (m := _STAMP.search(ln.text))}
    if stamps and len(set(stamps.values())) == 1:
        at = tf.TIMED_OUT_SAME.format(stamp=next(iter(stamps.values())))
    else:
        at = "".join(f" rank {r} at `{st}`;" for r, st in stamps.items()).rstrip(";")
        at = f":{at}" if at else ""
    refs = ", ".join(ref(ln) for ln in own.values())
    said = tf.TIMED_OUT.format(n=len(own), ranks=_words(list(own)), at=at, refs=refs)
    rest = [r for r in c.view.ranks if r not in own]
    if len(rest) == 1:
        said += " " + tf.TIMED_OUT_NONE_ONE.format(rank=rest[0])
    elif rest:
        said += " " + tf.TIMED_OUT_NONE.format(ranks=rl(rest))
    return said, list(own.values())[:_SHOWN]


def signalled(exits: list[LauncherExit]) -> tuple[str, list[EvidenceLine]]:
    """How many the launcher ended with SIGTERM (and which), and which exited with a code of their own."""
    term = [e for e in exits if e.code == -15 or e.signal == "SIGTERM"]
    rest = [e for e in exits if e not in term]
    rows = "; ".join(answer_launcher.row(e) for e in exits)
    if not term:
        said = tf.NO_SIGTERM.format(n=len(exits), ref=ref(exits[0].line), rows=rows)
        return said, [exits[0].line]
    said = tf.SIGTERMED.format(n=len(term), ranks=_words([e.rank for e in term]), ref=ref(term[0].line))
    if rest:
        own = "; ".join(answer_launcher.row(e) for e in rest)
        said += " " + tf.NOT_SIGTERMED.format(ranks=rl(e.rank for e in rest), rows=own)
    return said, [e.line for e in term[:1] + rest]


def exit_times(exits: list[LauncherExit]) -> str:
    """ "The launcher's summary times every exit at `2026-12-01_21:36:22`, as printed." (or each rank's
    time when they differ); "" when the summary printed no time."""
    timed = {e.rank: e.time for e in exits if e.time}
    if not timed:
        return ""
    if len(set(timed.values())) == 1 and len(timed) == len(exits):
        return tf.EXIT_TIMES_SAME.format(stamp=next(iter(timed.values())), ref=ref(exits[0].line))
    rows = "; ".join(f"rank {r} at `{stamp}`" for r, stamp in timed.items())
    return tf.EXIT_TIMES.format(rows=rows, ref=ref(exits[0].line))


def _words(ranks: list[int]) -> str:
    """`ranks 0, 1 and 2`, `rank 3`, `ranks 0 and 2`."""
    if len(ranks) == 1:
        return f"rank {ranks[0]}"
    return "ranks " + ", ".join(str(r) for r in ranks[:-1]) + f" and {ranks[-1]}"


__all__ = ["ASKS_EXITS", "ASKS_SIGNALLED", "ASKS_TRACEBACKS", "own_traceback", "tally"]
