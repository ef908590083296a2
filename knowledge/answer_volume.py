"""How to confirm a full volume yourself, added where a disk-full verdict is asked about ("which volume
filled up", "did the log literally say disk full?", "i dont see no space left anywhere").

A disk-full verdict is often read from a short write (`unexpected pos 1088 vs 982`), not from an
`ENOSPC` line, and no log of the job prints `df`. An answer that names the path, or says the logs do not
print the message, still leaves the reader without the check that settles it: `df -h` (and `df -i`,
`quota -s`) of the directory the save was writing to, named from the save line.
"""

from __future__ import annotations

import os
import re

from denpex.core.texts import followups_job as tj
from knowledge.answer_types import Ctx, ref

#: an ask about the volume, its space or a full disk ("which volume filled up", "out of space")
ASKS_VOLUME = re.compile(
    r"\b(?:volume|file ?system|fs|mount|partition|disk|quota|inodes?)\b|\b(?:fill|filled|full|out of space|"
    r"space left|no space)\b"
)


def disk_verdict(c: Ctx) -> bool:
    """The verdict is a full disk or a failed write to storage."""
    return "disk" in (c.view.category or "")


def df_note(c: Ctx) -> str:
    """`df -h <dir>` (and inodes, quota) for the directory the last save line named; "" when none."""
    from knowledge.answer_quote import saving_line  # answer_quote imports this module

    found = saving_line(c)
    if found is None:
        return ""
    where, ln = found
    folder = os.path.dirname(where.rstrip("/")) if "." in os.path.basename(where) else where
    said = tj.DF_DIR.format(dir=folder, path=where, ref=ref(ln))
    return f"To check it: {said}"
