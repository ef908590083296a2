"""A rank that went silent: no error of its own, the others timed out waiting for it.

"rank2.log just ends at step 40, no error. did it crash?", "when did r3 go quiet?", "bump the timeout
or is something wrong with r3?": the answer is when it last wrote (its last line and step), that it
logged no error, and what tells stuck from dead next (its stack if alive, the node's kernel log, the
scheduler's record), since a restart as is only hangs again.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_job as tj
from denpex.core.texts import followups_review as tr
from knowledge import answer_more
from knowledge.answer_types import Ctx, Reply, at_rank, rank_lines, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView, launcher_exits
from knowledge.lines import parse_timestamp

#: a rank's only line is the launcher's stop (SIGTERM), not an error of its own
_STOPPED = re.compile(r"SIGTERM|Signal 15|exitcode ?: ?-15")
#: "where in my code did it crash?": the code answer says where (or how to get the stack: faulthandler)
_ASKS_CODE = re.compile(r"\bwhere in (?:my|the|our|his|her|their) code\b")
#: signals of a native crash, where faulthandler and a core dump give the stack (not a SIGKILL)
_NATIVE = re.compile(r"SIGSEGV|SIGABRT|SIGBUS|SIGILL|exitcode ?: ?-(?:11|6|7|4)\b|[Ss]egmentation")
_ERRORISH = re.compile(r"Traceback|\bERROR\b|Error\b|\berror\b|exception|fault", re.IGNORECASE)


def silent(r: RankView | None) -> bool:
    """The rank that started it, named from the others' behaviour or stopped while still running."""
    if r is None or r.role != "initiating":
        return False
    return r.inferred or (r.first_line is not None and _STOPPED.search(r.first_line.text) is not None)


def quiet(c: Ctx, r: RankView) -> str:
    """When it last wrote, its last step (or the last any rank logged), and that it logged no error."""
    parts = [tj.SILENT_NO_ERROR.format(rank=r.rank), answer_more.went_quiet(c, r)]
    if r.first_line is not None and r.first_time and _STOPPED.search(r.first_line.text):  # when it ended
        parts.append(tj.SILENT_STOPPED.format(at=at_rank(r), ref=ref(r.first_line)))
    if r.last_step is None:
        logged = [x for x in c.view.ranks.values() if x.last_step is not None and x.last_step_line]
        if logged:
            best = max(logged, key=lambda x: (x.last_step or 0, -x.rank))
            parts.append(
                tj.SILENT_STEP.format(
                    rank=r.rank, step=best.last_step, other=best.rank, ref=ref(best.last_step_line)
                )
            )
    return " ".join(p for p in parts if p)


def next_steps(c: Ctx, r: RankView) -> str:
    """What to run to tell stuck from dead: its stack, the node's kernel log, the scheduler's record."""
    pid = next((str(e.pid) for e in launcher_exits(c.d) if e.rank == r.rank and e.pid is not None), "<pid>")
    node = f"`{r.node}`" if r.node else "its node"
    return tj.SILENT_NEXT.format(pid=pid, node=node)


#: asks whether a rank wrote anything ("anything in its stderr?", "any log from rank 3 at all?")
ASKS_OUTPUT = re.compile(
    r"\bstd ?err\b"
    r"|\bany (?:log|logs|output|lines?|error|traceback)s? (?:at all |\w+ ){0,2}?(?:from|of|by|in)\b"
    r"|\b(?:log|logs|output|lines?) (?:from|of|by) (?:rank \d+|it|r\d+) at all\b"
    r"|\bdid (?:rank \d+|it|r\d+) (?:log|print|write|say|output) anything\b"
    r"|\banything (?:in|from) (?:its|rank \d+'?s?) (?:log|logs|output|err\w*)\b"
)


def _no_own_error(c: Ctx, r: RankView) -> bool:
    """The rank that started it printed no error of its own: only the launcher or the kernel named it
    (a segfault's `exitcode -11`), its own files hold no error line."""
    own = [ln for tl in c.d.tails if tl.rank == r.rank for ln in tl.lines]
    return r.role == "initiating" and bool(own) and not any(_ERRORISH.search(ln.text) for ln in own)


def own_output(c: Ctx, m: Match) -> Reply | None:
    """ "Is there anything in rank 3's stderr?", "any log from rank 3 at all?": for the silent rank,
    what it did write (its files, its last line) and that no error or traceback of it was kept, set
    against the others' stderr; the ranks with an error of their own are answered by their lines."""
    if not ASKS_OUTPUT.search(m.text):
        return None
    r = c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating
    dead = (
        r is not None and not _ASKS_CODE.search(m.text) and _no_own_error(c, r)
    )  # "where in my code": the code's
    if r is None or not (silent(r) or r.role == "healthy" or dead):
        return None
    own = rank_lines(c, r.rank)
    logs = {tl.source for tl in c.d.tails if tl.rank == r.rank}  # its own log files, not a trace dump
    if not own:
        return None
    src, lines = max(own.items(), key=lambda kv: (kv[0] in logs, len(kv[1])))
    last = lines[-1]
    stamp = parse_timestamp(last.text)
    iso = stamp.iso() if stamp is not None and not stamp.relative else None
    when = iso.replace("T", " ")[:19] + " UTC" if iso else "the end of its log"
    lead = tr.OWN_OUTPUT.format(
        rank=r.rank, count=len(lines), where=src, at=when, ref=ref(last), text=last.text.strip()[:160]
    )
    errs = [tl for tl in c.d.tails if tl.rank is not None and tl.rank != r.rank and "err" in tl.source]
    shown = [last]
    if errs and not any("err" in s for s in own):
        tail = errs[0].lines[-1] if errs[0].lines else None
        others = rl(sorted({tl.rank for tl in errs if tl.rank is not None}))
        lead += " " + tr.NO_STDERR.format(rank=r.rank, others=others, ref=ref(tail) or errs[0].source)
        shown += [tail] if tail is not None else []
    else:
        lead += " " + tr.NO_ERROR_LINES.format(rank=r.rank)
    if dead and r.first_line is not None:  # killed by a signal: say so, not "stalled or died without a word"
        lead = lead.replace(tr.STALLED_TAIL, ".")
        sig = r.first_line
        lead += " " + tr.DIED_ON_SIGNAL.format(ref=ref(sig), text=sig.text.strip()[:120])
        lead += " " + tr.NATIVE_HOW_TO if _NATIVE.search(sig.text) else ""
        shown.append(sig)
    after = next_steps(c, r) if silent(r) or r.role == "healthy" else ""  # a dead rank: no py-spy
    return reply("show_lines", f"{lead} {after}".strip(), shown)


__all__ = ["next_steps", "own_output", "quiet", "silent"]
