"""The job's own rerun command when the message asks for the tool or the settings it carries: "gdb cmd
to grab a backtrace next time", "env vars the bot wants set on the rerun".

Why: the answer for "next time" or "rerun" gives the general advice (a core dump and `gdb … core`,
py-spy, PYTHONFAULTHANDLER) or the restart verdict; the diagnosis already holds this job's rerun command
(its `verify` line) with the exact gdb invocation or environment variables. When the message asks for
that tool or those variables and the command holds them, it is quoted; nothing when it does not.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_cited as tc
from knowledge import answer_asks, answer_grounds
from knowledge.answer_types import Ctx, Reply

#: the message asks for the gdb command
_GDB_ASK = re.compile(r"\bgdb\b", re.IGNORECASE)
#: the message asks which environment variables to set on the next run
_ENV = r"\benv(?:ironment)?[ _-]?var(?:iable)?s?\b"
_RERUN = r"\b(?:rerun|re-run|next (?:run|time|launch)|relaunch)\b"
_ENV_ASK = re.compile(
    rf"{_ENV}[^?]{{0,60}}(?:{_RERUN}|\b(?:set|turn on)\b)|{_RERUN}[^?]{{0,60}}{_ENV}", re.IGNORECASE
)
_ASSIGN = re.compile(r"\b[A-Z][A-Z0-9_]{2,}=\S+")
#: the command's trailing shell comment
_COMMENT = re.compile(r"\s+#.*$")


def rerun_command(c: Ctx, text: str, got: Reply) -> tuple[str, list[EvidenceLine]]:
    """This job's rerun command, when the message asks for the gdb call or the variables it sets."""
    cmd = _COMMENT.sub("", c.d.verify.strip().splitlines()[0]) if c.d.verify.strip() else ""
    if not cmd:
        return "", []
    told = answer_asks.said(got)
    if _GDB_ASK.search(text) and "gdb " in cmd and cmd.lower() not in told:
        return tc.rerun_command(cmd), []
    names = _ASSIGN.findall(cmd)
    if _ENV_ASK.search(text) and names and not all(n.lower() in told for n in names):
        return tc.rerun_vars(", ".join(f"`{n}`" for n in names), cmd), []
    return "", []


def with_rerun_command(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with this job's rerun command when the message asks for its gdb call or variables."""
    return answer_grounds.add(got, *rerun_command(c, text, got))


__all__ = ["rerun_command", "with_rerun_command"]
