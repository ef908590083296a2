"""Ranks named by a launcher's or a runtime's own line when no rank-prefixed failure names one.

Both readings run only when attribution left the rank open, and both read a fact the framework prints:
- torchrun's `@record` wrapper, on `ChildFailedError`, takes the first failure
  (`rank, failure = e.get_first_failure()`) and, with no error file to dump, logs
  `local_rank %s FAILED with no error file. Decorate your entrypoint fn with @record ...`; older builds
  pass the format and the rank as one tuple, so it prints as `('local_rank %s FAILED ...', 0)`
  (torch/distributed/elastic/multiprocessing/errors/__init__.py). The failures are keyed by global
  rank (the agent maps each local failure to `worker.global_rank`), so the number is a rank despite its
  wording. A child that the agent saw exit by a signal (`failed (exitcode: -9) local_rank: 0`) is a
  victim noticed first (the OOM killer's), never named, as for the summary's Root Cause.
- Horovod's background thread runs `RunLoopOnce(state, is_coordinator)` with
  `is_coordinator = rank == 0` (horovod/common/operations.cc, BackgroundThreadLoop): a native backtrace
  of a crash in that loop with `is_coordinator=true` is rank 0's, whose core the backtrace came from.
"""

from __future__ import annotations

import re

from knowledge.lines import strip_delivery
from knowledge.signals import Job
from knowledge.verdict import Verdict

_RECORD_NO_FILE = re.compile(
    r"local_rank (?:%s FAILED with no error file\b.*?['\"],\s*(\d{1,6})\)"  # the tuple of older builds
    r"|(\d{1,6}) FAILED with no error file\b)"
)
_AGENT_EXIT = re.compile(r"failed \(exitcode: (-?\d+)\) local_rank: (\d{1,6})\b")
_COORDINATOR = re.compile(r"\bRunLoopOnce \([^\n]*\bis_coordinator=(?:is_coordinator@entry=)?(true|false)\b")
#: categories whose first exit is a waiter's (a timeout fires on the ranks that waited, not the late one)
_WAITS = frozenset({"nccl_timeout", "hang_no_error"})


def name_from_launcher(job: Job, v: Verdict) -> None:
    """Name the rank torchrun's wrapper or Horovod's coordinator frame gives, when none was named."""
    if v.rank is not None or v.collateral_only:
        return
    texts = [strip_delivery(t) for scan in job.scans for _, t in scan.numbered_tail]
    rank = _record_rank(texts) if v.category not in _WAITS else None
    note = f"torchrun's @record wrapper logged its first observed failure as rank {rank}"
    if rank is None and v.category not in _WAITS and (rank := _coordinator(texts)) is not None:
        note = "the native backtrace is of Horovod's coordinator loop (is_coordinator=true), run by rank 0"
    if rank is None:
        return
    v.rank, v.actor, v.node = rank, ("rank", str(rank)), job.rank_node.get(rank)
    v.notes.append(note + "; no line of a rank's own names another.")
    v.confidence = round(v.confidence * 0.9, 2)


def _record_rank(texts: list[str]) -> int | None:
    """The one rank the wrapper's no-error-file line names, unless the agent saw it exit by a signal."""
    named = {int(m.group(1) or m.group(2)) for t in texts if (m := _RECORD_NO_FILE.search(t)) is not None}
    if len(named) != 1:
        return None
    rank = named.pop()
    signalled = any(
        (m := _AGENT_EXIT.search(t)) is not None and int(m.group(2)) == rank and int(m.group(1)) < 0
        for t in texts
    )
    return None if signalled else rank


def _coordinator(texts: list[str]) -> int | None:
    """Rank 0 when a backtrace of Horovod's loop shows the coordinator's thread, and no other's."""
    seen = {m.group(1) for t in texts if (m := _COORDINATOR.search(t)) is not None}
    return 0 if seen == {"true"} else None
