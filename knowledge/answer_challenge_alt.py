"""This job's evidence against the other cause a skeptic names ("did the kernel OOM killer fire?",
"couldn't it be a training-step leak that coincided with the save?", "couldn't a node failure cause the
cancel?", "the TCPStore or NCCL init?", "was any rank at fault?").

Why: a challenge is answered by the line that decides between the verdict and the named alternative —
the exit code a kernel kill would have changed, the save frame a step leak would not have, the reason
on the scheduler's own line — and by what would change the verdict, not by the ranking alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_challenge as tc
from knowledge import answer_job, answer_more, answer_quote
from knowledge.answer_types import Ctx, rank_lines, ref, when
from knowledge.jobfacts_answers import launcher_exits

_KILLER = re.compile(r"\boom[- ]?killer\b|\bkernel\W+(?:\w+\W+)?(?:oom|kill\w*)\b")
_FLAKY = re.compile(r"\bflaky\b|\bnfs\b|\bfilesystem\b|\bfile system\b|\bmount\b|\blustre\b")
_STEP = re.compile(
    # "a training-step OOM?", not "the last training step before the save" (a step asked, no challenge)
    r"(?<!last )(?<!final )(?<!latest )(?<!previous )\b(?:training|train)[- ]?step\b(?! (?:number|count)\b)"
    r"|\bleak\w*|\bcoincid\w*|\b(?:regular|ordinary|normal|usual) "
    r"(?:\w+[- ])?(?:oom|leak|step)"
)
_NODE = re.compile(
    r"\bnode (?:fail\w*|crash\w*|died|down|dead|problem|issue)|\b(?:died|crash\w*|reboot\w*)\b"
)
_FAULT = re.compile(r"\b(?:any|which|a|one) rank\b.{0,25}\b(?:fault|blame|cause|responsible)")
_HANG = re.compile(r"\bhang\w*\b|\bhung\b|\bstuck\b|\bwedged?\b")
_NET = re.compile(r"\bnetwork\b|\binfiniband\b|\bib\b|\binterconnect\b|\bfabric\b|\bnic\b")
_STORE = re.compile(r"\btcpstore\b|\bnccl\b")
_SAVE_FRAME = re.compile(r"state_dict|\.clone\(|offload_to_cpu|consolidat|save_checkpoint|save_model")
_OWN_ERR = re.compile(r"\b\w*(?:Error|Exception)\b: ")
_STORE_FRAME = re.compile(r"TCPStore\(|next_rendezvous|static_tcp_rendezvous")
_COLLECTIVE = ("nccl", "hang", "rendezvous")

Check = Callable[[Ctx, str], tuple[str, list[EvidenceLine]]]


def checks(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """Every check the question names, its sentences and the lines that show them."""
    said: list[str] = []
    shown: list[EvidenceLine] = []
    for check in _CHECKS:
        s, lines = check(c, text)
        if s:
            said.append(s)
            shown += [ln for ln in lines if ln not in shown]
    return " ".join(said), shown


def _killer(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    ini = c.view.initiating
    if ini is None or not _KILLER.search(text):
        return "", []
    for e in launcher_exits(c.d):
        if e.rank == ini.rank and e.code != -9 and e.line is not None:
            node = ini.node or "its node"
            return tc.NOT_KILLER.format(rank=ini.rank, code=e.code, ref=ref(e.line), node=node), [e.line]
    return "", []


def _flaky_file(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    if not _FLAKY.search(text) or not c.view.category.startswith("disk"):
        return "", []
    found = answer_quote.saving_line(c)
    if found is None:
        return "", []
    name, ln = found
    folder = name.rsplit("/", 1)[0] if "/" in name else "<ckpt dir>"
    return tc.FLAKY_FILE.format(name=name, ref=ref(ln), folder=folder), [ln]


def _not_step(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    ini = c.view.initiating
    saving = ini is not None and any(k in f"{ini.phase} {c.view.category}" for k in ("save", "checkpoint"))
    if ini is None or not saving or not _STEP.search(text):
        return "", []
    doing = answer_more.doing_line(c, ini)
    pool = [*c.view.evidence, *(ln for lines in rank_lines(c, ini.rank).values() for ln in lines)]
    frames = [ln for ln in pool if _SAVE_FRAME.search(ln.text)]
    frame = next((ln for ln in frames if "File " not in ln.text), frames[0] if frames else None)
    if doing is None or frame is None:
        return "", []
    what = "leak" if "leak" in text else "OOM"
    fail = f"at {when(ini.first_time)}" if ini.first_time else "after it"
    said = tc.NOT_STEP.format(
        what=what,
        rank=ini.rank,
        doing=_body(doing.text),
        ref=ref(doing),
        fail=fail,
        frame=_body(frame.text),
        frame_ref=ref(frame),
    )
    return said, [doing, frame]


def _body(text: str) -> str:
    """The line without its rank prefix and log header, at most 140 characters."""
    body = re.sub(r"^(?:\[\w+\]:)*\s*", "", text).strip()
    return body if len(body) <= 140 else body[:137] + "…"


def _not_node(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    end = answer_job.scheduler_end(c)
    if end is None or not _NODE.search(text) or "NODE" in end.reason.upper():
        return "", []
    return tc.NOT_NODE.format(reason=_reason(end), ref=ref(end.line), job=end.job), [end.line]


def _reason(end: answer_job.SchedulerEnd) -> str:
    found = re.search(r"DUE TO [A-Z _]+", end.line.text)
    return found.group(0).strip() if found else end.reason


def _no_rank(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    end = answer_job.scheduler_end(c)
    if end is None or c.view.initiating is not None or not _FAULT.search(text):
        return "", []
    return tc.NO_RANK.format(reason=_reason(end), ref=ref(end.line)), [end.line]


def _hang_end(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    end = answer_job.scheduler_end(c)
    if end is None or c.view.initiating is not None or not _HANG.search(text) or not end.at:
        return "", []
    return tc.NOT_HANG_END.format(end=end.at.replace("T", " "), ref=ref(end.line)), [end.line]


def _own_error(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    ini = c.view.initiating
    if ini is None or not _NET.search(text) or any(k in c.view.category for k in _COLLECTIVE):
        return "", []
    own = [ln for tl in c.d.tails if tl.rank == ini.rank for ln in tl.lines if _OWN_ERR.search(ln.text)]
    if not own:
        return "", []
    return tc.OWN_ERROR.format(rank=ini.rank, text=_body(own[0].text), ref=ref(own[0])), [own[0]]


def _store(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    if not _STORE.search(text) or not c.view.category.startswith("rendezvous"):
        return "", []
    pool = [*c.view.evidence, *(ln for tl in c.d.tails for ln in tl.lines)]
    frame = next((ln for ln in pool if _STORE_FRAME.search(ln.text)), None)
    error = next((ln for ln in pool if "port" in ln.text and "Error" in ln.text), None)
    if frame is None or error is None:
        return "", []
    said = tc.STORE_NOT_NCCL.format(
        frame=_body(frame.text), frame_ref=ref(frame), error=_body(error.text), ref=ref(error)
    )
    return said, [frame, error]


_CHECKS: tuple[Check, ...] = (
    _killer,
    _flaky_file,
    _not_step,
    _not_node,
    _no_rank,
    _hang_end,
    _own_error,
    _store,
)
