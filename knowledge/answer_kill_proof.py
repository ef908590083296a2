"""The two lines that show a process was killed from outside, not crashed by itself: "how do you know it
was the kernel OOM killer and not the process crashing on its own? quote it".

Why: the answer to "how do you know" weighed the verdict against its runner-up and quoted the kernel's
`invoked oom-killer` line; what tells a kill from a crash is the pair of lines: the kernel's `Killed
process <pid>` and the launcher's record of that same pid ending on a signal (exit code -9: SIGKILL,
not an exception's exit code 1). Both are quoted when the job kept them; nothing when it did not.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_cited as tc
from knowledge import answer_asks, answer_grounds
from knowledge.answer_types import Ctx, Reply

#: asks how a kill is told from a crash of its own, or for the proof of the kill
_PROOF_ASK = re.compile(
    r"\bhow (?:do|can|did|would) (?:you|we|i|u) (?:know|tell|be sure)\b[^?]{0,80}\b(?:kill\w*|oom|signal)"
    r"|\b(?:prov\w*|proof|evidence)\b[^?]{0,60}\b(?:oom|kill\w*)\b"
    r"|\b(?:kill\w*|oom)\b[^?]{0,60}\bnot (?:the process |it |the rank )?(?:crash\w*|die|dying|fail\w*)\b",
    re.IGNORECASE,
)
_KILLED = re.compile(r"\bKilled process (\d+)\b")


def _exit_of(c: Ctx, pid: str) -> EvidenceLine | None:
    """The launcher's line that records `pid` ending with a negative exit code (a signal)."""
    ended = re.compile(rf"exitcode\s*:?\s*-\d+\)?[^\n]{{0,40}}\(pid:?\s*{pid}\)|-\d+ \(pid: {pid}\)")
    for ln in answer_grounds.all_lines(c):
        if ended.search(ln.text):
            return ln
    return None


def kill_proof(c: Ctx, text: str, got: Reply) -> tuple[str, list[EvidenceLine]]:
    """The kernel's kill line and the launcher's signal exit of the same pid, when asked how it is known."""
    if not _PROOF_ASK.search(text):
        return "", []
    killed = next((ln for ln in answer_grounds.all_lines(c) if _KILLED.search(ln.text)), None)
    if killed is None:
        return "", []
    m = _KILLED.search(killed.text)
    assert m is not None
    ended = _exit_of(c, m.group(1))
    if ended is None:
        return "", []
    code = re.search(r"-\d+", ended.text[ended.text.find("exitcode") :])
    if code is None or code.group(0) != "-9" or (killed in got.lines and ended in got.lines):
        return "", []  # only SIGKILL is told apart here: another signal may be the rank's own fault
    said = tc.kill_proof(m.group(1), killed.ref, killed.text.strip()[:200], ended.ref)
    if said.lower() in answer_asks.said(got):
        return "", []
    return said, [killed, ended]


def with_kill_proof(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the kill's two lines when the message asks how a kill is told from a crash."""
    return answer_grounds.add(got, *kill_proof(c, text, got))


__all__ = ["kill_proof", "with_kill_proof"]
