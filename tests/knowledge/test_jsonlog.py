"""Logs exported from a log platform as JSON lines are decoded before the scan (knowledge/jsonlog.py)."""

from __future__ import annotations

import json
from pathlib import Path

from denpex.core.models import LogSource
from knowledge import jsonlog
from knowledge.engine import Engine
from knowledge.sources import discover

TRACEBACK = [
    "[rank3]: Traceback (most recent call last):",
    '[rank3]:   File "train.py", line 3, in <module>',
    "[rank3]:     import flash_attn",
    "[rank3]: ModuleNotFoundError: No module named 'flash_attn'",
]


def _text(source: LogSource) -> str:
    return b"".join(source.open_bytes()).decode()


def _gcp(lines: list[str]) -> bytes:
    """Cloud Logging's export: the text in `textPayload`, among keys that come first."""
    return b"".join(
        json.dumps(
            {
                "insertId": f"x{i}",
                "severity": "ERROR",
                "textPayload": line + "\n",
                "timestamp": f"2024-05-01T1{i // 3600 % 10}:{i // 60 % 60:02d}:{i % 60:02d}.5Z",
            }
        ).encode()
        + b"\n"
        for i, line in enumerate(lines)
    )


def test_cloud_loggings_export_becomes_stamped_lines() -> None:
    out = _text(jsonlog.decode(LogSource(name="export.json", data=_gcp(TRACEBACK[:2]))))
    assert out.splitlines() == [
        "2024-05-01T10:00:00.5Z [rank3]: Traceback (most recent call last):",
        '2024-05-01T10:00:01.5Z [rank3]:   File "train.py", line 3, in <module>',
    ]


def test_journald_json_epoch_microseconds_and_a_record_of_several_lines() -> None:
    record = {"__REALTIME_TIMESTAMP": "1714557600123456", "MESSAGE": "a\nb", "_HOSTNAME": "gpu-07"}
    raw = json.dumps(record).encode() + b"\nnot a record\n"
    out = _text(jsonlog.decode(LogSource(name="journal.json", data=raw)))
    assert out.splitlines() == [
        "2024-05-01T10:00:00.123456Z a",
        "2024-05-01T10:00:00.123456Z b",
        "not a record",
    ]


def test_what_is_not_an_export_is_left_alone() -> None:
    for raw in (
        b'{"log":"x\\n","stream":"stderr","time":"2024-05-01T10:00:00Z"}\n',  # Docker's: dockerlog's
        b'{"event": "step", "loss": 1.2}\n',  # an app's structured log without a text field
        b"Traceback (most recent call last):\n",
    ):
        source = LogSource(name="c.log", data=raw)
        assert jsonlog.decode(source) is source


def test_an_export_is_diagnosed_as_the_job_printed_it(engine: Engine, tmp_path: Path) -> None:
    (tmp_path / "export.json").write_bytes(_gcp(TRACEBACK))
    diag = engine.diagnose(discover([tmp_path]))
    assert diag.category == "env_version_mismatch"
    assert diag.initiating.rank == 3


def test_a_large_export_is_decoded_streaming(engine: Engine, tmp_path: Path) -> None:
    """Beyond the in-memory limit the records are decoded chunk by chunk, never held whole."""
    filler = [f"[rank0]: step {i} loss 1.0" for i in range(40_000)]
    (tmp_path / "export.json").write_bytes(_gcp(filler + TRACEBACK))
    source = jsonlog.decode(discover([tmp_path / "export.json"])[0])
    assert source.chunks is not None and source.data is None
    diag = engine.diagnose(discover([tmp_path]))
    assert diag.category == "env_version_mismatch"
