"""Streaming one log source through the pattern database in bounded memory.

A source is read in large chunks into one reused buffer; each chunk is scanned up to its last line
break and the partial line is carried into the next. Hit offsets become line numbers by counting
line breaks between hits. Only hit lines (with a little context) and the tail are decoded and kept,
so memory stays flat however large the log is, and there is no Python loop over every line.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from types import ModuleType

from denpex.core.models import LogSource
from knowledge import lines
from knowledge.lines import Stamp  # `SourceScan.lines` shadows the module inside that class
from knowledge.patterns import PatternSet
from knowledge.phases import PhaseMark
from knowledge.sources import open_reader

_np: ModuleType | None = None  # numpy, imported on the first big chunk (~0.07 s: not for small logs)
_np_tried = False

#: UTF-8 no-break space: what a copy from a web page or a notebook puts between words; read as spaces
_NBSP = b"\xc2\xa0"


def _no_nbsp(mv: memoryview, pos: int, n: int) -> int:
    """Turn the no-break spaces of the `n` bytes just read at `pos` into plain spaces, in place (the
    patterns are written for spaces); return how many bytes remain. Logs without one cost one search."""
    if mv.obj.find(_NBSP, pos, pos + n) < 0:  # type: ignore[attr-defined]
        return n
    fixed = bytes(mv[pos : pos + n]).replace(_NBSP, b" ")
    mv[pos : pos + len(fixed)] = fixed
    return len(fixed)


def _numpy() -> ModuleType | None:
    """numpy where installed: counting line breaks is the other per-byte cost, and it is ~5x faster."""
    global _np, _np_tried
    if not _np_tried:
        _np_tried = True
        try:
            _np = importlib.import_module("numpy")
        except ImportError:  # pragma: no cover
            _np = None
    return _np


#: 2 MB: the chunk (and the line-break mask numpy makes of it) stay in L2 between the read, the scan and
#: the count; measured faster than 8-16 MB chunks, which make all three stream from memory
CHUNK = 2 << 20
TAIL_BYTES = 64 << 10
TAIL_LINES = 20
CONTEXT_LINES = 2
LOOKBACK_BYTES = 32 << 10
CHUNK_END_LOOKBACK = 4 << 10
HIT_CAP = 200  # hits kept per pattern per source; more would only repeat the same evidence
SOURCE_CAP = 2000  # hits kept per source in all, so a pathological log cannot exhaust memory
MASK_CAP = 5000
PHASE_CAP = 2000  # phase-marker hits kept per marker per source; consecutive repeats fold into one mark
PHASE_MARKS = 4000  # folded marks kept per source (the numbered tail covers the end of every log)
TAIL_NUMBERED = 400


@dataclass(slots=True)
class LineHit:
    """A retained line that matched one or more patterns."""

    line: int  # 1-based line number in the source
    text: str  # cleaned, not yet masked
    patterns: list[int]
    rank: lines.RankInfo
    stamp: lines.Stamp | None
    secondhand: bool = False  # reported by a launcher about another process (torchrun summary)
    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)


@dataclass(slots=True)
class SourceScan:
    source: LogSource
    hits: list[LineHit] = field(default_factory=list)
    tail: list[tuple[int, str]] = field(default_factory=list)
    tail_text: list[str] = field(default_factory=list)  # more tail lines, for step parsing
    lines: int = 0
    bytes: int = 0
    masks: dict[int, set[int]] = field(default_factory=dict)  # line -> mask pattern idxs
    first_stamp: Stamp | None = None  # of the first timestamped line near the start: the run's start
    phases: list[PhaseMark] = field(default_factory=list)  # phase markers in line order, repeats folded
    numbered_tail: list[tuple[int, str]] = field(default_factory=list)  # the last lines with their numbers


class _Reader:
    """Fills a buffer from a source: `readinto` for files (no copies), copies for in-memory chunks."""

    def __init__(self, source: LogSource) -> None:
        self._it: Iterator[bytes] | None = None
        self._pending = memoryview(b"")
        self._fh = open_reader(source)  # the file a collector handed on (never reopened), or `path`
        if self._fh is None:
            self._it = iter(source.open_bytes())

    def fill(self, mv: memoryview, start: int) -> int:
        """Fill `mv[start:]` as far as the source allows; return the bytes added (0 at the end)."""
        pos, size = start, len(mv)
        while pos < size:
            if self._fh is not None:
                n = self._fh.readinto(mv[pos:])
                if not n:
                    break
                pos += _no_nbsp(mv, pos, n)
                continue
            if not self._pending:
                nxt = next(self._it, None) if self._it is not None else None
                if nxt is None:
                    break
                self._pending = memoryview(nxt).cast("B")
            take = min(len(self._pending), size - pos)
            mv[pos : pos + take] = self._pending[:take]
            self._pending = self._pending[take:]
            pos += _no_nbsp(mv, pos, take)
        return pos - start

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()


@dataclass(slots=True)
class _State:
    year: int
    line_base: int = 0  # line breaks before the current buffer start
    last_stamp: lines.Stamp | None = None
    tail: bytes = b""
    last_byte: int = 10
    known: tuple[int, lines.Stamp | None] = (-1, None)  # (line start offset, stamp) memo for look-back
    #: who wrote the line `known`'s stamp came from (a combined stream's prefix), if it said
    known_writer: lines.RankInfo = field(default_factory=lines.RankInfo)
    started: bool = False  # the first chunk was seen (its head gives the run's start time)


class Scanner:
    """Scans sources with one `PatternSet`; owns the reused chunk buffer (one scanner per thread)."""

    def __init__(self, patterns: PatternSet, chunk: int = CHUNK) -> None:
        self.patterns = patterns
        self.kinds = [p.kind for p in patterns.patterns]
        #: progress markers (reported once a chunk): on a line that also says more, the other one wins
        self.frequent = {p.idx for p in patterns.patterns if p.kind == "phase" and p.single}
        self.buf = bytearray(chunk)

    def scan(self, source: LogSource, year: int, progress: Callable[[int], None] | None = None) -> SourceScan:
        """Scan one source; `progress(n)` is called with the bytes of this source read so far."""
        out = SourceScan(source=source)
        budget = [MASK_CAP if k == "mask" else PHASE_CAP if k == "phase" else HIT_CAP for k in self.kinds]

        state = _State(year=year)
        buf, mv = self.buf, memoryview(self.buf)
        reader = _Reader(source)
        carry = 0
        try:
            while True:
                added = reader.fill(mv, carry)
                out.bytes += added
                end = carry + added
                if end == 0:
                    break
                final = added == 0 or end < len(buf)
                scan_end = end
                if not final:
                    nl = buf.rfind(b"\n", 0, end)
                    if nl >= 0 and end - nl - 1 <= len(buf) // 2:  # else a giant line: scan it in pieces
                        scan_end = nl + 1
                self._process(out, state, scan_end, budget)
                carry = end - scan_end
                if carry:
                    buf[:carry] = buf[scan_end:end]
                if progress is not None:
                    progress(out.bytes)
                if final:
                    break
        finally:
            reader.close()
        self._finish(out, state)
        return out

    def _process(self, out: SourceScan, state: _State, scan_end: int, budget: list[int]) -> None:
        buf = self.buf
        if not state.started:
            state.started = True
            out.first_stamp = _first_stamp(buf, scan_end, state.year)
        hits = self.patterns.scan(buf, budget, end=scan_end)
        state.known = (-1, state.last_stamp)
        positions = []
        for _idx, end in hits:
            pos = min(max(end - 1, 0), scan_end - 1)
            while pos > 0 and buf[pos] == 10:  # a match may end on the line break itself
                pos -= 1
            positions.append(pos)
        breaks, numbers = _line_numbers(buf, scan_end, positions)
        last: LineHit | None = None
        for (idx, _end), pos, before in zip(hits, positions, numbers, strict=True):
            line_no = state.line_base + before + 1
            if self.kinds[idx] == "mask":
                out.masks.setdefault(line_no, set()).add(idx)
                continue
            if self.kinds[idx] == "phase":
                self._phase_mark(out, state, pos, scan_end, line_no, idx)
                continue
            if last is not None and last.line == line_no:
                if idx not in last.patterns:
                    last.patterns.append(idx)
                continue
            if len(out.hits) >= SOURCE_CAP:
                continue
            last = self._line_hit(out, state, pos, scan_end, line_no, idx)
            out.hits.append(last)
        state.line_base += breaks
        # what the next chunk's first lines inherit; a short look-back keeps timestamp-less logs cheap
        state.last_stamp = self._stamp_before(state, scan_end, CHUNK_END_LOOKBACK)
        state.tail = (state.tail + bytes(buf[max(0, scan_end - TAIL_BYTES) : scan_end]))[-TAIL_BYTES:]
        state.last_byte = buf[scan_end - 1]

    def _line_hit(
        self, out: SourceScan, state: _State, pos: int, scan_end: int, line_no: int, idx: int
    ) -> LineHit:
        buf = self.buf
        ls = buf.rfind(b"\n", 0, pos) + 1
        le = buf.find(b"\n", pos, scan_end)
        le = scan_end if le < 0 else le
        a, b = max(ls, pos - 8192), min(le, pos + 8192)
        raw = bytes(buf[a:b])
        rel = pos - a
        seg = raw[raw.rfind(b"\r", 0, rel) + 1 : (raw.find(b"\r", rel) + 1 or len(raw) + 1) - 1]
        text = lines.clean(lines.decode(seg))
        head = lines.clean(lines.decode(bytes(buf[ls : min(le, ls + 400)]).split(b"\r")[0]))
        rank = lines.parse_rank(text)
        if rank.rank is None and rank.local is None:
            rank = lines.parse_rank(head)
        stamp = lines.parse_timestamp(text, state.year) or lines.parse_timestamp(head, state.year)
        writer = rank
        if stamp is None:
            stamp, writer = self._stamp_and_writer(state, ls)
            if stamp is not None and _other_writer(writer, rank):
                stamp = replace(stamp, borrowed=True)
        state.known, state.known_writer = (ls, stamp), writer
        hit = LineHit(line=line_no, text=text, patterns=[idx], rank=rank, stamp=stamp)
        if rank.rank is None or (rank.task is not None and rank.rank == rank.task and rank.local is None):
            self._reported(hit, ls)  # (a bare srun label may stand on a line of torchrun's summary)
        if len(out.hits) < 64:
            hit.before, hit.after = self._context(ls, le, scan_end)
        return hit

    def _phase_mark(
        self, out: SourceScan, state: _State, pos: int, scan_end: int, line_no: int, idx: int
    ) -> None:
        """Keep a phase marker; a repeat of the previous marker only extends it (progress lines repeat
        thousands of times, and only where a phase changed matters)."""
        marks = out.phases
        if marks and marks[-1].marker == idx:
            marks[-1].last_line = line_no
            return
        if marks and marks[-1].line == line_no:
            if marks[-1].marker in self.frequent and idx not in self.frequent:
                marks.pop()  # `loss=0.29 … SAVING CHECKPOINT`: the save is what the line says
            else:
                return  # one marker a line is enough
        if len(marks) >= PHASE_MARKS:
            del marks[: PHASE_MARKS // 2]  # the latest marks matter most: failures end logs
        buf = self.buf
        ls = buf.rfind(b"\n", 0, pos) + 1
        le = buf.find(b"\n", pos, scan_end)
        le = scan_end if le < 0 else le
        a, b = max(ls, pos - 2048), min(le, pos + 2048)
        raw, rel = bytes(buf[a:b]), pos - a
        seg = raw[
            raw.rfind(b"\r", 0, rel) + 1 : (raw.find(b"\r", rel) + 1 or len(raw) + 1) - 1
        ]  # the \r part
        text = lines.clean(lines.decode(seg))
        stamp = lines.parse_timestamp(text, state.year) or self._stamp_before(state, ls)
        marks.append(PhaseMark(line_no, idx, text, lines.parse_rank(text).rank, stamp, line_no))

    def _reported(self, hit: LineHit, ls: int) -> None:
        """Lines inside torchrun's failure summary describe another rank: mark them second-hand."""
        rep = lines.reported_rank(hit.text)
        p = ls
        for _ in range(12):
            if rep is not None or p <= 0:
                break
            prev = self.buf.rfind(b"\n", 0, p - 1) + 1
            rep = lines.reported_rank(lines.decode(bytes(self.buf[prev : min(p, prev + 300)])))
            if rep is not None and hit.rank.task is not None and rep.task != hit.rank.task:
                rep = None  # another srun task's (node's) summary, interleaved in the combined stream
            p = prev
        if rep is None and hit.rank.rank is not None:
            return  # a bare srun label outside any summary: the label is the rank
        if rep is not None:
            hit.rank = rep
            hit.secondhand = True
            return
        if (relayed := self._relayed(ls)) is not None:
            hit.rank = relayed  # the child's own traceback, relayed by spawn: its words, not a report

    def _relayed(self, ls: int) -> lines.RankInfo | None:
        """The spawn header above a line of a child's relayed traceback (`-- Process 1 terminated with
        the following error:`), looking back over at most `RELAY_LOOKBACK` lines."""
        p = ls
        for _ in range(lines.RELAY_LOOKBACK):
            if p <= 0:
                return None
            prev = self.buf.rfind(b"\n", 0, p - 1) + 1
            head = bytes(self.buf[prev : min(p, prev + 200)])
            if b"-- Process" in head:
                return lines.relayed_rank(lines.decode(head))
            p = prev
        return None

    def _stamp_before(self, state: _State, ls: int, budget: int = LOOKBACK_BYTES) -> lines.Stamp | None:
        """The timestamp of the nearest earlier line that has one, looking back a bounded amount."""
        return self._stamp_and_writer(state, ls, budget)[0]

    def _stamp_and_writer(
        self, state: _State, ls: int, budget: int = LOOKBACK_BYTES
    ) -> tuple[lines.Stamp | None, lines.RankInfo]:
        """The nearest earlier timestamp and who wrote its line (its rank prefix, if any)."""
        buf = self.buf
        limit = max(0, ls - budget)
        p = ls
        while p > limit:
            if p <= state.known[0]:
                return state.known[1], state.known_writer
            prev = max(buf.rfind(b"\n", limit, p - 1) + 1, limit)
            head = lines.clean(lines.decode(bytes(buf[prev : min(p, prev + 200)]).split(b"\r")[0]))
            st = lines.parse_timestamp(head, state.year) if head else None
            if st is not None:
                return st, lines.parse_rank(head)
            p = prev
        return (state.last_stamp if limit == 0 else None), lines.RankInfo()

    def _context(self, ls: int, le: int, scan_end: int) -> tuple[list[str], list[str]]:
        buf = self.buf
        before: list[str] = []
        p = ls
        for _ in range(CONTEXT_LINES):
            if p <= 0:
                break
            prev = buf.rfind(b"\n", 0, p - 1) + 1
            before.insert(0, lines.clean(lines.decode(bytes(buf[prev : min(p - 1, prev + 2048)]))))
            p = prev
        after: list[str] = []
        p = le + 1
        for _ in range(CONTEXT_LINES):
            if p >= scan_end:
                break
            nxt = buf.find(b"\n", p, scan_end)
            nxt = scan_end if nxt < 0 else nxt
            after.append(lines.clean(lines.decode(bytes(buf[p : min(nxt, p + 2048)]))))
            p = nxt + 1
        return before, after

    def _finish(self, out: SourceScan, state: _State) -> None:
        out.lines = state.line_base + (1 if out.bytes and state.last_byte != 10 else 0)
        parts = state.tail.split(b"\n")
        if state.last_byte == 10 and parts and parts[-1] == b"":
            parts.pop()
        if out.bytes > len(state.tail) and parts:
            parts = parts[1:]  # the first piece is a cut line
        first = out.lines - len(parts) + 1
        keep_from = max(0, len(parts) - TAIL_NUMBERED)
        texts = [(first + i, lines.clean(lines.decode(parts[i]))) for i in range(keep_from, len(parts))]
        texts = [(n, t) for n, t in texts if t.strip()]
        out.tail = texts[-TAIL_LINES:]
        out.numbered_tail = texts[-TAIL_NUMBERED:]
        out.tail_text = [t for _, t in texts[-400:]]


def _other_writer(writer: lines.RankInfo, rank: lines.RankInfo) -> bool:
    """The stamp's line and the hit were written by different ranks, as their prefixes say (a
    combined console stream); a line without a prefix could be anyone's, so it never says so."""
    if writer.rank is not None and rank.rank is not None:
        return writer.rank != rank.rank
    return writer.local is not None and rank.local is not None and writer.local != rank.local


def _first_stamp(buf: bytearray, end: int, year: int, max_lines: int = 50) -> lines.Stamp | None:
    """The timestamp of the first of the opening `max_lines` lines that has one (one look per source)."""
    for raw in bytes(buf[: min(end, 16 << 10)]).split(b"\n")[:max_lines]:
        stamp = lines.parse_timestamp(lines.clean(lines.decode(raw[:300])), year)
        if stamp is not None:
            return stamp
    return None


def _line_numbers(buf: bytearray, end: int, positions: list[int]) -> tuple[int, list[int]]:
    """Line breaks in `buf[:end]`, and how many precede each of `positions` (sorted ascending)."""
    np = _numpy() if end >= 4096 else None
    if np is None:
        out, cur, n = [], 0, 0
        for pos in positions:
            n += buf.count(b"\n", cur, max(cur, pos))
            cur = max(cur, pos)
            out.append(n)
        return buf.count(b"\n", 0, end), out
    eq = np.frombuffer(buf, dtype=np.uint8, count=end) == 10
    out, cur, n = [], 0, 0
    for pos in positions:
        if pos > cur:
            n += int(np.count_nonzero(eq[cur:pos]))
            cur = pos
        out.append(n)
    return n + int(np.count_nonzero(eq[cur:])), out
