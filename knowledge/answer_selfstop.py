"""Whether the job's own code stopped it, when a platform-angle ask gets no answer ("is there any
platform angle here at all, or did their script just stop itself?", "did the code raise it on purpose?").

Why: an on-call asks whether the platform is involved in words the platform-or-ours cues do not
read; when the first rank's traceback ends in a `raise` in the user's own code, that frame (file,
line, the raise statement) and the error are the answer. Only that case is answered here, so it never
says "the script stopped itself" for a failure the code did not raise.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_selfstop as ts
from knowledge import answer_code
from knowledge.answer_join import first
from knowledge.answer_types import Ctx, Reply, reply

_ASK = re.compile(
    r"\bplatform (?:angle|side|issue|problem|component|involvement)\b"
    r"|\b(?:infra|cluster|platform)\b.{0,40}\bat all\b"
    r"|\b(?:script|code|job|program|training)\b.{0,30}\b(?:stop|stopped|exit\w*|kill\w*|abort\w*|raise\w*|quit)"
    r"\b.{0,12}\b(?:itself|on its own|deliberately|on purpose)\b",
    re.IGNORECASE,
)
_RAISE = re.compile(r"^raise\b")


def with_self_stop(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` led by the raise in the user's code that ended the job, for a platform-angle ask."""
    ini = c.view.initiating
    if not _ASK.search(text) or ini is None or ini.first_line is None:
        return got
    found = answer_code.user_frame(c, ini.rank)
    if found is None:
        return got
    frame, code, _ = found
    _, frames, _ = answer_code.traceback(c, ini.rank)
    if not _RAISE.match(code) or not frames or frames[-1] != frame:
        return got  # the user's frame called into a library that failed: not a raise of its own
    error = answer_code._clean(ini.first_line.text)[:160]
    where = f"`{frame.path.rsplit('/', 1)[-1]}` line {frame.number}, in `{frame.func}`: `{code[:120]}`"
    said = ts.raised(ini.rank, error, where)
    if said.split(":")[0] in got.lead or (str(frame.number) in got.lead and error[:30] in got.lead):
        return got
    if got.intent == "help":
        return reply("hardware", said, [ini.first_line, frame.line])
    return first(got, said, [ini.first_line, frame.line])
