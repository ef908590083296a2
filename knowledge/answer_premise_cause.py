"""A rank and a cause put to be checked ("rank 0 on gpu-01 OOMed i think, can you confirm?", "so rank 3
ran out of GPU memory and fell behind, right?", "rank 0 got killed because it writes the checkpoint?").

Why: the reader names a rank and what happened to it. When the rank is not the one that started it,
or the cause is not this job's, an answer about the named rank's own lines leaves the wrong story
standing. The check says no first, with the rank (and node) that did and what it hit; a reason given
for it ("because rank 0 writes the checkpoint") is checked against the job's own save too.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.texts import followups_sure as ts
from knowledge import answer_mechanism, answer_premise
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import Match

#: "rank 0 on gpu-01 OOMed", "rank 3 ran out of GPU memory", "r2 got oom killed"
_CLAIM = re.compile(
    r"\b(?:rank|r)\s?(\d+)(?:'s)?(?: (?:on|@) [\w.-]+)?(?: (?:just|also|probably|actually))?"
    r" (oom[- ]?ed|oom'?d|ran out of (?:gpu |host |cpu |device )?(?:memory|mem|ram|vram)"
    r"|(?:got|was) oom[- ]?killed|hit (?:an? )?oom|went oom)\b"
)
#: the ask puts it to be checked, not an open question
_CHECK = re.compile(
    r"\b(?:right|correct|yeah|yes|true|yep|confirm\w*|i think|i guess|innit|no)\W*$"
    r"|\?\s*$|\bcan you confirm\b"
)
_OPEN = re.compile(r"^(?:which|who|what|whats|why|how|when|where)\b")
#: a reason that only the named rank writes the checkpoint ("because it's the one writing the ckpt")
_WRITER = re.compile(
    r"\b(?:because|since|as|cause|cuz|'cause) (?:it|it'?s|it is|that'?s|rank \d+(?: is)?)(?: \w+){0,2}?"
    r" (?:the one )?(?:writ\w*|sav\w*|dump\w*|the (?:writer|saver))\b"
    r"|\b(?:only|just) (?:it|rank \d+) (?:writes|saves|dumps)\b"
)
#: categories whose cause is memory running out: a memory claim fits them
_MEMORY_CATEGORY = re.compile(r"oom|out_of_memory|memory")


def cause_claim(c: Ctx, m: Match) -> Reply | None:
    """ "rank 0 OOMed, confirm?" on another rank's failure, or a memory claim on a failure with none."""
    ini = c.view.initiating
    found = _CLAIM.search(m.text)
    if ini is None or found is None or not _CHECK.search(m.text) or _OPEN.search(m.text):
        return None
    named = int(found.group(1))
    if named not in c.view.ranks:
        return None
    claim = "run out of memory"
    fits = bool(_MEMORY_CATEGORY.search(ini.category or c.view.category))
    if named == ini.rank and fits:
        return None  # the claim holds: the usual answers say so
    if named != ini.rank and answer_premise.rank_started(c, m) is not None:
        return None  # "so rank 0 got oom killed, yeah?": a claim of who started it, answered as one
    told = answer_premise.rank_started(c, replace(m, text=f"rank {named} started it, right?"))
    if told is None:
        return None
    if named == ini.rank:
        rest = told.lead.removeprefix("Yes: ")
        lead = f"{ts.CLAIM_WRONG_CAUSE.format(rank=named, claim=claim)} {rest[:1].upper()}{rest[1:]}"
        said, shown = answer_premise.desync(c, "was it a desync?")
        return reply("rank_why", f"{lead} {said}".strip(), [*told.lines, *shown])
    other = c.view.ranks[named]
    apart = bool(other.node and ini.node and other.node != ini.node)
    on, ini_on = (f" on {other.node}", f" on {ini.node}") if apart else ("", "")
    head = ts.CLAIM_OTHER_RANK.format(named=named, on=on, claim=claim, rank=ini.rank, ini_on=ini_on)
    rest = told.lead.removeprefix("No: ")
    return reply("rank_why", f"{head} {rest[:1].upper()}{rest[1:]}", told.lines)


def writer_reason(c: Ctx, m: Match) -> Reply | None:
    """ "rank 0 got killed because it's the one writing the checkpoint?": who started it, and that every
    rank built its own copy, when the job's save is a per-rank copy."""
    if not _WRITER.search(m.text) or not (copies := answer_mechanism.copies(c)):
        return None
    ranks = re.findall(r"\b(?:rank|r)\s?(\d+)\b", m.text)
    if not ranks:
        return None
    told = answer_premise.rank_started(c, m) or answer_premise.rank_started(
        c, replace(m, text=f"rank {ranks[0]} started it, right?")
    )
    if told is None:
        return None
    extra = ts.CLAIM_NOT_ONLY_WRITER.format(named=ranks[0])
    return reply(told.intent, f"{told.lead} {extra} {copies}", told.lines)
