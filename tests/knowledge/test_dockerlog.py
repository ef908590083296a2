"""Docker json-file logs are decoded before the scan: anchors, ranks and times hold as in plain text."""

from __future__ import annotations

import json
from pathlib import Path

from denpex.core.models import LogSource
from knowledge import dockerlog
from knowledge.engine import Engine
from knowledge.sources import discover

OOM = (
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
    "GPU 3 has a total capacity of 79.15 GiB of which 1.12 GiB is free.\n"
)


def _records(*logs: tuple[str, str]) -> bytes:
    """json-file lines as Docker writes them, one second apart."""
    return b"".join(
        json.dumps(
            {"log": text, "stream": stream, "time": f"2026-11-20T03:14:{i:02d}.123456789Z"},
            separators=(",", ":"),  # Docker's own compact form
        ).encode()
        + b"\n"
        for i, (stream, text) in enumerate(logs)
    )


def _text(source: LogSource) -> str:
    return b"".join(source.open_bytes()).decode()


def test_records_become_cri_lines_and_split_lines_are_joined() -> None:
    raw = _records(("stdout", "step 1 loss 2.0\n"), ("stderr", OOM[:40]), ("stderr", OOM[40:]))
    out = _text(dockerlog.decode(LogSource(name="c-json.log", data=raw)))
    assert out.splitlines() == [
        "2026-11-20T03:14:00.123456789Z stdout F step 1 loss 2.0",
        "2026-11-20T03:14:02.123456789Z stderr F " + OOM.rstrip("\n"),
    ]


def test_escaped_text_is_decoded() -> None:
    """Quotes, tabs and colour codes arrive JSON-escaped (the slow path); plain text takes the fast one."""
    raw = _records(("stderr", '\x1b[31mKeyError: "input_ids"\x1b[0m\tat step 3\n'), ("stdout", "step 4\n"))
    out = _text(dockerlog.decode(LogSource(name="c.log", data=raw))).splitlines()
    assert out[0].endswith('stderr F \x1b[31mKeyError: "input_ids"\x1b[0m\tat step 3')
    assert out[1] == "2026-11-20T03:14:01.123456789Z stdout F step 4"


def test_a_line_that_is_not_a_record_is_kept_and_plain_logs_are_untouched() -> None:
    raw = _records(("stderr", "Killed\n")) + b"not json at all\n"
    assert _text(dockerlog.decode(LogSource(name="c.log", data=raw))).splitlines()[1] == "not json at all"
    plain = LogSource(name="rank0.log", data=b'{"step": 1}\nKilled\n')
    assert dockerlog.decode(plain) is plain


def test_an_open_file_is_read_by_its_descriptor_not_reopened(tmp_path: Path) -> None:
    path = tmp_path / "c-json.log"
    path.write_bytes(_records(("stderr", OOM)))
    with path.open("rb", buffering=0) as fh:
        path.unlink()  # only the descriptor the collector checked still reaches the content
        decoded = dockerlog.decode(LogSource(name="c-json.log", file=fh))
        assert "CUDA out of memory" in _text(decoded)


def test_the_engine_reads_a_docker_log_like_the_plain_one(tmp_path: Path) -> None:
    (tmp_path / "trainer-json.log").write_bytes(
        _records(
            ("stdout", "[rank0]: step 100 loss 1.23\n"),
            ("stderr", "[rank3]: Traceback (most recent call last):\n"),
            ("stderr", OOM),
            ("stderr", "[rank0]: RuntimeError: [Rank 0] Watchdog caught collective operation timeout\n"),
        )
    )
    diag = Engine.load().diagnose(discover([tmp_path]))
    assert (diag.category, diag.initiating.rank) == ("gpu_oom", 3)
    assert diag.initiating.time is not None and diag.initiating.time.startswith("2026-11-20T03:14:02")
    assert diag.initiating.evidence[0].line == 3
