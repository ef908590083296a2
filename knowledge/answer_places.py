"""Where in the user's code each rank was when it failed: "where in train.py were 0-2 waiting",
"file:line for rank 3 vs the other three", "what call were 1-3 sitting in".

The first rank's deepest frame of the user's code (the call it failed in), then each other rank's: the
collective its traceback stops in and the user's line that called it, or its deepest frame of the
user's code when it was in no collective ("0 and 2 were in `loss.backward()`"); then the last step
logged when the first rank logged none. Each from the rank's own saved traceback, with its line.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_job as tj
from knowledge import answer_code
from knowledge.answer_code import Frame
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match, named_ranks
from knowledge.jobfacts_answers import RankView

#: the ranks asked about, named or not ("ranks 1-3", "the other three ranks", "they")
_WHO = (
    r"(?:ranks? \d+(?:(?:,? and |, ?| & |-| to )\d+)*|they|the others|the rest"
    r"|the other (?:\w+ )?(?:ranks|workers|processes|gpus)"
    r"|the (?:surviving|remaining|healthy|collateral|waiting|victim) (?:ranks|workers|processes|gpus))"
)
#: held in a call ("blocked", "stuck", "sitting")
_PARKED = r"(?:blocked|stuck|waiting|sitting|parked|hung|hanging|wedged)"

#: asks for the place in the code ("where in train.py", "file:line", "what call were they in")
ASKS_PLACE = re.compile(
    r"\bwhere in (?:the |my |our )?(?:code|script|[\w/.-]+\.py)\b"
    r"|\bfile ?: ?line\b|\bfile ?(?:\+|and|&|w/|with) ?line(?: ?(?:numbers?|nos?|#s?))?\b"
    r"|\bcall ?sites?\b[^?]{0,30}?\bline ?(?:numbers?|nos?|#s?)\b"  # "both call sites w/ line numbers"
    r"|\bwhich line (?:of|in) (?:the |my |our )?(?:code|script|[\w/.-]+\.py)\b"
    r"|\b(?:what|which) (?:call|function|collective|op)s? (?:were|was|are|is) (?:they|ranks?|the others|r?\d)"
    # "which function in my script were the ranks in when they timed out?"
    r"|\b(?:what|which) (?:call|function|method)s? (?:in|of) (?:the |my |our )?(?:code|script|[\w/.-]+\.py)"
    r" (?:were|was|are|is) (?:they|the ranks|ranks?|the others|all ranks|r?\d)"
    # "what did ranks 0 and 2 fail with, and inside which collective?"
    r"|\b(?:in|inside|within) (?:which|what) (?:call|function|collective|op)s?\b"
    # "what were ranks 1-3 blocked in", "ranks 1,2,3 - stuck on what", "where exactly were 1-3 when …"
    r"|\bwhat (?:were|was|are|is) " + _WHO + r" (?:\w+ ){0,2}?" + _PARKED + r" (?:in|on|inside)\b"
    r"|\b" + _PARKED + r" (?:in|on|inside) (?:what|which)\b(?! (?:node|host|box|machine|gpu|server))"
    # "which ranks were stuck in the allreduce", "who was in all_reduce and where was rank 2"
    r"|\b(?:which ranks?|who) (?:were|was) (?:" + _PARKED + r" )?(?:in|inside) (?:the |a )?"
    r"(?:all_?reduce|all_?gather|allgather|broadcast|barrier|reduce_scatter|collective)\b"
    r"|\bwhere (?:exactly |precisely )?(?:were|was) " + _WHO + r"\b(?! (?:running|run|hosted|placed|on\b))"
    r"(?=.*\b(?:when|while|as)\b)"
)

#: of those, the asks of where the other ranks were held ("what were ranks 1-7 stuck in?"): answered
#: here only when their tracebacks say where, else by the collective's answer (seq, op, size)
PARKED_Q = re.compile(
    r"\bwhat (?:were|was|are|is) " + _WHO + r" (?:\w+ ){0,2}?" + _PARKED + r" (?:in|on|inside)\b"
    r"|\b" + _PARKED + r" (?:in|on|inside) (?:what|which)\b"
    r"|\bwhere (?:exactly |precisely )?(?:were|was) " + _WHO + r"\b(?=.*\b(?:when|while|as)\b)"
)

#: the question is about the other ranks too ("vs the other three", "each rank", "the rest")
_OTHERS = re.compile(
    r"\b(?:the )?others?\b|\bthe rest\b|\b(?:each|every|all|both) (?:ranks?|workers|of them)\b|\bvs\.?\b"
    r"|\bwaiting\b|\bsitting\b|\bparked\b|\bstuck\b|\bblocked\b"
    r"|\bcall ?sites\b|\bmismatch\w*\b"  # "both call sites", "the lines that show the mismatch"
    r"|\b(?:were|was) the ranks\b"  # "which function were the ranks in"
    r"|\b(?:surviving|remaining|collateral|victim) ranks\b|\bwho (?:was|were) in\b"
)

#: a bare ask for the place ("file:line for the ticket", "and file:line?")
_BARE = re.compile(r"^(?:and |also |\+ |the )?file ?: ?line\b")


def place(c: Ctx, m: Match) -> Reply | None:
    """The first rank's call and line, the others' collective (or deepest frame) and line."""
    ini = c.view.initiating
    text = m.text.lower()
    if ini is None or not ASKS_PLACE.search(text):
        return None
    coll = c.view.with_role("collateral")
    if PARKED_Q.search(text) and not _others(c, coll)[0]:
        return None  # "what were ranks 1-7 stuck in?" and no traceback of theirs says: the collective's
    named = set(named_ranks(text))
    alone = _BARE.search(text) is not None  # "file:line for the ticket": the first rank's line
    if not (named & {r.rank for r in coll}) and not _OTHERS.search(text) and not alone:
        return None  # "where in my code did rank 3 crash?": the first rank's own answer says it
    if alone and not _OTHERS.search(text):
        coll = []
    return _placed(c, ini, coll)


def where_all(c: Ctx) -> Reply | None:
    """Every rank's place, asked or not ("whose fault?", "a second bug?": the first rank's call and
    line, and the collective the others waited in)."""
    ini = c.view.initiating
    return None if ini is None else _placed(c, ini, c.view.with_role("collateral"))


def _placed(c: Ctx, ini: RankView, coll: list[RankView]) -> Reply | None:
    """The first rank's call and line, then the other ranks' (`coll`), then its last step."""
    parts: list[str] = []
    shown: list[EvidenceLine] = []
    if (found := answer_code.user_frame(c, ini.rank)) is not None:
        frame, code, _ = found
        file = frame.path.rsplit("/", 1)[-1]
        text = f": `{code}`" if code else ""
        parts.append(
            tj.FAILED_IN.format(rank=ini.rank, func=frame.func, file=file, line=frame.number, code=text)
        )
        shown.append(frame.line)
    rows, lines = _others(c, coll)
    if rows:
        parts.append(tj.OTHERS_WERE.format(ini=ini.rank, rows="; ".join(rows)))
        shown += lines
    if not parts:
        return None
    step = _last_step(c, ini)
    return reply("show_lines", " ".join([*parts, step] if step else parts), shown)


def _others(c: Ctx, coll: list[RankView]) -> tuple[list[str], list[EvidenceLine]]:
    """ "ranks 0-2 in `all_reduce` (train.py line 144)", "ranks 0,2 in `loss.backward()` (train.py line
    209)": grouped by the same place, each group's first rank's frame shown."""
    groups: dict[str, list[int]] = {}
    lines: dict[str, EvidenceLine] = {}
    for r in coll:
        got = answer_code.collective_of(c, r.rank)
        found = answer_code.user_frame(c, r.rank)
        if got is not None and got[1]:
            key = f"in `{got[0]}` ({got[1]})"
        elif found is not None:
            frame, code, _ = found
            what = f"`{code}`" if code else f"`{frame.func}`"
            key = f"in {what} ({frame.path.rsplit('/', 1)[-1]} line {frame.number})"
        elif (inner := _distributed_frame(c, r.rank)) is not None:  # a tail of the traceback only
            key = f"in `{inner.func}` ({inner.path.rsplit('/', 1)[-1]} line {inner.number})"
        else:
            continue
        groups.setdefault(key, []).append(r.rank)
        if found is not None:
            lines.setdefault(key, found[0].line)
        if r.first_line is not None:  # what it failed with there: its own error line
            lines.setdefault(f"{key} error", r.first_line)
    rows = [f"rank{'s' if len(rs) > 1 else ''} {rl(rs)} {key}" for key, rs in groups.items()]
    return rows, list(lines.values())


def _distributed_frame(c: Ctx, rank: int) -> Frame | None:
    """The deepest torch.distributed frame of a rank's kept traceback (`wait_tensor`, a functional
    collective's wait) when its kept tail names neither a collective nor the user's code."""
    _, frames, _ = answer_code.traceback(c, rank)
    return next((f for f in reversed(frames) if "/distributed/" in f.path), None)


def _last_step(c: Ctx, ini: RankView) -> str:
    """The last step any rank logged, when the first rank logged none of its own."""
    stepped = [r for r in c.view.ranks.values() if r.last_step is not None and r.last_step_line is not None]
    if ini.last_step is not None or not stepped:
        return ""
    top = max(stepped, key=lambda r: (r.last_step or 0, -r.rank))
    line = top.last_step_line
    assert line is not None
    return tj.OTHERS_STEP.format(ini=ini.rank, step=top.last_step, rank=top.rank, ref=ref(line))


__all__ = ["ASKS_PLACE", "place", "where_all"]
