"""The launcher's and the scheduler's own facts, added when the message asks for them: torchrun's agent
pid and when it began the teardown ("torchrun agent pid + time of the teardown", "when did torchrun
start SIGTERMing the others"), every worker's pid and exit code ("give me the pids", "what exit codes
did the 4 procs get"), the rendezvous backend ("static rdzv or c10d?"), the Slurm step id ("node +
job/step id for sacct") and srun's grace period ("how long did srun wait for the step").

Why: these facts sit in the launcher's and scheduler's lines, not in any rank's error, so the answer
about the failure leaves them out; an SRE asks for them to look the processes up (`ps`, `sacct`,
`dmesg`). Each is added only when asked and not yet said, with the line that shows it.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_agent as ta
from denpex.core.texts import followups_runfacts as tr
from knowledge import answer_asks, answer_launcher, answer_quote
from knowledge.answer_join import first
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import named_ranks
from knowledge.jobfacts_answers import launcher_exits

_PID_ASK = r"\bpids?\b"
_AGENT = r"\b(?:torchrun|launcher|agent|elastic|parent)\b"
ASKS_AGENT_PID = re.compile(rf"{_AGENT}[^?.]{{0,40}}{_PID_ASK}|{_PID_ASK}[^?.]{{0,30}}{_AGENT}")
ASKS_TEARDOWN = re.compile(
    r"\bteardown\b|\btear(?:ing)? (?:it |the job |everything )?down\b|\btorn down\b"
    r"|\b(?:when|what time)\b[^?]{0,40}\b(?:sigterm\w*|give up|gave up|shut(?:ting)? down|stop(?:ped)?"
    r" the (?:other|rest)|kill(?:ed|ing)? the (?:other|rest))"
)
ASKS_EXITS = re.compile(
    r"\bpids\b|\bexit ?codes\b|\bexitcodes\b|\bhow did (?:each|they|the \d) \w* ?exit"
    # "every worker pid and exit code", "each rank's pid + exit code"
    r"|\bpid\b[^?.]{0,30}\bexit ?code\b|\bexit ?code\b[^?.]{0,30}\bpid\b"
)
#: asks the launcher process's own pid ("launcher pid", "pid of torchrun itself")
_OWN_AGENT_PID = re.compile(
    r"\b(?:launcher|agent|torchrun|parent)(?:'s)? (?:own |process )?pids?\b"
    r"|\bpids? of (?:the )?(?:launcher|agent|torchrun)\b(?! summary)"
)
#: asks the pid of the rank the launcher's summary calls its root cause
#: "root cause … pid", a file name's dot (`console.log:121-128`) not taken for a sentence's end
ASKS_ROOT_PID = re.compile(
    r"\bpids?\b(?:[^?.]|\.(?=\w)){0,60}\broot[- ]?cause\b|\broot[- ]?cause\b(?:[^?.]|\.(?=\w)){0,60}\bpids?\b"
)
#: a rank's own pid ("which rank/pid threw"), or how a named rank ended ("what happened to it")
ASKS_RANK_PID = re.compile(r"\bpid\b|\bprocess ?id\b|\bprocess number\b")
ASKS_FATE = re.compile(
    r"\bwhat happened to (?:it|rank|them)\b|\bhow did (?:it|rank \d+) (?:exit|end|die)\b"
    r"|\bwas it (?:actually |really )?(?:hung|stuck|killed)\b"
)
ASKS_RDZV = re.compile(
    r"\brdzv\b|\brendezvous (?:backend|handler|type)\b|\bc10d\b|\bstatic (?:or|vs\.?) \w+"
    r"|\bwhich rendezvous\b"
    # "what rendezvous setup was torchrun using", "rdzv config?", "how did the ranks rendezvous"
    r"|\b(?:rendezvous|rdzv)[- ](?:setup|set-up|config\w*|method|mode|mechanism|kind|settings?|impl\w*)\b"
    r"|\b(?:what|which|what kind of|how)\b[^?.]{0,30}\brendezvous\b(?! fail)"
    # "'server socket': which bit of the launcher was that", "didn't rank 0 fail to host the store"
    r"|\b(?:bit|part|piece|component) of (?:the )?(?:launcher|torchrun)\b|\bserver socket\b"
    r"|\bhost(?:s|ed|ing)? the (?:tcp ?)?store\b|\btcp ?store\b"
)
ASKS_STEP = re.compile(r"\bstep ?id\b|\bjob ?/ ?step\b|\bsacct\b|\bjob ?id\b")
ASKS_SRUN = re.compile(r"\bsrun\b[^?]{0,40}\bwait|\bhow long\b[^?]{0,40}\bsrun\b|\bgrace\b")

#: torchrun's glog-style prefix: level, MMDD, time, the agent's pid, then the elastic module
_GLOG = re.compile(r"^[IWEF]\d{4} (\d\d:\d\d:\d\d)\.\d+ +(\d+) torch/distributed/elastic/")
_SENDING = re.compile(r"Sending process (\d+) closing signal (SIG[A-Z]+)")
_FAILED = re.compile(r"failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\)")
_DEATH = re.compile(r"Received (\d+) death signal")
_RDZV_FILE = re.compile(r"rendezvous/(\w+)\.py")
_STORE = re.compile(r"\bTCPStore\(")
_STEP = re.compile(r"\*\*\* STEP (\d+)\.(\S+) ON (\S+) ")
_SRUN = re.compile(r"srun: .*Waiting up to (\d+) seconds for job step")


def with_agent(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with each launcher or scheduler fact the message asks for and the answer lacks."""
    low = text.lower()
    pool = answer_quote.pool(c)
    for asks, fact in (
        (ASKS_AGENT_PID, _agent_pid),
        (ASKS_TEARDOWN, _teardown),
        (ASKS_RDZV, _rdzv),
        (ASKS_STEP, _step),
        (ASKS_SRUN, _srun),
    ):
        if asks.search(low):
            said, shown = fact(pool)
            if said == ta.AGENT_PID_UNSAID and not _OWN_AGENT_PID.search(low):
                continue  # "worker pids from torchrun's summary": the agent's own pid is not asked
            got = _add(got, said, shown, lead=fact is _rdzv and got.intent in _NOT_RDZV)
    if ASKS_TEARDOWN.search(low):
        got = _add(got, *_summary_teardown(c, pool))  # no `Sending process` line kept: the summary's
    if ASKS_ROOT_PID.search(low):
        said, shown = _root_pid(c)
        got = _add(got, said, shown)
    if ASKS_EXITS.search(low) and (rows := answer_launcher.exit_codes(c)):
        got = _add(got, rows, [])
    elif (ASKS_RANK_PID.search(low) and not ASKS_AGENT_PID.search(low)) or ASKS_FATE.search(low):
        got = _add(got, answer_launcher.summary_rows(c, _asked_ranks(c, text)), [])
    return got


def _asked_ranks(c: Ctx, text: str) -> set[int]:
    """The ranks the message names, else the one that failed first."""
    named = {r for r in named_ranks(text) if r in c.view.ranks}
    ini = c.view.initiating
    return named or ({ini.rank} if ini is not None else set())


#: intents whose answer is not about the rendezvous: the backend asked leads them
_NOT_RDZV = frozenset({"complaint", "port", "rank_why", "which_rank", "explain", "summary"})


def _add(got: Reply, said: str, shown: list[EvidenceLine], *, lead: bool = False) -> Reply:
    """`got` with `said`, unless the answer already tells it (the sentence, or every number it names
    that the answer's own lines do not merely quote)."""
    told = answer_asks.said(got)
    if not said or said.lower() in told:
        return got
    keys = set(re.findall(r"\b\d{3,}(?:\.\d+)?\b", re.sub(r"\([^()]*:\d+\)", "", said)))
    if keys and all(re.search(rf"\b{re.escape(k)}\b", told) for k in keys):
        return got
    if got.intent == "help":  # the fallback's "I can answer…" is no answer: the fact asked replaces it
        return reply("quote", said, shown)
    if lead:
        return first(got, said, shown)
    return answer_asks.with_lead(got, said, shown)


def _agent_pid(pool: list[EvidenceLine]) -> tuple[str, list[EvidenceLine]]:
    ln = next((x for x in pool if _GLOG.search(x.text)), None)
    if ln is None:
        return ta.AGENT_PID_UNSAID, []
    pid = _GLOG.search(ln.text)
    assert pid is not None
    return ta.AGENT_PID.format(pid=pid.group(2), ref=ref(ln)), [ln]


_ROOT_LINE = re.compile(r"Root Cause \(first observed failure\)")
_SUMMARY_RANK = re.compile(r"^\s*rank\s*:\s*(\d+)\b")


def _root_pid(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """The pid and exit code torchrun's summary gives the rank it calls its root cause."""
    for tail in c.d.tails:
        after = False
        for ln in tail.lines:
            after = after or bool(_ROOT_LINE.search(ln.text))
            if after and (m := _SUMMARY_RANK.match(ln.text)) is not None:
                rank = int(m.group(1))
                own = [e for e in launcher_exits(c.d) if e.rank == rank and e.pid is not None]
                if not own:
                    return "", []
                e = own[-1]  # the summary's last entry for it: the root-cause block comes last
                return tr.ROOT_PID.format(rank=rank, pid=e.pid, code=e.code, ref=ref(e.line)), [e.line]
    return "", []


def _teardown(pool: list[EvidenceLine]) -> tuple[str, list[EvidenceLine]]:
    """The first `Sending process P closing signal` line's time and every pid it stopped; or the agent's
    own death signal (a scheduler's SIGTERM)."""
    sends = sorted((x for x in pool if _SENDING.search(x.text)), key=lambda x: (x.source, x.line))
    if not sends:
        death = next((x for x in pool if _DEATH.search(x.text)), None)
        m = _DEATH.search(death.text) if death is not None else None
        if death is None or m is None:
            return "", []
        return ta.AGENT_SIGNAL.format(sig=m.group(1), time=_time(death), ref=ref(death)), [death]
    pids = ", ".join(m.group(1) for x in sends if (m := _SENDING.search(x.text)))
    failed = next((x for x in pool if _FAILED.search(x.text)), None)
    more = ""
    if failed is not None and (f := _FAILED.search(failed.text)) is not None:
        more = ta.TEARDOWN_FAILED.format(local=f.group(2), pid=f.group(3), code=f.group(1), ref=ref(failed))
    said = ta.TEARDOWN.format(time=_time(sends[0]), ref=ref(sends[0]), pids=pids, failed=more)
    return said, [sends[0], *([failed] if failed is not None else [])]


def _summary_teardown(c: Ctx, pool: list[EvidenceLine]) -> tuple[str, list[EvidenceLine]]:
    """When the launcher's `Sending process … closing signal` lines were not kept: its failure summary's
    SIGTERM'd workers and the time it stamps them with, the teardown's time to the second."""
    if any(_SENDING.search(x.text) or _DEATH.search(x.text) for x in pool):
        return "", []
    termed = [e for e in launcher_exits(c.d) if e.signal == "SIGTERM" and e.time]
    if not termed:
        return "", []
    first = min(termed, key=lambda e: (e.time or "", e.rank))
    ranks = ", ".join(str(e.rank) for e in termed)
    pids = ", ".join(str(e.pid) for e in termed if e.pid is not None)
    said = ta.TEARDOWN_SUMMARY.format(
        ranks=ranks, pids=f" (pids {pids})" if pids else "", time=first.time, ref=ref(first.line)
    )
    return said, [first.line]


def _time(ln: EvidenceLine) -> str:
    """The line's clock time as printed (torchrun's glog prefix has no date or zone of its own)."""
    g = _GLOG.search(ln.text)
    if g is not None:
        return g.group(1)
    t = re.search(r"\b(\d\d:\d\d:\d\d)\b", ln.text)
    return t.group(1) if t else "its line's time"


def _rdzv(pool: list[EvidenceLine]) -> tuple[str, list[EvidenceLine]]:
    ln = next((x for x in pool if (m := _RDZV_FILE.search(x.text)) and m.group(1) in ta.RDZV_BACKENDS), None)
    m = _RDZV_FILE.search(ln.text) if ln is not None else None
    if ln is None or m is None:
        return "", []
    store = next((x for x in pool if _STORE.search(x.text)), None)
    extra = ta.RDZV_STORE.format(ref=ref(store)) if store is not None else ""
    backend = ta.RDZV_BACKENDS[m.group(1)]
    said = ta.RDZV.format(backend=backend, file=f"{m.group(1)}.py", ref=ref(ln), store=extra)
    return said, [ln, *([store] if store is not None else [])]


def _step(pool: list[EvidenceLine]) -> tuple[str, list[EvidenceLine]]:
    ln = next((x for x in pool if _STEP.search(x.text)), None)
    m = _STEP.search(ln.text) if ln is not None else None
    if ln is None or m is None:
        return "", []
    step = f"{m.group(1)}.{m.group(2)}"
    return ta.SLURM_STEP.format(job=m.group(1), step=step, node=m.group(3), ref=ref(ln)), [ln]


def _srun(pool: list[EvidenceLine]) -> tuple[str, list[EvidenceLine]]:
    ln = next((x for x in pool if _SRUN.search(x.text)), None)
    m = _SRUN.search(ln.text) if ln is not None else None
    if ln is None or m is None:
        return "", []
    return ta.SRUN_WAIT.format(secs=m.group(1), ref=ref(ln)), [ln]


__all__ = ["with_agent"]
