"""Texts of the scan-audit asks: what was scanned, the runner-up cause, the launcher's failure time."""

from __future__ import annotations

SCANNED = "Denpex scanned {files} and {ranks} for this job ({size} bytes, {mb} MB, in {secs:.2f} s)."
DUMPS = "Denpex parsed {dumps} for this job."
NO_RANK_RAN = "No rank ever started: the launcher failed before any worker ran, so 0 ranks logged anything."
ALTERNATIVE = "The confidence is {conf:.2f}; the alternative is {title} (`{id}`, {alt:.2f}): {why}."
NO_ALTERNATIVE = "The confidence is {conf:.2f}; no other failure mode scored on this job's lines."
FAILED_AT = "torchrun's failure summary records the failure at {day} {time} ({ref}; root cause: rank {rank})."
NEVER_STARTED = (
    "It never got going: no rank started (0 ranks ran) — the launcher failed before any worker"
    " started, so no training step ran."
)
OWNER = "To see which process holds the port, run on the master node: `{cmd}`."
DEFAULT = "On the default: {said}"
LAST_STDOUT = "Rank {rank}'s last stdout line ({ref}): `{text}`."
