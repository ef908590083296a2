"""Which rank went astray in a TORCH_DISTRIBUTED_DEBUG=DETAIL collective mismatch.

ProcessGroupWrapper (pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupWrapper.cpp,
`verify_tensors`) all-gathers every rank's fingerprint, compares each against the printing rank's own
and raises on the first rank that differs: `Rank <me> is running collective: <mine>, but Rank <first
differing> is running collective: <theirs>`. The rank after "but" is only the lowest-numbered rank that
differs from the printer (rank 0 for every printer but rank 0 itself), not a culprit, and the printer
is every rank. So the message decides nothing by itself: with two ranks in view either may have gone
astray and none is named; with three or more, the odd one out is the rank whose fingerprint differs
from what most ranks ran.
"""

from __future__ import annotations

import re
from collections import Counter

from knowledge.signals import Job
from knowledge.verdict import Verdict

_MISMATCH = "Detected mismatch between collectives"
#: one side of the message: the rank and its fingerprint (op, shape, dtypes)
_SIDE = re.compile(
    r"Rank (\d+) is running (?:inconsistent )?collective: CollectiveFingerPrint\("
    r"(?:SequenceNumber=\d+,? ?)?OpType=([A-Z_]+)(?:, TensorShape=\[([^\]]*)\])?(?:, TensorDtypes=(\w+))?"
)

NO_RANK_NOTE = (
    "The collective-mismatch report names the printing rank and the first rank that differs from it; "
    "with only two ranks in view either one may be the rank that went astray, so none is named."
)


def fingerprints(job: Job) -> dict[int, tuple[str, str, str]]:
    """Rank -> (op, shape, dtypes) from every mismatch report in the job (both sides of each)."""
    seen: dict[int, tuple[str, str, str]] = {}
    for scan in job.scans:
        for hit in scan.hits:
            if _MISMATCH not in hit.text:
                continue
            for m in _SIDE.finditer(hit.text):
                seen.setdefault(int(m.group(1)), (m.group(2), m.group(3) or "", m.group(4) or ""))
    return seen


def odd_ranks(seen: dict[int, tuple[str, str, str]]) -> set[int] | None:
    """The ranks whose fingerprint differs from a strict majority's; None when no majority decides."""
    if len(seen) < 3:
        return None
    majority, count = Counter(seen.values()).most_common(1)[0]
    odd = {r for r, fp in seen.items() if fp != majority}
    return odd if odd and count > len(odd) else None


def settle(job: Job, v: Verdict) -> None:
    """Name the odd rank of a mismatch report, or no rank when the report cannot tell."""
    if v.entry is None or not any(_MISMATCH in s.hit.text for s in v.evidence):
        return
    seen = fingerprints(job)
    if not seen:
        return
    odd = odd_ranks(seen)
    if odd is None:
        if v.rank is not None and v.rank in seen:
            v.rank, v.actor, v.node = None, None, None
            v.notes.append(NO_RANK_NOTE)
        return
    if v.rank not in odd:
        v.rank = min(odd)
        v.actor, v.node = ("rank", str(v.rank)), job.rank_node.get(v.rank)
