"""The launcher's teardown lines in their order, at their exact times: "in the agent log, do the SIGTERMs
come before or after the line reporting rank 3's -11? exact timestamps", "are you sure rank 3 went
first? the SIGTERM lines show up before its failure line", "pids of the workers torchrun SIGTERMed and
their exit codes".

Why: torchrun's agent writes `Sending process P closing signal SIGTERM` for the other workers before
its `failed (exitcode: -11) local_rank: 3` line, so a reader of the log takes the SIGTERMs for the
first event. The answers gave times to the second (all four lines share one) and never the order. The
agent's own lines carry milliseconds: each is quoted with its time, in order, with why that order is
the agent's reaction to the exit it reports, and its summary's root cause.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_teardown as tt
from knowledge import answer_launcher, answer_quote
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import Match
from knowledge.jobfacts_answers import launcher_exits

_TEARDOWN = (
    r"(?:sigterm\w*|sig ?15|terminat\w*|teardown|tear(?:ing)? (?:it |them )?down|closing signal"
    r"|(?:kill|stop)(?:ed|ped|ping|ing)? the (?:other|rest|remaining))"
)
#: asks the order or the exact times of the agent's lines ("before or after", "show up before",
#: "terminated the others before it logged", "order", "exact timestamps"), not how long after a line
_WHEN = (
    r"(?:before or after|after or before|order|sequence|timestamps?|exact (?:times?|timing)"
    r"|(?:come|comes|came|show(?:s|ed)? up|appear\w*|logged|printed|sent|happen\w*|terminated|killed"
    r"|stopped)\b(?: \w+){0,4}? (?:before|after|first)"
    r"|(?:before|after) (?:it|torchrun|the (?:agent|launcher)) (?:even )?(?:logged|printed|reported|wrote))\b"
)
ORDER_Q = re.compile(_TEARDOWN + r".{0,120}\b" + _WHEN + r"|\b" + _WHEN + r".{0,120}" + _TEARDOWN)
_HOW_LONG = re.compile(r"\bhow (?:long|much time|many (?:seconds|ms|minutes))\b")
#: asks which workers the agent stopped and how each ended ("pids of the workers torchrun SIGTERMed and
#: their exit codes", "which pids did the agent terminate?"), not a message that quotes an exit code
_IDS = (
    r"(?:(?:which|what|whose|list|give me|the|their|and) (?:\w+ ){0,2}?(?:pids?|exit ?codes?)\b"
    r"|\bpids? of\b|\bwith what exit ?code)"
)
STOPPED_Q = re.compile(
    _TEARDOWN + r".{0,80}\b" + _IDS + r"|\b" + _IDS + r".{0,80}" + _TEARDOWN + r"|\bblast radius\b"
)
#: the message is about the launcher's lines or their times, not a save or a scheduler's end
_AGENT_Q = re.compile(
    r"\b(?:agent|launcher|torchrun|elastic)\b|\bexact\b|\btimestamps?\b|\bfail(?:ure|ed)? line\b"
    r"|\bexit ?codes?\b|\bsegfault\w*|\bsigsegv\b|\s-\d+\b|\bfirst\b"
)
#: the message doubts the first rank ("are you sure rank 3 went first", "so how is rank 3 first?")
_DOUBT = re.compile(
    r"\b(?:are|r) (?:you|u) sure\b|\bhow (?:is|can|could|come)\b|\bhow do (?:you|we) know\b|\breally\b"
)
_TIME = re.compile(r"(\d\d:\d\d:\d\d)[.,](\d{3})")
_SENDING = re.compile(r"Sending process (\d+) closing signal (SIG[A-Z]+)")
_FAILED = re.compile(r"failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\)")
_ROOT = re.compile(r"Root Cause \(first observed failure\)")


def _time(ln: EvidenceLine) -> str:
    found = _TIME.search(ln.text)
    return f"{found.group(1)}.{found.group(2)}" if found else ""


def _lines(c: Ctx) -> tuple[list[EvidenceLine], EvidenceLine | None]:
    """The agent's SIGTERM lines (in log order) and its line reporting the failed worker."""
    pool = sorted(answer_quote.pool(c), key=lambda x: (x.source, x.line))
    sends = [ln for ln in pool if _SENDING.search(ln.text) and _time(ln)]
    failed = next((ln for ln in pool if _FAILED.search(ln.text) and _time(ln)), None)
    return sends, failed


def _span(sends: list[EvidenceLine]) -> str:
    first, last = sends[0], sends[-1]
    return first.ref if first is last else f"{first.ref}-{last.line}"


def _seconds(a: str, b: str) -> float:
    def secs(t: str) -> float:
        h, m, s = t.split(":")
        return int(h) * 3600 + int(m) * 60 + float(s)

    return secs(b) - secs(a)


def order(c: Ctx, m: Match) -> Reply | None:
    """The agent's SIGTERM lines and its failure line, each at its exact time, in order, and why."""
    if not ORDER_Q.search(m.text) or not _AGENT_Q.search(m.text) or _HOW_LONG.search(m.text):
        return None
    if STOPPED_Q.search(m.text) and not _DOUBT.search(m.text):
        return None
    sends, failed = _lines(c)
    ini = c.view.initiating
    found = _FAILED.search(failed.text) if failed is not None else None
    if not sends or failed is None or found is None or ini is None:
        return None
    code, local, pid = found.groups()
    pids = ", ".join(s.group(1) for ln in sends if (s := _SENDING.search(ln.text)))
    said_sends = tt.sends(_time(sends[0]), _time(sends[-1]), pids, _span(sends))
    said_failed = tt.failed(code, local, pid, _time(failed), failed.ref)
    before = (sends[0].source, sends[0].line) < (failed.source, failed.line)
    gap = f"{abs(_seconds(_time(sends[0]), _time(failed))):.3f} s"
    doubted = _DOUBT.search(m.text) and (not m.ranks or ini.rank in m.ranks)
    parts = [tt.sure(ini.rank)] if doubted else []
    parts += [tt.order(said_sends, said_failed, before, gap), tt.why_order(ini.rank, f"exitcode {code}")]
    shown = [*sends, failed]
    root = next((ln for ln in answer_quote.pool(c) if _ROOT.search(ln.text)), None)
    if root is not None:
        parts.append(tt.root(ini.rank, root.ref))
    return reply("when", " ".join(parts), shown)


def stopped(c: Ctx, m: Match) -> Reply | None:
    """The pids the agent sent SIGTERM to, and how every worker ended by the launcher's summary."""
    if not STOPPED_Q.search(m.text):
        return None
    sends, _ = _lines(c)
    rows = answer_launcher.exit_codes(c)
    if not rows:
        return None
    if not sends:
        return _stopped_by_summary(c, rows)
    pids = ", ".join(s.group(1) for ln in sends if (s := _SENDING.search(ln.text)))
    lead = tt.stopped(pids, _span(sends), rows.rstrip("."), _time(sends[0]))
    return reply("others", lead, sends)


def _stopped_by_summary(c: Ctx, rows: str) -> Reply | None:
    """The SIGTERMed pids and their time from the launcher's failure summary (to the second), when its
    `Sending process … closing signal SIGTERM` lines were not kept. Why: the pids were told without
    the time the message asked for."""
    stopped = [e for e in launcher_exits(c.d) if e.code == -15 and e.pid is not None]
    if not stopped:
        return None
    pids = ", ".join(str(e.pid) for e in stopped)
    time = min(e.time or "" for e in stopped).replace("_", " ")
    lead = tt.stopped(pids, stopped[0].line.ref, rows.rstrip("."), f"{time} UTC" if time else "")
    return reply("others", lead, [stopped[0].line])


__all__ = ["ORDER_Q", "STOPPED_Q", "order", "stopped"]
