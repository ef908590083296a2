"""Answers that check a guess against this job: "could it be the network instead?", "would raising the
timeout help?", "are ranks 4 and 6's GPUs bad too?".

People on call rarely ask open questions; they test the explanation they already have in mind. Each
answer here says first whether this job's facts support the guess, with the fact that decides it,
then the usual lines.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import followups_facts as tff
from denpex.core.texts import followups_figures as tx
from denpex.core.texts import followups_job as tj
from denpex.core.texts import followups_verdicts as tv
from denpex.core.texts import thread as t
from knowledge import (
    answer_code,
    answer_datafix,
    answer_doubt,
    answer_evidence,
    answer_job,
    answer_launcher,
    answer_silent,
    answer_sure,
)
from knowledge.answer_timeout_figure import timeout_token
from knowledge.answer_types import Ctx, Reply, duration, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.evidence_numbers import watchdog
from knowledge.intents import Match
from knowledge.wording import phase_words

#: what a guess names → the categories that would make it right
_GUESSES: tuple[tuple[re.Pattern[str], str, frozenset[str]], ...] = (
    (  # a kind of crash, before the component it is said to be in ("did my dataset code segfault?")
        re.compile(r"\bseg(?:mentation)? ?fault\w*|\bsigsegv\b"),
        "a segmentation fault",
        frozenset({"segfault"}),
    ),
    (
        re.compile(
            r"\b(?:network|infiniband|ib|nic|ethernet|switch|switches|interconnect|connection|socket|roce"
            r"|firewall|iptables|fabric|cables?)\b"
        ),
        "the network",
        frozenset({"nccl_comm_error", "rendezvous_failure"}),
    ),
    (
        re.compile(r"\b(?:disk|storage|filesystem|file system|nfs|lustre|quota)\b"),
        "the storage",
        frozenset({"disk_full_or_io"}),
    ),
    (
        re.compile(r"\b(?:data ?loader|dataset|data pipeline|bad (?:data|sample|batch))\b"),
        "the data pipeline",
        frozenset({"dataloader_worker_killed", "nan_divergence", "shape_or_user_code_error"}),
    ),
    (
        re.compile(r"\b(?:scheduler|slurm|preempt\w*|time ?limit|walltime|evict\w*)\b"),
        "the scheduler",
        frozenset({"scheduler_kill"}),
    ),
)
#: the ask a NaN loss's data guess gets the logged values for (the values and their trend, no reading)
_LOSSES = "the last losses"
#: a guess that is right whatever the verdict when a failure line says it (a worker killed by SIGSEGV)
_SEEN = {"a segmentation fault": re.compile(r"Segmentation fault|SIGSEGV|signal 11\b", re.I)}
#: categories whose collective errors are the failure itself, not the echo of another rank's
_COLLECTIVE = frozenset({"nccl_timeout", "nccl_comm_error", "hang_no_error", "rendezvous_failure"})
#: a rank that is slow, not gone: a longer timeout can get it through
SLOW_ENTRIES = frozenset({"nccl-timeout-slow-rank"})


def guessed(text: str) -> tuple[str, frozenset[str]] | None:
    """The cause a question proposes ("is it the network?"), if it names one this module can check."""
    for rx, name, categories in _GUESSES:
        if rx.search(text):
            return name, categories
    return None


def guess(c: Ctx, m: Match) -> Reply | None:
    """ "Could it be the network instead?": yes or no from the verdict, then who started it."""
    found = guessed(m.text)
    ini = c.view.initiating
    if found is not None and ini is None and (end := answer_job.scheduler_end(c)) is not None:
        return _scheduler_guess(m, end, found[0])  # "was it preempted? oom?": the scheduler's own line
    if found is not None and found[0] == "the network" and (busy := _port_busy(c)) is not None:
        return busy  # "a firewall between nodes?": no, the port was taken on the host itself
    if found is None or ini is None:
        return None
    name, categories = found
    what = t.category_words(c.view.category) + (f" while {phase_words(ini.phase)}" if ini.phase else "")
    seen = _SEEN.get(name)
    shown = [*c.view.evidence, *(r.first_line for r in c.view.ranks.values() if r.first_line is not None)]
    theirs = answer_launcher.named_victims(c, m.ranks) if m.ranks else ""
    if theirs and c.view.category in categories:  # "ranks 1-3 also have disk problem?": no, rank 0 had
        lead = tf.GUESS_NOT_THEIRS.format(name=name, rank=ini.rank, what=what)
        return reply("alternatives", f"{lead} {theirs}", c.view.key_line())
    if name == "the data pipeline" and c.view.category.startswith("nan"):  # "one bad batch?": maybe
        read = answer_evidence.loss(c, replace(m, text=_LOSSES))
        lead = f"{tv.NAN_DATA_MAYBE.format(rank=ini.rank)} {read.lead}"
        return reply("alternatives", lead, read.lines, bullets=read.bullets)
    if name == "the data pipeline" and (said := answer_datafix.data_phase(c, ini, what, m.text)):
        return said  # "is it really the dataset or the model loading?": the rank was in its data phase
    if c.view.category in categories or (seen is not None and any(seen.search(ln.text) for ln in shown)):
        return reply(
            "alternatives", tf.GUESS_YES.format(name=name, rank=ini.rank, what=what), c.view.key_line()
        )
    others = sorted(r for r, v in c.view.ranks.items() if v.role == "collateral")
    echo = tf.GUESS_ECHO.format(ranks=rl(others), rank=ini.rank) if others else ""
    desync = answer_code.desync_note(c)
    if desync and CODE_OFFERED.search(m.text):  # "network/hw or our code?": the code, said first
        lead = f"{tv.CODE_NOT_NETWORK.format(why=desync)} {echo}".strip()
        return reply("alternatives", lead, c.view.key_line())
    if desync:
        echo = f"{echo} {desync}".strip()
    if name == "the network":
        echo = f"{echo} {_network_facts(c, ini.rank)}".strip()
    tie, tied = answer_doubt.pid_tie(c)  # a kernel kill: the pid that ties it to the rank, the proof
    lead = tf.GUESS_NO.format(name=name, rank=ini.rank, what=what, echo=echo)
    return reply("alternatives", f"{lead.strip()} {tie}".strip(), [*c.view.key_line(), *tied])


def _network_facts(c: Ctx, rank: int) -> str:
    """What rules the network out besides who failed first: every rank on one node (nothing crossed a
    link between nodes), and the timeout the others' errors are (they waited on the failed rank)."""
    nodes = {v.node for v in c.view.ranks.values()}
    said = []
    if len(nodes) == 1 and None not in nodes and len(c.view.ranks) > 1:
        said.append(tv.NET_ONE_NODE.format(count=len(c.view.ranks), node=next(iter(nodes))))
    if waited := _timeout_was(c).strip():
        where = waited_in(c)
        said.append(tv.NET_WAITED.format(rank=rank, where=where, timeout=waited[:1].lower() + waited[1:]))
    return " ".join(said)


def waited_in(c: Ctx) -> str:
    """ " in `all_reduce` (train.py line 144)": the one collective every collateral rank's traceback is
    blocked in, where the user's code called it; "" when they differ or no traceback shows one."""
    found = {answer_code.collective_of(c, r.rank) for r in c.view.with_role("collateral")}
    if len(found) != 1 or (only := found.pop()) is None:
        return ""
    op, where = only
    return f" in `{op}`" + (f" ({where})" if where else "")


#: the user's own code offered as the other side of the guess ("network/hw thing or our code?")
CODE_OFFERED = re.compile(
    r"\bor (?:is it |was it |is this |just )?(?:in )?(?:our|my|the|your) (?:own )?"
    r"(?:code|script|program|training code)\b|\b(?:our|my|the) code or\b"
    r"|\bor (?:a )?(?:bug|software|application)\b"
)


_IN_USE = re.compile(r"EADDRINUSE|address already in use", re.I)
_PORT = re.compile(r"\bport[: =]+(\d{2,5})\b")


def _port_busy(c: Ctx) -> Reply | None:
    """A rendezvous that failed because its port was taken: nothing crossed the network, the master
    could not listen on its own host. None when no kept line says the port was in use."""
    if not c.view.category.startswith("rendezvous"):
        return None
    lines = [*c.view.evidence, *(ln for tl in c.d.tails for ln in tl.lines)]
    ln = next((x for x in lines if _IN_USE.search(x.text)), None)
    if ln is None:
        return None
    port = _PORT.search(ln.text)
    lead = tff.NOT_NETWORK_PORT.format(port=f"port {port.group(1)}" if port else "its port", ref=ref(ln))
    command = c.d.verify or (c.entry.verify if c.entry else "")
    if not command:
        return reply("alternatives", lead, [ln])
    return reply("alternatives", f"{lead} {tff.PORT_HOLDER_CHECK.format(command=command)}", [ln])


_PREEMPT = re.compile(r"\bpreempt\w*|\bevict\w*|\bspot\b")
_OOM = re.compile(r"\boom\w*|\bmemory\b|\bram\b")


def _scheduler_guess(m: Match, end: answer_job.SchedulerEnd, name: str) -> Reply:
    """A guess at a job the scheduler ended: the scheduler's line decides it (its reason as printed)."""
    said = answer_job.end_sentence(end)
    parts = [] if name == "the scheduler" else [tj.NOT_THAT.format(name=name)]
    if _PREEMPT.search(m.text) and end.reason != "PREEMPTION":
        parts.append(tj.NOT_PREEMPTED.format(reason=end.reason.lower() or "its own reason"))
    if _OOM.search(m.text):
        parts.append(tj.NOT_OOM)
    parts.append(f"{tj.SCHEDULER_YES} {said}")
    return reply("alternatives", " ".join(parts), [end.line])


def timeout_help(c: Ctx, m: Match, figure: bool = True) -> Reply | None:
    """ "Would raising the timeout help?": only when the awaited rank was slow, never when it was gone
    or in another collective (`figure`: lead with the timeout the logs show)."""
    ini = c.view.initiating
    if ini is None:
        return None
    if c.entry is not None and c.entry.id in SLOW_ENTRIES:
        return reply("timeout_help", tf.TIMEOUT_MAY_HELP.format(rank=ini.rank), c.view.key_line())
    desync = answer_code.desync_note(c)
    if desync:  # no wait is long enough for a call the other ranks never make: the code must change
        why = f"{desync} {tf.DESYNC_RECURS}"
    elif c.view.category in _COLLECTIVE and answer_silent.silent(ini):  # stuck, not gone: find out why
        what = ini.suspect or "went silent without an error of its own"
        why = f"{tf.TIMEOUT_STUCK.format(rank=ini.rank, what=what)} {answer_silent.next_steps(c, ini)}"
    else:
        why = tf.TIMEOUT_GONE.format(rank=ini.rank, what=t.category_words(ini.category or c.view.category))
    was = _timeout_was(c) if figure else ""  # "is 10s too tight?": the figure, then why it is not it
    return reply("timeout_help", f"{was}{tf.TIMEOUT_WONT_HELP} {why}", c.view.key_line())


def _timeout_was(c: Ctx) -> str:
    """The timeout the logs show, as a sentence with a trailing space, else ""."""
    found = [c.view.numbers.watchdog[0]] if c.view.numbers.watchdog is not None else []
    found += [w for r in c.view.ranks.values() if r.first_line and (w := watchdog(r.first_line.text))]
    timeouts = [w.timeout_s for w in found if w.timeout_s is not None]
    if not timeouts:
        return ""
    if (raw := timeout_token(c)) is not None:  # gloo's `Timed out waiting 10000ms` is no `Timeout(ms)`
        return tf.TIMEOUT_WAS_RAW.format(timeout=duration(timeouts[0]), raw=raw) + " "
    return tf.TIMEOUT_WAS.format(timeout=duration(timeouts[0])) + " "


_RANKS_TOO = re.compile(r"\b(?:too|as well|also|either|aswell)\b|\bthose\b|\btheir\b")


def named_collateral(c: Ctx, m: Match) -> str:
    """For a question about ranks that only echoed the failure ("ranks 4, 6 and 7 errored too — bad
    GPUs as well?"): the sentence saying they were collateral, else ""."""
    named = [r for r in m.ranks if (v := c.view.ranks.get(r)) is not None and v.role == "collateral"]
    ini = c.view.initiating
    if not named or ini is None or (len(named) == 1 and not _RANKS_TOO.search(m.text)):
        return ""
    return tf.NAMED_COLLATERAL.format(ranks=rl(named), rank=ini.rank)


def node_collateral(c: Ctx, m: Match) -> str:
    """For a question about a node whose failing ranks were all collateral ("all 4 ranks on gpu-01
    errored too, is gpu-01 bad?"): the sentence clearing it, naming the node that started it, else "".
    Why: a node is drained on this answer, and its ranks' timeouts are not a fault of their own."""
    ini = c.view.initiating
    if m.node is None or ini is None or ini.node is None or m.node.lower() == ini.node.lower():
        return ""
    here = [r for r in c.view.ranks.values() if r.node is not None and r.node.lower() == m.node.lower()]
    failed = [r for r in here if r.role in ("initiating", "collateral")]
    if not failed or any(r.role != "collateral" for r in failed):
        return ""
    return tf.NODE_COLLATERAL.format(node=here[0].node, ranks=rl(failed), rank=ini.rank, ini_node=ini.node)


_BACKENDS = (
    ("gloo", re.compile(r"\bgloo\b", re.I)),
    ("NCCL", re.compile(r"\bNCCL\b|ProcessGroupNCCL|ncclUniqueId")),
)


def backend_of(c: Ctx) -> tuple[str, EvidenceLine] | None:
    """The collective backend the failure lines name (gloo before NCCL), and the line that names it."""
    ini = c.view.initiating
    lines = [ini.first_line] if ini is not None and ini.first_line is not None else []
    lines += [r.first_line for r in c.view.ranks.values() if r.first_line is not None] + c.view.evidence
    for name, rx in _BACKENDS:
        if (ln := next((x for x in lines if rx.search(x.text)), None)) is not None:
            return name, ln
    return None


def backend(c: Ctx, m: Match) -> Reply | None:
    """ "Is it even NCCL?": the collective backend the failure lines name."""
    if (found := backend_of(c)) is None:
        return reply("backend", tf.BACKEND_UNKNOWN)
    name, ln = found
    lead = tf.BACKEND_IS.format(name=name, ref=ref(ln), what=tf.BACKEND_WORDS[name])
    said, shown = _nccl_tag(c) if name == "gloo" else ("", [])
    return reply("backend", f"{lead} {said}".strip(), [ln, *shown])


def _nccl_tag(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """On gloo, the ranks the table tags `nccl_*`: the tag is a kind of failure, and the first rank
    (the one to blame) is another, named with its own line."""
    ini = c.view.initiating
    tagged = [r for r in c.view.with_role("collateral") if "nccl" in (r.category or "")]
    if ini is None or ini.first_line is None or not tagged:
        return "", []
    said = tx.BACKEND_TAG.format(
        category=tagged[0].category,
        many="s" if len(tagged) > 1 else "",
        ranks=rl(tagged),
        ini=ini.rank,
        what=t.category_words(ini.category or c.view.category),
        ref=ref(ini.first_line),
    )
    return said, [ini.first_line]


_CULPRIT_Q = re.compile(
    r"\b(?:do|did|does) (?:anything|something) wrong\b"
    r"|\b(?:the )?(?:culprits?|to blame|at fault|responsible|guilty)\b"
    r"|\b(?:is|was) (?:it|rank \d+|that rank) (?:the )?(?:cause|problem|one)\b"
    r"|\bcaused? (?:it|this|the failure)\b|\bwhich (?:one|of (?:them|the two|those|these|both))\b"
    # the launcher's word for it, or a doubt of it ("torchrun says root cause is rank 0. trust that?")
    r"|\broot[- ]?cause\b|\bthe bad (?:one|rank)\b|\btrust (?:that|it|this|the launcher|torchrun)\b"
)
#: ranks named by number alone at the start of an ask ("0 and 2 say Connection reset by peer, …")
_BARE_RANKS = re.compile(
    r"^(?:but |so |and |ok )?(\d{1,4}(?: ?(?:,|and|&|/) ?\d{1,4})+) (?:both |all |also )?"
    r"(?:say|said|show|showed|shows|print|printed|log|logged|report|reported|have|had|got|hit)\b"
)
#: the launcher's summary is what the reader quotes ("torchrun says root cause is rank 0")
_LAUNCHER_SAID = re.compile(r"\b(?:torchrun|launcher|elastic|summary|failure table|first observed)\b")
_WHICH_OF = re.compile(r"\bwhich (?:one|of (?:them|the two|those|these|both))\b")
#: a credential the reader saw in a log: the ask is about it (the secrets answer), not about a rank
_CREDENTIAL = re.compile(
    r"\b(?:(?:hf|api|access|auth)[_ ]?(?:tokens?|keys?)|creds?|credentials?|passwords?)\b"
)


def culprit_verdict(c: Ctx, m: Match) -> str:
    """ "Did rank 0 do anything wrong?" / "so rank 0 is the culprit, right?": yes or no first; the
    launcher's "root cause" quoted against it also gets why the launcher named another rank."""
    ini = c.view.initiating
    named = _culprit_ranks(m)
    if not named or ini is None or not _CULPRIT_Q.search(m.text) or _CREDENTIAL.search(m.text):
        return ""  # "HF token printed in rank5 log, is it problem?": "it" is the token, not the rank
    if len(named) > 1 and m.rank is None:  # "0 and 2 say Connection reset, are they the root cause"
        return _several(c, named, ini.rank)
    role = c.view.ranks.get(named[0])
    what = "collateral" if role is not None and role.role == "collateral" else "not the one that started it"
    if _WHICH_OF.search(m.text):  # a choice between two ranks: the one that started it, named first
        other = next((r for r in m.ranks if r != ini.rank), None)
        was = "" if other is None else " " + tf.CULPRIT_OTHER.format(rank=other, what=what)
        return tf.CULPRIT_WHICH.format(ini=ini.rank) + was
    if named[0] == ini.rank and answer_sure.unsure(ini, m.text):
        return ""  # "how sure are you rank 3 is the culprit?": inferred, said by `answer_sure`
    if named[0] == ini.rank:
        return tf.CULPRIT_YES.format(rank=named[0])
    said = f" {tff.LAUNCHER_FIRST_EXIT}" if _LAUNCHER_SAID.search(m.text) else ""
    return tf.CULPRIT_NO.format(rank=named[0], what=what, ini=ini.rank) + said


def _culprit_ranks(m: Match) -> tuple[int, ...]:
    """The ranks the ask blames: named as ranks, or by number alone at its start ("0 and 2 say …")."""
    if m.rank is not None:
        return (m.rank,)
    bare = _BARE_RANKS.search(m.text)
    return tuple(dict.fromkeys(int(n) for n in re.findall(r"\d+", bare.group(1)))) if bare else ()


def _several(c: Ctx, named: tuple[int, ...], ini: int) -> str:
    """Several ranks blamed at once: no when none of them started it, else which one did."""
    if any(r not in c.view.ranks for r in named):
        return ""
    others = [r for r in named if r != ini]
    if not others:
        return ""
    ranks = " and ".join(map(str, others)) if len(others) == 2 else rl(others)
    coll = all(c.view.ranks[r].role == "collateral" for r in others)
    what = "collateral" if coll else "not the ones that started it"
    if ini in named:
        was = tf.CULPRIT_OTHER.format(rank=others[0], what=what.replace("the ones", "the one"))
        was = was if len(others) == 1 else tff.CULPRIT_OTHERS.format(ranks=ranks, what=what)
        return f"{tf.CULPRIT_WHICH.format(ini=ini)} {was}"
    return tff.CULPRIT_NONE.format(ranks=ranks, what=what, ini=ini)


# ---------------------------------------------------------------- single facts people check

#: categories whose failure is an allocation the process was refused (CUDA or host), not a signal
_ALLOCATION = frozenset({"gpu_oom", "gpu_oom_checkpoint_gather", "cpu_oom_checkpoint", "host_oom"})
_KILLER = re.compile(r"\b(?:oom[- ]?killer|sigkill|kill -9|killed by the kernel|kernel (?:oom|kill))\b")


def killer_check(c: Ctx, m: Match) -> str:
    """ "Was it the kernel OOM killer?" when no kill is in the evidence: what failed instead."""
    if not _KILLER.search(m.text) or c.view.numbers.kill is not None:
        return ""
    ini = c.view.initiating
    if ini is not None and (c.view.numbers.oom is not None or c.d.category in _ALLOCATION):
        return tf.NOT_THE_KILLER.format(rank=ini.rank)
    who = f"rank {ini.rank}" if ini is not None else "the job"
    return tf.NOT_THE_KILLER_OTHER.format(who=who, what=t.category_words(c.d.category))


def timeout_was(c: Ctx) -> str:
    """The timeout the logs show, as one sentence ("" when none does): a status update's part."""
    return _timeout_was(c).strip()


def timeout_fact(c: Ctx, m: Match) -> str:
    """ "What timeout was it using?": the watchdog's figure, from the line that shows it."""
    if "timeout" not in m.text:
        return ""
    return _timeout_was(c).strip()


__all__ = [
    "backend",
    "backend_of",
    "culprit_verdict",
    "guess",
    "guessed",
    "killer_check",
    "named_collateral",
    "timeout_fact",
    "timeout_help",
    "timeout_was",
]
