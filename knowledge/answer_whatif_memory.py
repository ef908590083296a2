"""Would a memory lever have saved THIS job: a smaller batch (shorter sequences, activation
checkpointing) or more host RAM.

Why: "would a smaller batch have fixed it?" is answered by which memory ran out and in which phase, not
by the question's words. A training step's GPU OOM shrinks with the micro-batch; a checkpoint save
gathers the whole model whatever the batch; the OOM killer's host-RAM kill of an in-memory index is not
GPU memory at all; a native crash or a hardware fault is not memory. `answer_whatif` picks the lever.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_whatif as tw
from denpex.core.texts import thread as t
from knowledge import answer_code, answer_more
from knowledge.answer_types import Ctx, Reply, gib, ref, reply
from knowledge.answer_where import strip_prefix
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView

_SHAPE = re.compile(r"\bbatch of (\d+ x \d+)(?: tokens)?\b")
_HOST_CATEGORIES = frozenset({"host_oom", "dataloader_worker_killed"})
_SAVE_CATEGORIES = frozenset({"gpu_oom_checkpoint_gather", "cpu_oom_checkpoint"})


def _saving(c: Ctx, ini: RankView) -> bool:
    return c.view.category in _SAVE_CATEGORIES or ini.phase == "checkpoint_save"


#: the fix step that removes the memory rather than buying more (sharded save, rank 0 only, a mapped index)
_LASTING = re.compile(r"shard|rank ?0|rank0_only|partition|memory-map|stream", re.I)


def lasting_fix(c: Ctx) -> str:
    """The entry's fix step that removes the copy or the in-memory data (else its first step): what to
    change instead of the lever asked about."""
    steps = c.steps
    return next((s for s in steps if _LASTING.search(s)), steps[0] if steps else "")


def doing_note(c: Ctx, ini: RankView) -> tuple[str, list[EvidenceLine]]:
    """`, while its last line said `…` (ref)`: what the killed rank was building, from its own line."""
    line = answer_more.doing_line(c, ini)
    if line is None:
        return "", []
    return f" (its last line, {ref(line)}: `{strip_prefix(line.text)[:100]}`)", [line]


def rss_note(c: Ctx) -> str:
    kill = c.view.numbers.kill
    return f" {gib(kill[0].anon_rss_gib)} (anon-rss)" if kill and kill[0].anon_rss_gib is not None else ""


def batch(c: Ctx, m: Match) -> Reply | None:
    """A smaller batch: yes for a training step's GPU OOM, no for a save's gather or a host-RAM kill,
    "can't tell" for a crash no line ties to memory."""
    ini, cat = c.view.initiating, c.view.category
    if ini is None:
        return None
    oom = c.view.numbers.oom[0] if c.view.numbers.oom else None
    if _saving(c, ini) and "oom" in cat:
        memory = "GPU memory" if cat.startswith("gpu") else "host (CPU) RAM"
        return reply(
            "whatif",
            tw.BATCH_SAVE.format(rank=ini.rank, memory=memory, fix=lasting_fix(c)),
            c.view.key_line(),
        )
    if cat == "gpu_oom" and oom is not None:
        shape, shown = batch_shape(c, m)
        lines = [*c.view.key_line(), *shown]
        lead = tw.BATCH_YES.format(
            rank=ini.rank, asked=gib(oom.asked_gib), free=gib(oom.free_gib), shape=shape
        )
        return reply("whatif", lead, lines)
    if cat == "host_oom":
        doing, lines = doing_note(c, ini)
        lead = tw.BATCH_HOST.format(
            rank=ini.rank, rss=f" at{rss_note(c)}" if rss_note(c) else "", doing=doing, fix=lasting_fix(c)
        )
        return reply("whatif", lead, [*c.view.key_line(), *lines])
    if cat == "segfault":
        lead = tw.BATCH_UNKNOWN.format(rank=ini.rank, what=t.category_words(cat), decide=tw.DECIDE_NATIVE)
        return reply("whatif", lead, c.view.key_line())
    if "oom" in cat or "memory" in cat or cat in _HOST_CATEGORIES or cat == "nan_divergence":
        return None  # memory it may bear on, or numbers a rerun decides: the other answers say how
    return reply("whatif", tw.BATCH_NOT_MEMORY.format(what=t.category_words(cat)), c.view.key_line())


def batch_shape(c: Ctx, m: Match) -> tuple[str, list[EvidenceLine]]:
    """` on a batch of 4 x 16384 (ref)`: the failing step's batch from the rank's own line, if printed."""
    got = answer_code.batch(c, m)
    if got is None or not got.lines or (found := _SHAPE.search(got.lines[0].text)) is None:
        return "", []
    return tw.BATCH_SHAPE.format(shape=found.group(1), ref=ref(got.lines[0])), got.lines[:1]


def copies(c: Ctx, ini: RankView) -> str:
    """How many full state-dict copies the save built at once on the killed rank's node."""
    mates = [r for r in c.view.ranks.values() if r.node == ini.node]
    return f"{len(mates)} copies at once on {ini.node}" if ini.node and len(mates) > 1 else "one per rank"


def host_ram(c: Ctx, m: Match) -> Reply | None:
    """More host RAM: only postpones an in-memory index's kill, gets a host-RAM save through, and does
    not bear on a GPU OOM."""
    ini, cat = c.view.initiating, c.view.category
    if ini is None:
        return None
    if cat == "host_oom":
        doing, lines = doing_note(c, ini)
        return reply(
            "whatif",
            tw.RAM_HOST.format(rank=ini.rank, rss=rss_note(c), doing=doing),
            [*c.view.key_line(), *lines],
        )
    if cat == "cpu_oom_checkpoint":
        lead = tw.RAM_SAVE.format(rank=ini.rank, copies=copies(c, ini), fix=lasting_fix(c))
        return reply("whatif", lead, c.view.key_line())
    oom = c.view.numbers.oom[0] if c.view.numbers.oom else None
    if cat.startswith("gpu_oom") and oom is not None:
        lead = tw.RAM_GPU.format(rank=ini.rank, asked=gib(oom.asked_gib), free=gib(oom.free_gib))
        return reply("whatif", lead, c.view.key_line())
    return None


__all__ = ["batch", "copies", "doing_note", "host_ram", "lasting_fix", "rss_note"]
