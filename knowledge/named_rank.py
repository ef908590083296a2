"""Ranks a log names only inside a message, not with a prefix: the abnormal device of HCCL's heartbeat
report, the `RankID` of a torch_npu error code, torchrun's Root Cause entry when the only traceback is
another rank's, and the one rank still at work while unlabelled processes time out waiting on the store.

Each reads a fact the frameworks print themselves; none runs unless its cue is in a kept line:
- HCCL (Ascend) reports the device it lost the heartbeat of as `Cluster Exception Location[IP/ID]:[ip/N]`,
  with the rank that noticed as `Discoverer:[ip/M]` (Ascend/pytorch docs/en/troubleshooting/
  HCCL_timeout.md; hccl's heartbeat.cc builds the line from the event's `crimer` and `informer`).
- torch_npu tags its error codes with the raising process (`(PID:23232, Device:0, RankID:0) ERR02002`,
  Ascend/pytorch docs/en/troubleshooting, torch_npu/utils/error_code.py).
- torchrun's summary puts the first observed failure last, after `Root Cause (first observed failure):`
  and before the closing `=` border (torch/distributed/elastic/multiprocessing/errors/__init__.py,
  `_MSG_FORMAT_TEMPLATE`; `get_first_failure` takes the earliest timestamp). When every rank failed the
  same way and the root rank left no line of its own, that order is the only clock there is.
  An entry whose process exited by a signal (`exitcode : -9`) is a victim the agent saw exit first
  (the OOM killer's, or the agent's own SIGKILL), never the rank named.
- A mid-run c10d store wait (`Socket Timeout` from TCPStore's doWait) means processes waited for a peer
  that did not arrive; when those processes print no rank and the log names exactly one rank, still
  logging its way into the collective, that rank is the one they waited for.
"""

from __future__ import annotations

import re

from knowledge import wording
from knowledge.lines import BLOCK_RANK, parse_rank, strip_delivery
from knowledge.signals import Job
from knowledge.verdict import Verdict

#: HCCL's heartbeat report of the abnormal device (the `ID` after the IP is its rank)
_HCCL_LOST = re.compile(r"Cluster Exception Location\[IP/ID\]:\[[^\]/\s]*/(\d{1,6})\]")
#: torch_npu's error-code tag of the process that raised it
_NPU_RANK = re.compile(r"\(PID:\s?\d+, Device:\s?-?\d+, RankID:\s?(\d{1,6})\) ERR\d{5}")
_ROOT_HEADER = "Root Cause (first observed failure)"
_EXITCODE = re.compile(r"^\s*exitcode\s*:\s*(-?\d+)")
_BORDER = re.compile(r"^\s*={20,}\s*$")
_ENTRY_START = re.compile(r"^\s*\[\d+\]:\s*$")
#: categories whose first exit is a waiter's (a timeout fires on the ranks that waited, not the late one)
_WAITS = frozenset({"nccl_timeout", "hang_no_error"})
_STORE_WAIT = re.compile(r"Socket Timeout|wait timeout after \d+ ?ms, keys:")


def message_culprits(job: Job) -> None:
    """Add the devices HCCL's heartbeat names as abnormal to the ranks the others waited for."""
    for scan in job.scans:
        for hit in scan.hits:
            if "Cluster Exception" in hit.text:
                job.culprits.update(int(r) for r in _HCCL_LOST.findall(hit.text))


def name_rank(job: Job, v: Verdict) -> None:
    """Name the initiating rank from a message when attribution left it open (or, for torchrun's Root
    Cause, when the only rank named is one whose identical failure has no time to order it by)."""
    if v.entry is None:
        return
    if v.rank is None and (rank := _npu_rank(job, v)) is not None:
        _set(job, v, rank, wording.npu_rank(rank))
    elif v.rank is None and (rank := _lone_worker(job, v)) is not None:
        _set(job, v, rank, wording.lone_worker(rank))
        v.confidence = round(v.confidence * 0.85, 2)
    elif v.rank is not None and (rank := _root_cause(job, v)) is not None:
        shown = v.rank
        _set(job, v, rank, wording.root_cause_rank(rank, shown))
    if v.rank is not None and (seen := _launcher_first(job)) is not None and seen != v.rank:
        v.after.append(wording.launcher_saw_first(seen, v.rank))  # the block a reader will find


def _launcher_first(job: Job) -> int | None:
    """The one rank torchrun's summary gives as its first observed failure, by any exit."""
    roots = {r for scan in job.scans if (r := _summary_root(scan.numbered_tail, any_exit=True)) is not None}
    return roots.pop() if len(roots) == 1 else None


def _set(job: Job, v: Verdict, rank: int, note: str) -> None:
    v.rank, v.actor, v.node = rank, ("rank", str(rank)), job.rank_node.get(rank)
    v.notes.append(note)


def _npu_rank(job: Job, v: Verdict) -> int | None:
    """The one RankID torch_npu's error codes name in the file the failure came from."""
    sources = {s.source for s in v.evidence}
    found = {
        int(m.group(1))
        for i, scan in enumerate(job.scans)
        if i in sources
        for hit in scan.hits
        if "RankID" in hit.text and (m := _NPU_RANK.search(hit.text)) is not None
    }
    return found.pop() if len(found) == 1 else None


def _lone_worker(job: Job, v: Verdict) -> int | None:
    """The only rank a log names, when the failure is a mid-run store wait of processes naming none."""
    if v.category != "nccl_timeout" or not v.evidence:
        return None
    if any(s.rank is not None or not _STORE_WAIT.search(s.hit.text) for s in v.evidence):
        return None
    named: set[int] = set()
    for scan in job.scans:
        if scan.source.kind == "kernel" or scan.source.rank is not None:
            return None
        for _, text in scan.numbered_tail:
            if (rank := parse_rank(text).rank) is not None:
                named.add(rank)
    if len(named) != 1 or any(s.rank is not None for s in job.signals):
        return None
    rank = named.pop()
    return rank if rank in job.seq else None  # it was seen entering the collective the others left


def _root_cause(job: Job, v: Verdict) -> int | None:
    """torchrun's Root Cause rank, when the chosen failure is another rank's and the root rank left no
    line of its own: no time of a line can be set against the launcher's order then (a collector's
    stamps on the shown rank's lines order nothing against a rank with no lines)."""
    if v.collateral_only or job.culprits or v.category in _WAITS:
        return None  # a waiter's exit is no start, and a rank the others named outranks the launcher
    if any(s.hit.secondhand for s in v.evidence):
        return None  # (a time on the chosen line orders nothing: the root rank left no line to compare)
    roots = {r for scan in job.scans if (r := _summary_root(scan.numbered_tail)) is not None}
    if len(roots) != 1:
        return None
    root = roots.pop()
    own = {s.rank for s in job.signals if not s.hit.secondhand} | {
        sc.source.rank for sc in job.scans if sc.source.rank is not None
    }
    return root if root != v.rank and root not in own else None


def _summary_root(tail: list[tuple[int, str]], *, any_exit: bool = False) -> int | None:
    """The rank of the summary entry that is the Root Cause: the entry under its header, or the one
    the closing border follows directly (a paste that kept only the summary's tail)."""
    texts = [strip_delivery(t) for _, t in tail]  # a quoted, stamped or relayed copy of the summary
    for k, text in enumerate(texts):
        m = BLOCK_RANK.match(text)
        if m is None:
            continue
        if any(_ROOT_HEADER in t for t in texts[max(0, k - 4) : k]):
            return int(m.group(1)) if any_exit else _own_exit(int(m.group(1)), texts[k + 1 : k + 3])
        for t in texts[k + 1 : k + 8]:
            if _ENTRY_START.match(t) or BLOCK_RANK.match(t):
                break
            if _BORDER.match(t):
                return int(m.group(1)) if any_exit else _own_exit(int(m.group(1)), texts[k + 1 : k + 3])
    return None


def _own_exit(rank: int, entry: list[str]) -> int | None:
    """The entry's rank when its process exited with an error code of its own; an exit by a signal
    (`exitcode : -9`, SIGKILL from the OOM killer or the agent) is the launcher noticing a victim first,
    not the rank that started it."""
    for t in entry:
        if (m := _EXITCODE.search(t)) is not None:
            return rank if int(m.group(1)) > 0 else None
    return rank
