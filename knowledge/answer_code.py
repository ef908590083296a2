"""Answers from a rank's own traceback: where in the user's code it failed, its stack, the collective
each rank was in.

"Where in my code did it fail?" wants the user's frame (`train.py` line 142, in `reduce_metric`),
not the library's error line, so the traceback lines the diagnosis saved for a rank (its tail and its
evidence) are read here: the deepest frame outside site-packages is the user's, the innermost
`torch.distributed` frame names the collective it was blocked in. Ranks in different collectives
are a desync even when the only errors are the backend's own timeouts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from knowledge import answer_lines, answer_quote, answer_silent
from knowledge.answer_types import Ctx, Reply, rank_lines, reply
from knowledge.answer_types import rank_list as rl
from knowledge.glossary import find
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView

_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')
_LIBRARY = re.compile(r"/(?:site-packages|dist-packages)/|/lib/python\d[\d.]*/|^<|^/usr/lib/")
_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")
_PACKAGE = re.compile(r"/(?:site|dist)-packages/([\w.]+(?:/[\w.]+)?)/")
#: the torch.distributed calls a rank can block in (the innermost frame's function)
COLLECTIVES = frozenset(
    [
        "all_reduce",
        "broadcast",
        "all_gather",
        "all_gather_into_tensor",
        "reduce_scatter",
        "reduce_scatter_tensor",
        "barrier",
        "all_to_all",
        "all_to_all_single",
        "gather",
        "scatter",
        "reduce",
        "send",
        "recv",
        "all_gather_object",
        "broadcast_object_list",
        "gather_object",
        "scatter_object_list",
        "monitored_barrier",
    ]
)
#: questions after the user's code, not the library's lines
CODE_QUESTION = re.compile(
    r"\b(?:my|our|the user|your) (?:code|script|function|model|training loop)\b"
    r"|\bwhich (?:line|file|function)\b|\bline of (?:my |the |our )?(?:code|script)\b"
    r"|\bwhat (?:line|function)\b"
)
STACK_QUESTION = re.compile(r"\b(?:stack|traceback|trace|backtrace|frames?)\b")


@dataclass(frozen=True, slots=True)
class Frame:
    line: EvidenceLine
    path: str
    number: int
    func: str

    @property
    def user(self) -> bool:
        return _LIBRARY.search(self.path) is None


def _clean(text: str) -> str:
    return _PREFIX.sub("", text).strip()


def _frames(lines: list[EvidenceLine]) -> list[Frame]:
    out = []
    for ln in lines:
        m = _FRAME.search(ln.text)
        if m:
            out.append(Frame(ln, m.group(1), int(m.group(2)), m.group(3)))
    return out


def traceback(c: Ctx, rank: int) -> tuple[str, list[Frame], list[EvidenceLine]]:
    """The rank's fullest saved traceback: its source, frames and lines (empty when it has none)."""
    best: tuple[str, list[Frame], list[EvidenceLine]] = ("", [], [])
    for source, lines in rank_lines(c, rank).items():
        frames = _frames(lines)
        users = sum(f.user for f in frames)
        if frames and (users, len(frames)) > (sum(f.user for f in best[1]), len(best[1])):
            best = (source, frames, lines)
    return best


def user_frame(c: Ctx, rank: int) -> tuple[Frame, str, str] | None:
    """The deepest frame of the user's code, its source line, and the library call it failed inside."""
    _, frames, lines = traceback(c, rank)
    users = [f for f in frames if f.user]
    if not users:
        return None
    deepest = users[-1]
    after = [ln for ln in lines if ln.line == deepest.line.line + 1]
    code = _clean(after[0].text) if after and not _FRAME.search(after[0].text) else ""
    below = [f for f in frames if not f.user and f.line.line > deepest.line.line] or _deeper(c, rank, lines)
    inner = ""
    if below:
        pkg = _PACKAGE.search(below[-1].path)
        inner = tf.inside(below[-1].func, pkg.group(1) if pkg else "")
    return deepest, code, inner


def _deeper(c: Ctx, rank: int, shown: list[EvidenceLine]) -> list[Frame]:
    """The library frames of another saved copy of the rank's traceback (torchrun's per-rank stderr
    next to the combined log), when the copy with the user's frame kept none below it; its
    torch.distributed frames first, since the innermost of them names the collective it was in."""
    others = [f for ls in rank_lines(c, rank).values() if ls != shown for f in _frames(ls) if not f.user]
    return [f for f in others if "/torch/distributed/" in f.path] or others


def where_in_code(c: Ctx, m: Match) -> Reply | None:
    if m.rank is None and _OTHERS.search(m.text) and (theirs := others_in_code(c)) is not None:
        return theirs  # "and the other three, where in my code were they?"
    r = _rank(c, m)
    if r is None:
        return None
    found = user_frame(c, r.rank)
    if found is None:
        _, frames, _ = traceback(c, r.rank)
        lines = [x for x in (r.first_line, _last(c, r)) if x is not None]
        lead = tf.no_user_frame(r.rank, bool(frames))
        steps = c.debug.get(c.view.category) or c.debug.get("default") or ()
        if not frames and steps:  # no traceback at all: how to get one next time
            lead += " " + tf.TRACE_NEXT_TIME.format(step=steps[0])
        return reply("code", lead, _unique(lines))
    frame, code, inner = found
    lead = tf.user_frame(r.rank, frame.path, frame.number, frame.func, code, inner)
    shown = [
        frame.line,
        *[ln for src in rank_lines(c, r.rank).values() for ln in src if _is_code_of(ln, frame)],
    ]
    if r.first_line is not None:
        shown.append(r.first_line)
    if _VERSUS.search(m.text) and (rows := collective_rows(c)[0]):  # "… vs the others": theirs too
        lead += " " + tf.collectives(rows)
    return reply("code", lead, _unique(shown))


#: a code question about the ranks other than the one that started it
_OTHERS = re.compile(
    r"\b(?:the )?(?:other|rest|remaining)\b(?: \w+)? (?:ranks?|procs?|processes|workers|ones|three|two|\d+)\b"
    r"|\bthe (?:others|rest)\b|\beveryone else\b"
)


def others_in_code(c: Ctx) -> Reply | None:
    """The collateral ranks' deepest frames in the user's code, ranks with the same frame together.
    Why: the others are where a desync shows (a different line than the rank that started it)."""
    groups: dict[tuple[str, int, str, str, str], list[int]] = {}
    shown: list[EvidenceLine] = []
    for r in c.view.with_role("collateral"):
        if (found := user_frame(c, r.rank)) is None:
            continue
        frame, code, inner = found
        key = (frame.path.rsplit("/", 1)[-1], frame.number, frame.func, code, inner)
        if key not in groups:
            shown.append(frame.line)
        groups.setdefault(key, []).append(r.rank)
    if not groups:
        return None
    rows = [tf.others_frame(rl(ranks), *key) for key, ranks in groups.items()]
    return reply("code", tf.others_frames(rows), shown)


#: a code question that compares the rank with the rest ("what line is rank 3 on vs the others")
_VERSUS = re.compile(r"\b(?:vs\.?|versus|compared|the others|the rest|other ranks|everyone else)\b")


def stack(c: Ctx, m: Match) -> Reply | None:
    """The rank's saved traceback, led by the user's deepest frame; None when it has none saved."""
    r = _rank(c, m)
    if r is None:
        return None
    source, frames, lines = traceback(c, r.rank)
    if not frames and c.view.category == "segfault" and r.role == "initiating":
        return reply(
            "show_lines", tf.NO_NATIVE_STACK.format(rank=r.rank), [r.first_line] if r.first_line else []
        )
    if not frames and answer_silent.silent(r):  # "show me rank 3's traceback" of the rank that went quiet
        return reply(
            "show_lines", tf.NO_STACK_SILENT.format(rank=r.rank), [r.first_line] if r.first_line else []
        )
    if not frames:
        return None
    start = frames[0].line.line - 1
    shown = [ln for ln in lines if ln.line >= start and not _clean(ln.text).startswith("^")]
    lead = tf.traceback_of(r.rank, source)
    found = user_frame(c, r.rank)
    if found is not None:
        frame, code, inner = found
        lead += " " + tf.user_frame(r.rank, frame.path, frame.number, frame.func, code, inner)
    return reply("show_lines", lead, shown[-answer_lines.TAIL_LINES :])


def show_lines(c: Ctx, m: Match) -> Reply | None:
    """A stack asked for gets the rank's traceback; anything else (or no traceback) the saved lines."""
    if CODE_QUESTION.search(m.text):
        return where_in_code(c, m)
    if BEFORE_QUESTION.search(m.text) and (got := lines_before(c, m)) is not None:
        return got
    if STACK_QUESTION.search(m.text) and (got := stack(c, m)) is not None:
        return got
    shown = answer_lines.show_lines(c, m)
    meaning = _quoted_meaning(c, m)
    if shown is None or not meaning or meaning in shown.lead:
        return shown
    return reply("show_lines", f"{shown.lead} {meaning}", shown.lines)


def _quoted_meaning(c: Ctx, m: Match) -> str:
    """ "Where does it say disk full? I only see `unexpected pos 1088 vs 982`": what the quoted words
    mean (a glossary term the question names and one of this job's lines holds)."""
    term = find(m.text, c.glossary)
    if term is None:
        return ""
    names = [x.lower() for x in (term.name, *term.aliases)]
    if not any(n in ln.text.lower() for ln in answer_quote.pool(c) for n in names):
        return ""
    return tf.QUOTED_MEANS.format(frag=term.name, meaning=term.text)


#: "the last lines before the traceback": what the rank printed just before it failed, not the stack
BEFORE_QUESTION = re.compile(
    r"\bbefore (?:the |its |that |it )?"
    r"(?:traceback|error|crash|stack|oom|failure|exception|died|failed|crashed|blew up|went down|broke"
    r"|fell over|exploded|dies|die|went boom)"
)
#: how many lines before the failure to quote
BEFORE_LINES = 5


def lines_before(c: Ctx, m: Match) -> Reply | None:
    """The rank's saved lines just before its traceback (or its first failure line)."""
    r = _rank(c, m)
    if r is None:
        return None
    source, frames, lines = traceback(c, r.rank)
    if frames:
        start = frames[0].line.line - 1
    elif r.first_line is not None:
        source, start = r.first_line.source, r.first_line.line
    else:
        return None
    own = rank_lines(c, r.rank).get(source, lines)
    shown = [ln for ln in own if ln.line < start and not _FRAME.search(ln.text)][-BEFORE_LINES:]
    if not shown:
        return None
    step = r.last_step_line  # the last progress line, when the few lines before the failure lack it
    if step is not None and step not in shown and step.source == source and step.line < start:
        shown.insert(0, step)
    failed = r.first_line  # then the line it failed with: "the last lines before it died" end there
    if failed is not None and failed not in shown:
        shown.append(failed)
    return reply("show_lines", tf.lines_before(r.rank, source), shown)


def collective_of(c: Ctx, rank: int) -> tuple[str, str] | None:
    """The collective a rank's traceback is blocked in, and where the user's code called it."""
    _, frames, _ = traceback(c, rank)
    ops = [f for f in frames if f.func in COLLECTIVES and "distributed" in f.path]
    if not ops:
        return None
    users = [f for f in frames if f.user and f.line.line < ops[-1].line.line]
    where = f"{users[-1].path.rsplit('/', 1)[-1]} line {users[-1].number}" if users else ""
    return ops[-1].func, where


def collective_rows(c: Ctx) -> tuple[list[str], str]:
    """Per collective, the ranks whose tracebacks are in it; and a desync sentence when one rank's
    collective differs from all the others'."""
    by_op: dict[tuple[str, str], list[int]] = {}
    for rank in sorted(c.view.ranks):
        got = collective_of(c, rank)
        if got is not None:
            by_op.setdefault(got, []).append(rank)
    rows = [tf.collective_row(rl(ranks), op, where) for (op, where), ranks in by_op.items()]
    ops: dict[str, list[int]] = {}
    for (op, _), ranks in by_op.items():
        ops.setdefault(op, []).extend(ranks)
    odd = ""
    if len(ops) == 2:
        (a, ra), (b, rb) = sorted(ops.items(), key=lambda kv: len(kv[1]))
        if len(ra) == 1 and len(rb) > 1:
            where = {op: w for (op, w), _ in by_op.items() if w}  # the user's line of each call
            odd = tf.mismatch(ra[0], a, rl(rb), b, where.get(a, ""), where.get(b, ""))
    return rows, odd


def desync_note(c: Ctx) -> str:
    """The desync the tracebacks show, if any (only for a collective failure: elsewhere it is noise)."""
    if not c.view.category.startswith("nccl"):
        return ""
    return collective_rows(c)[1]


_BATCH = re.compile(
    r"\b(?:batch (?:of|size)|seq(?:uence)?[_ ]len(?:gth)?|max_seq_len|longest sample|micro[_ ]?batch)\b", re.I
)


def batch(c: Ctx, m: Match) -> Reply | None:
    """The last line the rank printed about its batch (size, sequence length) before it failed."""
    r = _rank(c, m)
    if r is None:
        return None
    found = [ln for src in rank_lines(c, r.rank).values() for ln in src if _BATCH.search(ln.text)]
    if not found:
        return None
    last = found[-1]
    return reply("batch", tf.batch_line(r.rank, f"{last.source}:{last.line}", _clean(last.text)), [last])


def _rank(c: Ctx, m: Match) -> RankView | None:
    return c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating


def _last(c: Ctx, r: RankView) -> EvidenceLine | None:
    lines = [ln for src in rank_lines(c, r.rank).values() for ln in src]
    own = [t for t in c.d.tails if t.rank == r.rank]
    if own and own[0].lines:
        return own[0].lines[-1]
    return lines[-1] if lines else None


def _is_code_of(ln: EvidenceLine, frame: Frame) -> bool:
    return ln.source == frame.line.source and ln.line == frame.line.line + 1 and not _FRAME.search(ln.text)


def _unique(lines: list[EvidenceLine]) -> list[EvidenceLine]:
    seen: set[tuple[str, int]] = set()
    out = []
    for ln in lines:
        if (ln.source, ln.line) not in seen:
            seen.add((ln.source, ln.line))
            out.append(ln)
    return out


__all__ = ["batch", "collective_rows", "desync_note", "show_lines", "stack", "user_frame", "where_in_code"]
