"""Would another lever have saved THIS job: the training precision (bf16/fp16), more GPUs, fewer
DataLoader workers, a bigger /dev/shm.

Why: people weigh the knob they know against the job that died, and the honest answer depends on which
memory ran out and in which phase, not on the knob: bf16 trims a training step's activations but not a
save's full copy of the model; more GPUs shrink sharded state but add host-RAM copies when every rank
builds a full state dict; a bigger /dev/shm saves a worker that died of a bus error, not one the OOM
killer ended. A lever the job's category doesn't bear on gets a plain "no" naming what it failed with.
`answer_whatif` decides that a lever is asked; each function here returns None when the job's evidence
cannot decide (the other answers take the question).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_savecopy as ts
from denpex.core.texts import followups_whatif as tw
from denpex.core.texts import thread as t
from knowledge import answer_save_copy
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply, gib, ref, reply
from knowledge.answer_whatif_memory import batch_shape, copies, doing_note, lasting_fix, rss_note
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView

PRECISION_Q = re.compile(
    r"\b(?:bf16|bfloat16|fp16|float16|half[- ]precision|mixed[- ]precision|lower precision|autocast)\b"
)
SCALE_Q = re.compile(
    r"\b(?:more|extra|additional|twice the|double the|2x|bigger)\s+(?:\w+\s+)?"
    r"(?:gpus?|nodes?|ranks?|devices?|cards?|machines?|a100s?|h100s?)\b|\bscal\w* (?:it )?out\b"
    # "would doubling the GPU count fix it?"
    r"|\b(?:doubl\w*|tripl\w*|rais\w*|increas\w*|bump\w*) (?:the |our )?(?:gpu|node|rank|device)s? count\b"
    r"|\b(?:doubl\w*|increas\w*|bump\w*) (?:the |our )?world size\b"
)
WORKERS_Q = re.compile(
    r"\b(?:fewer|less|lower\w*|reduc\w*|smaller|drop\w*|cut\w*)\b.{0,25}\b(?:workers?|num_workers)\b"
    r"|\bnum_workers\s*=?\s*0\b|\b(?:no|zero|0)\s+(?:data ?loader\s+)?workers\b"
)
SHM_Q = re.compile(
    r"\b(?:bigger|larger|more|increas\w*|rais\w*|bump\w*|higher)\b.{0,20}(?:/dev/shm|\bshm\b|shared mem\w*)"
    r"|(?:/dev/shm|\bshm\b|shared mem\w*).{0,20}\b(?:bigger|larger|increased|raised|bumped)\b"
    r"|--shm-size|--ipc[= ]host"
)
_SHM_LINE = re.compile(r"bus error|shared memory|/dev/shm|\bshm\b|SIGBUS", re.I)
_GPU_OOM = frozenset({"gpu_oom", "gpu_oom_checkpoint_gather"})
_HOST = frozenset({"host_oom", "cpu_oom_checkpoint", "dataloader_worker_killed"})


def lever(text: str) -> Callable[[Ctx, Match], Reply | None] | None:
    """The lever a what-if question weighs, if it is one of these (the first it names)."""
    named = levers(text)
    return named[0] if named else None


def lever_name(handler: Callable[[Ctx, Match], Reply | None]) -> str:
    """The lever's name, to say which answer is whose when a question weighs two."""
    names: dict[Callable[[Ctx, Match], Reply | None], str] = {
        shm: tw.NAME_SHM,
        workers: tw.NAME_WORKERS,
        precision: tw.NAME_PRECISION,
        scale: tw.NAME_SCALE,
        answer_save_copy.sharded: ts.NAME_SHARDED,
    }
    return names.get(handler, "")


def levers(text: str) -> list[Callable[[Ctx, Match], Reply | None]]:
    """Every lever the question weighs, in the order it names them ("fewer workers or a bigger
    /dev/shm?" is two questions, each answered)."""
    found = [
        (hit.start(), handler)
        for pattern, handler in (
            (SHM_Q, shm),
            (WORKERS_Q, workers),
            (PRECISION_Q, precision),
            (SCALE_Q, scale),
            (answer_save_copy.SHARDED_Q, answer_save_copy.sharded),  # "would saving sharded fix it?"
        )
        if (hit := next((h for h in pattern.finditer(text) if not _in_place(text, h)), None)) is not None
    ]
    return [handler for _, handler in sorted(found, key=lambda x: x[0])]


#: a lever the reader says is already in place ("we already use bf16", "dont tell me to switch to bf16",
#: "bf16 and zero3 are already on"): a constraint stated, not a lever weighed
_HAVE_BEFORE = re.compile(r"\balready\b|\bdo ?n[o']?t (?:tell|suggest|say)\b|\bnot (?:switch\w*|going) to\b")
_HAVE_AFTER = re.compile(r"^\W*(?:(?:and|\+|&) [\w-]+ )?(?:is|are|was|were) (?:already|on|enabled)\b")


def _in_place(text: str, hit: re.Match[str]) -> bool:
    before = text[max(0, hit.start() - 40) : hit.start()]
    return bool(_HAVE_BEFORE.search(before) or _HAVE_AFTER.search(text[hit.end() : hit.end() + 40]))


def _not_this(c: Ctx, lever_words: str) -> Reply:
    line = c.view.key_line()
    if c.view.category == "scheduler_kill":
        return reply(
            "whatif", tw.SCHEDULER.format(ref=ref(line[0]) if line else "its log", lever=lever_words), line
        )
    what = t.category_words(c.view.category)
    return reply(
        "whatif",
        tw.NOT_THIS.format(what=what, ref=ref(line[0]) if line else "its log", lever=lever_words),
        line,
    )


def _oom_figures(c: Ctx) -> dict[str, str] | None:
    oom = c.view.numbers.oom[0] if c.view.numbers.oom else None
    return None if oom is None else {"asked": gib(oom.asked_gib), "free": gib(oom.free_gib)}


def _save_memory(c: Ctx) -> str:
    return "GPU memory" if c.view.category.startswith("gpu") else "host (CPU) RAM"


def precision(c: Ctx, m: Match) -> Reply | None:
    """bf16/fp16: trims a training step's activations, not a save's full copy nor host RAM; may cure
    an fp16 overflow NaN."""
    ini, cat = c.view.initiating, c.view.category
    if ini is None:
        return _not_this(c, "the training precision") if cat == "scheduler_kill" else None
    figures = _oom_figures(c)
    if cat == "gpu_oom" and figures is not None:
        lead = f"{tw.PRECISION_GPU.format(rank=ini.rank, **figures)} {already_on(c)}"
        return reply("whatif", lead, c.view.key_line())
    if cat in ("gpu_oom_checkpoint_gather", "cpu_oom_checkpoint"):
        zero3 = tw.PRECISION_ZERO3 if c.entry is not None and "zero3" in c.entry.id else ""
        lead = tw.PRECISION_SAVE.format(
            rank=ini.rank, memory=_save_memory(c), fix=lasting_fix(c), zero3=zero3
        )
        return reply("whatif", lead, c.view.key_line())
    if cat == "host_oom":
        lead = tw.PRECISION_HOST.format(rank=ini.rank, rss=_at(rss_note(c)), fix=lasting_fix(c))
        return reply("whatif", lead, c.view.key_line())
    if cat == "dataloader_worker_killed" and (line := c.view.key_line()):
        return reply("whatif", tw.WORKER_PRECISION.format(rank=ini.rank, ref=ref(line[0])), line)
    if cat == "nan_divergence":
        line = c.view.key_line()
        step = f" at step {ini.last_step}" if ini.last_step is not None else ""
        lead = tw.PRECISION_NAN.format(rank=ini.rank, ref=ref(line[0]) if line else "its log", step=step)
        return reply("whatif", lead, line)
    if "oom" in cat or cat in _HOST:
        return None
    return _not_this(c, "the training precision")


#: a kept line that shows a memory-saving setting on ("bf16.enabled=true", "gradient_checkpointing: true")
_ON = re.compile(
    r"\b(bf16|fp16|gradient_checkpointing|activation_checkpointing)[\w.]*[\"']?\s*[=:]\s*[\"']?(?:true|1|enabled)\b",
    re.IGNORECASE,
)


def already_on(c: Ctx) -> str:
    """Whether the job's lines show bf16 or activation checkpointing already on (then it is no lever
    left); when no kept line shows the setting, where its value is printed. Why: "would bf16 have
    avoided it?" is often asked of a run that already used it."""
    for ln in pool(c):
        if (on := _ON.search(ln.text)) is not None:
            return tw.ALREADY_ON.format(name=on.group(1), ref=ref(ln))
    return tw.ALREADY_UNSEEN


def scale(c: Ctx, m: Match) -> Reply | None:
    """More GPUs: helps a training step's OOM only under sharding; never a save's gathered copy; adds
    host-RAM copies; a bad GPU stays bad."""
    ini, cat = c.view.initiating, c.view.category
    if cat == "scheduler_kill":
        line = c.view.key_line()
        return reply("whatif", tw.SCALE_TIME.format(ref=ref(line[0]) if line else "its log"), line)
    if ini is None:
        return None
    figures = _oom_figures(c)
    if cat == "gpu_oom" and figures is not None:
        shape, shown = batch_shape(c, m)  # what sets the peak per GPU whatever their number
        lead = tw.SCALE_GPU.format(rank=ini.rank, **figures)
        lead += f" {tw.SCALE_GPU_SHAPE.format(shape=shape.strip())}" if shape else ""
        return reply("whatif", lead, [*c.view.key_line(), *shown])
    if cat == "gpu_oom_checkpoint_gather":
        return reply("whatif", tw.SCALE_GATHER.format(rank=ini.rank, fix=lasting_fix(c)), c.view.key_line())
    if cat == "cpu_oom_checkpoint":
        lead = tw.SCALE_SAVE.format(rank=ini.rank, copies=copies(c, ini), fix=lasting_fix(c))
        return reply("whatif", lead, c.view.key_line())
    if cat == "host_oom":
        return _host(c, ini, tw.SCALE_HOST)
    if cat == "dataloader_worker_killed" and (line := c.view.key_line()):
        return reply("whatif", tw.WORKER_SCALE.format(rank=ini.rank, ref=ref(line[0])), line)
    if cat == "gpu_hardware_xid" and ini.node:
        return reply("whatif", tw.SCALE_XID.format(node=ini.node), c.view.key_line())
    if "oom" in cat or cat in _HOST:
        return None
    return _not_this(c, "the number of GPUs")


def workers(c: Ctx, m: Match) -> Reply | None:
    """Fewer DataLoader workers: likely for a worker the OOM killer ended, partly for a full /dev/shm,
    not for a rank's own host-RAM kill nor any GPU memory."""
    ini, cat = c.view.initiating, c.view.category
    if ini is None:
        return _not_this(c, "the number of DataLoader workers") if cat == "scheduler_kill" else None
    line = c.view.key_line()
    if cat == "dataloader_worker_killed" and line:
        return _worker(ini, line, tw.WORKERS_SHM, tw.WORKERS_KILLED)
    if cat == "host_oom":
        return _host(c, ini, tw.WORKERS_HOST)
    if cat == "cpu_oom_checkpoint":
        lead = tw.WORKERS_SAVE.format(copies=copies(c, ini), fix=lasting_fix(c))
        return reply("whatif", lead, line)
    figures = _oom_figures(c)
    if cat in _GPU_OOM and figures is not None:
        return reply("whatif", tw.WORKERS_GPU.format(rank=ini.rank, **figures), line)
    if "oom" in cat or cat in _HOST:
        return None
    return _not_this(c, "the number of DataLoader workers")


def shm(c: Ctx, m: Match) -> Reply | None:
    """A bigger /dev/shm: yes for a worker's bus error, no for anything the OOM killer ended."""
    ini, cat = c.view.initiating, c.view.category
    if ini is None:
        return _not_this(c, "the size of /dev/shm") if cat == "scheduler_kill" else None
    line = c.view.key_line()
    if cat == "dataloader_worker_killed" and line:
        return _worker(ini, line, tw.SHM_YES, tw.SHM_KILLED)
    if cat in ("host_oom", "cpu_oom_checkpoint"):
        lead = tw.SHM_HOST.format(rank=ini.rank, rss=_at(rss_note(c)), fix=lasting_fix(c))
        return reply("whatif", lead, line)
    figures = _oom_figures(c)
    if cat in _GPU_OOM and figures is not None:
        return reply("whatif", tw.SHM_GPU.format(rank=ini.rank, **figures), line)
    if "oom" in cat:
        return None
    return _not_this(c, "the size of /dev/shm")


def _worker(ini: RankView, line: list[EvidenceLine], shm_text: str, killed_text: str) -> Reply:
    """A killed DataLoader worker: a bus error from a full /dev/shm, or the OOM killer's SIGKILL."""
    text = shm_text if _SHM_LINE.search(line[0].text) else killed_text
    return reply("whatif", text.format(rank=ini.rank, ref=ref(line[0])), line)


def _host(c: Ctx, ini: RankView, text: str) -> Reply:
    doing, lines = doing_note(c, ini)
    lead = text.format(rank=ini.rank, rss=_at(rss_note(c)), doing=doing, fix=lasting_fix(c))
    return reply("whatif", lead, [*c.view.key_line(), *lines])


def _at(rss: str) -> str:
    return f" at{rss}" if rss else ""


__all__ = ["already_on", "lever", "lever_name", "levers", "precision", "scale", "shm", "workers"]
