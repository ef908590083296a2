"""One reply to a message that asks two or three things: each ask gets its own sentence, no fact twice.

"what step + which ckpt file, and is that file any good", "which port, who sits on it, cmd to check":
the first ask's answer leads; every later ask adds the sentences of its own answer that were not said
yet, and, where it asks for a step or a command, the first step not told yet or the
one-line command. A later ask this job's facts cannot answer is named, so nothing asked is dropped
without a word. Why: people ask several things at once in Slack, and an answer that silently answers
only the first reads as a wrong answer to the rest.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from knowledge.answer_types import Reply
from knowledge.intents import ask_words, bare, tokens

#: a sentence ends at `.`, `!` or `?` before a capital, a backtick or a quote (not inside `3.91 GiB`)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*_\"'(])")
#: intents whose steps are the answer: a later ask of one of them gets its first step not told yet
#: (and the step its own words point at)
STEP_INTENTS = frozenset({"fix", "debug"})
#: intents whose one-line command is the answer to a later ask
COMMAND_INTENTS = frozenset({"verify", "command", "port"})
#: a "Rank N started it: …" opening, said again by a cause added to another answer: left out
_STARTED = re.compile(r"^Rank \d+ started it\b")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def said(base: Reply) -> str:
    """Everything a reply already tells the reader, to test a later sentence against."""
    return " ".join([base.lead, *base.bullets, base.code, base.action]).lower()


def new_sentences(base: Reply, lead: str) -> list[str]:
    """`lead`'s sentences the reply does not already say (the same fact is never told twice)."""
    told = said(base)
    return [s for s in sentences(lead) if s.lower().rstrip(".") not in told]


def steps_for(ask: str, intent: str, steps: Sequence[str], told: str) -> str:
    """The first step not told yet, and the one the ask's own topic words point at when that is another
    ("should I lower the LR or hunt for a bad batch": the LR step and the batch step). Why: a second ask
    of the same fix ("and how does she get one merged file") must get a new step, not the first again.
    Only a topic word few steps share points: `rank` in every step points at none, and the words that
    make it a fix ask (`change`, `setting`) point at nothing."""
    fresh = [s for s in steps if s.lower() not in told]
    if not fresh:
        return ""
    words = [set(tokens(s)) for s in fresh]
    topic = set(tokens(ask)) - ask_words(intent)
    rare = {w for w in topic if 2 * sum(w in ws for ws in words) < len(steps)}
    hits = [(len(rare & ws), -i) for i, ws in enumerate(words) if i]
    best = max(hits, default=(0, 0))
    return " ".join([fresh[0], fresh[-best[1]]] if best[0] else [fresh[0]])


def extra(ask: str, base: Reply, later: Reply) -> str:
    """What a later ask asked for beyond the lead: its best step, or its one-line command."""
    told = said(base)
    if later.intent in STEP_INTENTS and later.bullets:
        return steps_for(ask, later.intent, later.bullets, told)
    if later.intent in COMMAND_INTENTS and later.code and "\n" not in later.code:
        if later.code.lower() in told:
            return ""
        return f"`{later.code}` {later.action}".rstrip()
    return ""


def add(base: Reply, ask: str, later: Reply) -> Reply:
    """`base` with a later ask's answer: its new sentences, then its step or command, then its line."""
    if later.intent == "help" or not later.lead:
        return base if bare(ask) else with_lead(base, tf.ALSO_ASKED.format(ask=ask), [])
    fresh = new_sentences(base, later.lead)
    more = extra(ask, base, later)
    if fresh and fresh[-1].rstrip().endswith(":") and later.code:
        # "To take it out of service in Slurm:" is followed by its command, never left hanging
        fresh[-1] = f"{fresh[-1]} `{'; '.join(later.code.splitlines())}`."
    if not fresh and not more:
        return base
    text = " ".join([*fresh, more]).strip()
    return with_lead(base, text, later.lines[:1] if fresh else [])


def with_cause(base: Reply, cause: Reply | None) -> Reply:
    """A memory answer asked *why* ("why would host RAM blow up on a save?", "16 MiB?? that's tiny"):
    the figures, then this job's cause (what made it need that memory), said once."""
    if cause is None:
        return base
    fresh = [s for s in new_sentences(base, cause.lead) if not _STARTED.match(s)]
    if not fresh:
        return base
    return with_lead(base, " ".join(fresh), cause.lines[:1])


def with_lead(base: Reply, lead: str, lines: Sequence[EvidenceLine]) -> Reply:
    """`base` with a later ask's sentence after its lead (and that answer's first line); a lead that
    ends "run this:" gets its one-line command inline first, so the next sentence does not follow the
    colon as if it were the command."""
    shown = base.lines + [ln for ln in lines if ln not in base.lines]
    more = [f"{ln.source}:{ln.line} {ln.text}" for ln in lines if ln not in base.lines]
    first, code = base.lead, base.code
    if first.rstrip().endswith(":") and code and "\n" not in code:
        first, code = f"{first} `{code}`.", ""
    return replace(
        base, lead=f"{first} {lead}", lines=shown, code=code, material=[*base.material, lead, *more]
    )
