"""Questions about the summary's own wording, answered with this job's facts.

"why is the confidence only 0.63 for a clear SIGSEGV?", "why 'at or after' 21:38:30?", "the victims'
≥ time is earlier than the cause's?", "what does 'Also possible: X' mean here, why wasn't it picked?",
"why doesn't it name a node?", "the Verify command compares Elapsed and Timelimit: what should I see?".
Why: the reader is looking at the summary and asks why it says what it says; the answer quotes the
figure (the confidence, the runner-up's score, the borrowed time) and what in this job makes it so,
never the entry's general text.
"""

from __future__ import annotations

import re

from denpex.core.models import Alternative
from denpex.core.texts import followups_summary as ts
from knowledge import answer_compare, answer_more, answer_pid, answer_teardown
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match

#: asks why the confidence is what it is ("why only 0.36", "0.93 seems high", "why so sure")
_CONF_Q = re.compile(r"\bconfidence\b|\bconfident\b|\b0\.\d\d\b")
_WHY_CONF = re.compile(
    r"\bwhy\b|\bseems? (?:\w+ )?(?:high|low)\b|\bso (?:sure|low|high)\b|\bthat sure\b|\bonly\b|\bjust\b"
)
#: asks about "at or after" / ≥ times or why one time comes before another
_BORROW_Q = re.compile(
    r"\bat or after\b|≥|>=|\b(?:instead of|not|rather than) (?:an |the )?exact time\b|\bcome before\b"
    r"|\bbefore the cause\b|\bearlier than\b"
)
#: names the summary's 'Also possible' list or asks why another cause lost
_ALSO_Q = re.compile(r"\balso possible\b|\brunner[- ]?up\b|\bwhy wasn'?t (?:that|it|this) picked\b")
_NODE_Q = re.compile(
    r"\b(?:name|names|show|list|give)s? (?:a |the |any )?(?:node|host)\b|\bno (?:node|host)\b"
)
_VERIFY_Q = re.compile(r"\bverify(?:'s)? (?:command|cmd|step)s?\b|\b(?:the|of) verify\b(?! line)")
_EXPECT_Q = re.compile(
    r"\bexpect\b|\bwhat (?:should|will|would) i see\b|\bhave to do with\b"
    r"|\bwhat (?:does )?(?:it|that) checks?\b"
)
#: the doubt is about the rank named, which `answer_sure` and the rank answers take ("why rank 3?")
_ABOUT_RANK = re.compile(
    r"\bwhy rank \d|\b(?:it'?s|it is|it was|was) rank \d|\bhow sure are you (?:it|that)\b"
)


def confidence_why(c: Ctx, m: Match) -> Reply | None:
    """ "Why is the confidence only X?": the figure, the runner-up and its score, and what is lacking."""
    text = m.text.lower()
    if not (_CONF_Q.search(text) and _WHY_CONF.search(text)) or _ALSO_Q.search(text) or named_alts(c, text):
        return None  # "the teardown alternative has the same confidence, couldn't it be that?": that one
    if _ABOUT_RANK.search(text) or answer_compare.INSTEAD_Q.search(text):
        return None  # "what would push you to call it X instead?": what tells them apart, not the gaps
    v, ini = c.view, c.view.initiating
    conf = v.confidence
    level = "low" if conf < 0.5 else "moderate" if conf < 0.75 else "high"
    lead = ts.CONF_LEAD.format(conf=conf, level=level)
    alts = [a for a in v.alternatives if a.confidence > 0]
    if alts:
        lead += ts.CONF_RUNNER_UP.format(title=alts[0].title, alt=alts[0].confidence, why=alts[0].why)
    else:
        lead += ts.CONF_NO_RUNNER_UP
    inferred = ini is not None and (ini.inferred or _silent(ini.first_line))
    if ini is not None and inferred:
        lead += ts.CONF_INFERRED.format(rank=ini.rank)
    if v.category == "segfault":
        lead += ts.CONF_NO_STACK
    missing = [f"{g.what} ({g.next_action})" for g in c.d.missing_evidence]
    if missing:
        lead += ts.CONF_MISSING.format(items="; ".join(missing))
    if ini is not None and ini.first_line is not None and not inferred:
        lead += ts.CONF_DIRECT.format(ref=ref(ini.first_line), rank=ini.rank)
    return reply("alternatives", lead, v.key_line())


_STOPPED = re.compile(r"\bSIGTERM\b|\bSignal 15\b")


def _silent(line: object) -> bool:
    """The rank's only line is the launcher's SIGTERM: it wrote no error of its own."""
    return line is not None and bool(_STOPPED.search(getattr(line, "text", "")))


def borrowed_time(c: Ctx, m: Match) -> Reply | None:
    """ "Why 'at or after'?": the rank's line has no time; its time is borrowed, a lower bound."""
    ini = c.view.initiating
    if ini is None or ini.first_line is None or not _BORROW_Q.search(m.text.lower()):
        return None
    if answer_teardown.ORDER_Q.search(m.text) and answer_teardown.order(c, m) is not None:
        return None  # "do the SIGTERMs come before the -11 line?": the launcher's lines, in order
    if not ini.borrowed:
        return reply(
            "when",
            ts.OWN_TIME.format(rank=ini.rank, ref=ref(ini.first_line), time=_stamp(ini.first_time)),
            [ini.first_line],
        )
    lead = ts.BORROWED.format(rank=ini.rank, ref=ref(ini.first_line), time=_stamp(ini.first_time))
    early = [
        r
        for r in c.view.with_role("collateral")
        if r.borrowed and r.first_time and r.first_time < (ini.first_time or "")
    ]
    if early:
        lead += ts.BORROWED_OTHERS.format(
            who=f"Rank {rl(early)}'s" if len(early) == 1 else f"Ranks {rl(early)}'",
            time=_stamp(early[0].first_time),
            rank=ini.rank,
        )
    shown = [ini.first_line] + [r.first_line for r in early[:2] if r.first_line is not None]
    return reply("when", lead, shown)


def _stamp(iso: str | None) -> str:
    """`2026-12-01T21:36:34.102Z` -> `2026-12-01 21:36:34.102 UTC`: milliseconds kept, as the summary has."""
    return (iso or "").replace("T", " ").rstrip("Z")[:23] + " UTC"


def also_possible(c: Ctx, m: Match) -> Reply | None:
    """ "What does 'Also possible: X' mean, why wasn't it picked?": its score, why it lost, the check."""
    text = m.text.lower()
    alts = [a for a in c.d.alternatives if a.confidence > 0]
    named = named_alts(c, text)
    if not alts or not (_ALSO_Q.search(text) or named):
        return None
    v, ini = c.view, c.view.initiating
    tied = (named or alts)[0].confidence >= v.confidence
    lead = (ts.ALSO_LEAD_TIED if tied else ts.ALSO_LEAD).format(
        verdict=v.title or v.category, conf=v.confidence
    )
    for a in named or alts[:2]:
        lead += ts.ALSO_ONE.format(title=a.title, id=a.id, alt=a.confidence, why=a.why or "weaker evidence")
    lead += _check(c, (named or alts)[0])
    shown = v.key_line()
    if ini is not None and ini.first_line is not None:
        lead += ts.ALSO_LINE.format(rank=ini.rank, ref=ref(ini.first_line), text=ini.first_line.text.strip())
    if (last := answer_more.doing_line(c, ini)) is not None:
        lead += " " + answer_more.doing(c, ini, lead.lower())
        shown = [*shown, last]
    return reply("alternatives", lead, shown)


#: a challenged alternative's own noun ("the teardown alternative", "the launcher-teardown one")
_CHALLENGE_NOUN = r"(?:alternative|option|theory|explanation|hypothesis|candidate|one)"
#: words of an alternative's id that name no failure mode by themselves
_GENERIC = {"nccl", "cuda", "error", "errors", "failure", "timeout", "report", "crash", "worker"}


def named_alts(c: Ctx, text: str) -> list[Alternative]:
    """The scored alternatives the message names: by id, or by a word of the id the verdict's own id and
    title lack, right before the noun that challenges it ("the teardown alternative" for
    `sigterm-elastic-teardown`; not "the elastic agent's summary")."""
    low = text.lower()
    alts = [a for a in c.d.alternatives if a.confidence > 0]
    named = [a for a in alts if a.id.lower() in low]
    if named:
        return named
    own = set(re.split(r"[\W_]+", f"{c.entry.id if c.entry else ''} {c.view.title or ''}".lower()))
    skip = _GENERIC | own
    words = {a.id: [w for w in a.id.lower().split("-") if len(w) >= 5 and w not in skip] for a in alts}
    return [
        a
        for a in alts
        if any(re.search(rf"\b{w}(?:[- ][\w-]+)? {_CHALLENGE_NOUN}\b", low) for w in words[a.id])
    ]


def _check(c: Ctx, alt: Alternative) -> str:
    """The verdict's check and the runner-up's cheapest confirmation ("" when neither is known)."""
    other = c.related.get(alt.id)
    verify = c.d.verify or (c.entry.verify if c.entry else "")
    if not verify or other is None:
        return ""
    return ts.ALSO_CHECK.format(verify=verify, title=alt.title, shows=other.faq.cheapest_confirmation)


def no_node(c: Ctx, m: Match) -> Reply | None:
    """ "Why doesn't it name a node for rank 0?": no line of this job names the host."""
    ini = c.view.initiating
    if ini is None or ini.node or not _NODE_Q.search(m.text.lower()) or c.view.nodes:
        return None
    return reply("which_rank", ts.NO_NODE.format(rank=ini.rank), c.view.key_line())


def verify_expect(c: Ctx, m: Match) -> Reply | None:
    """ "The Verify command compares X and Y: what should I see?": each part's expected output."""
    text = m.text.lower()
    verify = c.d.verify or (c.entry.verify if c.entry else "")
    if not verify or not (_VERIFY_Q.search(text) and _EXPECT_Q.search(text)):
        return None
    parts = [said for word, said in ts.VERIFY_PARTS if word.lower() in verify.lower()]
    if not parts:
        return None
    lead = ts.VERIFY_LEAD.format(verify=verify) + ts.VERIFY_EXPECT.format(
        expect=" ".join(p[:1].upper() + p[1:] for p in parts)
    )
    return reply("verify", lead, c.view.key_line())


__all__ = [
    "also_possible",
    "borrowed_time",
    "confidence_why",
    "kill_tie",
    "named_alts",
    "no_node",
    "verify_expect",
    "whole",
]


#: asks how the kill (or the kernel's line) was tied to a rank
_TIE_Q = re.compile(
    r"\b(?:tie|ties|tied|link|links|linked|map|maps|mapped|connect|connects|attribute|pin)\b[^?]{0,40}"
    r"\b(?:kill|oom|sigkill|dmesg|kernel)\w*\b[^?]{0,30}\brank\b"
    r"|\bhow (?:does|did|do) (?:it|the bot|you|denpex) know (?:the|that|this) (?:kill|oom)\w*"
)
_PID = re.compile(r"\b(?:killed )?process (\d{2,7})\b|\bpid[=: ]+\(?(\d{2,7})\b")


def kill_tie(c: Ctx, m: Match) -> Reply | None:
    """ "How does it tie the kernel's OOM kill to rank 2?": the pid, and the launcher line naming it."""
    ini = c.view.initiating
    if ini is None or ini.first_line is None or not _TIE_Q.search(m.text.lower()):
        return None
    found = [f for x in [ini.first_line, *c.view.evidence] if (f := _PID.search(x.text.lower()))]
    if not found:
        return None
    pid = found[0].group(1) or found[0].group(2)
    return answer_pid.whose(c, f"whose is pid {pid}")


def whole(c: Ctx, m: Match) -> Reply | None:
    """The whole message asked about the summary's wording ("it lists X as also possible — why, and why
    is it ranked lower?"): answered as one, before the message is split into asks that lose its subject."""
    for handler in (confidence_why, also_possible, borrowed_time, no_node, verify_expect, kill_tie):
        if (got := handler(c, m)) is not None:
            return got
    return None
