"""What to turn on or run to see more of this failure mode ("how do I debug this further?", "what do i
run next to find out why rank 2 stalled?", "how do i watch worker memory while it runs?").

The steps are data (`data/debug.toml`, by category); the answer leads with the step the question's own
words point at (watching memory, finding the op), and for a rank that went silent, first what tells
stuck from dead now (py-spy on its pid, dmesg on its node, sacct). Split from `answer_overview`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import MappingProxyType

from denpex.core.texts import followups as tf
from denpex.core.texts import slack as t
from knowledge import answer_silent
from knowledge.answer_types import Ctx, Reply, reply
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


__all__ = ["DEBUG_PATH", "debug", "load_debug"]
