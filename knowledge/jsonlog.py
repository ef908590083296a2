"""A log exported from a log platform as JSON lines: one object a line, the job's text in one field.

Google Cloud Logging exports `{"textPayload": "...", "timestamp": "..."}`, `journalctl -o json` writes
`{"MESSAGE": "...", "__REALTIME_TIMESTAMP": "1714557600123456"}`, Loki and Grafana export
`{"line": "...", "timestamp": "..."}`, Elastic, Datadog and Vector ship `{"message": "...",
"@timestamp": "..."}`, Fluent Bit keeps `{"log": "..."}` among other keys. Read as text, no line of
such an export starts where a signature's anchor expects it, and escapes hide words; like Docker's
json-file records (knowledge/dockerlog.py, which handles the form that starts with `{"log":`), the
source is decoded before the scan, streaming, into `<RFC 3339 stamp> <text>` lines that the anchors
and the timestamp parser already look through. A line that is not such a record passes as it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from denpex.core.models import LogSource
from knowledge import unwrap
from knowledge.dockerlog import head, lines, raw_chunks, rechunk

#: where each platform puts the line the job printed, in the order they are tried
TEXT_KEYS = ("textPayload", "MESSAGE", "message", "line", "log", "msg")
#: ... and its time
TIME_KEYS = ("timestamp", "@timestamp", "time", "ts", "__REALTIME_TIMESTAMP", "receiveTimestamp")
#: what dockerlog.head reads of a source's start
HEAD = 4096
#: digits of an epoch stamp and what they count (seconds, milli-, micro-, nanoseconds)
_EPOCH_DIGITS = {10: 1, 13: 1_000, 16: 1_000_000, 19: 1_000_000_000}


def decode(source: LogSource) -> LogSource:
    """The source with its JSON records decoded to text lines (streamed), else the source itself."""
    if source.kind == "kernel" or source.chunks is not None:
        return source
    first = head(source)
    if first is None or not _is_export(first):
        return source
    raw = raw_chunks(source)
    if unwrap.small(source):  # kept as data, so a hard wrap inside the records can still be undone
        data = b"".join(records_to_text(raw()))
        return source.model_copy(update={"data": data, "path": None, "file": None})
    return source.model_copy(
        update={"chunks": lambda: records_to_text(raw()), "path": None, "data": None, "file": None}
    )


def _is_export(start: bytes) -> bool:
    """Whether the first complete line is a JSON object with a text field (Docker's form excepted)."""
    if not start.lstrip().startswith(b"{") or start.lstrip().startswith(b'{"log":'):
        return False
    rows = start.split(b"\n")
    whole = rows if len(start) < HEAD else rows[:-1]  # the head's last line may be cut
    line = next((ln for ln in whole if ln.strip()), None)
    if line is None:
        return False
    try:
        record = json.loads(line)
    except ValueError:
        return False
    return isinstance(record, dict) and _text(record) is not None


def records_to_text(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Each record as `<stamp> <text>` (a line that is not a record as it is), as chunks again."""
    return rechunk(_line(line) for line in lines(chunks) if line.strip())


def _line(line: bytes) -> bytes:
    try:
        record = json.loads(line)
    except ValueError:
        return line.rstrip(b"\r") + b"\n"
    text = _text(record) if isinstance(record, dict) else None
    if text is None:
        return line.rstrip(b"\r") + b"\n"
    stamp = _stamp(record)
    body = text[:-1] if text.endswith("\n") else text
    # a record may hold several lines (a whole traceback in one entry): each keeps the stamp
    rows = [f"{stamp} {row}" if stamp else row for row in body.split("\n")]
    return ("\n".join(rows) + "\n").encode("utf-8", errors="replace")


def _text(record: dict[str, Any]) -> str | None:
    for key in TEXT_KEYS:
        value = record.get(key)
        if isinstance(value, str):
            return value
    return None


def _stamp(record: dict[str, Any]) -> str:
    """The record's time as RFC 3339 (`…T…Z`), or "" when it has none this reads."""
    for key in TIME_KEYS:
        value = record.get(key)
        if isinstance(value, str) and len(value) >= 19 and value[4:5] == "-" and value[10:11] in "T ":
            return value.replace(" ", "T", 1)
        digits = str(value) if isinstance(value, int | str) else ""
        if digits.isdigit() and len(digits) in _EPOCH_DIGITS:
            seconds = int(digits) / _EPOCH_DIGITS[len(digits)]
            return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return ""
