"""A value of this job asked about by its key ("what is SeqNum 48213?", "what does exitcode -9 mean
here?", "what is the OOM killer and who did it kill?"): the lines that hold it and what they say.

Why: a meaning ask answered from the glossary alone ("SeqNum: the sequence number of a collective")
leaves out what the newcomer asked about, the value in THIS job: which collective #48213 was, who
reported it and the last one that completed; whose process exited -9 and which pid the kernel killed.
Every fact here is read from a line of the job (the line is shown); no line, nothing is added.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.ranks import ranges
from denpex.core.texts import followups_values as tv
from knowledge.answer_types import Ctx, Reply
from knowledge.lines import parse_rank

#: a meaning or identity ask ("what is", "whats", "what does … mean", "who did it kill")
_ASKS = re.compile(r"\bwhat(?:'s|s| is| does| do| are)?\b|\bwhich\b|\bwho\b|\bmean", re.IGNORECASE)
#: a keyed value in the ask: "SeqNum 48213", "SeqNum=5", "exitcode -9", "exit code: 137", "pid 51234"
_KEYED = re.compile(r"\b(seq ?num|seq_?id|exit ?code|exit status|pid)\s*[:=#]?\s*(-?\d+)\b", re.IGNORECASE)
#: the OOM killer named in the ask, and the kernel's kill line
_OOM_ASK = re.compile(r"\boom[- ]?kill\w*|\bkilled by the kernel\b", re.IGNORECASE)
_KILLED = re.compile(r"Killed process (\d+) \((\S+)\)")
_SEQ_OP = re.compile(r"SeqNum=(\d+), OpType=(\w+)")
_SEQ_DONE = re.compile(r"last completed NCCL work: (\d+)")
_EXIT_LINE = re.compile(r"exitcode:? (-?\d+)\)?\s+local_rank:? (\d+) \(pid:? (\d+)\)")
_NODE_FILE = re.compile(r"node-([\w.-]+?)\.(?:dmesg|log|kern)")
_MAX_LINES = 3


def _all_lines(c: Ctx) -> list[EvidenceLine]:
    """Every line the diagnosis kept (evidence, each rank's tail, the nodes' kernel lines), once."""
    out: dict[tuple[str, int], EvidenceLine] = {}
    pools = [c.view.evidence, *(t.lines for t in c.d.tails), *c.d.nodes.values()]
    for pool in pools:
        for ln in pool:
            if not ln.record:
                out.setdefault((ln.source, ln.line), ln)
    return sorted(out.values(), key=lambda ln: (ln.source, ln.line))


def _holding(lines: list[EvidenceLine], key: str, value: str) -> list[EvidenceLine]:
    """The lines where `value` follows the key (any spelling of it: `SeqNum=5`, `exitcode: -9`)."""
    stem = re.escape(key.replace(" ", "").replace("_", "")[:3])
    pat = re.compile(rf"{stem}[\w ]*?[:=#(]?\s*{re.escape(value)}(?!\d)", re.IGNORECASE)
    tied = re.compile(rf"(?:work|pid):? {re.escape(value)}(?!\d)", re.IGNORECASE)
    return [
        ln for ln in lines if pat.search(ln.text) or (key.lower().startswith("seq") and tied.search(ln.text))
    ]


def _seq(c: Ctx, value: str, hits: list[EvidenceLine]) -> list[str]:
    """Which collective the number was, who reported it, the last completed one, the traces' reading."""
    said: list[str] = []
    ops = [(m.group(2), ln) for ln in hits if (m := _SEQ_OP.search(ln.text)) and m.group(1) == value]
    if ops:
        ranks = sorted({r for _, ln in ops if (r := _rank_of(ln)) is not None})
        s = "s" if len(ranks) > 1 else ""
        said.append(tv.SEQ_OP.format(seq=value, op=ops[0][0], s=s, ranks=ranges(ranks)))
    done = next((m.group(1) for ln in hits if (m := _SEQ_DONE.search(ln.text))), None)
    if done is not None and done != value:
        said.append(tv.SEQ_DONE.format(done=done, seq=value))
    for s_ in c.d.collectives.suspects:
        if str(s_.seq_id) == value and s_.why:
            said.append(tv.SEQ_SUSPECT.format(rank=s_.rank, why=s_.why))
    return said


def _rank_of(ln: EvidenceLine) -> int | None:
    got = parse_rank(ln.text).rank
    if got is None and (m := re.search(r"rank_?(\d+)", ln.source)):
        return int(m.group(1))
    return got


def _node(ln: EvidenceLine) -> str:
    m = _NODE_FILE.search(ln.source)
    return f" on {m.group(1)}" if m else ""


def _killed(lines: list[EvidenceLine], pids: set[str] | None) -> tuple[list[str], list[EvidenceLine]]:
    """The kernel's kill lines (of the given pids, or any): which pid, which program, on which node."""
    said: list[str] = []
    shown: list[EvidenceLine] = []
    for ln in lines:
        m = _KILLED.search(ln.text)
        if m and (pids is None or m.group(1) in pids):
            said.append(tv.KILLED.format(pid=m.group(1), name=f" ({m.group(2)})", node=_node(ln), ref=ln.ref))
            shown.append(ln)
    return said[:1], shown[:1]


def _exit(
    value: str, hits: list[EvidenceLine], lines: list[EvidenceLine]
) -> tuple[list[str], list[EvidenceLine]]:
    said: list[str] = []
    pids: set[str] = set()
    for ln in hits:
        m = _EXIT_LINE.search(ln.text)
        if m and m.group(1) == value:
            said.append(tv.EXIT_WHO.format(code=value, local=m.group(2), pid=m.group(3), ref=ln.ref))
            pids.add(m.group(3))
    more, shown = _killed(lines, pids) if pids else ([], [])
    return said + more, shown


def _one_per_kind(hits: list[EvidenceLine]) -> list[EvidenceLine]:
    """One line per wording (eight ranks' same watchdog line is shown once)."""
    seen: set[str] = set()
    out: list[EvidenceLine] = []
    for ln in hits:
        kind = re.sub(r"\d+", "#", re.sub(r"^\[[^\]]*\]\s*", "", ln.text))[:80]
        if kind not in seen:
            seen.add(kind)
            out.append(ln)
    return out[:_MAX_LINES]


def with_values(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the asked value's lines of this job and what they say, when it does not show them."""
    if not _ASKS.search(text):
        return got
    lines = _all_lines(c)
    said: list[str] = []
    shown: list[EvidenceLine] = []
    for m in _KEYED.finditer(text):
        key, value = m.group(1), m.group(2)
        hits = _holding(lines, key, value)
        if not hits:
            continue
        kind = key.lower().replace(" ", "")
        if kind.startswith("seq"):
            said += _seq(c, value, hits)
        elif kind.startswith("exit"):
            more, extra = _exit(value, hits, lines)
            said += more
            shown += extra
        keep = _one_per_kind(hits)
        shown = keep + shown
        if not said:
            refs = ", ".join(ln.ref for ln in keep)
            said.append(tv.VALUE_HERE.format(key=key, value=value, refs=refs))
    if _OOM_ASK.search(text) and not any(_KILLED.search(ln.text) for ln in shown):
        more, extra = _killed(lines, None)
        said += more
        shown += extra
    return _added(got, said, shown)


def _added(got: Reply, said: list[str], shown: list[EvidenceLine]) -> Reply:
    have = " ".join([got.lead, *(ln.text for ln in got.lines)])
    said = [s for s in dict.fromkeys(said) if s not in have]
    if not said:
        return got
    new = [ln for ln in shown if not any(x.source == ln.source and x.line == ln.line for x in got.lines)]
    return replace(
        got,
        lead=f"{got.lead} {' '.join(said)}".strip(),
        lines=[*got.lines, *new],
        material=[*got.material, *said, *(f"{ln.ref} {ln.text}" for ln in new)],
    )
