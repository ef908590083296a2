"""Docker's json-file log driver: one JSON object a line, the program's text inside `"log"`.

`docker logs` prints the text, but a log taken from `/var/lib/docker/containers/<id>/<id>-json.log`
(or shipped as it is by a log agent) arrives as `{"log":"Traceback (most recent call last):\\n",
"stream":"stderr","time":"2026-11-20T03:14:02.123456789Z"}`. Read as text, every line starts with
`{"log":"`, so no line-anchored signature matches, and escapes (`\\"`, `\\u001b`, `\\t`) hide words.
This decodes such a source before the scan, streaming (a container's log can be gigabytes, so it is
never held whole), and writes each record as the CRI runtime's form, `<time> <stream> F <text>`, which
the line anchors and the timestamp parser already look through. Docker cuts lines longer than 16 KiB
into records without a trailing newline; those are joined back into one line.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator

from denpex.core.models import LogSource

#: how much of a source's start is read to recognise the format
_HEAD = 4096
#: a record the decoder cannot read is passed on as it is, not dropped (it may hold the one clue)
_PREFIX = b'{"log":'
#: a line joined from Docker's 16 KiB pieces is cut here: one runaway line never grows without bound
MAX_LINE = 1 << 20


def decode(source: LogSource) -> LogSource:
    """The source with Docker's json-file records decoded (streamed), else the source itself."""
    if source.kind == "kernel" or source.chunks is not None:
        return source
    first = head(source)
    if first is None or not first.lstrip().startswith(_PREFIX):
        return source
    raw = raw_chunks(source)
    return source.model_copy(
        update={"chunks": lambda: records_to_text(raw()), "path": None, "data": None, "file": None}
    )


def records_to_text(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Decode json-file records from raw chunks into CRI-form text lines, as chunks again."""
    partial: list[bytes] = []
    out: list[bytes] = []
    size = 0
    for line in lines(chunks):
        text = _record(line, partial)
        if text is None:
            continue
        out.append(text)
        size += len(text)
        if size >= 1 << 20:
            yield b"".join(out)
            out, size = [], 0
    if partial:
        out.append(b"".join(partial) + b"\n")
    if out:
        yield b"".join(out)


#: the record as Docker writes it, its text free of escapes but the final `\n`: read without a JSON parse
_PLAIN = re.compile(rb'\{"log": ?"([^"\\]*)\\n", ?"stream": ?"(std(?:out|err))", ?"time": ?"([^"\\]*)"\}\s*')


def _record(line: bytes, partial: list[bytes]) -> bytes | None:
    """One CRI-form line for a complete record; None while a long line's pieces are still coming."""
    if not line.strip():
        return None
    m = _PLAIN.fullmatch(line)
    if m is not None and not partial:  # most records: no quote, backslash or colour code in the text
        return m.group(3) + b" " + m.group(2) + b" F " + m.group(1) + b"\n"
    try:
        rec = json.loads(line)
        text, stream, stamp = str(rec["log"]), str(rec.get("stream", "stdout")), str(rec.get("time", ""))
    except (ValueError, KeyError, TypeError):
        return line.rstrip(b"\n") + b"\n"  # not a record: as it is
    piece = text.encode("utf-8", errors="replace")
    if not text.endswith("\n"):  # a piece of a line longer than Docker's 16 KiB buffer
        if sum(map(len, partial)) < MAX_LINE:
            partial.append(piece)
        return None
    body = b"".join(partial) + piece[:-1]
    partial.clear()
    return (stamp.encode() + b" " + stream.encode() + b" F " if stamp else b"") + body + b"\n"


def rechunk(texts: Iterable[bytes], size: int = 1 << 20) -> Iterator[bytes]:
    """Rewritten lines gathered into chunks of about `size` bytes again (never the whole source)."""
    out: list[bytes] = []
    held = 0
    for text in texts:
        out.append(text)
        held += len(text)
        if held >= size:
            yield b"".join(out)
            out, held = [], 0
    if out:
        yield b"".join(out)


def lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    rest = b""
    for chunk in chunks:
        rest += chunk
        *whole, rest = rest.split(b"\n")
        yield from whole
    if rest:
        yield rest


def head(source: LogSource) -> bytes | None:
    try:
        if source.data is not None:
            return source.data[:_HEAD]
        if source.file is not None:
            return os.pread(source.file.fileno(), _HEAD, 0)
        if source.path is not None:
            with source.path.open("rb") as fh:
                return fh.read(_HEAD)
    except OSError:
        return None  # the scan reports it unreadable
    return None


def raw_chunks(source: LogSource) -> Callable[[], Iterator[bytes]]:
    """The source's own bytes, read the way the source is meant to be read (by offset for a file a
    collector opened and checked, never reopened by path)."""
    original = source.model_copy()
    return original.open_bytes
