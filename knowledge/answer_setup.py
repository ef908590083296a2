"""The job's set-up, quoted from the lines it printed at start-up, when the message asks it: "which model
was this?", "world size 4 vs 8, which is it?", "driver version on gpu-02?", "rank 5's pid / local rank /
busId / launch line?".

Why: these lines come long before the failure, so no other answer has them; the diagnosis keeps the
first of each kind per log (`Diagnosis.facts.setup`, knowledge/setup_lines.py), and an answer quotes
the one asked with its file and line. Where two kept lines disagree (a launch line's `world_size=4`,
ProcessGroupNCCL's `world 8`) both are quoted, each with where it comes from: the asker decides which
one the job ran with, the bot does not pick one it cannot see.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_meaning as tm
from denpex.core.texts import followups_setup as ts
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.setup_lines import kind_of

_MODEL_ASK = re.compile(
    r"\b(?:which|what)(?: base| hf| huggingface)? model\b|\bmodel name\b|\bname of the model\b"
    r"|\bmodel (?:was|did) (?:it|this|that|we|they)\b",
    re.IGNORECASE,
)
_WORLD_ASK = re.compile(r"\bworld[ _-]?size\b|\bnranks\b", re.IGNORECASE)
_DRIVER_ASK = re.compile(
    r"\bdriver\b.{0,40}\bversion|\bversion\b.{0,40}\bdriver\b|\b(?:which|what) (?:nvidia |gpu )?driver\b",
    re.IGNORECASE,
)
#: the set-up field a rank question asks, by the words it uses
_FIELD = (
    r"(pid|process id|local[_ ]?rank|bus ?id|pci|cuda ?dev|nvml ?dev|launch (?:line|command)"
    r"|nccl init|init(?:ialization)? line)"
)
_RANK_ASK = re.compile(
    r"\brank ?([0-9]{1,6})(?:'s|s)?\b.{0,60}?\b"
    + _FIELD
    + r"|\b"
    + _FIELD
    + r"\b.{0,40}?\brank ?([0-9]{1,6})\b",
    re.IGNORECASE,
)
_NODE = re.compile(r"\b(?:on|for) ([A-Za-z][A-Za-z0-9_.-]*[0-9][A-Za-z0-9_.-]*)")
_PREFIX = re.compile(r"^(?:\[[^\]]*\][ \t]*)+")
_MODEL_NAME = re.compile(
    r"\bloading (?:pretrained |the )?model (?:from )?['\"]?([^\s'\",]+)"
    r"|initialized from the model checkpoint at ([^\s'\"]+?)\.?$|_name_or_path\"?[=:] ?\"?([^\s\",]+)",
    re.IGNORECASE,
)
_WORLD = (
    ("launch", re.compile(r"\bworld_size[=:] ?([0-9]+)")),
    ("process_group", re.compile(r"\bworld[=: ]+([0-9]+)|\bsize: ([0-9]+)")),
    ("nccl_init", re.compile(r"\bnranks ([0-9]+)")),
)
_WORLD_WHAT = {
    "launch": "the launch line",
    "process_group": "ProcessGroupNCCL's init line",
    "nccl_init": "NCCL's communicator init line",
}
_DRIVER = re.compile(r"Kernel Module(?: for [^ ]+)? +([0-9]+\.[0-9.]+)|Driver Version: +([0-9]+\.[0-9.]+)")
_LINE_RANK = re.compile(r"\brank[=: ]{0,2}([0-9]{1,6})\b|\[rank([0-9]{1,6})\]")
_SOURCE_RANK = re.compile(r"rank[_-]?([0-9]{1,6})\b")
_NCCL_PID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*:([0-9]+):[0-9]+ \[([0-9]+)\]")


def _core(text: str) -> str:
    """The line without its leading `[time] [LEVEL] [rank5]` brackets: what it says."""
    return _PREFIX.sub("", text).strip() or text


def _of(lines: list[EvidenceLine], kind: str) -> list[EvidenceLine]:
    return [ln for ln in lines if kind_of(ln.text) == kind]


def _model(lines: list[EvidenceLine]) -> tuple[str, list[EvidenceLine]]:
    found = [(ln, m) for ln in _of(lines, "model") if (m := _MODEL_NAME.search(ln.text)) is not None]
    if not found:
        return "", []
    first, m = found[0]
    name = next(g for g in m.groups() if g)
    more = sum(1 for ln, k in found[1:] if next(g for g in k.groups() if g) == name)
    return ts.model(name, _core(first.text), first.ref, more), [first]


def _world(lines: list[EvidenceLine]) -> tuple[str, list[EvidenceLine]]:
    """Each world size the kept lines print, with the first line of each kind that prints it."""
    sizes: dict[int, list[tuple[str, EvidenceLine]]] = {}
    for kind, rx in _WORLD:
        for ln in _of(lines, kind):
            m = rx.search(ln.text)
            if m is None:
                continue
            size = int(next(g for g in m.groups() if g))
            if all(k != kind for k, _ in sizes.get(size, [])):
                sizes.setdefault(size, []).append((kind, ln))
    if not sizes:
        return "", []
    if len(sizes) == 1:
        size, found = next(iter(sizes.items()))
        what = " and ".join(f"{_WORLD_WHAT[k]} `{_core(ln.text)}`" for k, ln in found)
        return ts.world(size, what, ", ".join(ln.ref for _, ln in found)), [ln for _, ln in found]
    parts = [
        ts.world_part(size, f"{_WORLD_WHAT[k]} `{_core(ln.text)}`", ln.ref)
        for size, found in sorted(sizes.items())
        for k, ln in found
    ]
    return ts.world_disagree(parts), [ln for found in sizes.values() for _, ln in found]


def _driver(lines: list[EvidenceLine], text: str) -> tuple[str, list[EvidenceLine]]:
    found = [(ln, m) for ln in _of(lines, "driver") if (m := _DRIVER.search(ln.text)) is not None]
    asked = next((n for n in _NODE.findall(text) if not n.lower().startswith("rank")), "")
    on_node = [(ln, m) for ln, m in found if asked and asked.lower() in (ln.source + ln.text).lower()]
    if asked and found and not on_node and asked.lower() not in {n.lower() for n in _nodes_of(found)}:
        return ts.no_driver_on(asked, ", ".join(f"{ln.ref}" for ln, _ in found)), []
    pick = on_node or found
    if not pick:
        return ts.no_driver(), []
    ln, m = pick[0]
    node = asked if on_node else next((n for n in re.findall(r"node-([^./]+)", ln.source)), "")
    version = next(g for g in m.groups() if g)
    return ts.driver(version, node, _core(ln.text), ln.ref), [ln]


def _nodes_of(found: list[tuple[EvidenceLine, re.Match[str]]]) -> set[str]:
    return {n for ln, _ in found for n in re.findall(r"node-([^./]+)", ln.source)}


def _rank_of(ln: EvidenceLine) -> int | None:
    m = _LINE_RANK.search(ln.text) or _SOURCE_RANK.search(ln.source)
    return int(next(g for g in m.groups() if g)) if m is not None else None


def _fields(ln: EvidenceLine) -> str:
    """The ids an init or launch line gives: pid, local rank, cudaDev, nvmlDev, busId."""
    out = []
    if (m := _NCCL_PID.search(ln.text)) is not None:
        out += [f"pid {m.group(1)}", f"local device [{m.group(2)}]"]
    for name in ("local_rank", "cudaDev", "nvmlDev", "busId", "node"):
        if (v := re.search(rf"\b{name}[= ]([A-Za-z0-9_.-]+)", ln.text)) is not None:
            out.append(f"{name} {v.group(1)}")
    return ", ".join(out)


def _rank(lines: list[EvidenceLine], rank: int, field: str) -> tuple[str, list[EvidenceLine]]:
    """The asked rank's set-up line for the asked field: the NCCL init line has the pid and the device
    ids, the launch line the local rank (the NCCL line's `[1]` when there is no launch line)."""
    field = field.lower()
    order: tuple[str, ...]
    if field.startswith("launch"):
        order = ("launch",)
    elif field.startswith("local"):
        order = ("launch", "nccl_init")
    elif field.startswith("init") and "nccl" not in field:
        order = ("nccl_init", "process_group")
    else:
        order = ("nccl_init", "launch")
    own = [ln for ln in lines if _rank_of(ln) == rank]
    for kind in order:
        found = _of(own, kind)
        if found:
            ln = found[0]
            what = ts.KIND_NAMES[kind]
            return ts.rank_line(rank, what, _fields(ln), _core(ln.text), ln.ref), [ln]
    return ts.no_rank_line(rank, ts.KIND_NAMES[order[0]]), []


def answer(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """What the message asks about the set-up, said from the kept lines; empty when it asks none."""
    lines = c.d.facts.setup
    said: list[str] = []
    shown: list[EvidenceLine] = []
    asks = []
    if _MODEL_ASK.search(text):
        asks.append(_model(lines))
    if _WORLD_ASK.search(text):
        asks.append(_world(lines))
    if _DRIVER_ASK.search(text):
        asks.append(_driver(lines, text))
    for m in _RANK_ASK.finditer(text):
        rank = m.group(1) or m.group(4)
        field = m.group(2) or m.group(3)
        asks.append(_rank(lines, int(rank), field))
    for sentence, found in asks:
        if sentence and sentence not in said:
            said.append(sentence)
            shown += [ln for ln in found if all(ln.ref != x.ref for x in shown)]
    return " ".join(said), shown


def with_setup(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the asked set-up lines quoted, when the message asks about the set-up and the answer
    does not quote those lines yet."""
    said, shown = answer(c, text)
    if not said or (shown and all(ln.ref in got.lead for ln in shown)):
        return got
    kind_meant = any(got.lead.startswith(v) for v in tm.MEANINGS.values())  # this job's failure explained
    if (got.intent in ("help", "explain") and not kind_meant) or not got.known:
        return reply("setup", said, shown)
    lines = got.lines + [ln for ln in shown if all(ln.ref != x.ref for x in got.lines)]
    return replace(got, lead=f"{got.lead} {said}".strip(), lines=lines, material=[*got.material, said])


__all__ = ["answer", "with_setup"]
