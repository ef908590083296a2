"""How to make the tools tell you what this job's logs could not ("how do I find the op that makes the
first nan", "how do I rerun so torch tells me the mismatch", "how do I get slurm to warn me before the
kill"), and the timeout a message names ("did my 10s timeout cause this? should I raise it").

Why: these asks name the thing to reveal, not a debug topic, so the intents sent them to the restart
or help answer, which never named the switch (`set_detect_anomaly`, `TORCH_DISTRIBUTED_DEBUG=DETAIL`,
`--signal=B:USR1@…`). A message that asks whether its timeout caused the failure got the verdict
without the timeout's value: the value is read from this job's kept lines (each shown), never taken
from the message, and said to be absent when no line prints it.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_howto as th
from knowledge import answer_asks, answer_quote
from knowledge.answer_types import Ctx, Reply, reply

#: a "how do I / what do I run / how can I get it to" ask
_HOW = (
    r"\b(?:how (?:do|can|would|should|could) (?:i|we)"
    r"|what (?:do|should|can) (?:i|we) (?:run|use|set|turn on)|is there a way|any way)\b"
)
#: the first op / layer / module that produced a NaN or Inf
_NAN_OP = re.compile(
    _HOW + r".{0,60}\b(?:op|ops|operation|layer|module|kernel|tensor)s?\b"
    r".{0,40}\b(?:nan|inf|non-?finite)s?\b",
    re.IGNORECASE,
)
#: torch naming a collective mismatch or desync on a rerun
_MISMATCH = re.compile(
    _HOW + r".{0,60}\b(?:torch|pytorch|it|nccl|gloo|c10d)\b"
    r".{0,20}\b(?:tells?|names?|shows?|reports?|says?|catch(?:es)?|flags?)\b"
    r".{0,30}\b(?:mismatch\w*|desync\w*|which rank|different collective)",
    re.IGNORECASE,
)
#: a warning from Slurm before the time-limit kill
_SLURM_WARN = re.compile(
    r"\b(?:slurm|sbatch|scheduler)\b.{0,40}\b(?:warn\w*|signal\w*|notif\w*|heads[- ]up)\b"
    r"|\b(?:warn\w*|signal\w*|notif\w*)\b.{0,60}\bbefore (?:the |it |slurm |they )?"
    r"(?:kill|time ?limit|cancel|walltime|deadline)",
    re.IGNORECASE,
)
#: the message asks whether its timeout caused the failure, or whether to raise it
_TIMEOUT_ASK = re.compile(
    r"\btimeout\b.{0,60}\b(?:cause\w*|raise|increase|bump|longer|higher|too (?:short|low|small))\b"
    r"|\b(?:raise|increase|bump|lengthen)\b.{0,30}\btimeout\b",
    re.IGNORECASE,
)
#: the timeout values a line prints (milliseconds)
_VALUES = (
    re.compile(r"Timeout\(ms\)=(\d+)"),
    re.compile(r"Timed out waiting (\d+) ?ms\b"),
    re.compile(r"\btimeout[ =:]+(\d+) ?ms\b", re.IGNORECASE),
)
_MAX_VALUES = 3


def with_howto(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the switch the message asks how to get, and the timeout value it asks about."""
    for pat, said in ((_NAN_OP, th.NAN_OP), (_MISMATCH, th.MISMATCH), (_SLURM_WARN, th.SLURM_WARN)):
        if pat.search(text):
            got = _add(got, said, [])
    if _TIMEOUT_ASK.search(text):
        got = _add(got, *_timeout(c))
    return got


def _timeout(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """The distinct timeout values of the kept lines (each with its first line), and what raising
    the timeout can change given the rank the others waited for."""
    found: dict[int, EvidenceLine] = {}
    for ln in answer_quote.pool(c):
        for pat in _VALUES:
            if (m := pat.search(ln.text)) and len(found) < _MAX_VALUES:
                found.setdefault(int(m.group(1)), ln)
    if not found:
        return th.TIMEOUT_NONE, []
    values = ", ".join(
        th.TIMEOUT_ONE.format(value=_ms(ms), ref=f"{ln.source}:{ln.line}") for ms, ln in found.items()
    )
    said = th.TIMEOUT_SEEN.format(values=values)
    ini = c.view.initiating
    own = ini.first_line.text if ini is not None and ini.first_line is not None else ""
    if ini is not None and not any(pat.search(own) for pat in _VALUES):  # it did not time out itself
        said += th.TIMEOUT_WAITED.format(rank=ini.rank)
    return said + th.TIMEOUT_RAISE, list(found.values())


def _ms(ms: int) -> str:
    """`10000 ms (10 s)`, `600000 ms (600 s, 10 min)`."""
    secs = ms / 1000
    text = f"{ms} ms ({secs:g} s"
    return text + (f", {secs / 60:g} min)" if secs >= 60 and secs % 60 == 0 else ")")


def _add(got: Reply, said: str, shown: list[EvidenceLine]) -> Reply:
    """`got` with `said` after its lead; a help reply is replaced, since it answered nothing."""
    if said.lower() in answer_asks.said(got):
        return got
    if got.intent == "help":
        return reply("debug", said, shown)
    return answer_asks.with_lead(got, said, shown)
