"""Line anchors that hold however the line was delivered.

An entry's `^Killed$` means "Killed alone on a line", but a real line often carries what the tool that
delivered it added: ANSI colours (rich, loguru, colorlog), a timestamp (`kubectl logs --timestamps`,
Loki and CloudWatch exports), a syslog header, or a launcher's label (`[rank3]:`, srun's `3: `,
torchrun's `[default3]:`). Every anchor in a signature is widened here, once, when the entries are
loaded, so authors write the plain form and the engine matches the delivered ones: `^` also accepts
any run of colours and timestamps, `$` any trailing colour resets and blanks. Labels stay with the
patterns that spell them out (a `[rank3]:`-style prefix group before `ImportError`), for speed.

Only `^`/`$` outside character classes and escapes are rewritten; the result stays in the regex subset
that both Python `re` and Hyperscan accept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_ANSI = r"\x1b\[[0-9;?]*[A-Za-z]"
#: Loki's stream labels as `logcli query` prints them after the stamp: `{container="pytorch", pod="w-0"} `;
#: used by the line readers (knowledge/lines.py, unwrap.py), not in LINE_PREFIX: in every widened
#: anchor its bounded repeats made the Hyperscan compile 4x slower (cold start 6 s -> 25 s CPU)
_LABEL = r'[A-Za-z_][A-Za-z0-9_]{0,40}="[^"\n]{0,120}"'
LOKI_LABELS = rf"(?:\{{{_LABEL}(?:, ?{_LABEL}){{0,12}}\}}[ \t])?"
_ISO_STAMP = (
    r"\[?[0-9]{4}-[0-9]{2}-[0-9]{2},?[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?"
    r"(?:Z|[+-][0-9]{2}:?[0-9]{2}| [A-Z]{2,5})?\]?[ \t](?:std(?:out|err) [FP] )?"  # CRI: `… stderr F `
    # Determined's task log: `[<stamp>] 5c902731 [rank=0] || ` (container id, the process's rank)
    r"(?:[0-9a-f]{8} (?:\[rank=[0-9]{1,6}\] )?\|\| )?"
    # a task runner relaying the job's output through its logger: Airflow's
    # `[2024-05-01, 10:00:00 UTC] {subprocess.py:93} INFO - `, Python logging's `… - name - INFO - `
    r"(?:\{[^}\n]{1,80}\} [A-Z]{4,8} - |- [A-Za-z0-9_.]{1,60} - [A-Z]{4,8} - )?"
)
#: a syslog / journald header: `May  1 10:00:00 gpu-07 python[4242]: `, or the stamp alone as moreutils'
#: `ts` puts it before each line (`python train.py 2>&1 | ts`, `ts -s` fractions: `May 01 10:00:00.1234 `)
_SYSLOG = (
    r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +[0-9]{1,2} [0-9]{2}:[0-9]{2}:[0-9]{2}"
    r"(?:[.,][0-9]{1,9})? (?:[A-Za-z0-9_.-]+ [^ :\n]+: )?"
)
#: a time of day alone (`ts '%H:%M:%S'`, a logger's short format): `10:00:00 `, `10:00:00.123 `
_CLOCK = r"[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})? "
#: what may stand before the start of the line an author meant. Launcher labels (`[rank3]:`, `3: `) and
#: syslog headers are left to the patterns that need them: as a general prefix in front of a long
#: alternation they cost Hyperscan 10x its speed (benchmarks/pattern_cost.py), colours and
#: timestamps about 1.3x on the one costly pattern and nothing measurable on the others
#: A Markdown quote (`> `) or a code block's indentation is how a log pasted into an issue, a wiki or
#: a chat arrives. Each alternative starts with its own character (ESC, a digit or `[`, `>`) and the
#: blanks come once at the end, so Python's `re` never backtracks through them.
#: a Ray worker's label: `(RayTrainWorker pid=7, ip=10.0.0.7) `, `(pid=7) `, and SkyPilot's, which names
#: the node's rank (not the process's): `(head, rank=0, pid=7) `, `(worker1, rank=1, pid=7, ip=10.0.0.7) `
_RAY_WORKER = r"\((?:[A-Za-z_][A-Za-z0-9_.:-]{0,40},? )?(?:rank=[0-9]{1,6}, )?(?:pid|ip)=[^)\n]{1,60}\) "
LINE_PREFIX = f"(?:{_ANSI}|{_ISO_STAMP}|{_SYSLOG}|{_CLOCK}|{_RAY_WORKER}|>[ \\t]?)*[ \\t]*"
#: what may stand after its end
LINE_SUFFIX = f"(?:{_ANSI}|[ \\t\\r])*"


def _syntax(pattern: str) -> Iterator[tuple[int, str]]:
    """(index, character) of every character of `pattern` that is regex syntax: not escaped, not
    inside a `[...]` class (where a `]` first, or right after `^`, is a literal)."""
    class_at, i = -1, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if class_at >= 0:
            first = class_at + (2 if pattern.startswith("[^", class_at) else 1)
            if ch == "]" and i > first:
                class_at = -1
        elif ch == "[":
            class_at = i
        else:
            yield i, ch
        i += 1


def tolerant(pattern: str) -> str:
    """`pattern` with every line anchor widened to accept delivered prefixes and suffixes."""
    widen = {"^": "^" + LINE_PREFIX, "$": LINE_SUFFIX + "$"}
    out, last = [], 0
    for i, ch in _syntax(pattern):
        if ch in widen:
            out += [pattern[last:i], widen[ch]]
            last = i + 1
    return "".join([*out, pattern[last:]])


def _top_level_branches(pattern: str) -> list[str]:
    """`a|b|c` → [a, b, c] for `|` outside every group and class; [pattern] when there is none."""
    out, depth, last = [], 0, 0
    for i, ch in _syntax(pattern):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "|" and depth == 0:
            out.append(pattern[last:i])
            last = i + 1
    return [*out, pattern[last:]] if out else [pattern]


def scan_forms(pattern: str) -> list[str]:
    """The expressions Hyperscan compiles for `pattern`: its top-level branches, each with its first
    long alternation split (`split_alternation`); their union is `pattern`."""
    if re.search(r"\(\?(?!:)", pattern):  # inline flags (`(?i)a|b`) reach across branches: as is
        return split_alternation(pattern)
    branches = _top_level_branches(pattern)
    if "" in branches:  # an empty branch matches everywhere: leave the pattern whole
        return [pattern]
    return [form for b in branches for form in split_alternation(b)]


def split_alternation(pattern: str, most: int = 32) -> list[str]:
    """`pattern` as several patterns whose union it is, one per branch of its first top-level group
    that has three or more branches and no quantifier: `^P(KeyError|TypeError|…)(: |$)` →
    `^P(?:KeyError)(: |$)`, ….

    Hyperscan finds a pattern by its literal factors; an anchored prefix in front of a long alternation
    hides them (one such pattern ran at 0.7 GB/s, its 13 branches as 13 patterns at 4 GB/s). The
    union matches exactly the same lines, so the engine compiles the branches under one id.
    """
    depth, start, body = 0, -1, 0
    branches: list[str] = []
    for i, ch in _syntax(pattern):
        if ch == "(":
            depth += 1
            if depth == 1:
                plain = not pattern.startswith("?", i + 1) or pattern.startswith("?:", i + 1)
                start = i if plain else -1
                body = i + (3 if pattern.startswith("?:", i + 1) else 1)
                branches = []
        elif ch == "|" and depth == 1 and start >= 0:
            branches.append(pattern[body:i])
            body = i + 1
        elif ch == ")":
            if depth == 1 and start >= 0 and branches:
                branches.append(pattern[body:i])
                quantified = pattern[i + 1 : i + 2] in ("*", "+", "?", "{")
                if 3 <= len(branches) <= most and not quantified:
                    return [f"{pattern[:start]}(?:{b}){pattern[i + 1 :]}" for b in branches]
                start = -1
            depth -= 1
    return [pattern]
