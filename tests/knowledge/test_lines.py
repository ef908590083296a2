"""Parsers of single log lines: rank prefixes, timestamps, cleaning."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from knowledge.lines import clean, clip, parse_rank, parse_step, parse_timestamp, reported_rank, segments


def at(*args: int) -> float:
    return datetime(*args, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("line", "rank", "local"),
    [
        ("[rank3]: torch.OutOfMemoryError: CUDA out of memory", 3, None),
        ("[rank12]:[E817 17:40:34.227531918 ProcessGroupNCCL.cpp:1515] boom", 12, None),
        ("3: Traceback (most recent call last):", 3, None),
        ("  17: RuntimeError: NCCL error", 17, None),
        ("[default3]:Traceback (most recent call last):", None, 3),
        ("[default0]:[rank12]: RuntimeError: CUDA error", 12, 0),
        ("[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout", 1, None),
        ("[PG 0 (default_pg) Rank 12] Process group watchdog thread terminated", 12, None),
        ("Rank 7 hit an error", 7, None),
        ("  rank      : 3 (local_rank: 3)", 3, 3),
        ("Running: python train.py --local_rank=1 --deepspeed ds.json", None, 1),
        ("gpu-01:2001:2001 [5] NCCL WARN Error while creating shared memory segment", None, 5),
        ("2026-11-20 03:14:02 INFO step 100 loss 2.1", None, None),
        ("03:14:02 nothing to see", None, None),
    ],
)
def test_rank_prefixes(line: str, rank: int | None, local: int | None) -> None:
    info = parse_rank(line)
    assert (info.rank, info.local) == (rank, local)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("2026-11-20T03:14:02.123Z something", at(2026, 11, 20, 3, 14, 2) + 0.123),
        ("2026-11-20T05:14:02+02:00 something", at(2026, 11, 20, 3, 14, 2)),
        ("[2026-11-20 03:14:02,123] [INFO] step", at(2026, 11, 20, 3, 14, 2) + 0.123),
        ("[Fri Nov 20 03:14:02 2026] NVRM: Xid (PCI:0000:05:00): 79", at(2026, 11, 20, 3, 14, 2)),
        ("I1120 03:14:02.123456 1234 main.cc:10] hi", at(2026, 11, 20, 3, 14, 2) + 0.123456),
        (
            "[rank12]:[E817 17:40:34.227531 ProcessGroupNCCL.cpp:1515] x",
            at(2026, 8, 17, 17, 40, 34) + 0.227531,
        ),
        ("Nov 20 03:14:02 gpu-07 kernel: NVRM: Xid", at(2026, 11, 20, 3, 14, 2)),
        ("Nov 20 03:14:02.500123 gpu-07 kernel: oom-kill", at(2026, 11, 20, 3, 14, 2) + 0.500123),
        ("  time      : 2026-11-20_03:14:03", at(2026, 11, 20, 3, 14, 3)),
        ("2026/11/20 03:14:02 worker started", at(2026, 11, 20, 3, 14, 2)),
    ],
)
def test_absolute_timestamps(line: str, expected: float) -> None:
    st = parse_timestamp(line, year=2026)
    assert st is not None and not st.relative
    assert st.value == pytest.approx(expected, abs=1e-5)


def test_raw_dmesg_is_relative_and_missing_is_none() -> None:
    st = parse_timestamp("[12345.678901] NVRM: Xid (PCI:0000:05:00): 79")
    assert st is not None and st.relative and st.value == pytest.approx(12345.678901)
    assert parse_timestamp("no time here") is None
    assert parse_timestamp("2026-13-45 99:99:99 impossible") is None
    assert parse_timestamp("0001-01-01T00:00:00+14:00 before year one") is None
    assert parse_timestamp("9999-12-31T23:59:59-14:00 after year 9999") is None


def test_iso_rendering() -> None:
    st = parse_timestamp("[2026-11-20 03:14:02,123] x")
    assert st is not None and st.iso() == "2026-11-20T03:14:02.123Z"


def test_clean_strips_ansi_and_keeps_last_progress_segment() -> None:
    assert clean("\x1b[31mERROR\x1b[0m: boom\r\n") == "ERROR: boom"
    assert clean(" 10%|#  |\r 50%|#####|\r100%|##########|") == "100%|##########|"
    assert segments("a\rb\r\rc") == ["a", "b", "c"]
    # clean() no longer cuts: a secret straddling a cut would survive masking; lines are cut after it
    assert clip(clean("x" * 100_000)) == "x" * 4096 + "…"


def test_launcher_reports_and_steps() -> None:
    rep = reported_rank(
        "torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) "
        "local_rank: 3 (pid: 1234) of binary: /usr/bin/python3"
    )
    assert rep is not None and rep.local == 3
    assert reported_rank("  rank      : 5 (local_rank: 1)") is not None
    assert reported_rank("ordinary line") is None
    assert parse_step("[INFO] step 120 loss 2.1") == 120
    assert parse_step("iteration     4500/  100000 | consumed samples") == 4500
    assert parse_step("global_step=77") == 77
    assert parse_step("loss 2.1") is None
