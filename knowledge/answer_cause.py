"""Answers to "is this the cause or a symptom?" about a line the asker pastes or describes ("the other
ranks had watchdog timeouts, is that a second problem or fallout", "which rank printed this and is it
the problem").

On call, people paste the loudest line they saw; in a collective job most ranks print a timeout that
is only fallout. The answer finds the line among the job's kept lines, says which rank printed it, and
whether it is the initiating failure or collateral (and which rank failed first, with what).
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tf
from denpex.core.texts import followups_verdicts as tv
from denpex.core.texts import thread as t
from knowledge import answer_lastlog, answer_quote, answer_where
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView
from knowledge.lines import parse_rank

#: the ask itself: cause against symptom, a second problem against fallout, "is it the problem"
ASK = re.compile(
    r"\bcause or (?:a |the |just )?(?:symptom|effect|consequence|fallout|side[- ]effect)"
    r"|\b(?:symptom|fallout|side[- ]effect|consequence|collateral) or (?:the |a )?(?:cause|root|real|problem)"
    r"|\b(?:second|separate|another|different|2nd|new|own|independent) (?:problem|issue|failure|bug|error)"
    r"\b[^?]{0,20}\bor\b"
    r"|\bor (?:just )?(?:fallout|a symptom|collateral|a side[- ]effect|a consequence|downstream)\b"
    r"|\b(?:is|was) (?:it|this|that)(?: (?:log )?(?:line|error|message|one))? the (?:real |actual |root )?"
    r"(?:problem|cause|culprit|smoking gun)\b"
)
#: a traceback's source line (indented under its `File "…", line N` frame)
_CODE = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s{3,}(?!File )\S")
#: the ranks other than the one that started it ("the other ranks", "the rest")
_OTHERS = re.compile(r"\b(?:other ranks?|the others|the rest|remaining ranks|everyone else)\b")


def cause_or_symptom(c: Ctx, m: Match, raw: str) -> Reply | None:
    """The pasted line's rank and part: the cause, or a symptom of the rank that failed first."""
    ini = c.view.initiating
    if not ASK.search(m.text):
        return None
    if ini is None:
        return _from_outside(c, m, raw)
    found = answer_quote.located(c, m, raw)
    if found is None:
        return _described(c, m)
    ln = found[1]
    if _CODE.search(ln.text):  # a traceback's source line: the code that ran, not an error of its own
        return None
    rank = _printer(c, ln, raw)
    if rank is None:
        if ln in c.view.evidence[:3]:
            return _cause(c, ini, ln, t.category_words(c.view.category))
        return None
    if rank.role == "initiating" and (ln == rank.first_line or ln in c.view.evidence[:3]):
        return _cause(c, rank, ln, t.category_words(c.view.category))
    if rank.role == "initiating":  # its own line of context: what it was doing, not the failure
        what = t.category_words(c.view.category)
        lead = tf.CAUSE_CONTEXT.format(rank=rank.rank, ref=ref(ln), what=what)
        if answer_lastlog.last_own(c, rank.rank) == ln:  # "and nothing after": its last own line
            lead = f"{lead} {tf.CAUSE_LAST.format(rank=rank.rank)}"
        return reply("context", lead, [ln])
    if rank.role == "collateral":
        return _symptom(c, [rank], ln)
    return None


def _from_outside(c: Ctx, m: Match, raw: str) -> Reply | None:
    """No rank failed on its own (the scheduler ended the job): a pasted signal line is the result of
    that, not its cause."""
    found = answer_quote.located(c, m, raw)
    if found is None or not _SIGNAL.search(found[1].text) or not c.view.evidence:
        return None
    ln, head = found[1], c.view.evidence[0]
    what = t.category_words(c.view.category)
    lead = tf.CAUSE_OUTSIDE.format(ref=ref(ln), what=what, iref=ref(head))
    return reply("rank_why", lead, [ln, head] if head != ln else [ln])


#: a line that reports a signal the process was sent (SIGTERM, "Received 15 death signal")
_SIGNAL = re.compile(r"(?i)\bsig(?:term|kill|int)\b|death signal|signal \d+|\bcancell?ed\b")


def _printer(c: Ctx, ln: EvidenceLine, raw: str) -> RankView | None:
    """The rank that printed the line: the rank its own prefix names (in the paste, else the kept line),
    else the rank whose first failure line it is or whose own file holds it."""
    for text in (raw, ln.text):
        head = text.strip().splitlines()[0] if text.strip() else ""
        if (named := parse_rank(head).rank) is not None and named in c.view.ranks:
            return c.view.ranks[named]
    owners = [r for r in c.view.ranks.values() if r.first_line == ln]
    owners += [
        r for r in c.view.ranks.values() if r.first_line is not None and r.first_line.source == ln.source
    ]
    return owners[0] if len({r.rank for r in owners}) == 1 else None


def _cause(c: Ctx, rank: RankView, ln: EvidenceLine, what: str) -> Reply:
    lead = tf.CAUSE_IS.format(who=f"rank {rank.rank}", ref=ref(ln), what=what)
    return reply("rank_why", lead, [ln])


def _symptom(c: Ctx, ranks: list[RankView], ln: EvidenceLine) -> Reply | None:
    ini = c.view.initiating
    if ini is None:
        return None
    why = ranks[0].why if all(r.why == ranks[0].why for r in ranks) else ""
    note = (
        tf.CAUSE_WAITED.format(subj="it" if len(ranks) == 1 else "they", why=why)
        if why.startswith("waited")
        else tf.CAUSE_FALLOUT.format(ini=ini.rank)
    )
    who = f"rank {ranks[0].rank}" if len(ranks) == 1 else f"ranks {rl(ranks)} each"
    iline = ini.first_line or (c.view.evidence[0] if c.view.evidence else None)
    lead = tf.CAUSE_SYMPTOM.format(
        who=who, ref=ref(ln), why=note, ini=ini.rank, what=t.category_words(c.view.category), iref=ref(iline)
    )
    if place := answer_where.group_place(c, ranks):  # "were they all just sitting in a barrier?"
        lead = f"{lead} {place}"
    return reply("rank_why", lead, [ln, *([iline] if iline is not None else [])])


def _described(c: Ctx, m: Match) -> Reply | None:
    """No line pasted: the ranks the message names, or "the other ranks", when they were collateral."""
    coll = c.view.with_role("collateral")
    named = [c.view.ranks[r] for r in m.ranks if r in c.view.ranks]
    if not named and _OTHERS.search(m.text):
        named = coll
    if not named or any(r.role != "collateral" for r in named):
        return None
    ln = named[0].first_line
    return _symptom(c, named, ln) if ln is not None else None


#: another failure, an Xid one, offered as the same thing ("same as the xid79 thing?", "xid again?")
_SAME_XID = re.compile(
    r"\b(?:same as|like|another|again|repeat of|just)\b.{0,30}\bxid\b"
    r"|\bxid ?\d*\b.{0,20}\b(?:thing|one|again)\b"
)


#: an Xid the reader was told of ("summary said rank 0 threw an Xid", "rank 2 had a gpu fault?")
_CLAIMED_XID = re.compile(
    r"\b(?:threw|throws|had|has|hit|got|raised|logged|showed|shows|saw|reported) (?:an? )?"
    r"(?:xid|gpu (?:fault|error)|nvrm)\b"
)


def not_xid(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """ "Same as the xid79 thing?", "summary said rank 0 threw an Xid?": no, when this job's evidence
    holds no Xid; what it failed with, and on which rank."""
    ini = c.view.initiating
    if ini is None or c.view.numbers.xid is not None:
        return "", []
    line = ini.first_line or (c.view.evidence[0] if c.view.evidence else None)
    what = t.category_words(c.view.category)
    shown = [line] if line is not None else []
    if _CLAIMED_XID.search(text):
        return tv.XID_CLAIMED.format(rank=ini.rank, what=what, ref=ref(line)), shown
    if not _SAME_XID.search(text):
        return "", []
    return tf.NOT_XID.format(rank=ini.rank, what=what, ref=ref(line)), shown


__all__ = ["ASK", "cause_or_symptom", "not_xid"]
