"""What exactly failed to bind a port, and with what error code ("what failed to bind, what errno?").

Why: the port's answer names the port; asked what failed to bind, the answer is the call that tried to
listen (a `TCPStore(...)` in torch's rendezvous, a socket in user code) and the OS error on the failing
line (`code: -98, name: EADDRINUSE`). Both come from this job's kept traceback: the frame just before the
failing line, in the same file, and that frame's code line; nothing is said when the logs do not keep it.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_bind as tb
from knowledge import answer_quote
from knowledge.answer_asks import with_lead
from knowledge.answer_types import Ctx, Reply, ref
from knowledge.intents import Match

#: asks what tried to bind or listen ("what exactly failed to bind", "what couldn't listen", "error code")
BIND_Q = re.compile(
    r"\b(?:bind|binding|bound|listen|listening)\b|\b(?:error|err|errno) ?(?:code|number|no)?\b"
)
_FRAME = re.compile(r'File "(?:[^"]*/)?([^"/]+)", line (\d+), in (\w+)')
#: the call on a frame's code line: `self._store = TCPStore(` → `TCPStore(...)`
_CALL = re.compile(r"^\s*(?:[\w.\[\], ]+=\s*)?(?:await\s+|return\s+)?([A-Za-z_][\w.]*)\(")
_CODE = re.compile(r"\bcode:? ?(-?\d+)\b(?:, name: ([A-Z][A-Z0-9_]+))?")
_PORT = re.compile(r"\bport:? ?=?[0-9]{2,5}\b", re.IGNORECASE)


def port(c: Ctx, m: Match) -> Reply | None:
    """The port's answer; asked what failed to bind or with what code, the call and the error code."""
    got = answer_quote.port(c, m)
    if got is None or not BIND_Q.search(m.text):
        return got
    pool = answer_quote.pool(c)
    failing = next((ln for ln in pool if _PORT.search(ln.text)), None)
    if failing is None:
        return got
    said, shown = [], []
    if (called := _caller(pool, failing)) is not None:
        frame, code_line, call = called
        found = _FRAME.search(frame.text)
        if found is not None:
            file, line, func = found.groups()
            said.append(tb.BIND_CALL.format(call=call, func=func, file=file, line=line, ref=ref(code_line)))
            shown.append(code_line)
    if (code := _CODE.search(failing.text)) is not None and code.group(1) not in got.lead:
        said.append(
            tb.BIND_CODE.format(code=code.group(1), name=f" ({code.group(2)})" if code.group(2) else "")
        )
    if not said:
        return got
    return with_lead(got, " ".join(said), shown)  # the port stays the first fact


def _caller(pool: list[EvidenceLine], failing: EvidenceLine) -> tuple[EvidenceLine, EvidenceLine, str] | None:
    """The last frame before the failing line in its source, its code line, and the call on it."""
    same = sorted(
        (ln for ln in pool if ln.source == failing.source and ln.line < failing.line), key=lambda x: x.line
    )
    for i in range(len(same) - 1, -1, -1):
        if _FRAME.search(same[i].text):
            after = [ln for ln in same[i + 1 :] if ln.line == same[i].line + 1]
            if after and (call := _CALL.search(after[0].text)) is not None:
                return same[i], after[0], f"{call.group(1)}(...)"
            return None
    return None
