"""The streaming scanner: line numbers across chunk edges, odd bytes, tails, bounded retention."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from denpex.core.models import LogSource
from knowledge.patterns import Pattern, PatternSet
from knowledge.scanner import Scanner

PATTERNS = [
    Pattern(0, r"CUDA out of memory", False, "primary", "oom", "e1"),
    Pattern(1, r"watchdog caught", True, "collateral", "wd", "e2"),
    Pattern(2, r"^Traceback", False, "context", "tb", "e1", 1.0, 5),
    Pattern(3, r"password=\S+", False, "mask", "pw"),
]
VOCAB = [
    "step 1 loss 2.0",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB",
    "[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout",
    "Traceback (most recent call last):",
    "login password=hunter2 ok",
    "",
    "x" * 300,
]


def scan(data: bytes, chunk: int = 1 << 20) -> object:
    return Scanner(PatternSet(PATTERNS), chunk=chunk).scan(LogSource(name="t.log", data=data), 2026)


def expected_lines(text_lines: list[str]) -> dict[int, set[int]]:
    out: dict[int, set[int]] = {}
    for n, line in enumerate(text_lines, 1):
        for p in PATTERNS:
            flags = re.MULTILINE | (re.IGNORECASE if p.caseless else 0)
            if p.kind != "mask" and re.search(p.regex, line, flags):
                out.setdefault(n, set()).add(p.idx)
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(VOCAB), max_size=80), st.integers(min_value=700, max_value=4096))
def test_hit_line_numbers_match_a_line_by_line_reading(lines: list[str], chunk: int) -> None:
    """Lines shorter than half a chunk are never split, whatever the chunk edges."""
    data = "".join(line + "\n" for line in lines).encode()
    result = scan(data, chunk)
    got = {h.line: set(h.patterns) for h in result.hits}
    assert got == expected_lines(lines)
    assert result.bytes == len(data)
    assert result.lines == len(lines)


def test_crlf_ansi_progress_bars_and_invalid_utf8() -> None:
    data = (
        b"\x1b[32mstep 1\x1b[0m\r\n"
        b" 10%|#   |\r 90%|### | CUDA out of memory here\r100%|####|\r\n"
        b"\xff\xfe bad bytes CUDA out of memory \xc3\r\n"
    )
    result = scan(data)
    assert [h.line for h in result.hits] == [2, 3]
    assert result.hits[0].text == " 90%|### | CUDA out of memory here"
    assert "\ufffd" in result.hits[1].text
    assert "CUDA out of memory" in [t for _, t in result.tail][-1]


def test_megabyte_lines_are_truncated_and_still_scanned() -> None:
    data = b"a" * (3 << 20) + b" CUDA out of memory " + b"b" * (2 << 20) + b"\nnext line\n"
    result = scan(data, chunk=1 << 20)
    assert [h.line for h in result.hits] == [1]
    # retained text stays bounded (the hit's neighbourhood, a decoded line's cap); the 4,096-character
    # cut itself happens after masking, in the report
    assert "CUDA out of memory" in result.hits[0].text and len(result.hits[0].text) <= 16 << 10
    assert result.tail[-1] == (2, "next line")
    assert all(len(t) <= 16 << 10 for _, t in result.tail)


def test_empty_and_no_trailing_newline() -> None:
    empty = scan(b"")
    assert (empty.lines, empty.bytes, empty.hits, empty.tail) == (0, 0, [], [])
    tail = scan(b"one\ntwo CUDA out of memory")
    assert tail.lines == 2 and tail.hits[0].line == 2


def test_timestamps_inherit_from_an_earlier_line_across_chunks() -> None:
    lines = ["[2026-11-20 03:14:02,000] INFO step 9"] + ['  File "train.py", line 3'] * 30
    lines.append("torch.OutOfMemoryError: CUDA out of memory")
    result = scan(("\n".join(lines) + "\n").encode(), chunk=256)
    stamp = result.hits[0].stamp
    assert stamp is not None and stamp.iso() == "2026-11-20T03:14:02.000Z"


def test_secret_hits_are_recorded_per_line() -> None:
    result = scan(b"a\nlogin password=hunter2\n")
    assert result.masks == {2: {3}}


def test_file_sources_stream_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "rank0.log"
    path.write_bytes(b"ok\n" * 50_000 + b"CUDA out of memory\n")
    scanner = Scanner(PatternSet(PATTERNS), chunk=4096)
    seen: list[int] = []
    result = scanner.scan(LogSource(name="rank0.log", path=path), 2026, seen.append)
    assert result.hits[0].line == 50_001
    assert seen[-1] == path.stat().st_size and seen == sorted(seen)


def test_chunked_sources_are_reassembled() -> None:
    pieces = [b"step 1\nCUDA out", b" of memory\n", b"", b"tail\n"]
    src = LogSource(name="pod.log", chunks=lambda: iter(pieces))
    result = Scanner(PatternSet(PATTERNS), chunk=1 << 16).scan(src, 2026)
    assert [h.line for h in result.hits] == [2]


def test_python_fallback_finds_the_same_hits(monkeypatch: pytest.MonkeyPatch) -> None:
    import knowledge.patterns as patterns_module

    data = "".join(line + "\n" for line in VOCAB * 3).encode()
    fast = Scanner(PatternSet(PATTERNS), chunk=1024).scan(LogSource(name="a", data=data), 2026)
    monkeypatch.setattr(patterns_module, "hyperscan", None)
    slow_set = PatternSet(PATTERNS)
    assert slow_set.backend == "python"
    slow = Scanner(slow_set, chunk=1024).scan(LogSource(name="a", data=data), 2026)

    def found(scan: object) -> list[tuple[int, list[int]]]:
        return [(h.line, sorted(h.patterns)) for h in scan.hits]  # type: ignore[attr-defined]

    assert found(fast) == found(slow)
    assert fast.masks == slow.masks
