"""Asks whose answer is a command or a fact fitted to this job, asked in words no intent's cue names.

"which dir do i df", "what do i rerun to see the workers' real error", "pid of the proc that died",
"when did it actually get stuck", "which host is rank 2 on? I want to look at dmesg": each wants one
thing this job's facts give (the save's directory, the category's rerun switch, the launcher's pid,
the stalled rank's last line, how to find an unlogged node) — not the summary a nearby intent returns.
Why here: these asks are checked before the intents, so a pasted watchdog line or the word "rerun"
does not pull them to the restart or activity answers.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from denpex.core.texts import followups_job as tj
from knowledge import answer_facts, answer_more, answer_quote, answer_workseq
from knowledge.answer_types import Ctx, Reply, duration, rank_lines, ref, reply
from knowledge.evidence_numbers import watchdog
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView
from knowledge.lines import parse_timestamp
from knowledge.wording import phase_words

#: asks the versions the job ran ("driver + torch versions on gpu-02", "deepspeed version?")
ASKS_VERSION = re.compile(
    r"\b(?:nccl|driver|cuda|torch|pytorch|deep ?speed|transformers)\b.{0,40}\bver(?:sions?)?\b"
    r"|\bversions?\b.{0,20}\b(?:of|for|on)\b|\bversions\b"
)
#: asks which directory or filesystem to check for space ("which dir do i df", "where do I run du")
ASKS_DF = re.compile(
    r"\b(?:df|du|quota)\b"
    r"|\b(?:free|disk|remaining|left)[ -]space\b.{0,40}\b(?:check|where|which)\b"
    r"|\b(?:check|where|which)\b.{0,40}\b(?:free|disk|remaining)[ -]space\b"
    # "which volume do I clean up, and the exact command to check it": the save's dir, and its df
    r"|\b(?:clean(?:ed)? ?up|free up|volume|mount|file ?system|partition)\b.{0,80}\b(?:command|cmd)\b"
    r"|\b(?:command|cmd)\b.{0,60}\b(?:clean(?:ed)? ?up|free up|volume|mount|file ?system|partition)\b"
)
#: asks for the disk's figures ("how full was the disk?", "what does df say?", "how much space was left?")
_DF_FIGURES = re.compile(
    r"\bhow (?:full|much (?:\w+ )?(?:space|room|disk)|many (?:gb|gib|tb|bytes|inodes))\b"
    r"|\bwhat (?:does|did|would) (?:the )?df (?:say|show|report|give)\b|\bdf (?:output|said|says|shows?)\b"
    r"|\b(?:disk|volume|fs|file ?system|partition) (?:usage|utili[sz]ation|size|capacity)\b"
)
#: a kept line that gives a disk figure (df's `Use%`, "95% full", "12G avail"): then the logs do show it
_DF_LINE = re.compile(r"\bUse%|\b\d+% (?:full|used)\b|\b\d+(?:\.\d+)?\s?[GT]i?B? (?:avail|free|left)\b", re.I)
#: asks what to rerun with, to see more ("what do i rerun to get the real error", "anomaly detection")
ASKS_RERUN = re.compile(
    r"\b(?:re-?run|run (?:it )?again|relaunch|repro\w*)\b.{0,60}"
    r"\b(?:real|actual|underlying|true|hidden|full) (?:error|exception|traceback|stack)"
    r"|\b(?:anomaly detection|detect_anomaly|detect anomal\w*)\b"
    r"|\b(?:re-?run|run (?:it )?again|relaunch)\b.{0,40}"
    r"\b(?:with|so (?:i|we) (?:can )?see|to (?:see|get|catch|find))\b"
    r".{0,40}\b(?:error|exception|traceback|op|nan|segfault|crash)\b"
)
#: a switch in a debug step: an env var or option set (`num_workers=0`), or a call turned on (`(True)`)
_SWITCH = re.compile(r"\w=\w|\(True\)")
#: a debug step that brings out the stack or the exception itself (a core's native stack under gdb)
_STACK = re.compile(r"\b(?:stack|exception|traceback)\b")
#: asks a process id without quoting one, with what that process was doing ("pid of the proc that died
#: and which step was it saving"): the phase answer alone would drop the pid
ASKS_PID = re.compile(
    r"\b(?:pids?|process id)\b(?!\W*\d).{0,60}\b(?:step|saving|doing|phase|writing|loading)\b"
    r"|\b(?:step|saving|doing|phase|writing|loading)\b.{0,60}\b(?:pids?|process id)\b(?!\W*\d)"
    r"|\b(?:dying|dead|died|failed|failing|crashed) (?:proc|process|rank)(?:\W?s)? pid\b"
    r"|\bpid of the (?:proc|process|rank|one) (?:that|which) (?:died|failed|crashed)\b"
)
#: asks when the hang itself began ("so when did it actually get stuck", "what time did rank 2 freeze"),
#: as its own question: not "what were they doing when it hung"
ASKS_STUCK = re.compile(
    r"(?:^|[.?!,;:]\s*|\b(?:so|and|but|ok)\s+)(?:when|what time|since when|at what time)"
    r"(?: exactly| actually)? (?:did|does|was|were|had|has|is)\b.{0,40}"
    r"\b(?:stuck|hung|hang|hanging|froze|frozen|freeze|stall\w*|wedged|deadlock\w*)\b"
)
#: asks the node a rank ran on ("which host is rank 2 on", "what machine was r2")
ASKS_NODE = re.compile(r"\b(?:which|what|where)\b.{0,30}\b(?:node|host|box|machine|server)\b|\bhostname\b")
#: names the kernel log, to look at on that node
_KERNEL = re.compile(r"\b(?:dmesg|kernel|syslog|journalctl|kern\.log|xid)\b")
#: going to the node to look ("I need to go look at the box", "want to ssh in"): what to read there
_GO_LOOK = re.compile(
    r"\b(?:look at|check|inspect|log ?in(?:to)?|poke (?:at|around)|visit|go to)\b[^?.]{0,20}"
    r"\b(?:box|node|host|machine|server)\b|\bssh\b"
)


def fitted(c: Ctx, m: Match) -> Reply | None:
    """The job-fitted command or fact the ask wants; None when it asks none of these."""
    for asks, answer in (
        (ASKS_VERSION, _versions),
        (ASKS_DF, _df),
        (ASKS_RERUN, _rerun),
        (ASKS_PID, _pid),
        (ASKS_STUCK, _stuck),
        (ASKS_NODE, _node),
    ):
        if asks.search(m.text) and (got := answer(c, m)) is not None:
            return got
    if _DF_FIGURES.search(m.text) and _DISK_WORD.search(m.text):  # "how much space was left on it?"
        return _df(c, m)
    return None


#: the disk named in a figures ask ("how much space was left on the volume"), not GPU or host memory
_DISK_WORD = re.compile(r"\b(?:disk|volume|drive|file ?system|fs|partition|mount|inodes?|df|space left)\b")


def _target(c: Ctx, m: Match) -> RankView | None:
    return c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating


def _versions(c: Ctx, m: Match) -> Reply | None:
    """Each version asked, from the line that printed it (or that no kept line prints it)."""
    said = answer_more.versions(c, m)
    if not said:
        return None
    # "... and what's rank 2's last enqueued collective compared to the others?": the dumps' own word
    named = [r for r in c.view.ranks.values() if r.suspect and (not m.ranks or r.rank in m.ranks)]
    if named and (answer_workseq.ASKS.search(m.text) or _LAST_OP.search(m.text)):
        said += " " + " ".join(tj.DUMP_SUSPECT.format(rank=r.rank, why=r.suspect) for r in named)
    elif (work := answer_workseq.counts(c, m))[0]:  # no dumps: the watchdog's own work counters
        return reply("versions", f"{said} {work[0]}", work[1])
    return reply("versions", said)


#: the last collective a rank reached, asked beside another question
_LAST_OP = re.compile(r"\blast (?:collective|op|operation|seq\w*|all_?reduce)\b")


def _df(c: Ctx, m: Match) -> Reply | None:
    """`df -h` of the directory the save was writing to, from the line that names it."""
    found = answer_quote.path(c, m)
    if found is None or not found.lines:
        return _no_path(c)
    ln = found.lines[0]
    where = next((w for w in re.findall(r"(/[^\s'\"`]+)", ln.text)), None)
    if where is None:
        return None
    folder = os.path.dirname(where.rstrip("/")) if "." in os.path.basename(where) else where
    said = tj.DF_DIR.format(dir=folder, path=where, ref=ref(ln))
    shown = any(_DF_LINE.search(x.text) for tl in c.d.tails for x in tl.lines)
    if _DF_FIGURES.search(m.text) and not shown:  # "how full was it? what does df say?": not logged
        said = f"{tj.DF_UNSEEN} {said[:1].upper()}{said[1:]}"
    return reply("path", said, [ln])


def _no_path(c: Ctx) -> Reply | None:
    """No kept line names a path written to: say so (and what it was doing instead, when not a save),
    rather than let a nearby intent answer with some other number or command (a source line's
    `api.py:1028` is no port, and no volume)."""
    ini = c.view.initiating
    if ini is None:
        return None
    doing, lines = "", []
    seen = c.d.initiating.phase_evidence
    if ini.phase and ini.phase != "checkpoint_save" and seen is not None:
        doing = tj.DF_NOT_SAVING.format(doing=phase_words(ini.phase), ref=ref(seen))
        lines = [seen]
    node = ini.node or (c.view.nodes[0] if len(c.view.nodes) == 1 else "its node")
    return reply("path", tj.DF_NO_PATH.format(doing=doing, node=node), lines)


def _rerun(c: Ctx, m: Match) -> Reply | None:
    """The category's rerun switch (a debug step that sets something), and which rank's log to watch."""
    steps = c.debug.get(c.view.category) or []
    chosen = [s for s in steps if _SWITCH.search(s) or _STACK.search(s)][:2]
    if not chosen or not _SWITCH.search(" ".join(chosen)):
        return None
    step = " ".join(chosen)
    ini = c.view.initiating
    lines = [ini.first_line] if ini is not None and ini.first_line is not None else []
    watch = ""
    if ini is not None:
        logs = list(rank_lines(c, ini.rank))
        own = re.compile(rf"(?:/|rank[_-]?){ini.rank}(?:/|\.|$)")
        log = next((s for s in logs if own.search(s)), logs[0] if logs else "")
        watch = tj.WATCH_RANK.format(rank=ini.rank, log=f" (`{log}`)" if log else "")
    lead = step if step.lower().startswith(("run ", "rerun ")) else tj.RERUN_WITH.format(step=step)
    return reply("debug", f"{lead} {watch}".strip(), lines)


def _pid(c: Ctx, m: Match) -> Reply | None:
    """The launcher's pid for the rank asked (the failing one unless another is named)."""
    target = _target(c, m)
    said = answer_more.launcher_pid(c, target)
    if not said or (target is not None and target.first_line and "pid" in target.first_line.text.lower()):
        return None  # its own failure line names another process (a DataLoader worker): that answer says it
    base = answer_facts.phase(c, m)
    lead = f"{said} {base.lead}" if base is not None else said
    return reply("which_rank", lead, base.lines if base is not None else [])


def _stuck(c: Ctx, m: Match) -> Reply | None:
    """The stalled rank's last line (when it stopped), and when the watchdog's wait began."""
    stalled = replace(m, rank=None, ranks=())  # "r0's watchdog … when did it get stuck": the stalled rank
    base = answer_facts.when(c, stalled if c.view.initiating is not None else m)
    if base is None:
        return None
    began = _wait_began(c)
    return reply("when", f"{base.lead} {began}".strip(), base.lines)


def _wait_began(c: Ctx) -> str:
    """`The watchdog's wait began at 03:00:01 UTC: it reported at 03:10:01 after 600 s.`"""
    for ln in answer_quote.pool(c):
        dog = watchdog(ln.text)
        stamp = parse_timestamp(ln.text)
        waited = dog.elapsed_s or dog.timeout_s if dog is not None else None
        if dog is None or waited is None or stamp is None or stamp.relative:
            continue
        at = datetime.fromtimestamp(stamp.value, UTC)
        start = at - timedelta(seconds=waited)
        return tj.WAIT_BEGAN.format(
            start=start.strftime("%H:%M:%S"), end=at.strftime("%H:%M:%S"), secs=duration(waited), ref=ref(ln)
        )
    return ""


def _node(c: Ctx, m: Match) -> Reply | None:
    """A rank whose node no line names: how to find it, and (when asked) what to grep there."""
    target = _target(c, m)
    if target is None or target.node is not None:
        return None
    lead = f"{tj.NODE_FIND.format(rank=target.rank)}"
    if _KERNEL.search(m.text) or _GO_LOOK.search(m.text):
        lead += " " + tj.NODE_DMESG
    lines = [target.first_line] if target.first_line is not None else []
    return reply("which_rank", lead, lines)
