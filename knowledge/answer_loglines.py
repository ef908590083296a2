"""The exact log lines a message asks to see: "quote the launcher.log line", "whats the srun line say",
"which ranks printed 'Connection closed by peer' and what port did each show?", "first line with ERROR
in rank5.log", "what did each rank's .out print as its very last line?", "what line number in
console.log is the DistNetworkError on?".

Why: these ask for the text itself (and its place, time, port, rank), which a diagnosis sentence
paraphrases away; the answer finds the kept lines the message names (a quoted fragment, an exception
name, a tool's name such as srun or slurmstepd, the launcher's failure line, a rank's error line),
narrows them to the rank and file the message names and to the first or last one when it asks so, and
quotes each with its place, its rank and the port it names. A message that names nothing found in the
kept lines is left to the answer it already has.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_loglines as tp
from knowledge import answer_join, answer_quote
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.lines import parse_rank

#: the message asks for a line's own text, place or the rank that printed it
_ASK = re.compile(
    r"\bquote\b|\bpaste\b|\bexact (?:line|text|words|message)\b"
    r"|\bwhat(?:s|'s| is| does| did)? (?:the |that |rank \d+'?s? )?[\w.'-]+(?: [\w.-]+)? lines? "
    r"(?:in [\w.-]+ )?(?:say|says|said|read|show)"
    r"|\b(?:which|what) ranks? (?:printed|print|logged|wrote|reported|showed)\b"
    r"|\b(?:first|last) [\w:.-]+ (?:rank \d+ )?(?:printed|logged|wrote)\b"
    r"|\b(?:first|last) line (?:with|containing|that (?:says|has)|from|of|in)\b"
    r"|\bline number\b|\bwhich line (?:in|of) [\w-]+\.(?:log|out|err|txt)\b"
    r"|\b(?:port|ports) (?:did|does) (?:each|ranks?|they)\b|\bwhich port each\b|\bport (?:each|did each)\b"
    r"|\bprint(?:ed)? as (?:its|their) (?:very )?last line\b",
    re.IGNORECASE,
)
#: kinds of line named by a word of the message, and how each is recognised in the logs
_KINDS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (re.compile(r"\bslurmstepd\b", re.I), re.compile(r"slurmstepd", re.I)),
    (re.compile(r"\bsrun\b(?! ?-)", re.I), re.compile(r"^\s*srun:")),
    (
        re.compile(r"\blauncher(?:\.log)?\b|\btorchrun(?:'s)? line\b|\bnames the failed process\b", re.I),
        re.compile(r"\bfailed \(exitcode: ?-?\d+\)"),
    ),
    (
        re.compile(r"\berror line\b|\berror it printed\b", re.I),
        re.compile(r"\[ERROR\]|\b\w*Error: |\berror:"),
    ),
)
#: an exception's name the message gives (`DistNetworkError`, `RuntimeError`)
_EXC = re.compile(r"\b(\w{3,}(?:error|exception))\b", re.I)
#: "line with ERROR", "line containing NCCL WARN": the words the line must hold
_WITH = re.compile(r"\blines? (?:with|containing|that (?:says|has)|mentioning) ([\w:.-]+)")
#: a file the message names
_FILE = re.compile(r"\b([\w-]+\.(?:log|out|err|txt))\b|(?<!\w)(\.out|\.err)\b", re.I)
_RANK = re.compile(r"\brank ?(\d+)(?:'s|s')?\b(?! ?(?:-|and|,|&|/) ?\d)", re.I)
_LAST = re.compile(r"\blast\b", re.I)
_FIRST = re.compile(r"\bfirst\b", re.I)
#: a host's port in a line (`[127.0.0.1]:34470`, `10.0.0.5:29500`, `port: 54661`)
_PORT = re.compile(r"\[?(?:\d{1,3}(?:\.\d{1,3}){3}|localhost)\]?:(\d{2,5})\b|\bport:? ?(\d{2,5})\b", re.I)
_PORT_ASK = re.compile(r"\bports?\b", re.I)
#: a torchrun per-rank log path (`torchrun-logs/run_0/attempt_0/2/stderr.log`): its local rank
_ATTEMPT = re.compile(r"attempt_\d+/(\d+)/")
#: the port answer's sentence for a job whose kept lines name no port (`followups.PORT_NONE`)
_NO_PORT = "No port appears"
_NO_PORT_SENTENCE = re.compile(r"No port appears in this job's kept lines:[^.]*\.\s*")
#: most lines quoted in one answer
MAX_LINES = 6


def _rank_of(c: Ctx, ln: EvidenceLine) -> int | None:
    """The rank that printed `ln`: its own prefix, the tail it was kept from, or (one node) torchrun's
    local rank, which is the rank when the job ran on one node."""
    info = parse_rank(ln.text)
    if info.rank is not None:
        return info.rank
    single = len(c.view.nodes) <= 1
    if info.local is not None and single:
        return info.local
    if (tail := next((t.rank for t in c.d.tails if t.source == ln.source), None)) is not None:
        return tail
    found = _ATTEMPT.search(ln.source)
    return int(found.group(1)) if found and single else None


def _wanted(text: str) -> list[re.Pattern[str]]:
    """What the asked lines hold: the quoted fragments, the named kind, the exception, the `with` words."""
    out = [re.compile(re.escape(q.strip()), re.I) for q in answer_quote.QUOTED.findall(text)]
    out += [re.compile(re.escape(w), re.I) for w in _WITH.findall(text) if len(w) > 2]
    out += [line for said, line in _KINDS if said.search(text)]
    out += [re.compile(re.escape(e), re.I) for e in _EXC.findall(text)]
    return out


def _phrase(text: str, pool: list[EvidenceLine]) -> re.Pattern[str] | None:
    """The longest run of the message's words (3 to 8) some kept line holds: a fragment it quoted
    (the message reaches here lower-cased, its quote marks gone: "printed saving checkpoint to")."""
    words = re.findall(r"[\w.:/-]+", text.lower())
    lows = [ln.text.lower() for ln in pool]
    for n in range(min(8, len(words)), 2, -1):
        for i in range(len(words) - n + 1):
            run = words[i : i + n]
            if sum(w not in _FILLER for w in run) < 2:
                continue
            phrase = " ".join(run)
            if any(phrase in low for low in lows):
                return re.compile(re.escape(phrase), re.I)
    return None


#: words that make no fragment on their own
_FILLER = frozenset(
    [
        "the",
        "a",
        "an",
        "to",
        "of",
        "in",
        "on",
        "at",
        "and",
        "or",
        "for",
        "with",
        "from",
        "by",
        "is",
        "was",
        "it",
        "its",
        "that",
        "this",
        "what",
        "which",
        "line",
        "lines",
        "rank",
        "ranks",
        "printed",
        "print",
        "did",
        "does",
        "say",
        "says",
        "log",
        "quote",
    ]
)


def _filtered(c: Ctx, text: str, lines: list[EvidenceLine]) -> list[EvidenceLine]:
    """The lines of the file and the rank the message names, when it names them."""
    files = [f.group(1) or f.group(2) for f in _FILE.finditer(text)]
    if files:
        lines = [ln for ln in lines if any(ln.source.lower().endswith(f.lower()) for f in files)]
    ranks = {int(r) for r in _RANK.findall(text)}
    if len(ranks) == 1:
        lines = [ln for ln in lines if _rank_of(c, ln) in ranks]
    return lines


def _chosen(c: Ctx, text: str) -> list[EvidenceLine]:
    """The kept lines the message asks for, in log order, one per rank and wording."""
    pool = sorted(answer_quote.pool(c), key=lambda ln: (ln.source, ln.line))
    wanted = _wanted(text)
    if not wanted and (phrase := _phrase(text, pool)) is not None:
        wanted = [phrase]
    if wanted:
        lines = [ln for ln in pool if any(w.search(ln.text) for w in wanted)]
    elif re.search(r"\blast line\b", text, re.I):
        lines = pool
    else:
        return []
    lines = _filtered(c, text, lines)
    if _LAST.search(text) and not _FIRST.search(text):
        by_source = {ln.source: ln for ln in lines}  # each file's last line
        lines = list(by_source.values())
    elif _FIRST.search(text):
        firsts: dict[str, EvidenceLine] = {}
        for ln in lines:  # each file's first line
            firsts.setdefault(ln.source, ln)
        lines = list(firsts.values())
    return _unique(c, lines)


def _unique(c: Ctx, lines: list[EvidenceLine]) -> list[EvidenceLine]:
    """One line per rank and wording: console.log and the rank's own file often keep the same line."""
    seen: set[tuple[int | None, str]] = set()
    out = []
    for ln in lines:
        key = (_rank_of(c, ln), re.sub(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*", "", ln.text)[:120])
        if key not in seen:
            seen.add(key)
            out.append(ln)
    return out


def _said(c: Ctx, ln: EvidenceLine, ports: bool) -> str:
    port = ""
    if ports and (found := _PORT.search(ln.text)) is not None:
        port = tp.PORT.format(port=found.group(1) or found.group(2))
    text = ln.text.strip()[:300]
    return tp.LINE.format(who=tp.who(_rank_of(c, ln), ln.source), ref=ln.ref, text=text) + port


def with_lines(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` led by the lines the message asks to see; a help or no-port answer is replaced by them."""
    if not _ASK.search(text):
        return got
    lines = _chosen(c, text)
    if not lines:
        return got
    shown = lines[:MAX_LINES]
    listed = "; ".join(_said(c, ln, bool(_PORT_ASK.search(text))) for ln in shown)
    many = len(shown) > 1
    lead = tp.LINES.format(s="s" if many else "", them="them" if many else "it", listed=listed)
    if len(lines) > len(shown):
        lead = lead[:-1] + tp.MORE.format(more=len(lines) - len(shown), them="them") + "."
    if got.intent == "help" or got.lead.startswith(_NO_PORT):
        return reply("quote", lead, shown)
    if any(_PORT.search(ln.text) for ln in shown):  # a port is named after all: not "no port appears"
        got = replace(
            got,
            lead=_NO_PORT_SENTENCE.sub("", got.lead),
            material=[_NO_PORT_SENTENCE.sub("", x) for x in got.material],
        )
    if all(ln.text.strip()[:80] in got.lead for ln in shown):
        return got
    return answer_join.first(replace(got), lead, shown)


__all__ = ["with_lines"]
