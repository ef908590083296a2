"""The training settings a job printed at start-up: precision, activation checkpointing, ZeRO stage and
its 16-bit gather at save, offload, state-dict type, batch sizes, sequence length, DataLoader workers,
save interval.

Why: "was bf16 already on?", "where does it say the 16-bit gather is on?", "how many workers did it
use?" are answered from the line the job printed (DeepSpeed's config dump, Trainer's arguments, a
launcher's `key=value`), quoted with its file and line, or said to be absent: a follow-up must never
assume a setting the logs don't show. The scan finds the lines (`settings` in `knowledge.patterns`);
this module keeps one line per distinct setting and value, and reads them back as pairs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from denpex.core.models import EvidenceLine

if TYPE_CHECKING:  # pragma: no cover
    from knowledge.report import Redactor
    from knowledge.signals import Job

#: the setting names, as DeepSpeed, the HF Trainer/Accelerate, Megatron and torchtune print them
NAMES = (
    r"bf16(?:[._]enabled)?|fp16(?:[._]enabled)?|mixed_precision|gradient_checkpointing|activation_checkpointing"
    r"|recompute_granularity|zero_optimization\.stage|zero_stage|stage3_gather_16bit_weights_on_model_save"
    r"|gather_16bit_weights_on_model_save|offload_optimizer(?:\.device)?|offload_param(?:\.device)?|cpu_offload"
    r"|offload_to_cpu|rank0_only|state_dict_type|per_device_train_batch_size|train_micro_batch_size_per_gpu"
    r"|micro_batch_size|global_batch_size|train_batch_size|gradient_accumulation_steps|max_seq_len|max_seq_length"
    r"|seq_length|dataloader_num_workers|num_workers|save_steps|save_interval"
)
#: what the scan looks for (a name followed by `=` or `:`), caseless
SCAN = r"\b(?:" + NAMES + r")\b[\"' ]{0,2}[:=]"
_PAIR = re.compile(r"\b(" + NAMES + r")\b[\"' ]{0,2}[:=][ \t]*[\"']?([A-Za-z0-9_.\-/\[\]]+)", re.IGNORECASE)
#: at most this many setting lines are kept (every rank prints the same dump)
MAX_LINES = 8


def pairs(text: str) -> dict[str, str]:
    """The settings a line prints, name (lower case) -> value as printed."""
    return {name.lower(): value.rstrip(",") for name, value in _PAIR.findall(text)}


def settings(job: Job, red: Redactor) -> list[EvidenceLine]:
    """The lines that print settings, each kept only when it shows a setting and value no kept line did."""
    return distinct_lines(job, red, lambda text: set(pairs(text).items()), MAX_LINES)


def distinct_lines(
    job: Job, red: Redactor, read: Callable[[str], set[tuple[str, str]]], limit: int
) -> list[EvidenceLine]:
    """The scanned lines whose (name, value) pairs add one no kept line had (eight ranks printing the
    same dump keep one line; a rank that differs keeps its own), at most `limit`."""
    out: list[EvidenceLine] = []
    seen: set[tuple[str, str]] = set()
    for scan in job.scans:
        for hit in scan.hits:
            found = read(hit.text)
            if not found or found <= seen:
                continue
            seen |= found
            out.append(
                EvidenceLine(source=scan.source.name, line=hit.line, text=red(scan, hit.line, hit.text))
            )
            if len(out) >= limit:
                return out
    return out


__all__ = ["MAX_LINES", "NAMES", "SCAN", "distinct_lines", "pairs", "settings"]
