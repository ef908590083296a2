"""What to turn on or run to see more of this failure mode ("how do I debug this further?", "what do i
run next to find out why rank 2 stalled?", "how do i watch worker memory while it runs?").

The steps are data (`data/debug.toml`, by category); the answer leads with the step the question's own
words point at (watching memory, finding the op), and for a rank that went silent, first what tells
stuck from dead now (py-spy on its pid, dmesg on its node, sacct). Split from `answer_overview`.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from types import MappingProxyType

from denpex.core.texts import followups as tf
from denpex.core.texts import followups_verdicts as tv
from denpex.core.texts import thread as t
from knowledge import answer_silent
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match, ask_words, tokens
from knowledge.schema import DATA_DIR

DEBUG_PATH = DATA_DIR / "debug.toml"


def load_debug(path: Path | None = None) -> MappingProxyType[str, tuple[str, ...]]:
    """What to turn on to see more, by category (`default` for the rest)."""
    raw = tomllib.loads((path or DEBUG_PATH).read_text(encoding="utf-8"))
    return MappingProxyType({k: tuple(str(x) for x in v) for k, v in raw.get("debug", {}).items()})


def debug(c: Ctx, m: Match) -> Reply | None:
    """What to turn on to see more the next time this failure mode happens."""
    steps = c.debug.get(c.view.category) or c.debug.get("default")
    if not steps:
        return None
    ini = c.view.initiating
    topic = set(tokens(m.text)) - ask_words("debug")  # "how do I watch worker memory": that step first
    hits = [(len(topic & set(tokens(s))), -i) for i, s in enumerate(steps)]
    best = max(hits)
    first = -best[1] if best[0] >= 2 else 0
    lead = f"{tf.debug_lead(t.category_words(c.view.category), ini.rank if ini else None)} {steps[first]}"
    if ini is not None and answer_silent.silent(ini):  # stuck or dead: what tells them apart, now
        lead = f"{answer_silent.next_steps(c, ini)} {lead}"
    rest = [s for i, s in enumerate(steps) if i != first]
    return reply("debug", lead, c.view.key_line(), bullets=rest)


#: asks to reproduce the failure or pin down the input that caused it ("how would I repro + pin down
#: the exact batch on one box", "how do I find which sample made the nan")
PIN_Q = re.compile(
    r"\b(?:pin\w* (?:it |that )?down|narrow\w* (?:it |that )?down|track\w* down|isolat\w*|find|identify|"
    r"figure out)\b.{0,30}\b(?:the |that |which |exact |bad |offending |culprit )*"
    r"(?:batch|sample|input|example|data point|record)e?s?\b"
)
#: asked how ("how would I", "repro"), not which of two moves to make ("drop the LR or find the batch")
_HOW = re.compile(r"\bhow\b|\brepro\w*|\bsteps? to\b")
#: a fix or debug step that finds the batch or the op ("log the sample indices", "detect_anomaly")
_FINDS = re.compile(
    r"\b(?:log|print|record|dump)\w*\b.{0,60}\b(?:batch|sample|indices|sequence length)|anomaly",
    re.IGNORECASE,
)
#: a long identifier a step names (`set_detect_anomaly`): two steps naming the same one say one thing
_NAMED = re.compile(r"[A-Za-z_][\w.]{11,}")


def pin_down(c: Ctx, m: Match) -> Reply | None:
    """ "How would I repro it and pin down the batch on one box?": replay the failing rank's shard in one
    process up to the last step logged, with the steps that name the batch and the op. Why: with a
    distributed sampler each rank sees its own slice, so a one-GPU rerun of "the data" never meets the
    failing rank's batch unless it is given that rank's shard."""
    ini = c.view.initiating
    if ini is None or not PIN_Q.search(m.text) or not _HOW.search(m.text) or len(c.view.ranks) < 2:
        return None
    steps = [*c.steps, *c.debug.get(c.view.category, ())]
    finds: list[str] = []
    for step in (s for s in steps if _FINDS.search(s)):
        if not set(_NAMED.findall(step)) & {n for f in finds for n in _NAMED.findall(f)}:
            finds.append(step)
    if not finds:
        return None  # a failure no batch explains (a GPU fault, a port): the usual answers take it
    world = max(len(c.view.ranks), max(c.view.ranks) + 1)
    lead = tv.PIN_DOWN.format(rank=ini.rank, world=world)
    reached = [r for r in c.view.ranks.values() if r.last_step is not None]
    top = max(reached, key=lambda r: (r.last_step or 0, -r.rank)) if reached else None
    if top is not None and top.last_step_line is not None:
        lead += " " + tv.PIN_DOWN_STEP.format(step=top.last_step, by=top.rank, ref=ref(top.last_step_line))
    else:
        lead += " " + tv.PIN_DOWN_NO_STEP
    return reply("debug", lead, c.view.key_line(), bullets=finds)


__all__ = ["DEBUG_PATH", "debug", "load_debug", "pin_down"]
