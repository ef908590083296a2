"""Asks about records the job lacks: a kernel log no one collected ("any dmesg? was it the OOM
killer?"), and values no line prints (node RAM, free space, lr/warmup, GPU temperature).

Why: these asks were answered with the usual cause or rank story, or a guess, and never said that the
record is missing. "Not in the logs" (with the command that would show it) is the answer; for a kernel
ask, what the job's own lines show instead, and for a node whose log was collected, whether it names a
GPU fault.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_unlogged as tx
from denpex.core.texts.thread import category_words
from knowledge.answer_advice_value import SETTINGS
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, ref

#: the kernel log or a kernel kill asked about
KERNEL_Q = re.compile(
    r"\b(?:any|anything|show|give|see|got|have|was there|is there)\b[^?]{0,20}"
    r"\b(?:dmesg|kernel(?:'s)? (?:log|evidence|line|message|ring)s?)\b"
    r"|\bdmesg (?:line|entry|output)\b|\bdid the (?:kernel|os|oom[- ]?killer)\b"
    r"|\b(?:was|is) (?:it|this|that) (?:the )?(?:kernel(?:'s)? )?oom[- ]?killer\b"
    # "any EXT4/NFS I/O errors in dmesg around 21:36?", "kernel log from gpu-01 too?"
    r"|\b(?:in|from|on) (?:the )?(?:dmesg|kernel(?:'s)? (?:log|ring)s?)\b"
    r"|\bkernel\b[^?]{0,40}\b(?:errors?|xids?|messages?)\b|\bkernel log(?:s)? (?:from|for|of|on) \S+"
)
#: a node named in the ask ("kernel log from gpu-01")
_NODE = re.compile(r"\b(?:from|for|of|on) ([A-Za-z][\w.-]*\d[\w.-]*)")
#: asks for a command to run, not for what the log holds
_HOW = re.compile(r"\b(?:search|grep|look) for\b|\bwhat (?:command|cmd)\b|\bhow (?:do|can|would|should)\b")
#: a doubt about the hardware ("is that GPU defective?", "bad disk / I/O hardware error?")
_HW_DOUBT = re.compile(r"\b(?:defective|faulty|broken|bad (?:gpu|card|disk|node)|hardware)\b")
_XID = re.compile(r"\bXid\b|NVRM", re.IGNORECASE)
_SIGTERM = re.compile(r"SIGTERM|signal 15|\(-15\)", re.IGNORECASE)
#: values a job's lines rarely print, each with the asked words, a line that would print it, and texts
_VALUES: tuple[tuple[re.Pattern[str], re.Pattern[str], tuple[str, str]], ...] = (
    (
        re.compile(
            r"\b(?:how much|total) (?:ram|memory)\b[^?]{0,30}\b(?:have|had|total|in total)\b"
            r"|\b(?:node|box|host|machine)(?:'s)? (?:total )?(?:ram|memory) (?:limit|size|capacity)\b"
            r"|\b(?:node|box|host|machine)(?:'s)? memory limit|\bmemory limit\b"
        ),
        re.compile(r"MemTotal|total memory|ReqMem|memory limit", re.IGNORECASE),
        tx.NODE_RAM,
    ),
    (
        re.compile(r"\bfree (?:disk )?space\b|\bspace (?:was )?left\b|\bdisk space\b|\bhow full\b"),
        re.compile(r"\bAvail\b|\bfree space\b|\bavailable\b", re.IGNORECASE),
        tx.FREE_SPACE,
    ),
    (
        re.compile(r"\b(?:gpu )?temp(?:erature)?s?\b|\bpower (?:draw|usage)\b|\bwatts?\b"),
        re.compile(r"\btemp(?:erature)?\b\s*[=:]|\bpower\b\s*[=:]|\d+\s?W\b", re.IGNORECASE),
        tx.GPU_SENSORS,
    ),
)
#: a setting asked as what the run used ("what lr and warmup was this run using?")
#: data-loader settings a reader asks the value of ("what num_workers was this running with?")
LOADER_SETTINGS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = (
    (
        "num_workers",
        re.compile(r"\bnum_workers\b|\bdata ?loader workers\b"),
        re.compile(r"\bnum_workers\s*[=:]\s*(\d+)"),
    ),
    (
        "batch size",
        re.compile(r"\bbatch[ _-]?size\b"),
        re.compile(r"\bbatch_size\s*[=:]\s*(\d+)", re.IGNORECASE),
    ),
    ("prefetch_factor", re.compile(r"\bprefetch_factor\b"), re.compile(r"\bprefetch_factor\s*[=:]\s*(\d+)")),
)
_USED_Q = re.compile(
    r"\b(?:what|which)\b[^?]{0,40}\b(?:using|used|use|was|were|set to|had)\b"
    # "what learning rate do the training logs show?": the value the lines print
    r"|\b(?:what|which)\b[^?]{0,40}\b(?:logs?|lines?|output) (?:\w+ )?(?:show|print|say|report|give)\w*\b"
)


def kernel(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """A kernel-log ask: none collected (and what the job's lines show), or a collected node log with
    no GPU fault when the reader doubts the hardware; put before the usual answer, which keeps the
    rest of the message's asks."""
    ini = c.view.initiating
    if not KERNEL_Q.search(text) or _HOW.search(text) or ini is None or ini.first_line is None:
        return "", []
    what = category_words(ini.category or c.view.category)
    node_lines = [ln for ls in c.d.nodes.values() for ln in ls]
    if node_lines and (other := _uncollected(c, text)):
        return other, [ini.first_line]
    if node_lines:
        return _clean(c, text, node_lines)
    first = ini.first_line
    lead = tx.NO_KERNEL_LOG.format(rank=ini.rank, what=what, ref=ref(first), text=first.text.strip())
    if _SIGTERM.search(first.text) or (ini.exit_line is not None and _SIGTERM.search(ini.exit_line.text)):
        lead += tx.SIGTERM_SENDER
    lead += tx.KERNEL_CHECK.format(node=ini.node or "its node")
    return lead, [first]


def _uncollected(c: Ctx, text: str) -> str:
    """A node the ask names whose kernel log was not collected, while another node's was."""
    named = [n for n in _NODE.findall(text) if n in c.view.nodes and n not in c.d.nodes]
    if not named:
        return ""
    have = ", ".join(f"{n}'s ({c.d.nodes[n][0].source})" for n in c.d.nodes if c.d.nodes[n])
    return tx.NODE_NOT_COLLECTED.format(node=named[0], have=have)


def _clean(c: Ctx, text: str, node_lines: list[EvidenceLine]) -> tuple[str, list[EvidenceLine]]:
    """Node logs collected: a hardware doubt answered from them when none names a GPU fault."""
    ini = c.view.initiating
    if ini is None or not _HW_DOUBT.search(text) or any(_XID.search(ln.text) for ln in node_lines):
        return "", []
    if "xid" in (c.view.category or ""):
        return "", []
    node = ini.node or next(iter(c.d.nodes))
    source = next((ln.source for ln in node_lines if node in ln.source), node_lines[0].source)
    lead = tx.KERNEL_CLEAN.format(node=node, source=source, rank=ini.rank, what=category_words(ini.category))
    return lead, [ini.first_line] if ini.first_line else []


def values(c: Ctx, text: str) -> str:
    """The sentences for each asked value no line prints (or a setting's printed value); empty if none."""
    lines = pool(c)
    said = [
        tx.NOT_LOGGED.format(what=what, check=check)
        for asked, printed, (what, check) in _VALUES
        if asked.search(text) and not any(printed.search(ln.text) for ln in lines)
    ]
    if _USED_Q.search(text):
        said += [
            _setting(lines, name, printed)
            for name, words, printed in (*SETTINGS, *LOADER_SETTINGS)
            if words.search(text)
        ]
    return " ".join(said)


def _setting(lines: list[EvidenceLine], name: str, printed: re.Pattern[str]) -> str:
    """A setting the run used: its printed value with the line, or not logged."""
    hits = [(f.group(1), ln) for ln in lines if (f := printed.search(ln.text))]
    if hits:
        value, ln = hits[-1]
        return tx.SETTING_LOGGED.format(name=name, value=value, ref=ref(ln))
    what, check = tx.SETTING_MISSING
    return tx.NOT_LOGGED.format(what=f"{what} {name}", check=check)


__all__ = ["KERNEL_Q", "kernel", "values"]
