"""Audit asks about one fact the verdict rests on: "Rank 1's ValueError has no timestamp — where does
the initiating time come from?", "cuda oom where - node + rank pls", "Confidence 0.95 — is that in the
packet?", "rank 5 vs rank 0 mem_alloc at step 2000?", "timeout or hang? was it stuck at the end?",
"what would --signal=USR1@600 have changed?", "compare rank 0 vs rank 7", "show the last lines per
rank that back that up".

Why: the first answer states the conclusion; the audit asks for the one line or figure under it. Each
step adds it from this job's lines only when the answer does not already say it.
"""

from __future__ import annotations

import itertools
import re

from denpex.core.models import EvidenceLine
from denpex.core.ranks import ranges
from denpex.core.texts import followups_named as tn
from knowledge import answer_grounds, answer_lastlog
from knowledge.answer_types import Ctx, Reply, rank_lines, when
from knowledge.intents import named_ranks
from knowledge.lines import parse_rank, parse_timestamp

_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")
_FROM_ASK = re.compile(
    r"\b(?:no|without(?: a)?|has no|lacks?(?: a)?) (?:own )?(?:time ?stamp|time|stamp)\b|\bborrow\w*\b"
    r"|\b(?:time|timestamp|stamp)\b[^?]{0,40}\bcome from\b|\bwhich line\b[^?]{0,40}\btime\b",
    re.IGNORECASE,
)
_NODE_ASK = re.compile(
    r"\bwhich (?:node|host|machine|box)\b|\b(?:node|host)\b[^?]{0,10}\brank\b"
    r"|\bwhere\b[^?]{0,30}\b(?:node|host)\b",
    re.IGNORECASE,
)
_CONF_ASK = re.compile(r"\bconfiden\w*|\b0\.\d\d\b", re.IGNORECASE)
_METRIC = re.compile(r"\b(mem_alloc|loss|grad_norm|lr|tokens/s)(?:es)?\b", re.IGNORECASE)
_STEP_N = re.compile(r"\bstep (\d+)\b", re.IGNORECASE)
_HANG_ASK = re.compile(
    r"\bhang\w*|\bhung\b|\bstuck\b|\bgap\b|\bsilen\w*|\bslow\b|\bfroze\w*|\bstall\w*", re.IGNORECASE
)
_STEP_LINE = re.compile(r"\bstep \d+(?:/\d+)?\b.*\b(?:loss|mem_alloc|grad_norm)\b", re.IGNORECASE)
_SIGNAL = re.compile(
    r"--signal[= ](?:B:)?(?:SIG)?([A-Z0-9]+)@(\d+)|\bSIG(USR[12])\b|\b(USR[12])\b", re.IGNORECASE
)
_SAVE = re.compile(r"\bsav\w* (?:model )?checkpoint|\bcheckpoint sav\w*|\bSaving model\b", re.IGNORECASE)
_COMPARE_ASK = re.compile(r"\bcompare\b|\bvs\.?\b|\bversus\b|\beach\b", re.IGNORECASE)
_ERROR = re.compile(r"\b\w+(?:Error|Exception)\b: ")
_LAST_ASK = re.compile(
    r"\blast lines?\b[^?]{0,60}\b(?:per|each) rank\b|\bper rank\b[^?]{0,40}\blast\b"
    r"|\bcompare \S+\.(?:out|log|err) and \S+\.(?:out|log|err)|\bbetween ranks at the end\b",
    re.IGNORECASE,
)
_FILE = re.compile(r"\b([\w.-]+\.(?:out|log|err))\b")


def _time(ln: EvidenceLine) -> str:
    stamp = parse_timestamp(_PREFIX.sub("", ln.text))
    return (stamp.iso() or "") if stamp is not None else ""


def _time_from(c: Ctx, got: Reply) -> Reply:
    ini = c.view.initiating
    if ini is None or not ini.first_time:
        return got
    lines = [ln for ln in answer_grounds.all_lines(c) if _time(ln) == ini.first_time]
    if not lines:
        return got
    ln = lines[0]
    if ln.ref in got.lead:  # the answer says already where its time is from
        return got
    rank = parse_rank(ln.text).rank
    if rank is None:
        rank = next((r for r, ls in ((r, rank_lines(c, r)) for r in c.view.ranks) if _has(ls, ln)), None)
    who = f"rank {rank}" if rank is not None else "the job's log"
    text = _PREFIX.sub("", ln.text).strip()[:200]
    own = not ini.borrowed and (rank is None or rank == ini.rank)
    return answer_grounds.add(got, tn.time_from(when(ini.first_time), ln.ref, who, text, own), [ln])


def _has(lines: dict[str, list[EvidenceLine]], ln: EvidenceLine) -> bool:
    return any(x.source == ln.source and x.line == ln.line for ls in lines.values() for x in ls)


def _node(c: Ctx, text: str, got: Reply) -> Reply:
    ini = c.view.initiating
    if ini is None or not ini.node or ini.node.lower() in got.lead.lower():
        return got
    if any(r != ini.rank for r in named_ranks(text)):  # another rank's host is asked
        return got
    return answer_grounds.add(got, tn.node_rank(ini.rank, ini.node, ini.gpu), [])


def _step_values(c: Ctx, text: str, got: Reply) -> Reply:
    steps = _STEP_N.findall(text)
    metric = _METRIC.search(text)
    if not steps or metric is None:
        return got
    name = metric.group(1)
    value = re.compile(rf"\b{re.escape(name)}[=: ]+([\d.e+-]+\w*)")
    for rank in named_ranks(text)[:4]:
        for ln in (x for ls in rank_lines(c, rank).values() for x in ls):
            m = value.search(ln.text)
            if m is not None and set(_STEP_N.findall(ln.text)) & set(steps):
                step = f"step {_STEP_N.findall(ln.text)[0]}"
                got = answer_grounds.add(got, tn.step_value(rank, step, f"{name}={m.group(1)}", ln.ref), [ln])
                break
    return got


def _gap(c: Ctx, got: Reply) -> Reply:
    if ("time" not in c.view.category and "scheduler" not in c.view.category) or not c.view.end:
        return got
    steps = [
        (_time(ln), ln) for ln in answer_grounds.all_lines(c) if _STEP_LINE.search(ln.text) and _time(ln)
    ]
    if not steps:
        return got
    iso, ln = max(steps, key=lambda p: p[0])
    end, last = parse_timestamp(c.view.end.replace("T", " ")), parse_timestamp(_PREFIX.sub("", ln.text))
    if end is None or last is None or end.value <= last.value:
        return got
    seconds = round(end.value - last.value)
    text = _PREFIX.sub("", ln.text).strip()[:160]
    said = tn.gap(text, ln.ref, when(iso), seconds, when(c.view.end))
    pace = _pace(sorted(t for t, x in steps if x.source == ln.source))
    return answer_grounds.add(got, f"{said} {tn.pace(pace)}" if pace else said, [ln])


def _pace(isos: list[str]) -> int | None:
    """Seconds a step took over the last few step lines of one file, when they agree."""
    stamps = [s.value for s in (parse_timestamp(i.replace("T", " ")) for i in isos[-6:]) if s is not None]
    gaps = sorted(round(b - a) for a, b in itertools.pairwise(stamps) if b > a)
    return gaps[len(gaps) // 2] if len(gaps) >= 2 else None


def _signal(c: Ctx, text: str, got: Reply) -> Reply:
    m = _SIGNAL.search(text)
    if m is None:
        return got
    sig = (m.group(1) or m.group(3) or m.group(4)).upper()
    flag = f"--signal={sig}@{m.group(2)}" if m.group(1) else f"--signal={sig}@<seconds>"
    lead = f"{m.group(2)} s" if m.group(2) else "that many seconds"
    saved = any(_SAVE.search(ln.text) for ln in answer_grounds.all_lines(c))
    return answer_grounds.add(got, tn.signal_early(flag, sig, lead, saved), [])


def _error_line(c: Ctx, text: str, got: Reply) -> Reply:
    ini = c.view.initiating
    if ini is None or ini.rank not in named_ranks(text):
        return got
    for ln in (x for ls in rank_lines(c, ini.rank).values() for x in ls):
        if _ERROR.search(ln.text) and ln.ref not in got.lead:
            body = _PREFIX.sub("", ln.text).strip()[:200]
            return answer_grounds.add(got, tn.error_line(ini.rank, body, ln.ref), [ln])
    return got


def _last_lines(c: Ctx, text: str, got: Reply) -> Reply:
    files = set(_FILE.findall(text))
    ranks = sorted(
        {r for r in c.view.ranks for ls in rank_lines(c, r).values() for ln in ls if ln.source in files}
    )
    ask = " and ".join(f"rank {r}" for r in ranks) if ranks else "their"
    got = answer_lastlog.with_last(c, f"{ask} last line logged, last step line", got)
    ends: dict[str, list[int]] = {}
    shown: dict[str, EvidenceLine] = {}
    for r in ranks or sorted(c.view.ranks):
        ln = c.view.ranks[r].first_line
        if ln is not None:
            key = _PREFIX.sub("", ln.text).strip()[:200]
            ends.setdefault(key, []).append(r)
            shown.setdefault(key, ln)
    for key, rs in ends.items():
        ln = shown[key]
        got = answer_grounds.add(got, tn.ended(ranges(rs), key, ln.ref, when(_time(ln))), [ln])
    return got


def with_audit(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the fact an audit of the verdict asks for, from this job's lines."""
    if _FROM_ASK.search(text):
        got = _time_from(c, got)
    if _NODE_ASK.search(text):
        got = _node(c, text, got)
    if _CONF_ASK.search(text) and f"{c.view.confidence:.2f}" not in got.lead:
        got = answer_grounds.add(got, tn.confidence(c.view.confidence), [])
    got = _step_values(c, text, got)
    if _HANG_ASK.search(text):
        got = _gap(c, got)
    got = _signal(c, text, got)
    if _COMPARE_ASK.search(text):
        got = _error_line(c, text, got)
    if _LAST_ASK.search(text):
        got = _last_lines(c, text, got)
    return got
