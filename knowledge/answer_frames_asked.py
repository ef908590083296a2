"""The ranks' own traceback frames, when the message asks about a frame, a line of the script or the
backend's error a rank printed ("which line in save_checkpoint?", "traceback stops at
_state_dict_utils.py line 343", "ranks 0/2 got pair.cc:553 — why?").

Why: an answer about the rank's phase or role leaves out the frames the asker reads; each rank's
saved traceback gives its deepest frame in the user's code (with its source line), the frames the
message names and the innermost one, plus the error it ended in. Ranks with the same walk go
together; a collateral rank with no traceback is named with the launcher's word for its end.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.ranks import ranges
from denpex.core.texts import followups_frames as tf
from knowledge import answer_code
from knowledge.answer_code import Frame
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.lines import parse_rank

#: a message about frames, lines of the script, or the backend error a rank printed
_ASKS = re.compile(
    r"\bline \d+|\b\w+\.py\b|\bframes?\b|\btraceback\b|\btrace\b|\b(?:which|what) lines?\b"
    r"|\bwhere in (?:the |my |our )?(?:code|launcher|script)\b|pair\.cc|\bgloo\b"
    r"|connection (?:closed|reset)|\bbranch\b|\w\(\)"
    r"|\bwhat (?:were|was) (?:they|ranks? [\d,/&\s-]+|the others|the rest) (?:actually |really )?doing\b"
    r"|\bwhere (?:were|was) (?:they|ranks? [\d,/&\s-]+) in (?:the |my |our )?(?:code|script)\b"
    # "exact line of code ranks 0-2 were blocked on?"
    r"|\bline of (?:\w+ )?(?:code|script)\b|\bexact line\b"
    # "where exactly in torchrun did it fail?", "what call actually blew up?"
    r"|\bwhere (?:exactly )?in (?:the )?(?:torchrun|launcher|agent)\b"
    r"|\b(?:what|which) (?:call|function)\b[^?]{0,20}\b(?:blew up|failed|raised|threw|crashed|broke)\b"
    # "in the middle of - forward, backward, fetching data?", "which _c10d_functional op was it inside?"
    r"|\bforward\b[^?]{0,20}\bbackward\b|\bbackward\b[^?]{0,20}\bforward\b|\bin the middle of\b"
    r"|\b(?:which|what) (?:\w+ )?(?:op|collective)\b[^?]{0,30}\b(?:inside|in|within)\b",
    re.IGNORECASE,
)
#: a name the message gives that a frame's function may carry ("backward", "_c10d_functional")
_NAME = re.compile(r"\b_?[a-z][a-z0-9]*(?:_[a-z0-9]+)*\b")
#: words too common to pick a frame by
_COMMON = frozenset(
    {"which", "what", "frame", "inside", "where", "there", "their", "thing", "actually", "rank"}
)
#: a quoted span of an earlier answer ("you said 1 and 3 'waited on rank 2'"): its ranks are not asked
_QUOTED = re.compile(r"(?<!\w)'[^']{3,80}'(?!\w)|\"[^\"]{3,80}\"|‘[^’]{3,80}’|“[^”]{3,80}”")
_RANKS = re.compile(r"\branks?\s*(\d+(?:\s*(?:,|/|-|–|and|&)\s*\d+)*)|^\s*(\d+(?:\s*(?:,|/|and|&)\s*\d+)+)\b")
_NUMBER = re.compile(r"\bline (\d+)|\.py:(\d+)")
_FILE = re.compile(r"\b(\w+\.py)\b")
_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")
_CC_PATH = re.compile(r"\[/\S*/(\w+\.cc:\d+)\]")
_PEER = re.compile(r"\s*\[[\d.]+\]:\d+")
_EXC = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*[\w.]*(?:Error|Exception)\b")
_OTHERS = re.compile(r"\b(?:the )?others\b|\bthe rest\b|\bother ranks\b|\beveryone else\b")
_TAIL = re.compile(r"\.?\s+This is typically.*$")


#: "you said 1 and 3 waited on rank 2": the bare ranks the earlier answer is quoted about are the asked ones
_SAID_BARE = re.compile(
    r"\b(?:said|say|says|claim(?:ed)?)\s+(?:that\s+)?(\d+(?:\s*(?:,|/|and|&)\s*\d+)+)\b(?!\s*(?:%|s\b|gib|gb|min))"
)


def _named(text: str, known: set[int]) -> list[int]:
    out: set[int] = set()
    bare = _SAID_BARE.search(text)
    found = [bare] if bare is not None else _RANKS.finditer(_QUOTED.sub(" ", text))
    for m in found:
        for part in re.split(r"\s*(?:,|/|and|&)\s*", m.group(1) or m.group(2) or ""):
            lo, _, hi = part.replace("–", "-").partition("-")
            if lo.strip().isdigit():
                top = int(hi) if hi.strip().isdigit() else int(lo)
                out.update(range(int(lo), top + 1))
    return sorted(out & known)


def _code(lines: list[EvidenceLine], f: Frame) -> str:
    after = [ln for ln in lines if ln.source == f.line.source and ln.line == f.line.line + 1]
    text = _PREFIX.sub("", after[0].text).strip() if after else ""
    return "" if not text or text.startswith("File ") else text[:140]


def _walk(text: str, frames: list[Frame], lines: list[EvidenceLine]) -> list[Frame]:
    """The deepest user frame, the frames the message names, the innermost frame, in stack order."""
    users = [f for f in frames if f.user]
    numbers = {int(a or b) for a, b in _NUMBER.findall(text)}
    files = {f.lower() for f in _FILE.findall(text)}
    keep = [users[-1]] if users else []
    keep += [f for f in frames if f.number in numbers]
    for name in files:  # a named file: its deepest frame
        keep += [f for f in frames if f.path.rsplit("/", 1)[-1].lower() == name][-2:]  # and its caller
    names = {w for w in _NAME.findall(text.lower()) if len(w) >= 7 and w not in _COMMON}
    keep += [f for f in frames if any(n in f.func.lower() or n in _code(lines, f).lower() for n in names)][:3]
    keep.append(frames[-1])
    seen: dict[tuple[str, int], Frame] = {(f.path, f.number): f for f in keep}
    return sorted(seen.values(), key=lambda f: frames.index(f))


def _raised(
    lines: list[EvidenceLine], frames: list[Frame], first: EvidenceLine | None
) -> EvidenceLine | None:
    """The exception line after the traceback's innermost frame, else the rank's first failure line."""
    last = frames[-1].line
    after = [ln for ln in lines if ln.source == last.source and ln.line > last.line + 1]
    return next((ln for ln in after if _EXC.search(ln.text)), first)


def _error(line: EvidenceLine | None) -> str:
    if line is None or 'File "' in line.text:
        return ""
    text = _TAIL.sub("", _PEER.sub("", _CC_PATH.sub(r"[\1]", _PREFIX.sub("", line.text).strip())))
    return text if len(text) <= 150 else text[:150] + "…"


def _sentences(c: Ctx, text: str, ranks: list[int]) -> list[str]:
    groups: dict[tuple[str, str], list[int]] = {}
    stopped: dict[str, list[int]] = {}
    for rank in ranks:
        r = c.view.ranks[rank]
        _, frames, lines = answer_code.traceback(c, rank)
        if frames:
            walk = [
                tf.frame(f.path.rsplit("/", 1)[-1], f.number, f.func, _code(lines, f))
                for f in _walk(text, frames, lines)
            ]
            groups.setdefault((tf.chain(walk), _error(_raised(lines, frames, r.first_line))), []).append(rank)
        elif r.first_line is not None and "Signal" in r.first_line.text:
            stopped.setdefault(_PREFIX.sub("", r.first_line.text).strip(), []).append(rank)
    out = [tf.ranks_frames(ranges(rs), len(rs) > 1, walk, err) for (walk, err), rs in groups.items()]
    out += [tf.no_traceback(ranges(rs), len(rs) > 1, end) for end, rs in stopped.items()]
    if any("pair.cc" in err for _, err in groups):
        out.append(tf.GLOO_PEER)
    return out


def _launcher(c: Ctx, text: str) -> list[str]:
    """The launcher's traceback when no rank started: the unranked frames of the saved lines."""
    lines = [ln for t in c.d.tails for ln in t.lines] + list(c.view.evidence)
    own = sorted(
        {(ln.source, ln.line): ln for ln in lines if parse_rank(ln.text).rank is None}.values(),
        key=lambda ln: (ln.source, ln.line),
    )
    frames = answer_code._frames(own)
    if not frames:
        return []
    walk = [
        tf.frame(f.path.rsplit("/", 1)[-1], f.number, f.func, _code(own, f)) for f in _walk(text, frames, own)
    ]
    error = _error(c.view.evidence[0]) if c.view.evidence else ""
    return [tf.LAUNCHER.format(walk=tf.chain(walk), error=error)]


def with_frames(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the ranks' frames the message asks about, those the answer does not give yet."""
    if not _ASKS.search(text):
        return got
    known = set(c.view.ranks)
    failing = sorted(r.rank for r in c.view.ranks.values() if r.role != "healthy")
    named = _named(text, known)
    ranks = sorted(set(named) | set(failing)) if not named or _OTHERS.search(text) else named
    said = _sentences(c, text, ranks) if known else _launcher(c, text)
    new = [s for s in said if not _given(s, got.lead)]
    if not new:
        return got
    if got.intent == "help":  # "which engine frame OOMed?" matched no intent: the frames are the answer
        return reply("show_lines", " ".join(new), c.view.key_line())
    ini = c.view.initiating
    if named and ini is not None and ini.rank not in named and got.lead.startswith(f"Rank {ini.rank}'s"):
        # "exact line of code ranks 0-2 were blocked on?": theirs first, then the first rank's
        return replace(got, lead=f"{' '.join(new)} {got.lead}".strip())
    return replace(got, lead=f"{got.lead} {' '.join(new)}".strip())


def _given(sentence: str, lead: str) -> bool:
    """Whether the answer already says the sentence's frames and error."""
    marks = re.findall(r"line \d+|`[^`]{4,40}`", sentence)
    return bool(marks) and all(m.strip("`") in lead for m in marks)
