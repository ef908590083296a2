"""An exit code or signal put to be confirmed ("exit code for the rank that died was -9 right",
"rank 3 got SIGSEGV, correct?"): yes or no first, with the code the logs show and the line.

Why: a reader checking a figure they remember wants it confirmed or corrected in the first word; the
usual answer about the rank carries the code somewhere in its middle, and a wrong figure the reader
already believes is easy to read past.
"""

from __future__ import annotations

import re
import signal

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tff
from knowledge.answer_types import Ctx, ref
from knowledge.intents import Match
from knowledge.jobfacts_answers import launcher_exits, rank_numbers

#: the ask is put to be confirmed ("…, right?", "correct?", "yes?")
_CONFIRM = re.compile(
    r"(?:^|[\s,])(?:right|correct|yes|yeah|yep|innit|isnt it|wasnt it|no)\s*\?*\s*$"
    r"|\bconfirm\b|\bam i right\b"
)
#: an exit code named ("exit code … -9", "exited with 137") or a signal ("sigkill", "signal 9")
_CODE = re.compile(
    r"\b(?:exit ?code|exitcode|exited (?:with )?|exit|return ?code|rc)\b\D{0,40}?(-?\d{1,3})\b"
)
_SIGNAL = re.compile(r"\bsig(kill|term|segv|abrt|bus|int|hup|fpe|ill)\b|\bsignal (\d{1,2})\b")


def confirm(c: Ctx, m: Match) -> tuple[str, list[EvidenceLine]]:
    """ "Yes: …" or "No: …" about the exit code or signal the ask names, for the rank it names (else the
    one that started it); ("", []) when the ask confirms no exit figure or the logs show none."""
    if not _CONFIRM.search(m.text):
        return "", []
    asked = _asked(m.text)
    if asked is None:
        return "", []
    r = c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating
    if r is None:
        return "", []
    code, name, line = _actual(c, r.rank)
    if code is None and name is None:
        return "", []
    shown = f"exit code {code}" if code is not None else ""
    shown = f"{shown} ({name})".strip() if name else shown
    where = f" ({ref(line)})" if line is not None else ""
    same = (code is not None and asked == code) or (name is not None and asked == _number(name))
    text = tff.EXIT_YES if same else tff.EXIT_NO
    said = text.format(rank=r.rank, exit=shown, where=where)
    if (shell := _shell_code(m.text)) is not None and name:  # "137": the shell's 128 + the signal
        said = f"{said} {tff.EXIT_SHELL.format(code=shell, signal=shell - 128)}"
    return said, [line] if line is not None else []


def _shell_code(text: str) -> int | None:
    """A code the shell reports for a signal (128 + its number) named in the ask, else None."""
    m = _CODE.search(_NOT_CODE.sub(" ", text))
    return int(m.group(1)) if m is not None and 128 < int(m.group(1)) < 160 else None


#: a rank, a step or a pid named by number: never the exit code asked about ("exit code for rank 3 …")
_NOT_CODE = re.compile(r"\b(?:ranks?|step|pid|node|gpu|local_rank|local rank)[ #:]*\d+\b")


def _asked(text: str) -> int | None:
    """The exit figure asked about, as a negative signal number for a signal (137 is 128 + 9: -9)."""
    text = _NOT_CODE.sub(" ", text)
    if (s := _SIGNAL.search(text)) is not None:
        return -int(s.group(2)) if s.group(2) else _number("SIG" + s.group(1).upper())
    if (m := _CODE.search(text)) is None:
        return None
    n = int(m.group(1))
    return -(n - 128) if 128 < n < 160 else n


def _number(name: str) -> int | None:
    try:
        return -int(signal.Signals[name])
    except KeyError:
        return None


def _actual(c: Ctx, rank: int) -> tuple[int | None, str | None, EvidenceLine | None]:
    """The rank's exit: the launcher's summary first, else the figures of its own lines."""
    for e in launcher_exits(c.d):
        if e.rank == rank:
            return e.code, e.signal or (_name(e.code) if e.code < 0 else None), e.line
    r = c.view.ranks[rank]
    found = rank_numbers(c.view, r).exit
    if found is None:
        return None, None, None
    ex, at = found
    if at < 0:  # its own exit report, printed after the failure
        return ex.code, ex.signal, r.exit_line
    lines = c.view.evidence if r.role == "initiating" else [r.first_line]  # what the figures were read from
    return ex.code, ex.signal, lines[at] if at < len(lines) else None


def _name(code: int) -> str | None:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return None
