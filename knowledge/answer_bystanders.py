"""Challenges and side asks about the ranks around the one that started it, answered with this job's
own lines: "the other ranks show ALLGATHER timeouts, did they also run out of memory or just wait?",
"are you sure it was rank 1? torchrun lists 0, 2 and 3 too", "what did rank 2 print right before it
died?", "our code or did torchrun choke, where exactly?", "any hw evidence, what are we missing?",
"how do you know it was OOM-killed and not a segfault?".

Why: the first ask decides the answer (a quote, a memory figure, the verdict and its runner-up), which
then names the initiating rank but not what the others said in their own words and when (so "did they
also OOM" is never told "no, they were waiting"), not the named rank's own last lines, not the
launcher's innermost frame, not that no kernel log was given. Each step below adds its fact only when
its kind of ask is in the message and the answer does not already say it.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.ranks import ranges
from denpex.core.texts import followups_bystanders as tb
from knowledge import answer_asks, answer_code
from knowledge.answer_types import Ctx, Reply, at_rank, line_time, quote_line, rank_lines
from knowledge.intents import named_ranks
from knowledge.jobfacts_answers import RankView
from knowledge.wording import phase_words

#: the message is about the other ranks (not the one that started it)
_OTHERS = re.compile(
    r"\bother (?:\w+ )?(?:ranks?|gpus?|workers?|processes|nodes)\b|\bthe (?:rest|others)\b|\bothers\b"
    r"|\branks? \d+(?:(?:,| and|,? ?&|/|,? or) ?\d+)+\b|\bthey all\b|\ball (?:the )?ranks\b"
    r"|\bthose (?:gpus|ranks)\b|\b(?:torchrun|launcher)(?:'s)? (?:summary |list |report )?(?:lists?|shows?)\b"
    r"|\b\d+, \d+(?:,? (?:and|&) \d+)?\b",
    re.IGNORECASE,
)
#: ... and asks whether they failed the same way, or only waited, or why they died too
_SAME_Q = re.compile(
    r"\balso\b|\btoo\b|\bas well\b|\bjust (?:wait\w*|hung|stuck|sitting)\b|\bwhy\b|\bdoing\b|\bsure\b"
    r"|\bcrash\w*|\bdie[ds]?\b|\bfail\w*|\btime ?out\w*|\btimed out\b|\bkilled\b",
    re.IGNORECASE,
)
#: what a rank printed (or was doing) right before it died
_BEFORE_Q = re.compile(
    r"\b(?:print|log|say|said|wr[io]te|output|show|doing)\w*\b[^?]{0,40}?(?:right |just |shortly )?"
    r"(?:before|when|as) (?:it|they|rank ?\d+) (?:died|die|crash\w*|fail\w*|exit\w*|stopp\w*|went down"
    r"|was killed|got killed)\b",
    re.IGNORECASE,
)
#: our code or the launcher, and where exactly
_LAUNCHER_Q = re.compile(
    r"\b(?:our|my|the) (?:training |own )?(?:code|script)\b[^?]{0,60}?\b(?:torchrun|launcher|torch|pytorch)\b"
    r"|\b(?:torchrun|launcher)\b[^?]{0,30}?\b(?:chok\w*|fault|bug|broke\w*|itself)\b|\bwhere exactly\b",
    re.IGNORECASE,
)
#: hardware evidence, or what is missing from the logs
_HW_Q = re.compile(r"\b(?:hw|hardware|xid|ecc)\b[^?]{0,40}?\b(?:evidence|sign|proof|at all)\b", re.IGNORECASE)
#: ... or what the logs are missing, with a hardware word anywhere in the message
_MISSING_Q = re.compile(r"\bwhat (?:are|am|is) (?:we|i|it) missing\b|\bmissing evidence\b", re.IGNORECASE)
_HW_WORD = re.compile(r"\b(?:hw|hardware|gpu fault|xid|ecc)\b", re.IGNORECASE)
#: how the verdict knows A and not B
_HOW_KNOW_Q = re.compile(
    r"\bhow (?:do|did|can|would) (?:you|we|u|i) (?:know|tell|be sure|conclude)\b|\bhow are you sure\b"
    r"|\bwhat makes you (?:think|sure)\b",
    re.IGNORECASE,
)
_KILLED = re.compile(r"\bKilled\b|\bsignal 9\b|\bSIGKILL\b")
_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')
_PKG = re.compile(r"^.*/(?:site|dist)-packages/")
#: a line that holds a credential: never quoted back
_SECRET = re.compile(r"(?:TOKEN|SECRET|PASSWORD|API_KEY)\w*=|\bhf_[A-Za-z0-9]{8,}", re.IGNORECASE)


def _told(got: Reply) -> str:
    return answer_asks.said(got) + " " + " ".join(ln.ref for ln in got.lines).lower()


def _add(got: Reply, text: str, lines: list[EvidenceLine]) -> Reply:
    if not text:
        return got
    if got.intent == "help":
        return Reply("others", [text], True, text, lines)
    return answer_asks.with_lead(got, text, lines)


def _own_before(c: Ctx, r: RankView, count: int) -> list[EvidenceLine]:
    """The rank's last `count` own timestamped lines before its failure line (no credential line)."""
    first = r.first_line
    out: list[EvidenceLine] = []
    for source, lines in rank_lines(c, r.rank).items():
        for ln in lines:
            before = first is None or source != first.source or ln.line < first.line
            if (
                before
                and line_time(ln)
                and (first is None or ln.text != first.text)
                and not _SECRET.search(ln.text)
            ):
                out.append(ln)
    out.sort(key=lambda ln: (line_time(ln), ln.source, ln.line))
    limit = line_time(first) if first is not None else ""
    return [ln for ln in out if not limit or line_time(ln) <= limit][-count:]


def _at(ln: EvidenceLine) -> str:
    stamp = line_time(ln)
    return f", {stamp}" if stamp else ""


def with_others(c: Ctx, text: str, got: Reply) -> Reply:
    """The collateral ranks' own words and times against the initiating rank's, when the message asks
    whether the others failed the same way, only waited, or why they died too."""
    ini = c.view.initiating
    coll = c.view.with_role("collateral")
    if ini is None or ini.first_line is None or not coll:
        return got
    if not (_OTHERS.search(text) and _SAME_Q.search(text)):
        return got
    told = _told(got)
    groups: dict[str, list[RankView]] = {}
    for r in coll:
        if r.first_line is not None and r.what:
            groups.setdefault(r.what, []).append(r)
    said: list[str] = []
    shown: list[EvidenceLine] = []
    for what, ranks in groups.items():
        ln = ranks[0].first_line
        assert ln is not None
        if ln.ref.lower() in told and "wait" in told:
            continue
        said.append(
            tb.OTHERS_WAITED.format(
                ranks=ranges(r.rank for r in ranks),
                ini=ini.rank,
                what=what,
                quote=quote_line(ln),
                ref=ln.ref,
                at=at_rank(ranks[0]),
            )
        )
        shown.append(ln)
    if said:
        said.append(tb.INI_FIRST.format(ini=ini.rank, ref=ini.first_line.ref, at=at_rank(ini)))
    return _add(got, " ".join(said), shown[:2])


def _rank_asked(c: Ctx, text: str) -> RankView | None:
    named = [r for r in named_ranks(text) if r in c.view.ranks]
    if named:
        return c.view.ranks[named[-1]]
    return c.view.initiating


def with_before(c: Ctx, text: str, got: Reply) -> Reply:
    """The named rank's last own lines right before it died, then its own failure line, and for a rank
    whose kept lines hold no frame of the user's code, the shared phase's code from the initiating rank."""
    if not _BEFORE_Q.search(text) or (r := _rank_asked(c, text)) is None or r.first_line is None:
        return got
    told = _told(got)
    before = [ln for ln in _own_before(c, r, 2) if ln.ref.lower() not in told]
    said: list[str] = []
    if before:
        quotes = ", ".join(
            tb.BEFORE_QUOTE.format(words=quote_line(ln), ref=ln.ref, at=_at(ln)) for ln in before
        )
        said.append(tb.BEFORE_LINES.format(rank=r.rank, quotes=quotes))
    if r.first_line.ref.lower() not in told:
        said.append(
            tb.BEFORE_FAILED.format(words=quote_line(r.first_line), ref=r.first_line.ref, at=at_rank(r))
        )
    said.append(_same_phase(c, r, told))
    return _add(got, " ".join(s for s in said if s), [*before[-1:], r.first_line])


def _same_phase(c: Ctx, r: RankView, told: str) -> str:
    """The initiating rank's user frame for a collateral rank in the same phase with none of its own."""
    ini = c.view.initiating
    if ini is None or ini.rank == r.rank or not r.phase or r.phase != ini.phase:
        return ""
    if (
        answer_code.user_frame(c, r.rank) is not None
        or (found := answer_code.user_frame(c, ini.rank)) is None
    ):
        return ""
    frame = found[0]
    if frame.func.lower() in told:
        return ""
    name = frame.path.rsplit("/", 1)[-1]
    return tb.SAME_PHASE.format(
        rank=r.rank, ini=ini.rank, phase=phase_words(r.phase), func=frame.func, path=name, number=frame.number
    )


def with_launcher_frame(c: Ctx, text: str, got: Reply) -> Reply:
    """Where in torchrun a launcher failure happened (its traceback's innermost frame), when the
    message asks whether the user's code or the launcher is at fault, and where."""
    if c.view.initiating is not None or c.view.ranks or not _LAUNCHER_Q.search(text):
        return got
    lines = sorted(
        {ln.ref: ln for t in c.d.tails for ln in t.lines}.values(), key=lambda ln: (ln.source, ln.line)
    )
    frames = [(i, m) for i, ln in enumerate(lines) if (m := _FRAME.search(ln.text))]
    if not frames:
        return got
    i, m = frames[-1]
    code = lines[i + 1].text.strip() if i + 1 < len(lines) else ""
    if m.group(3).lower() in _told(got) and got.intent != "help":
        return got
    path = _PKG.sub("", m.group(1))
    said = tb.LAUNCHER_WHERE.format(
        func=m.group(3), path=path, number=m.group(2), ref=lines[i].ref, code=code
    )
    return _add(got, said, [lines[i]])


def with_missing(c: Ctx, text: str, got: Reply) -> Reply:
    """That no kernel log was given, when the message asks for hardware evidence or what is missing."""
    if c.d.nodes or not (_HW_Q.search(text) or (_MISSING_Q.search(text) and _HW_WORD.search(text))):
        return got
    told = _told(got)
    if "dmesg" in told or "kernel log" in told:
        return got
    ini = c.view.initiating
    nodes = ", ".join(c.view.nodes) or "each node"
    when = at_rank(ini).replace(" at ", "", 1) if ini is not None and ini.first_time else "the failure"
    return _add(got, tb.NO_KERNEL_LOG.format(nodes=nodes, at=when), [])


def with_how_known(c: Ctx, text: str, got: Reply) -> Reply:
    """The deciding evidence, when the message asks how the verdict knows A and not B: a kill with no
    kernel log is said to be unconfirmed, and the initiating rank's last own line before it is quoted."""
    ini = c.view.initiating
    if ini is None or ini.first_line is None or not _HOW_KNOW_Q.search(text):
        return got
    told = _told(got)
    said: list[str] = []
    shown: list[EvidenceLine] = []
    if _KILLED.search(ini.first_line.text) and not c.d.nodes and "dmesg" not in told:
        nodes = ", ".join(c.view.nodes) or "the node"
        said.append(
            tb.KILL_UNCONFIRMED.format(words=quote_line(ini.first_line), ref=ini.first_line.ref, nodes=nodes)
        )
    last = _own_before(c, ini, 1)
    if last and last[0].ref.lower() not in told:
        ln = last[0]
        said.append(tb.DECIDING_LINE.format(rank=ini.rank, words=quote_line(ln), ref=ln.ref, at=_at(ln)))
        shown.append(ln)
    return _add(got, " ".join(said), shown)


def complete(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with each of the asks above that the message makes and the answer does not say yet."""
    got = with_others(c, text, got)
    got = with_before(c, text, got)
    got = with_launcher_frame(c, text, got)
    got = with_missing(c, text, got)
    return with_how_known(c, text, got)


__all__ = ["complete"]
