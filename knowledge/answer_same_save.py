"""Which save a rerun would die at ("if we resubmit unchanged does it just die at the same save again?").

The what-if answer says whether it recurs and why, but not which save: the reader asks about "the same
save" and needs its name (`checkpoint-6.pt`) and the line that logged it, so they know how far an
unchanged rerun gets. Added only when the failing rank was saving and the answer has not named it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from knowledge.answer_quote import saving_line, saving_note
from knowledge.answer_types import Ctx, Reply

#: the ask names the save (or step) it failed at as the point a rerun would reach again
ASKS_SAME = re.compile(
    r"\bsame (?:save|checkpoint|ckpt|step|point|place|spot)\b"
    r"|\b(?:die|fail|crash|oom|break)\w* (?:again )?(?:at|in|on|during) (?:the |that |this )?"
    r"(?:save|checkpoint)\b"
)


def with_save(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the save the failing rank was writing, when the ask is about meeting it again."""
    if got.intent not in ("whatif", "restart") or not ASKS_SAME.search(text):
        return got
    found = saving_line(c)
    if found is None or found[0].rsplit("/", 1)[-1] in got.lead:
        return got
    note = saving_note(c)
    return replace(got, lead=f"{got.lead} {note}".strip()) if note else got
