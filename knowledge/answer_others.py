"""The other ranks' own errors ("and the other ranks?", "what about 1 and 3?", "did 0 and 2 also see
nan?", "the table says 0,2 are nccl_comm_error but this run is gloo").

Why: asked about the ranks that did not start it, the reader wants what *they* logged, quoted, not the
initiating rank's cause told again: a collateral rank's gloo `Connection closed by peer`, a watchdog
timeout, or no error at all and the launcher's SIGTERM. Ranks that logged the same error are told
together; the initiating rank is named last, as what their errors echo.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import followups_facts as tff
from denpex.core.texts import followups_review as tr
from denpex.core.texts import thread as t
from knowledge import answer_code
from knowledge.answer_types import Ctx, Reply, at_rank, rank_lines, rank_list, ref, reply
from knowledge.answer_where import strip_prefix
from knowledge.intents import Match, named_ranks
from knowledge.jobfacts_answers import RankView

_LIST = r"\d{1,4}(?:\s*(?:,|and|&|/|\+|-|to)\s*\d{1,4})*"
#: asks about the ranks other than the one that started it
ASKS_OTHERS = re.compile(
    r"\b(?:and|what about|how about|what of) (?:all )?(?:the )?(?:other ranks?|others|other workers"
    r"|rest(?: of (?:the ranks|them))?)\b(?!['’])"
    r"|\b(?:what|how) about (?:ranks? )?(?P<about>" + _LIST + r")\b(?! ?(?:s|ms|min|gib|steps?)\b)"
    r"|\bdid (?:ranks? )?(?P<did>" + _LIST + r") (?:also |too |as well |both |all )*"
    r"(?:see|get|hit|have|log|print|throw|show|raise)\b"
    r"|\b(?:table|summary) says (?:ranks? )?(?P<table>" + _LIST + r")\b"
    # "what were ranks 0, 1 and 3 doing at that point?", "what were the others doing then?"
    r"|\bwhat were (?:all )?(?:the )?(?:other ranks|others|rest|ranks (?P<doing>" + _LIST + r"))"
    r" (?:\w+ )?doing\b"
)
#: what may come before the ask: nothing, an opener, or the end of an earlier sentence ("…? and the
#: others?"); "what step was it on, and the others —" asks the step first, and the step answer answers it
_OPENS = re.compile(r"^\W*(?:(?:ok|okay|so|hmm|and|also|right)\W+)*$|[?.!:;]\s*(?:(?:ok|so|and|also)\W+)*$")
#: ranks named bare as the subject of what they logged ("0 and 2 show 'connection reset by peer'",
#: "what did 0, 1 and 2 report", "1 and 3 threw tracebacks too", "what ranks 1 2 3 were doing")
_SUBJECT = re.compile(
    r"(?:^|[.?!,;:]\s*|\b(?:and|did|were|about|what)\s+)(?:the\s+)?(?:ranks?\s*)?"
    r"(?P<list>\d{1,4}(?:(?:\s*,\s*|\s+and\s+|\s*&\s*|\s*/\s*|\s+|-)\d{1,4})*)"
    r"\s+(?:(?:just|also|too|only|all|both|actually|each|were|was)\s+)*"
    r"(?:have|has|had|show|shows|showed|threw|throw|print\w*|log|logs|logged|report\w*|say|said"
    r"|wrote|doing|raised?)\b"
)
#: asks what those ranks logged or did, or whether they need anything ("do any of them need
#: attention", "anything wrong w/ those", "what did 0, 1 and 2 report"); not why, nor a guessed cause
_STATE_Q = re.compile(
    r"\bneeds? (?:any |some )?attention\b|\banything (?:\w+ )?wrong\b|\bfallout\b|\bwhat happened to\b"
    r"|\bwhat (?:did|do|does)\b[^?]{0,30}\b(?:report|say|log|print|show|write|do)\b"
    r"|\bwhat (?:\S+ ){0,5}(?:were|was) (?:\w+ )?doing\b"
)
#: the ask is why they failed, or a cause put to be checked: the rank's own answer or the guess's check
_WHY_Q = re.compile(r"\bwhy\b|\bcause\b|\bnetwork\b|\bculprit\b|\bfault\b")
#: asks each rank's first error, side by side ("quote the first error of each rank", "per-rank errors")
EACH_ERROR_Q = re.compile(
    r"\b(?:first |own )?(?:errors?|exceptions?|failures?)\b[^?.]{0,20}\b(?:of|for|from|on|per|by) "
    r"(?:each|every|all(?: the)?) ?ranks?\b"
    r"|\b(?:each|every) rank'?s? (?:first |own )?(?:errors?|exceptions?|failures?)\b"
    r"|\bper-?rank (?:first )?(?:errors?|exceptions?)\b"
)
_EXCEPTION = re.compile(r"\b\w*(?:Error|Exception)\b:")
_ALSO = re.compile(r"\b(?:also|too|as well|same)\b")
_BACKEND = re.compile(r"\b(?:gloo|nccl)\b")
_SIGNAL = re.compile(r"\bSignal (\d{1,2}) \((SIG\w+)\)")
_PATH = re.compile(r"\[/[^\]\s]*/([^/\]\s]+)\]")
_WATCHDOG = re.compile(r"Watchdog caught collective operation timeout")
#: a quoted error is cut here (the whole line is shown below the answer)
MAX_QUOTE = 110
MAX_QUOTE_WHOLE = 200


def others(c: Ctx, m: Match) -> Reply | None:
    """Each other rank's own last error (or its signal), grouped, then the rank they all echo."""
    if EACH_ERROR_Q.search(m.text):
        return each_first(c)
    asked = ASKS_OTHERS.search(m.text)
    ini = c.view.initiating
    if asked is None and not _WHY_Q.search(m.text) and (subjects := _subjects(c, m.text)):
        return _told(c, subjects, m.text)  # "0 and 2 show 'connection reset', 1 nothing: need attention?"
    if asked is None or not _OPENS.search(m.text[: asked.start()]) or ini is None or ini.first_line is None:
        return None
    listed = asked.group("about") or asked.group("did") or asked.group("table") or asked.group("doing")
    if asked.group("doing") and ini.rank in named_ranks(m.text):
        return None  # "what were ranks 0-2 doing vs rank 3": the comparison is the activity answer's
    if asked.group("doing") or (listed and not re.search(r"\bother|\brest\b", m.text)):
        wanted = list(named_ranks(f"ranks {listed.replace('/', ',')}"))
    else:
        wanted = [r.rank for r in c.view.ranks.values() if r.rank != ini.rank]
    ranks = [c.view.ranks[n] for n in wanted if n in c.view.ranks]
    if not ranks or len(ranks) != len(wanted) or any(r.rank == ini.rank for r in ranks):
        return None
    said, shown = _groups(ranks, bool(_BACKEND.search(m.text)))
    if not said:
        return None
    lead = " ".join(said)
    if "doing" in asked.group(0) and (calls := _calls(c, ranks)):
        lead += " " + calls  # "what were they doing": the collective their tracebacks stop in
    if _ALSO.search(m.text):
        lead = f"{tff.OTHERS_NOT_SAME.format(rank=ini.rank)} {lead}"
    told = tff.OTHERS_SOURCE if any(r.role == "collateral" for r in ranks) else tff.OTHERS_STARTED
    source = told.format(rank=ini.rank, what=t.category_words(ini.category), ref=ref(ini.first_line))
    return reply("others", f"{lead} {source}", [*shown, ini.first_line])


def _subjects(c: Ctx, text: str) -> list[RankView]:
    """The ranks a question names as what logged something, none of them the initiating rank (empty:
    another rank, or a number that is no rank of this job)."""
    ini = c.view.initiating
    if not _STATE_Q.search(text):
        return []
    wanted: list[int] = []
    for hit in _SUBJECT.finditer(text):
        listed = re.sub(r"(?<=\d)\s*[/\s]\s*(?=\d)", ", ", hit.group("list"))  # "1 2 3", "0/2"
        wanted += named_ranks(f"ranks {listed}")
    ranks = [c.view.ranks[n] for n in dict.fromkeys(wanted) if n in c.view.ranks]
    if ini is None or not ranks or len(ranks) != len(set(wanted)) or any(r.rank == ini.rank for r in ranks):
        return []
    return sorted(ranks, key=lambda r: r.rank)


def told(c: Ctx, text: str) -> Reply | None:
    """What the ranks a message names as having logged something logged ("1 and 3 threw tracebacks
    too … rank 0 printed nothing"), for a message whose asks the splitter cut from those words."""
    subjects = _subjects(c, text)
    return _told(c, subjects, text) if subjects else None


def _told(c: Ctx, ranks: list[RankView], text: str) -> Reply | None:
    """What the named ranks logged, grouped, where their tracebacks stop, and the rank they echo."""
    ini = c.view.initiating
    said, shown = _groups(ranks, bool(_BACKEND.search(text)))
    if ini is None or ini.first_line is None or not said:
        return None
    lead = " ".join(said)
    if calls := _calls(c, ranks):
        lead += " " + calls
    told = tff.OTHERS_SOURCE if any(r.role == "collateral" for r in ranks) else tff.OTHERS_STARTED
    source = told.format(rank=ini.rank, what=t.category_words(ini.category), ref=ref(ini.first_line))
    return reply("others", f"{lead} {source}", [*shown, ini.first_line])


def each_first(c: Ctx) -> Reply | None:
    """Each rank's first error, the initiating rank's first with its own figures, then the others'
    grouped by kind: the side-by-side a reader asks for instead of the launcher's summary."""
    ini = c.view.initiating
    if ini is None or ini.first_line is None:
        return None
    line = _own_error(c, ini)
    text = _short(line.text, whole=True)
    lead = tff.EACH_FIRST.format(rank=ini.rank, at=at_rank(ini), text=text, ref=ref(line))
    rest = [r for r in c.view.ranks.values() if r.rank != ini.rank and r.role in ("collateral", "healthy")]
    said, shown = _groups(sorted(rest, key=lambda r: r.rank), False)
    if calls := _calls(c, rest):
        said.append(calls)
    return reply("others", " ".join([lead, *said]), [line, *shown])


def _own_error(c: Ctx, r: RankView) -> EvidenceLine:
    """The rank's exception line at or after its first failure line (a traceback's frame is first
    when the engine found the phase there), else that first line."""
    first = r.first_line
    assert first is not None
    for lines in rank_lines(c, r.rank).values():
        for ln in lines:
            if ln.source == first.source and ln.line >= first.line and _EXCEPTION.search(ln.text):
                return ln
    return first


def _groups(ranks: list[RankView], backend: bool) -> tuple[list[str], list[EvidenceLine]]:
    """One sentence per kind of ending: the same error (ports and numbers aside), a signal, nothing."""
    groups: dict[str, list[RankView]] = {}
    for r in ranks:
        groups.setdefault(_kind(r), []).append(r)
    said: list[str] = []
    shown: list[EvidenceLine] = []
    for members in groups.values():
        first = members[0]
        one = len(members) == 1
        who = f"Rank {first.rank}" if one else f"Ranks {rank_list(members)}"
        their, them = ("its", "it") if one else ("their", "them")
        line = first.first_line
        if line is None:
            said.append(tff.OTHERS_NONE.format(who=who, their=their))
            continue
        shown.append(line)
        if (sig := _SIGNAL.search(line.text)) is not None:
            said.append(
                tff.OTHERS_SIGNAL.format(
                    who=who, their=their, them=them, signal=sig.group(2), num=sig.group(1), ref=ref(line)
                )
            )
            continue
        text = _short(line.text)
        echo = ""
        if "gloo" in line.text or "pair.cc" in line.text:
            echo = tff.OTHERS_GLOO + (tff.OTHERS_GLOO_NAME if backend else "")
        elif _WATCHDOG.search(line.text):
            echo = tff.OTHERS_WATCHDOG
        said.append(tff.OTHERS_OWN.format(who=who, their=their, text=text, ref=ref(line), echo=echo))
    return said, shown


def _calls(c: Ctx, ranks: list[RankView]) -> str:
    """The collective each rank's traceback stops in, by collective ("ranks 1,3 in `all_reduce` …")."""
    by_op: dict[tuple[str, str], list[int]] = {}
    for r in ranks:
        if (got := answer_code.collective_of(c, r.rank)) is not None:
            by_op.setdefault(got, []).append(r.rank)
    rows = [tf.collective_row(rank_list(nums), op, where) for (op, where), nums in by_op.items()]
    return tr.IN_CALLS.format(rows="; ".join(rows)) if rows else ""


def _kind(r: RankView) -> str:
    """What the rank's ending is, ports, pids, times and counts aside."""
    if r.first_line is None:
        return "none"
    if (sig := _SIGNAL.search(r.first_line.text)) is not None:
        return f"signal {sig.group(1)}"
    return re.sub(r"\d+", "#", strip_prefix(r.first_line.text))[:120]


def _short(text: str, whole: bool = False) -> str:
    """The error as quoted: no prefixes, a long source path cut to its file, the first sentence (the
    first rank's `whole` error keeps its figures: "Tried to allocate 2.00 GiB" is its next sentence)."""
    out = _PATH.sub(r"[\1]", strip_prefix(text)).strip()
    limit = MAX_QUOTE_WHOLE if whole else MAX_QUOTE
    out = out if whole else re.split(r"(?<=\.) (?=[A-Z])", out)[0].rstrip(" .")
    return out if len(out) <= limit else out[: limit - 1].rsplit(" ", 1)[0] + "…"


__all__ = ["ASKS_OTHERS", "EACH_ERROR_Q", "each_first", "others", "told"]
