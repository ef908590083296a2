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
from knowledge.anchors import LOKI_LABELS

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
    r"|\[(?:rank|default)\d|\d{1,5}: |\[?[A-Z]{4,8}\]?[ :]|[IWEF]\d{4} |\[[IWEF][ 0-9]|[{<#=*]"
    r"|\[(?![\x22\x27/])"  # a bracket that opens no quoted list or path: `[rank1]`, `[INFO]`, `[10]`
    r"|\s*[~^]+\s*$)"  # Python 3.11's marks under a frame's line, always a line of their own
)


#: a line that already holds a second record (a progress bar with the next rank's line glued on): what
#: follows it belongs to that glued record's writer, and joining would hand it to the first one's
_GLUED = re.compile(r"\[(?:rank|default)(\d{1,6})\]:")


#: what a delivering tool puts before each record (colours, an RFC 3339 or `ts` stamp, Loki's labels, a Ray
#: worker's or
#: SkyPilot's or Determined's label, a Markdown quote, a code block's indent): looked through, so a log
#: is re-joined alike however it came (a constant prefix on every line would otherwise crowd the lines
#: toward one width and read as a wrap)
_DELIVERY = re.compile(
    r"^(?:\x1b\[[0-9;?]*[A-Za-z]|\[?[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.,]{8,18}(?:Z|[+-][0-9:]{4,5})?\]?[ \t]"
    r"(?:std(?:out|err) [FP] )?(?:[0-9a-f]{8} (?:\[rank=[0-9]{1,6}\] )?\|\| )?"  # Determined's label
    + LOKI_LABELS
    + r"|\[[0-9]{4}-[0-9]{2}-[0-9]{2},? [0-9:]{8}(?:[.,][0-9]{1,9})?(?: [A-Z]{2,5}|[+-][0-9:]{4,5})?\] "
    r"\{[^}\n]{1,80}\} [A-Z]{4,8} - "  # Airflow relaying a task's output
    r"|[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}[.,][0-9]{3} - [A-Za-z0-9_.]{1,60} - [A-Z]{4,8} - "
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +[0-9]{1,2} [0-9:]{8}(?:[.,][0-9]{1,9})? "
    r"|[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})? "  # moreutils' `ts`, a bare time of day
    r"|\((?:[A-Za-z_][A-Za-z0-9_.:-]{0,40},? )?(?:rank=[0-9]{1,6}, )?(?:pid|ip)=[^)\n]{1,60}\) "
    r"|> ?| {1,8}|\t)*"
)
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
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
_FRAME_HEADER = re.compile(r'(?:^|\s)File "[^"]*", line \d+, in [\w<>.]+\s*$')  # after any label
#: a stamp the wrap cut between its date and its time (`…131.10s/it][2023-06-07` / `23:41:42,582] …`)
_SPLIT_STAMP = re.compile(r"\d{4}-\d\d-\d\d\n\d\d:\d\d:\d\d")
#: the mark a log UI or an alert leaves where it cut a line short (`…`, `...`): never a wrap
_TRUNCATED = re.compile(r"(?:…|\.\.\.)\s*$")
#: this many lines of exactly the widest length: a hard (character) wrap, which cuts anywhere
HARD_LINES = 3


def _cut(prev: str, nxt: str, w: int, hard: bool, indent: int = 0) -> bool:
    """Whether the wrap cut `prev` (its writer did not end it there): a terminal cuts at exactly w; a
    word wrap breaks where the next word would not have fitted (textwrap's and rich's rule), counting
    the `indent` the body lost (a frame's two spaces take room on the wrapped line too)."""
    if _TRUNCATED.search(prev):  # a log UI's or an alert's cut: the rest is gone, not on the next line
        return False
    if hard and indent + len(prev) == w:
        return True
    first = nxt.lstrip().split(" ", 1)[0]
    too_long = indent + len(prev.rstrip()) + 1 + len(first) > w
    # a long word (a path, a mangled symbol) goes to a line of its own however short the line before
    # it was left: `ImportError:` / `/usr/…/flash_attn_2_cuda….so:` / `undefined symbol:` / `_ZN2at…`
    long_word = len(first) >= MIN_CUT * w
    return too_long and (len(prev) >= MIN_CUT * w or long_word) and not _ENDED.search(prev)


def _cuts(bodies: list[str], w: int, indents: list[int]) -> tuple[int, int]:
    """How many lines the wrap cut at exactly `w`, and how many short of it (or past it: a long word
    no terminal would have left whole). A terminal cuts every line at w; a word wrap (an issue box,
    textwrap, rich) where the next word did not fit, so most of its lines end short of w."""
    exact = short = 0
    for prev, nxt, indent in zip(bodies, bodies[1:], indents, strict=False):
        if nxt.strip() and not _RECORD.match(nxt) and _cut(prev, nxt, w, False, indent):
            exact += indent + len(prev) == w
            short += indent + len(prev) != w
    return exact, short


def _indents(lines: list[str]) -> list[int]:
    """How much of each line its delivery prefix and indentation took beyond what every line has (a
    code block's indent, a prefix on every line): taken off its body, yet part of the width a word
    wrap filled (`(RayTrainWorker pid=…) File` / `"/home/…/process.py", line 121, in start`)."""
    pads = []
    for line in lines:
        prefix = _DELIVERY.match(line)
        pads.append(len(_ESCAPES.sub("", prefix.group(0))) if prefix is not None else 0)
    common = min((p for p, line in zip(pads, lines, strict=True) if line.strip()), default=0)
    return [p - common for p in pads]


def width(lines: list[str]) -> int | None:
    """The wrap width, if the lines look hard-wrapped; None otherwise."""
    return _width([_body(line) for line in lines])


def _width(bodies: list[str], indents: list[int] | None = None) -> int | None:
    """The widest line with a space in it: a word wrap can break only there, so a longer line holding
    one word (a path, a mangled symbol) overflows the width and tells nothing of it."""
    pads = indents or [0] * len(bodies)
    lens = [len(body) + pad for body, pad in zip(bodies, pads, strict=True) if body.strip()]
    spaced = [len(body) + pad for body, pad in zip(bodies, pads, strict=True) if " " in body.strip()]
    if len(lens) < 3 or not spaced:
        return None
    widest = max(spaced)
    if not MIN_WIDTH <= widest <= MAX_WIDTH:
        return None
    near = sum(1 for n in lens if 0.8 * widest <= n <= widest)
    if near >= max(MIN_NEAR, NEAR_SHARE * len(lens)):
        return widest
    return widest if _frame_broken(bodies) else None


#: a traceback frame header broken by a word wrap, which Python never prints: `File` ending a line
#: before its quoted path, the path's `line N, in f` alone on the next line, or `in f` alone after
#: `…, line N,` (`[default0]:[rank0]: File` / `"/root/…/cpu_offload.py",` / `line 700, in get_cpu_…`)
_FILE_ENDS = re.compile(r"(?:^|\s)File$")
_FRAME_TAIL = re.compile(r'^(?:"[^"]*", )?line \d+, in [\w<>.]+$')
_LINE_ENDS = re.compile(r", line \d+,$")
_IN_ALONE = re.compile(r"^in [\w<>.]+$")


def _frame_broken(bodies: list[str]) -> bool:
    """Whether a frame header of these lines was broken over two (a word wrap's sure sign in a paste
    too short, or with too few full lines, to be told by its widths)."""
    last = ""
    for body in bodies:
        line = body.strip()
        if _FRAME_TAIL.match(line) or (_LINE_ENDS.search(last) and _IN_ALONE.match(line)):
            return True
        if _FILE_ENDS.search(last) and line.startswith('"'):
            return True
        last = line
    return False


def rejoin_text(text: str) -> str | None:
    """`text` with its wrapped lines joined; None when it does not look wrapped."""
    lines = text.split("\n")
    bodies = [_body(line) for line in lines]
    indents = _indents(lines)
    w = _width(bodies, indents)
    if w is None:
        return None
    # a terminal's cut at exactly w, which leaves no line longer (a word wrap leaves a long word whole);
    # in a word wrap a line that happens to be exactly w wide was cut between words too (its space back)
    exact, short = _cuts(bodies, w, indents)
    widest = max(len(body) + indent for body, indent in zip(bodies, indents, strict=True))
    hard = exact >= HARD_LINES and exact > short and widest <= w
    word = not hard and 0 < short >= exact
    out: list[str] = []
    heads: list[int] = []  # the indent of the first physical line of each line in `out`
    last = ""  # the body of the physical line before this one
    for line, body, indent, before in zip(lines, bodies, indents, [0, *indents], strict=False):
        continues = (
            body.strip()
            and (not _RECORD.match(body) or _SPLIT_STAMP.search(last + "\n" + body[:8]))
            and not _WORD.match(body)
            and not _FRAME_HEADER.search(last)
        )
        if out and continues and _cut(last, body, w, hard, before) and len(set(_GLUED.findall(out[-1]))) < 2:
            out[-1] = _join(out[-1], line, body, (len(_body(out[-1])) + heads[-1]) % w == 0 and not word)
        else:
            out.append(line)
            heads.append(indent)
        last = body
    if len(lines) - len(out) < MIN_JOINS and not hard:  # one long line and a short one: not a wrap
        return None
    joined = "\n".join(out)
    return joined if joined != text else None


def _join(prev: str, line: str, body: str, cut_inside: bool) -> str:
    """`line` (whose body is `body`) joined to the line it continues: with its own blanks when the
    delivery prefix is only blanks (a terminal's cut), else with the space the wrap took (none when a
    terminal cut inside a word)."""
    prev = _RESET.sub("", prev)
    delivered = _DELIVERY.match(line)
    if delivered is not None and delivered.group(0) and not delivered.group(0).strip():  # own blanks
        return prev + _RESET.sub("", line)
    return prev + ("" if prev.endswith(" ") or cut_inside else " ") + body


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
