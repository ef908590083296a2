"""The shape of a follow-up answer and the small formatting every answer shares (times, sizes, ranks).

A `Reply` is plain text plus lines: the Slack app escapes and renders it (`bot.slack.answers`), an
optional LLM may rephrase its `material`, which holds exactly the facts it states.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from denpex.core.models import Diagnosis, EvidenceLine, PastIncident
from denpex.core.ranks import ranges
from denpex.core.texts.thread import failed_when
from knowledge.glossary import Term
from knowledge.jobfacts_answers import JobView, RankView
from knowledge.lines import parse_rank, parse_timestamp
from knowledge.schema import Entry, Xid


@dataclass
class Reply:
    """A first sentence with this job's facts, the lines that show it, then what to do."""

    intent: str
    material: list[str] = field(default_factory=list)  # plain grounded facts (masked) for an LLM
    known: bool = True
    lead: str = ""
    lines: list[EvidenceLine] = field(default_factory=list)
    bullets: list[str] = field(default_factory=list)
    action: str = ""
    code: str = ""


@dataclass(frozen=True, slots=True)
class Ctx:
    """Everything one diagnosis's answers are built from."""

    d: Diagnosis
    view: JobView
    entry: Entry | None
    related: Mapping[str, Entry]
    glossary: Mapping[str, Term]
    xids: Mapping[int, Xid]  # the Xid catalogue: what a code means, hardware or not
    #: earlier incidents of this failure mode from the history; None: no history was looked up
    past: Sequence[PastIncident] | None = None
    #: what to turn on to see more, by category (`data/debug.toml`); empty: no such answer
    debug: Mapping[str, Sequence[str]] = field(default_factory=dict)

    @property
    def steps(self) -> tuple[str, ...]:
        """The fix steps as the diagnosis said them to this job: the entry's steps fitted to its facts
        (`knowledge/step_fit.py`: a step the job's lines contradict is said otherwise or left out), so a
        follow-up never repeats "ZeRO-2 → 3" to a job that runs stage 3. The entry's own steps when the
        diagnosis holds none of them (one stored before steps were fitted, or another entry's)."""
        if self.entry is None:
            return ()
        fitted = tuple(s.strip() for s in _STEP.split(self.d.fix)[1:] if s.strip())
        same = self.d.entry is not None and self.d.entry.id == self.entry.id
        return fitted if same and fitted else tuple(self.entry.fix.steps)


#: the numbering `knowledge.report` gives each fitted step of `Diagnosis.fix` ("1. ...\n2. ...")
_STEP = re.compile(r"(?m)^\d+\. ")


def reply(
    intent: str,
    lead: str,
    lines: Iterable[EvidenceLine] = (),
    *,
    known: bool = True,
    bullets: Iterable[str] = (),
    action: str = "",
    code: str = "",
) -> Reply:
    """A `Reply` whose material is exactly what it says (the lead, the lines, the steps, the action)."""
    shown: list[EvidenceLine] = []
    steps = list(bullets)
    for ln in lines:  # a line two facts cite is shown once
        if not any(x.source == ln.source and x.line == ln.line for x in shown):
            shown.append(ln)
    material = [lead, *(f"{ln.ref} {ln.text}" for ln in shown), *steps]
    material += [x for x in (code, action) if x]
    return Reply(intent, material, known, lead, shown, steps, action, code)


def when(iso: str | None) -> str:
    """`2026-11-20T03:14:02.123Z` -> `2026-11-20 03:14:02 UTC` (boot-relative stamps as they are)."""
    if not iso:
        return ""
    if iso.startswith("+"):
        return iso
    return iso.replace("T", " ")[:19] + " UTC"


def at(iso: str | None) -> str:
    return f" at {when(iso)}" if iso else ""


def at_rank(r: RankView) -> str:
    """When rank `r` failed, as a phrase: " at <time>", or " at or after <time> (its line has no time of
    its own)" when its time is an earlier line's, so an answer never states a borrowed time as its own."""
    return failed_when(when(r.first_time), r.borrowed) if r.first_time else ""


def duration(seconds: float) -> str:
    s = abs(seconds)
    if s < 1:
        return f"{s:.1f} s ({s * 1000:.0f} ms)"  # "0.1 s" alone hides 79 ms vs 140 ms
    if s < 120:
        return f"{s:.0f} s" if s >= 10 else f"{s:.1f} s"
    if s < 7200:
        return f"{s:.0f} s ({s / 60:.0f} min)" if s < 3600 else f"{s / 60:.0f} min"
    return f"{int(s // 3600)} h {int(s % 3600 // 60)} min"


def gib(value: float | None) -> str:
    return f"{value:.2f} GiB" if value is not None else "?"


def ref(line: EvidenceLine | None) -> str:
    return line.ref if line is not None else ""


def rank_list(ranks: Iterable[RankView | int]) -> str:
    return ranges(r if isinstance(r, int) else r.rank for r in ranks)


def where(r: RankView, gpu: str | None = None) -> str:
    """`rank 5 on gpu-02 (GPU 5)`."""
    text = f"rank {r.rank}"
    if r.node:
        text += f" on {r.node}"
    device = gpu or (f"GPU at PCI {r.gpu}" if r.gpu else None)
    return text + (f" ({device})" if device else "")


def rank_lines(c: Ctx, rank: int) -> dict[str, list[EvidenceLine]]:
    """Every saved line the rank wrote (its tail, combined logs' lines with its prefix, its evidence),
    by source, in line order."""
    out: dict[str, dict[int, EvidenceLine]] = {}
    ini = c.view.initiating
    pools: list[tuple[list[EvidenceLine], bool]] = [(t.lines, t.rank == rank) for t in c.d.tails]
    pools.append((c.view.evidence, ini is not None and ini.rank == rank))
    for lines, own in pools:
        for ln in lines:
            info = parse_rank(ln.text)  # `[default0]:` alone is a local rank: not this rank's line
            if info.rank == rank or (own and info.rank is None and info.local is None):
                out.setdefault(ln.source, {})[ln.line] = ln
    return {src: [by[n] for n in sorted(by)] for src, by in sorted(out.items())}


#: a sentence's end: a full stop before the next sentence, not one inside "e.g." or "i.e."
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)\. +(?=[A-Z`(\"'])")


def first_sentence(text: str) -> str:
    """The first sentence of an entry's text, without its full stop ("… (e.g. Python objects …)" stays
    whole: an abbreviation's dot does not end it)."""
    return _SENTENCE_END.split(text, maxsplit=1)[0].rstrip(".")


#: torchrun's `[defaultN]:` and PyTorch's `[rankN]:` prefixes, left off a line quoted in a sentence
_LAUNCHER_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")


def quote_line(ln: EvidenceLine) -> str:
    """A kept line as a sentence quotes it: without the launcher's prefixes, cut at 200 characters."""
    text = _LAUNCHER_PREFIX.sub("", ln.text).strip()
    return text if len(text) <= 200 else text[:200] + "…"


def line_time(ln: EvidenceLine) -> str:
    """ " at <time>" for a line that prints its own time, else "" (never a borrowed time)."""
    stamp = parse_timestamp(_LAUNCHER_PREFIX.sub("", ln.text))
    return when(stamp.iso()) if stamp is not None else ""
