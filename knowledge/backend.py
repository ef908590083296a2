"""The collective backend a job used, and its commands and snippets fitted to it.

Why: a gloo job (CPU training, a CPU process group) fails in collectives the same way an NCCL job
does, and the knowledge base's advice is written for NCCL: `TORCH_NCCL_*` and `NCCL_DEBUG` do nothing
under gloo. When the job's lines show only gloo, the verify command and fix snippet drop the NCCL-only
variables, use `init_process_group("gloo")`, and a repro command gets gloo's own debug switch.
"""

from __future__ import annotations

import re

from knowledge.signals import Job

_GLOO = re.compile(r"gloo/transport/|ProcessGroupGloo|\[gloo\]|backend[=: ]+['\"]?gloo\b", re.IGNORECASE)
_NCCL = re.compile(
    r"\bNCCL (?:INFO|WARN|version)|ProcessGroupNCCL|\bnccl[A-Z][a-z]+Error\b|NCCL error|\[PG [^\]]*NCCL"
)


def backend_of(job: Job) -> str | None:
    """The collective backend the job's lines show, when they show exactly one: a gloo job must not be
    told to set `TORCH_NCCL_*` variables that do nothing for it."""
    gloo = nccl = False
    for scan in job.scans:
        for hit in scan.hits:
            gloo = gloo or _GLOO.search(hit.text) is not None
            nccl = nccl or _NCCL.search(hit.text) is not None
    if gloo != nccl:
        return "gloo" if gloo else "nccl"
    return None


_NCCL_ENV = re.compile(r"\b(?:TORCH_NCCL|NCCL)_[A-Z_]+=\S+[ \t]*")
_EXPORT_NCCL = re.compile(r"^[ \t]*export[ \t]+(?:TORCH_NCCL|NCCL)_[A-Z_]+=")
_INIT_NCCL = re.compile(r"""init_process_group\(\s*(?:backend\s*=\s*)?(["'])nccl\1""")


def for_backend(text: str, backend: str | None, debug: bool = False) -> str:
    """A command or snippet for a gloo job: without the NCCL-only variables (they do nothing there) and
    with `init_process_group("gloo")`; a repro command that lost its debug switches gets gloo's own,
    TORCH_DISTRIBUTED_DEBUG=DETAIL (it checks every collective's type and shape across ranks)."""
    if backend != "gloo" or not text:
        return text
    out = "\n".join(line for line in text.split("\n") if not _EXPORT_NCCL.match(line))
    out = _INIT_NCCL.sub(lambda m: m.group(0).replace("nccl", "gloo"), out)
    stripped = _NCCL_ENV.sub("", out)
    if debug and stripped != out and "TORCH_DISTRIBUTED_DEBUG" not in stripped:
        stripped = "TORCH_DISTRIBUTED_DEBUG=DETAIL " + stripped.lstrip()
    return stripped


#: an entry title's NCCL-only words, and what a gloo job's title says instead (gloo has no watchdog
#: thread: its timeouts are raised by the collective call itself)
_TITLE_WORDS = (
    (re.compile(r"\bNCCL Watchdog Timeout\b"), "Collective Timeout"),
    (re.compile(r"\bNCCL Timeout\b"), "Collective Timeout"),
    (re.compile(r"\bNCCL\b"), "Collective"),
)


def title_for(title: str, backend: str | None) -> str:
    """An entry's title for a gloo job: the failure class is the same, but a title that says "NCCL"
    sends the reader to NCCL's settings and logs, which this job never used; the backend is named."""
    if backend != "gloo" or "NCCL" not in title:
        return title
    for rx, words in _TITLE_WORDS:
        title = rx.sub(words, title)
    return f"{title} (gloo backend)"


__all__ = ["backend_of", "for_backend", "title_for"]
