"""What a library is complaining about: "what's gloo complaining about", "what is NCCL saying".

The question names a library or component (gloo, NCCL, CUDA, the launcher, the watchdog); the answer
quotes that component's own error line from this job's evidence (the failing rank's first), then what
it means: the verdict and the rank that started it. A component no line comes from is said so, with
the failure's own lines, rather than a guess at what it would have said.
"""

from __future__ import annotations

import re
from dataclasses import replace
from types import MappingProxyType

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import thread as t
from knowledge.answer_overview import summary
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.glossary import find
from knowledge.intents import Match
from knowledge.jobfacts_answers import launcher_exits
from knowledge.lines import parse_rank

_COMPONENT = re.compile(r"\b(gloo|nccl|torchrun|launcher|elastic|cuda|pytorch|torch|watchdog|allocator)\b")
_LAUNCHER = ("torch.distributed.elastic", "torchrun", "childfailederror", "failures:", "exitcode")
#: the words a component's lines carry (lower case); a component not listed: its own name
NEEDLES = MappingProxyType(
    {
        "launcher": _LAUNCHER,
        "torchrun": _LAUNCHER,
        "elastic": _LAUNCHER,
        "pytorch": ("torch", "pytorch"),
        "allocator": ("allocat",),
    }
)
NAMES = MappingProxyType(
    {"nccl": "NCCL", "cuda": "CUDA", "pytorch": "PyTorch", "torch": "PyTorch", "launcher": "the launcher"}
)
#: a log line's prefixes (`[default3]:[rank3]:`) and a C++ source location (`[/path/pair.cc:553]`)
_PREFIX = re.compile(r"^(?:\s*\[[^\]]*\]:?)*\s*")
_SOURCE = re.compile(r"\[/[^\]\s]+:\d+\]\s*")
MAX_QUOTE = 240


def _message(text: str) -> str:
    """The error a line carries, without the log prefixes and source paths around it."""
    msg = _SOURCE.sub("", _PREFIX.sub("", text, count=1)).strip()
    return msg if len(msg) <= MAX_QUOTE else msg[: MAX_QUOTE - 1].rstrip() + "…"


def _lines(c: Ctx, needles: tuple[str, ...]) -> list[EvidenceLine]:
    """The component's lines: the evidence, each rank's first line, the launcher's exit lines; the
    starting rank's first."""
    v = c.view
    pool = [*v.evidence, *(r.first_line for r in v.ranks.values() if r.first_line is not None)]
    pool += [e.line for e in launcher_exits(c.d)]
    out: list[EvidenceLine] = []
    for ln in pool:
        if ln not in out and any(n in ln.text.lower() for n in needles):
            out.append(ln)
    first = v.initiating.rank if v.initiating is not None else None
    return sorted(out, key=lambda ln: parse_rank(ln.text).rank != first)  # stable: the starter's first


def complaint(c: Ctx, m: Match) -> Reply | None:
    """The named component's own error line, quoted, then what it means (the verdict)."""
    found = _COMPONENT.search(m.text)
    if found is None:
        return None
    key = found.group(1)
    who = NAMES.get(key, key)
    base = summary(c, replace(m, rank=None))
    meaning = base.lead if base is not None else ""
    base_lines = base.lines if base is not None else c.view.key_line()
    mine = _lines(c, NEEDLES.get(key, (key,)))
    if not mine:
        return reply("complaint", f"{tf.complaint_none(who)} {meaning}".strip(), base_lines)
    first = mine[0]
    lead = tf.complaint(who, parse_rank(first.text).rank, ref(first), _message(first.text))
    if (term := find(m.text, c.glossary)) is not None and term.name.lower() != key:  # "exitcode -9?"
        lead += " " + t.term(term.name, term.text)
    lines = [*mine[:2], *[ln for ln in base_lines if ln not in mine][:1]]
    return reply("complaint", f"{lead} {tf.COMPLAINT_MEANS} {meaning}".strip(), lines)
