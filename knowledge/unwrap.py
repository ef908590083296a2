"""Re-join a log that was hard-wrapped at a fixed width before it reached Denpex.

A log copied out of a terminal multiplexer, a notebook, a CI page or an issue comment often arrives
cut into lines of at most 80 (or 100, 120) columns: `CUDA out of memory. Tried to allocate 16.00 MiB
(GPU 0; 14.75` / `GiB total capacity; …`. Every signature is matched one line at a time, so a wrapped
error line matches nothing. This module detects the wrap (many lines close to one maximum width, none
longer) and joins each full-width line with the continuation that follows it, unless that next line
starts a record of its own (a timestamp, a rank label, a traceback frame, an exception).

Only small sources are looked at (pasted text, not a cluster's gigabytes: a collector's stream is never
wrapped). A source that is not wrapped is returned as it is; a wrapped one comes back as in-memory
data, so its line numbers count the joined lines.
"""

from __future__ import annotations

import re

from denpex.core.models import LogSource

#: sources larger than this are never re-joined (read whole, in memory)
MAX_BYTES = 1 << 20
#: the widths a wrap is believed at
MIN_WIDTH, MAX_WIDTH = 60, 250
#: at least this many lines must come close to the widest one
MIN_NEAR = 2
#: a word wrap re-joins at least this many lines (a hard wrap is told by its exact widths)
MIN_JOINS = 2
#: share of the non-empty lines that must come close to the widest line
NEAR_SHARE = 0.2
#: a line shorter than this share of the width was ended by its writer, whatever follows it
MIN_CUT = 0.3

_RECORD = re.compile(
    r"^(?:\s*$|\[?\d{4}-\d\d-\d\d|\[?\d\d:\d\d:\d\d|\[\s*\d+\.\d+\]|Traceback|\s*File \""
    r"|[\w.]+(?:Error|Exception|Warning|Interrupt)\b"
    r"|\[(?:rank|default)\d|\d{1,5}: |\[?[A-Z]{4,8}\]?[ :]|[IWEF]\d{4} |\[[IWEF][ 0-9]|[{\[<#=*])"
)


#: a line that already holds a second record (a progress bar with the next rank's line glued on): what
#: follows it belongs to that glued record's writer, and joining would hand it to the first one's
_GLUED = re.compile(r"\[(?:rank|default)(\d{1,6})\]:")


#: what a delivering tool puts before each record (colours, an RFC 3339 or `ts` stamp, a Ray worker's or
#: SkyPilot's or Determined's label, a Markdown quote, a code block's indent): looked through, so a log
#: is re-joined alike however it came (a constant prefix on every line would otherwise crowd the lines
#: toward one width and read as a wrap)
_DELIVERY = re.compile(
    r"^(?:\x1b\[[0-9;?]*[A-Za-z]|\[?[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.,]{8,18}(?:Z|[+-][0-9:]{4,5})?\]? "
    r"(?:std(?:out|err) [FP] )?(?:[0-9a-f]{8} (?:\[rank=[0-9]{1,6}\] )?\|\| )?"  # Determined's label
    r"|\[[0-9]{4}-[0-9]{2}-[0-9]{2},? [0-9:]{8}(?:[.,][0-9]{1,9})?(?: [A-Z]{2,5}|[+-][0-9:]{4,5})?\] "
    r"\{[^}\n]{1,80}\} [A-Z]{4,8} - "  # Airflow relaying a task's output
    r"|[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}[.,][0-9]{3} - [A-Za-z0-9_.]{1,60} - [A-Z]{4,8} - "
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +[0-9]{1,2} [0-9:]{8}(?:[.,][0-9]{1,9})? "
    r"|[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})? "  # moreutils' `ts`, a bare time of day
    r"|\((?:[A-Za-z_][A-Za-z0-9_.:-]{0,40},? )?(?:rank=[0-9]{1,6}, )?(?:pid|ip)=[^)\n]{1,60}\) "
    r"|> ?| {1,8}|\t)*"
)
_RESET = re.compile(r"(?:\x1b\[[0-9;?]*[A-Za-z])+$")


def _body(line: str) -> str:
    """The line as its writer printed it: without the delivery prefix and a trailing colour reset.
    (Matched at the start only, and the reset only where there is an escape: this runs on every line
    of every small source, a thousand rank logs in a big job.)"""
    prefix = _DELIVERY.match(line)
    body = line[prefix.end() :] if prefix is not None else line
    return _RESET.sub("", body) if "\x1b" in body else body


#: how a line a writer ended looks: a closing bracket, a full stop, a record's own end
_ENDED = re.compile(r"[}.*!?]\s*$")
#: a line that is one capitalised word (`Killed`, `Aborted`, `Done`): a record, never a continuation
_WORD = re.compile(r"^\s*[A-Z][a-z]+\s*$")
#: a whole traceback frame header (`File "x.py", line 3, in f`): the next line is the frame's source
#: line (pasted with its indentation lost), never a continuation of the header
_FRAME_HEADER = re.compile(r'^\s*File "[^"]*", line \d+, in [\w<>.]+\s*$')
#: the mark a log UI or an alert leaves where it cut a line short (`…`, `...`): never a wrap
_TRUNCATED = re.compile(r"(?:…|\.\.\.)\s*$")
#: this many lines of exactly the widest length: a hard (character) wrap, which cuts anywhere
HARD_LINES = 3


def _cut(prev: str, nxt: str, w: int, hard: bool) -> bool:
    """Whether the wrap cut `prev` (its writer did not end it there): a terminal cuts at exactly w; a
    word wrap breaks where the next word would not have fitted (textwrap's and rich's rule)."""
    if _TRUNCATED.search(prev):  # a log UI's or an alert's cut: the rest is gone, not on the next line
        return False
    if hard and len(prev) == w:
        return True
    first = nxt.lstrip().split(" ", 1)[0]
    too_long = len(prev.rstrip()) + 1 + len(first) > w
    return too_long and len(prev) >= MIN_CUT * w and not _ENDED.search(prev)


def width(lines: list[str]) -> int | None:
    """The wrap width, if the lines look hard-wrapped; None otherwise."""
    return _width([_body(line) for line in lines])


def _width(bodies: list[str]) -> int | None:
    lens = [len(body) for body in bodies if body.strip()]
    if len(lens) < 3:
        return None
    widest = max(lens)
    if not MIN_WIDTH <= widest <= MAX_WIDTH:
        return None
    near = sum(1 for n in lens if n >= 0.8 * widest)
    return widest if near >= max(MIN_NEAR, NEAR_SHARE * len(lens)) else None


def rejoin_text(text: str) -> str | None:
    """`text` with its wrapped lines joined; None when it does not look wrapped."""
    lines = text.split("\n")
    bodies = [_body(line) for line in lines]
    w = _width(bodies)
    if w is None:
        return None
    hard = sum(1 for b in bodies if len(b) == w) >= HARD_LINES  # a terminal's cut at exactly w
    out: list[str] = []
    last = ""  # the body of the physical line before this one
    for line, body in zip(lines, bodies, strict=True):
        continues = (
            body.strip()
            and not _RECORD.match(body)
            and not _WORD.match(body)
            and not _FRAME_HEADER.match(last)
        )
        if out and continues and _cut(last, body, w, hard) and len(set(_GLUED.findall(out[-1]))) < 2:
            prev = _RESET.sub("", out[-1])
            delivered = _DELIVERY.match(line)
            if delivered is not None and delivered.group(0) and not delivered.group(0).strip():  # own blanks
                out[-1] = prev + _RESET.sub("", line)
            else:
                glue = "" if prev.endswith(" ") or len(_body(prev)) % w == 0 else " "
                out[-1] = prev + glue + body
        else:
            out.append(line)
        last = body
    if len(lines) - len(out) < MIN_JOINS and not hard:  # one long line and a short one: not a wrap
        return None
    joined = "\n".join(out)
    return joined if joined != text else None


def small(source: LogSource) -> bool:
    """Whether the source is small enough (`MAX_BYTES`) to be rewritten in memory: a pasted or copied
    log is; a collector's stream opened as a file is read streaming, never whole."""
    if source.file is not None:
        return False
    if source.data is not None:
        return len(source.data) <= MAX_BYTES
    try:
        return source.path is not None and source.path.stat().st_size <= MAX_BYTES
    except OSError:
        return False


def small_data(source: LogSource) -> bytes | None:
    """The bytes of a small, not yet streamed, non-kernel source (None otherwise, or unreadable: the
    scan reports that)."""
    if source.kind == "kernel" or source.chunks is not None or not small(source):
        return None
    if source.data is not None:
        return source.data
    try:
        data = source.path.read_bytes() if source.path is not None else None
    except OSError:
        return None
    return data if data is not None and len(data) <= MAX_BYTES else None


def rejoin(source: LogSource) -> LogSource:
    """The source with a hard wrap undone (as in-memory data), else the source itself."""
    data = small_data(source)
    if data is None:
        return source
    text = data.decode("utf-8", errors="replace")
    joined = rejoin_text(text.replace("\r\n", "\n"))
    if joined is None:
        return source
    return source.model_copy(update={"data": joined.encode("utf-8"), "path": None})
