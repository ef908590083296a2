"""Fix steps fitted to the job: a step the job's own lines contradict is said otherwise, or left out.

Why: an entry's fix is written for every job of its class, and some steps assume what a given job's
logs disprove. "More sharding (ZeRO-2 → 3)" to a job whose DeepSpeed config print already says
`zero_optimization_stage ...... 3`, or "resume from the last good sharded checkpoint" to a job whose
logs show no save that finished and no checkpoint loaded, tells the reader the engine did not read
their logs. Which step a fact contradicts, and what to say instead, is data (`[[fix.fits]]` in the
entry, `knowledge.schema.StepFit`); this module only reads the facts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from knowledge import settings
from knowledge.schema import Entry, StepFact
from knowledge.signals import Job, Signal

#: DeepSpeed's config print (`[config.py:1000:print]   zero_optimization_stage ...... 3`) and its engine's
#: optimizer line (`Creating torch.bfloat16 ZeRO stage 3 optimizer`), microsoft/DeepSpeed
#: deepspeed/runtime/config.py (`print`), deepspeed/runtime/engine.py (`_configure_zero_optimizer`);
#: the scan keeps them as the `zero_stage` fact (knowledge/patterns.py)
_STAGE = re.compile(r"zero_optimization_stage \.+ ([0-3])\b|ZeRO stage ([0-3]) optimizer")
#: the settings a launcher or Trainer prints (`zero_stage: 3`, `zero_optimization.stage=3`)
_STAGE_SETTINGS = ("zero_stage", "zero_optimization.stage")
#: a traceback through ZeRO-3's own modules: the job runs stage 3 whatever it printed at start-up
_STAGE3_FRAME = re.compile(
    r"deepspeed/runtime/zero/(?:stage3|partition_parameters|parameter_offload|partitioned_param_coordinator)\.py"
)


def zero_stages(job: Job) -> set[str]:
    """The ZeRO stages the job's lines name."""
    found: set[str] = set()
    for scan in job.scans:
        for hit in scan.hits:
            if m := _STAGE.search(hit.text):
                found.add(m.group(1) or m.group(2))
            pairs = settings.pairs(hit.text)
            found |= {pairs[k] for k in _STAGE_SETTINGS if k in pairs}
    return found


def _zero_stage_3(job: Job, evidence: Iterable[Signal]) -> bool:
    stages = zero_stages(job)
    if stages:
        return stages == {"3"}
    return any(_STAGE3_FRAME.search(line) for s in evidence for line in (*s.hit.before, s.hit.text))


def _no_checkpoint_in_logs(job: Job) -> bool:
    """No save finished (a save's end marker) and none was loaded (a checkpoint_load marker)."""
    reader = job.phases
    if reader is None:
        return True
    for marks in reader.timelines:
        for mark in marks:
            marker = reader.markers[mark.marker]
            saved = marker.phase == "checkpoint_save" and marker.kind == "end"
            if saved or marker.phase == "checkpoint_load":
                return False
    return True


def holds(fact: StepFact, job: Job, evidence: Iterable[Signal]) -> bool:
    """Whether the job's own lines say `fact`."""
    if fact == "zero_stage_3":
        return _zero_stage_3(job, evidence)
    return _no_checkpoint_in_logs(job)


def fitted_steps(entry: Entry, job: Job, evidence: Iterable[Signal]) -> list[str]:
    """The entry's fix steps as said to this job: each step a job fact contradicts is replaced by its
    `instead`, or left out when it has none."""
    ev = list(evidence)
    steps: list[str | None] = list(entry.fix.steps)
    for fit in entry.fix.fits:
        if steps[fit.step - 1] == entry.fix.steps[fit.step - 1] and holds(fit.contradicted_by, job, ev):
            steps[fit.step - 1] = fit.instead or None
    return [s for s in steps if s]


__all__ = ["fitted_steps", "holds", "zero_stages"]
