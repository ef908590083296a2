"""What a conclusion rests on, added when a skeptical reader challenges it: "desync and timeout both
0.46, why pick desync?", "no 'No space left' line, why a full disk?", "do the logs show
stage3_gather_16bit_weights_on_model_save or are you guessing?", "was this job using 29500?", "why
dmesg for a port clash, what should I run instead?", "how do you tie PCI 3b:00 to rank 5?".

Why: the answer about the verdict states the conclusion; a challenge asks for the evidence under it and
whether it is read from a line or inferred. Each step quotes the line it rests on, says plainly when
the thing is not printed (an inference) and names what would confirm it. Nothing is added when the
job has no such line.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_grounds as tg
from knowledge import answer_asks, answer_code, answer_gpu_ids
from knowledge.answer_types import Ctx, Reply, rank_lines, rank_list, ref, reply
from knowledge.intents import named_ranks

_TIE = re.compile(
    r"\b(?:why|how)\b[^?]{0,60}\b(?:over|rather than|instead of|versus|vs\.?|and not)\b"
    r"|\btied?\b|\bjust (?:be )?slow\b|\bslow (?:\w+ )?(?:network\w*|loopback|link|interconnect)\b"
)
_DISK = re.compile(r"no space left|enospc|\bfull disk\b|\bdisk (?:is |was )?full\b|out of (?:disk )?space")
_DOUBT = re.compile(
    r"\bguess\w*|\bassum\w*|\binfer\w*|\bevidence\b|\bhow do you know\b"
    r"|\bdo(?:es)? the logs? (?:show|say|print)"
    r"|\bwhere (?:is|does) (?:that|it) (?:come|say)|\bprinted\b|\bwhy (?:a|do you)\b"
)
_KEY = re.compile(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+){2,})\b")
_PORT_ASK = re.compile(
    r"\b(?:using|use|used|on|bind\w*|listen\w*)\b[^?]{0,30}?\b(\d{4,5})\b|\b(\d{4,5})\b[^?]{0,40}\bdefault\b"
)
_PORT = re.compile(r"\bport[:= ]+(\d{2,5})\b|MASTER_PORT=(\d{2,5})", re.IGNORECASE)
_PORT_TOOL = re.compile(
    r"\b(?:dmesg|kernel log)\b[^?]*\?[^?]*\b(?:instead|run|use|check)\b|\binstead\b[^?]{0,40}\bdmesg\b"
)
_TIE_PCI = re.compile(
    r"\b(?:tie|link|map|match|connect|know|sure)\w*\b[^?]{0,60}\b(?:pci|bus)"
    r"|\b(?:pci|bus)\b[^?]{0,60}\bto rank\b"
)
_SHORT = re.compile(r"unexpected pos (\d+) vs (\d+)")
_IOS = re.compile(r"basic_ios::clear")
_ENOSPC = re.compile(r"No space left|ENOSPC|Errno 28|Disk quota exceeded", re.IGNORECASE)
#: a setting and the frame that only runs when it is on, and why that frame shows it
_SHOWS: dict[str, tuple[str, str]] = {
    "stage3_gather_16bit_weights_on_model_save": (
        "_zero3_consolidated_16bit_state_dict",
        "which DeepSpeed's save_16bit_model calls to gather the full 16-bit weights"
        " only when that setting is true",
    ),
}


def all_lines(c: Ctx) -> list[EvidenceLine]:
    """Every line kept from this job: the ranks' tails, the evidence, the nodes' kernel logs."""
    out = [ln for t in c.d.tails for ln in t.lines] + list(c.view.evidence)
    out += [ln for ls in c.d.nodes.values() for ln in ls]
    seen: set[tuple[str, int]] = set()
    kept: list[EvidenceLine] = []
    for ln in out:
        if (ln.source, ln.line) not in seen:
            seen.add((ln.source, ln.line))
            kept.append(ln)
    return kept


def add(got: Reply, said: str, shown: list[EvidenceLine]) -> Reply:
    """`got` with `said` after its lead, unless the answer says it already."""
    if not said or said.lower() in answer_asks.said(got):
        return got
    if got.intent == "help":  # the fallback's "I can answer…" is no answer: this replaces it
        return reply("quote", said, shown)
    return answer_asks.with_lead(got, said, shown)


def with_grounds(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the evidence under each challenged conclusion the message names."""
    low = text.lower()
    if _TIE.search(low):
        got = add(got, *_tie(c))
    if _DISK.search(low) and _DOUBT.search(low):
        got = add(got, *_disk(c))
    if _DOUBT.search(low) and (key := _KEY.search(low)) is not None:
        got = add(got, *_config(c, key.group(1)))
    if (p := _PORT_ASK.search(low)) is not None:
        got = add(got, *_port(c, p.group(1) or p.group(2)))
    if _PORT_TOOL.search(low):
        got = add(got, *_port_tool(c))
    if _TIE_PCI.search(low):
        got = add(got, *_pci(c, text))
    return got


def _tie(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    odd = answer_code.collective_rows(c)[1]
    return (tg.TIE_SPLIT.format(odd=odd), []) if odd else ("", [])


def _disk(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    lines = all_lines(c)
    if any(_ENOSPC.search(ln.text) for ln in lines):
        return "", []
    what: list[str] = []
    shown: list[EvidenceLine] = []
    short = next((ln for ln in lines if _SHORT.search(ln.text)), None)
    if short is not None and (m := _SHORT.search(short.text)) is not None:
        what.append(tg.SHORT_POS.format(a=m.group(1), b=m.group(2), ref=ref(short)))
        shown.append(short)
    ios = next((ln for ln in lines if _IOS.search(ln.text)), None)
    if ios is not None:
        what.append(tg.IOSTREAM.format(ref=ref(ios)))
        shown.append(ios)
    return (tg.NO_ENOSPC.format(what=" and ".join(what)), shown) if what else ("", [])


def _config(c: Ctx, key: str) -> tuple[str, list[EvidenceLine]]:
    lines = all_lines(c)
    found = next((ln for ln in lines if key in ln.text.lower()), None)
    if found is not None:
        return tg.CONFIG_SHOWN.format(key=key, text=found.text.strip()[:160], ref=ref(found)), [found]
    shows = _SHOWS.get(key)
    if shows is None:
        return "", []
    for rank in sorted(c.view.ranks):
        for f in answer_code.traceback(c, rank)[1]:
            if f.func == shows[0]:
                said = tg.CONFIG_INFERRED.format(
                    key=key,
                    rank=rank,
                    func=f.func,
                    path=f.path.rsplit("/", 1)[-1],
                    number=f.number,
                    ref=ref(f.line),
                    why=shows[1],
                )
                return said, [f.line]
    return tg.CONFIG_NOT_SEEN.format(key=key), []


def _port_line(c: Ctx) -> tuple[str, EvidenceLine] | None:
    for ln in all_lines(c):
        clash = "EADDRINUSE" in ln.text or "address already in use" in ln.text.lower()
        if clash and (m := _PORT.search(ln.text)) is not None:
            return m.group(1) or m.group(2), ln
    return None


def _port(c: Ctx, asked: str) -> tuple[str, list[EvidenceLine]]:
    found = _port_line(c)
    if found is None:
        return "", []
    port, ln = found
    if port == asked:
        return tg.PORT_SAME.format(port=port, ref=ref(ln)), [ln]
    default = tg.DEFAULT_29500 if asked == "29500" else ""
    return tg.PORT_OTHER.format(port=port, ref=ref(ln), asked=asked, asked_default=default).strip(), [ln]


def _port_tool(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    found = _port_line(c)
    return (tg.PORT_TOOL.format(port=found[0]), [found[1]]) if found is not None else ("", [])


def _pci(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """The faulting node's rank whose NCCL init line names the kernel line's bus id."""
    fault = answer_gpu_ids._kernel_fault(c)
    pci = answer_gpu_ids._PCI.search(fault.text) if fault is not None else None
    if fault is None or pci is None:
        return "", []
    bus = pci.group(1).split(":", 1)[1].replace(":", "").lower()  # 0000:3b:00 -> 3b00
    node = next((n for n, ls in c.d.nodes.items() if fault in ls), "")
    asked = [r for r in named_ranks(text) if r in c.view.ranks]
    for rank in asked + sorted(c.view.ranks):
        r = c.view.ranks[rank]
        lines = [ln for ls in rank_lines(c, rank).values() for ln in ls]
        found = answer_gpu_ids._nccl(lines, rank)
        if found is None or (node and r.node != node) or not found[1].group("bus").startswith(bus):
            continue
        ids, shown = answer_gpu_ids._index(c, rank, lines)
        ids = ids.rstrip(".")
        return tg.PCI_TIE.format(
            node=node or r.node, kref=ref(fault), bus=pci.group(1), rank=rank, ids=ids
        ), [
            fault,
            *shown,
        ]
    on = [x for x in asked if c.view.ranks[x].node == node]
    if not node or not on:
        return "", []
    inferred = answer_gpu_ids._inferred(c, on[0])[0]
    mates = rank_list(sorted(x.rank for x in c.view.ranks.values() if x.node == node))
    return tg.PCI_NODE.format(node=node, kref=ref(fault), ranks=mates, bus=pci.group(1), inferred=inferred), [
        fault
    ]
