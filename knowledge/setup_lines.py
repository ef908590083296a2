"""The job's set-up lines, kept so a follow-up about how the job was set up can quote them.

Why: "which model was this?", "world size 4 or 8?", "rank 5's busId?", "driver version on gpu-02?" are
answered by lines the job printed at start-up, long before anything failed, so neither the verdict's
evidence nor the tails hold them. The scan already finds them (the `setup`, `world`, `device` and
`driver` facts of `knowledge.patterns`); this module keeps, per source, only the first line of each
kind below, masked by the `Redactor` like every other kept line, and at most `MAX_LINES` in all: a
thousand ranks each printing the same five lines must not make the diagnosis large.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from denpex.core.models import EvidenceLine

if TYPE_CHECKING:  # pragma: no cover
    from knowledge.report import Redactor
    from knowledge.signals import Job

#: the kinds of set-up line, in the order a follow-up reads them, each by what its real formats print
KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # a launcher's `Loading model meta-llama/Llama-3.1-8B`, transformers' `All the weights of X were
    # initialized from the model checkpoint at <name>`, a config dump's `"_name_or_path": "<name>"`
    (
        "model",
        re.compile(
            r"\bloading (?:pretrained |the )?model\b|initialized from the model checkpoint at |_name_or_path",
            re.I,
        ),
    ),
    # PyTorch's ProcessGroupNCCL: `ProcessGroupNCCL initialization options: size: 8, global rank: 0`,
    # a launcher's `ProcessGroupNCCL initialized: world 8`
    ("process_group", re.compile(r"ProcessGroupNCCL initiali[sz]")),
    # NCCL's `host:pid:tid [dev] NCCL INFO comm 0x… rank 5 nranks 8 cudaDev 1 nvmlDev 1 busId 3b000 …
    # Init COMPLETE` (or the older `NCCL INFO cudaDev 1 nvmlDev 1 busId 3b000`)
    ("nccl_init", re.compile(r"\bNCCL INFO\b.*\bcudaDev [0-9]+ (?:nvmlDev [0-9]+ )?busId [0-9a-fA-F]+")),
    # a launch line naming the rank's place: `rank=5 local_rank=1 world_size=8 node=gpu-02`
    (
        "launch",
        re.compile(
            r"\blocal_rank[=:] ?[0-9]+\b.*\bworld_size[=:] ?[0-9]+|\brank[=:] ?[0-9]+\b.*\blocal_rank[=:]"
        ),
    ),
    # the kernel module's load line (`NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07`, the open
    # module's `… Open Kernel Module for x86_64  550.90.07`), nvidia-smi's `Driver Version: 550.90.07`
    ("driver", re.compile(r"NVRM: loading NVIDIA UNIX .*Kernel Module|Driver Version: +[0-9]")),
)
#: at most this many set-up lines are kept in all (five kinds, so about a dozen sources in full)
MAX_LINES = 64


def kind_of(text: str) -> str | None:
    """The kind of set-up line `text` is (`model`, `process_group`, …), None if it is none."""
    return next((name for name, rx in KINDS if rx.search(text)), None)


def kept(job: Job, red: Redactor) -> list[EvidenceLine]:
    """Per source the first scanned line of each kind, masked, in source then line order, at most
    `MAX_LINES`. Only retained hits are read (never the logs again), so this costs nothing per byte."""
    out: list[EvidenceLine] = []
    for scan in job.scans:
        seen: set[str] = set()
        for hit in sorted(scan.hits, key=lambda h: h.line):
            kind = kind_of(hit.text)
            if kind is None or kind in seen:
                continue
            seen.add(kind)
            out.append(
                EvidenceLine(source=scan.source.name, line=hit.line, text=red(scan, hit.line, hit.text))
            )
            if len(out) >= MAX_LINES:
                return out
            if len(seen) == len(KINDS):
                break
    return out


__all__ = ["KINDS", "MAX_LINES", "kept", "kind_of"]
