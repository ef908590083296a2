"""Asks the failure line's own fields or the job's ending answer: "could this be an IPv6 binding
issue?" (the line prints `useIpv6: false`), "did any training rank actually get going?" (no worker
started: the launcher failed first), "what should I add so it saves before the time limit hits?"
(Slurm's warning signal, the trap and `--requeue`).

Why: a guess at a flag the error line prints matched no intent and got the help text, though the line
answers it; "did any rank start" in a message that also says "make sure that's right" was answered
with the verify command; a save before the time limit was answered with the job's phase or the debug
switches. Each answer here reads this job's lines: the flag as printed, with what failed instead;
that no rank logged a line; the scheduler's own kill line.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import followups_errline as te
from denpex.core.texts import followups_howto as th
from knowledge import answer_job
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match

#: a camel-case `key: true|false` field of an error line (`useIpv6: false`), not a word like `enabled`
_FLAG = re.compile(r"\b([a-z]+[A-Z][A-Za-z0-9]*): (true|false)\b")
#: the words before a flag's topic (`useIpv6` is about IPv6)
_FLAG_PREFIX = re.compile(r"^(?:use|is|enable|enabled|has|with)(?=[A-Z0-9_])")
#: what the line says failed (`name: EADDRINUSE, message: address already in use`)
_FAILED = re.compile(r"\bname: (\w+), message: ([^,]+?)\s*$")

#: asks whether a worker started ("did any training rank actually get going", "did a single worker
#: come up", "did training ever start")
STARTED_Q = re.compile(
    r"\bdid (?:a |any |even one |one |a single |any of the |the )?(?:single )?(?:training |worker )?"
    r"(?:ranks?|workers?|process(?:es)?|procs?|gpus?)\b[^?]{0,25}?\b"
    r"(?:start\w*|come up|came up|get going|got going|begin|began|run|ran|launch\w*|spawn\w*"
    r"|initiali[sz]\w*)\b"
    r"|\bdid (?:the )?training (?:\w+ ){0,2}?(?:start|begin|get going|get started|run at all)\b"
    r"|\bhow many (?:ranks|workers|processes) (?:\w+ )?(?:start\w*|came up|ran)\b"
)
#: asks how to save before the scheduler's time limit ("saves a checkpoint before the time limit hits",
#: "checkpoint and requeue before the kill - sbatch lines", "save before slurm cancels it at the limit")
BEFORE_LIMIT_Q = re.compile(
    r"\b(?:sav\w*|checkpoint\w*|ckpt)\b.{0,50}\bbefore (?:the |it |slurm |they |we )?(?:\w+ ){0,2}?"
    r"(?:time ?limit|walltime|wall-?clock|deadline|kill|cancel\w*)\b"
    r"|\b(?:checkpoint|sav)\w* and requeue\b|\brequeue\w*\b.{0,40}\bsbatch\b|\bsbatch\b.{0,40}\brequeue\w*\b"
)
#: the message asks how, or what to add: not "did it save before the kill?"
_HOW = re.compile(
    r"\bhow (?:do|can|would|should|could) (?:i|we)\b"
    r"|\bwhat (?:should|do|can|would) (?:i|we) (?:add|set|put|use|do)\b"
    r"|\bsbatch (?:lines?|options?|flags?|directives?)\b|\bnext time\b"
)


def flag(c: Ctx, m: Match) -> Reply | None:
    """ "Could this be an IPv6 binding issue?": the flag the error line prints, what it means, and
    what the line says failed instead."""
    text = m.text.lower()
    for ln in [*c.view.key_line(), *c.view.evidence]:
        for key, value in _FLAG.findall(ln.text):
            topic = _FLAG_PREFIX.sub("", key).lower()
            if len(topic) < 3 or not re.search(rf"\b{re.escape(topic)}\b", text):
                continue
            return reply("explain", _flag_said(ln, key, value, topic), [ln])
    return None


def _flag_said(ln: EvidenceLine, key: str, value: str, topic: str) -> str:
    """`useIpv6: false` said with what it means, then what the line says failed."""
    meaning = te.FLAG_MEANINGS.get((topic, value)) or te.FLAG_GENERIC.format(
        topic=topic, state="on" if value == "true" else "off"
    )
    said = te.FLAG_SAID.format(field=f"{key}: {value}", ref=ref(ln), meaning=meaning)
    if (failed := _FAILED.search(ln.text)) is not None:
        said += te.FLAG_FAILED.format(what=f"{failed.group(1)}: {failed.group(2)}")
    return said


def started(c: Ctx, m: Match) -> Reply | None:
    """ "Did any rank actually get going?" on a job whose launcher failed before any worker ran: no,
    whatever else the message says ("before I tell the researchers, I want to make sure")."""
    if not STARTED_Q.search(m.text) or not answer_job.no_worker_started(c):
        return None
    said = tf.NO_WORKER_RENDEZVOUS if c.d.initiating.phase == "rendezvous" else tf.NO_WORKER_RAN
    return reply("ranks_count", said, c.view.key_line())


def before_limit(c: Ctx, m: Match) -> Reply | None:
    """ "What should I add so it saves before the time limit hits?": Slurm's warning signal, the
    trap and `--requeue`, then this run's own kill line; only for a job the time limit ended."""
    if not BEFORE_LIMIT_Q.search(m.text) or not _HOW.search(m.text):
        return None
    end = answer_job.scheduler_end(c)
    if end is None or "TIME LIMIT" not in end.reason.upper():
        return None
    said = f"{th.SLURM_WARN} {te.BEFORE_LIMIT}"
    said += te.BEFORE_LIMIT_THIS.format(end=answer_job.end_sentence(end))
    return reply("fix", said, [end.line])


__all__ = ["BEFORE_LIMIT_Q", "STARTED_Q", "before_limit", "flag", "started"]
