"""Where each rank was on a collective, from the Flight Recorder dumps, for an ask about a `#N`;
and what a dump file is, when one is named ("what is nccl_trace_rank_2? it's binary").

"explain 'never entered all_reduce #5' — what state were the other three in on #5?": the meaning of
the number alone does not answer it; the dumps' per-rank last collective and its state (started,
completed) do. Kept apart so the glossary answer and the quoted-line answer both add it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.texts import followups_job as tj
from denpex.core.texts import followups_meaning as tm
from denpex.core.texts import thread as t
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match

#: asks what state the ranks were in ("what state were the other three in on #5", "where was everyone
#: else on it", "did the rest start it?")
STATE_Q = re.compile(
    r"\b(?:state|status|others?|else|the rest|other (?:ranks|three|two)|started|completed|r\d|rank \d)\b"
)


def states(c: Ctx, m: Match) -> str:
    """The dumps' sentence ("In the Flight Recorder dumps …: Ranks 0,1,3: all_reduce #5 … (started).")
    with a leading space, when the dumps were read and the ask is about where the ranks were; else ""."""
    col = c.d.collectives
    if not col.activity or not STATE_Q.search(m.text):
        return ""
    rows = [
        t.activity_group(
            rl(a.ranks),
            a.op or "no op",
            f" #{a.seq_id}" if a.seq_id is not None else "",
            a.group_desc or a.group_id,
            f" ({a.state})" if a.state else "",
        )
        for a in col.activity
    ]
    return " " + tj.DUMP_STATES.format(rows=" ".join(rows))


#: a dump file asked about: named (`nccl_trace_rank_2`), or "the dump" with a complaint that it is not
#: text ("binary garbage", "can't read it", "how do i open it")
DUMP_FILE_Q = re.compile(
    r"\b(?:what(?: even)? is|whats|what are|binary|garbage|gibberish|unreadable|cant read|can not read"
    r"|how (?:do|can|should) (?:i|we|you) (?:read|open|parse|decode|view|look at|inspect)|cat)\b"
)
#: the name of a dump file in the question, or in an evidence line's source
_DUMP_NAME = re.compile(r"\b([a-z_]*(?:nccl_trace|fr_trace|flight_?recorder|_dump_)[a-z_]*?)_?(\d+)?\b")


def dump_file(c: Ctx, m: Match) -> Reply | None:
    """ "what even is nccl_trace_rank_2? it's binary when i cat it": the file is a rank's Flight Recorder
    dump, a pickle (which is why `cat` shows bytes), how to read it, then what the dumps say here."""
    named = _DUMP_NAME.search(m.text)
    if named is None or not c.d.collectives.dumps or not DUMP_FILE_Q.search(m.text):
        return None
    name = named.group(0)
    if not named.group(2):  # "the nccl_trace files": one of this job's, by its full name
        files = sorted({ln.source.lower() for ln in c.view.evidence if ln.source.lower().startswith(name)})
        named = next((f for f in map(_DUMP_NAME.fullmatch, files) if f is not None and f.group(2)), named)
        name = named.group(0)
    rank = int(named.group(2)) if named.group(2) else None
    whose = tm.DUMP_WHOSE.format(rank=rank) if rank is not None else tm.DUMP_WHOSE_UNKNOWN
    prefix = name[: named.start(2) - named.start(0)] if rank is not None else name
    lead = tm.DUMP_FILE.format(name=name, whose=whose, prefix=prefix)
    shown = [ln for ln in c.view.evidence if ln.source.lower() == name][:1]
    return reply("activity", lead + states(c, replace(m, text=f"{m.text} others")), shown)
