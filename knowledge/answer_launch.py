"""How the job was launched, quoted from its own lines when the message asks it: "what MASTER_ADDR and
MASTER_PORT did it use", "launcher, master addr/port for the relaunch", "versions + deepspeed config
this run had?", "launch details for the repro: launcher, world size, number of steps?", "only one node
in this job? which".

Why: a relaunch or a repro needs the job's own set-up, which no failure line carries: the rendezvous
address and port of the launch line, the launcher, the versions and settings lines, the steps the
run was set to and the nodes its ranks named. The answers about the failure (restart, explain, the
rank count) left them out, or said a printed value was "not shown". Each value comes from a kept line
and is quoted with it; a value no kept line prints is not said.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_launch as tl
from knowledge import answer_setup
from knowledge.answer_asks import said, with_lead
from knowledge.answer_join import first
from knowledge.answer_types import Ctx, Reply, rank_list, reply

ASKS_MASTER = re.compile(
    r"\bmaster[_ ]?(?:addr\w*|port|host)\b|\brendezvous (?:host|addr\w*|port|endpoint|server)\b"
    r"|\brdzv[_ ]?endpoint\b|\b(?:addr\w*|host|ip)\s*(?:/|and|\+|&)\s*port\b"
)
ASKS_LAUNCHER = re.compile(
    r"\b(?:which|what) launcher\b|\blauncher(?:\s*[,?+/&]|\s+and\b|\s*$)|\blauncher (?:was|used)\b"
    r"|\bhow (?:was|is|did) (?:it|this|the (?:job|run)|we)\b.{0,12}\blaunch\w*"
    r"|\blaunch(?:ed)? (?:with|via|by|how)\b|\blaunch (?:details|setup|set-up|config\w*)\b"
)
ASKS_VERSIONS = re.compile(
    r"\bversions\b|\b(?:torch|pytorch|cuda|nccl|deepspeed|library|lib) versions?\b"
    r"|\bversions? (?:of|\+|and)\b"
)
ASKS_SETTINGS = re.compile(
    r"\b(?:deepspeed|ds|zero|fsdp|training|run) (?:config\w*|settings?|options|setup)\b|\bds_config\b"
)
ASKS_STEPS = re.compile(
    r"\b(?:number of|how many|total|max|num) (?:training )?steps\b|\bsteps? (?:configured|planned)\b"
)
ASKS_WORLD = re.compile(
    r"\bworld[ _-]?size\b|\bhow many (?:processes|procs)\b|\b(?:number of|num) (?:processes|procs|ranks)\b"
    r"|\bhow many (?:ranks|gpus)\b[^?]{0,20}\b(?:in (?:this|the) (?:job|run)|is (?:this|the) (?:job|run)"
    r"|were there|in total|total|did (?:it|the job|we) (?:use|run|have)|even|launched)\b"
)
#: "only one node in this job?", "single node job?", "how many nodes", "one node or two?"
ASKS_NODES = re.compile(
    r"\b(?:only|just) (?:one|1|a single) (?:node|host|machine|box)s?\b(?: in (?:this|the) (?:job|run))?\s*\?"
    r"|\bsingle[- ]?(?:node|host)\b|\bhow many (?:nodes|hosts|machines|boxes)\b|\bmulti-?node\b"
    r"|\bone (?:node|host) or (?:two|more|several|multiple)\b"
)
_MASTER = re.compile(r"\bMASTER_(ADDR|PORT)\s*[=:]\s*([\w.:-]+)")
_STEPS = re.compile(r"\b(\d+) (?:training )?steps\b|\bmax_steps\s*[=:]\s*(\d+)")
_WORLD = re.compile(r"\bworld[ _]size[=: ]+(\d+)\b", re.IGNORECASE)
_PREFIX = re.compile(r"^(?:\[[^\]]*\][ \t]*:?)+\s*")
_NODE_OF = re.compile(r"\bnode[=: ]+([A-Za-z][\w.-]*)")

Part = Callable[[Ctx, str], tuple[str, list[EvidenceLine]]]


def _lines(c: Ctx) -> list[EvidenceLine]:
    """The set-up, version and settings lines, then every line the ranks' tails kept."""
    f = c.d.facts
    return [*f.setup, *f.versions, *f.settings, *(ln for t in c.d.tails for ln in t.lines)]


def _core(text: str) -> str:
    out = _PREFIX.sub("", text).strip() or text.strip()
    return out if len(out) <= 200 else out[:200] + "…"


def master_line(c: Ctx) -> tuple[dict[str, str], EvidenceLine, int] | None:
    """The first line that prints MASTER_ADDR / MASTER_PORT, its values and how many lines print them."""
    hits = [(ln, dict((k, v) for k, v in _MASTER.findall(ln.text))) for ln in _lines(c)]
    hits = [(ln, vals) for ln, vals in hits if vals]
    if not hits:
        return None
    ln, vals = hits[0]
    same = len({x.source for x, v in hits if v == vals})
    return vals, ln, same


def _master(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    if not ASKS_MASTER.search(text) or (found := master_line(c)) is None:
        return "", []
    vals, ln, same = found
    pairs = ", ".join(f"MASTER_{k}={v}" for k, v in sorted(vals.items()))
    return tl.master(pairs, _core(ln.text), ln.ref, same), [ln]


def port_told(c: Ctx, what: str, rank: int) -> tuple[str, EvidenceLine] | None:
    """ "What port?" when no error names one: the rendezvous port the launch line prints, if any."""
    found = master_line(c)
    if found is None or "PORT" not in found[0]:
        return None
    vals, ln, _ = found
    return tl.port_only(vals["PORT"], _core(ln.text), ln.ref, what, rank), ln


def _launcher(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    v = c.view
    if not ASKS_LAUNCHER.search(text) or not v.launcher or not v.ranks:
        return "", []
    nodes = ", ".join(v.nodes) or "its node(s)"
    return tl.launcher(v.launcher, v.world_size or len(v.ranks), nodes), []


def _quoted(lines: list[EvidenceLine]) -> tuple[str, list[EvidenceLine]]:
    """Each distinct line once (the same text printed by every rank is quoted from the first)."""
    seen: dict[str, EvidenceLine] = {}
    for ln in lines:
        seen.setdefault(_core(ln.text), ln)
    rows = "; ".join(tl.quoted(text, ln.ref) for text, ln in list(seen.items())[:3])
    return rows, list(seen.values())[:3]


def _versions(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    if not ASKS_VERSIONS.search(text) or not c.d.facts.versions:
        return "", []
    rows, shown = _quoted(c.d.facts.versions)
    return tl.versions(rows), shown


def _settings(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    if not ASKS_SETTINGS.search(text) or not c.d.facts.settings:
        return "", []
    rows, shown = _quoted(c.d.facts.settings)
    return tl.settings(rows), shown


def _steps(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    if not ASKS_STEPS.search(text):
        return "", []
    for ln in _lines(c):
        if (found := _STEPS.search(ln.text)) is not None:
            total = found.group(1) or found.group(2)
            if ASKS_WORLD.search(text) and (world := _WORLD.search(ln.text)) is not None:
                return tl.world_steps(int(world.group(1)), total, _core(ln.text), ln.ref), [ln]
            return tl.steps(total, _core(ln.text), ln.ref), [ln]
    for r in sorted(c.view.ranks.values(), key=lambda r: r.rank):
        step = r.last_step_line
        if step is not None and (total := re.search(r"\bstep \d+/(\d+)\b", step.text)) is not None:
            return tl.steps(total.group(1), _core(step.text), step.ref), [step]
    return "", []


def _world(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    if not ASKS_WORLD.search(text):
        return "", []
    told, shown = answer_setup.answer(c, "world size")
    if told:
        return told, shown
    for ln in _lines(c):
        if (found := _WORLD.search(ln.text)) is not None:
            if ASKS_STEPS.search(text) and _STEPS.search(ln.text):
                return "", []  # the steps' sentence quotes this line with both
            return tl.world(int(found.group(1)), _core(ln.text), ln.ref), [ln]
    return "", []


def _nodes(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    ranks = [r for r in c.view.ranks.values() if r.role != "missing"]
    if not ASKS_NODES.search(text) or not ranks or any(r.node is None for r in ranks):
        return "", []
    by_node: dict[str, list[int]] = {}
    for r in sorted(ranks, key=lambda r: r.rank):
        by_node.setdefault(r.node or "", []).append(r.rank)
    layout = ", ".join(tl.node_ranks(node, rank_list(rs)) for node, rs in by_node.items())
    named = next((ln for ln in _lines(c) if _NODE_OF.search(ln.text)), None)
    how = tl.node_how(named.ref) if named is not None else ""
    return tl.nodes(len(by_node), layout, how), [named] if named is not None else []


_PARTS: tuple[Part, ...] = (_launcher, _master, _world, _nodes, _steps, _versions, _settings)
#: what says each part's value: an answer that already has it tells the fact
_KEYS = (
    re.compile(r"launched with (\S+)"),
    re.compile(r"(MASTER_\w+=[\w.-]+)"),
    re.compile(r"`([^`]+)`"),
)


def _told(got: Reply, sentence: str) -> bool:
    """Whether the answer already tells the sentence's fact: the launcher it names, the MASTER_ values,
    or every line it quotes."""
    told = said(got)
    if sentence.lower() in told:
        return True
    for rx in _KEYS:
        keys = [k.lower() for k in rx.findall(sentence)]
        if keys:
            return all(k in told for k in keys)
    return False


def with_launch(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with each launch fact the message asks and the answer does not tell yet; a help or a
    glossary answer is led by them (the value is what was asked, not the term)."""
    parts = [(s, ln) for part in _PARTS for s, ln in [part(c, text)] if s and not _told(got, s)]
    if not parts:
        return got
    lead = " ".join(s for s, _ in parts)
    lines = [ln for _, shown in parts for ln in shown]
    if got.intent == "help" or not got.known:
        return reply("facts", lead, lines)
    if got.intent == "explain":
        return first(got, lead, lines)
    return with_lead(got, lead, lines)


__all__ = ["ASKS_MASTER", "master_line", "port_told", "with_launch"]
