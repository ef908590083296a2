"""A GPU out-of-memory error's cause challenged: "that's fragmentation, expandable_segments and we're
done, right?", "rank 5 sat at 69 GiB all run: isn't that the real cause rather than one batch?", "it was
uploading to the hub right before it died: did the upload cause this?".

Each of these puts forward another cause than the step that ran out of memory. The usual answer gave
the error's figures and left the challenger without what decides it: the failing step's own batch (its
shape, printed by the rank just before the error) and, when the asker names a line the rank printed
before it (an upload, an eval), where that line sits against the error and the frame that raised it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_challenge as tc
from knowledge import answer_code
from knowledge.answer_asks import said, with_lead
from knowledge.answer_types import Ctx, Reply, rank_lines, ref
from knowledge.answer_where import strip_prefix
from knowledge.intents import Match

#: another cause put forward against the step's own memory ("the real cause rather than one batch?")
CHALLENGE = re.compile(
    r"\b(?:real|actual|root|true) (?:cause|culprit|problem|reason)\b|\brather than\b|\binstead of\b"
    r"|\b(?:did|does|could|would|might|can) (?:the |that |this |its |it |an? )?[\w-]+(?: [\w-]+)? "
    r"(?:cause|trigger|explain|break|kill)\w*\b|\bcaused (?:this|it|the oom)\b|\bfragment\w*\b"
    r"|\b(?:we(?:\x27re| are)|and) done\b|\bisn\x27?t (?:that|this|it)\b|\bnot (?:the|a|one) (?:batch|step)\b"
)
#: an event the asker names from the rank's own lines before the error ("uploading artifacts to the hub")
_EVENT = re.compile(r"\b(upload\w*|push\w*|mirror\w*|sync\w*|eval\w*|logging|wandb|hub)\b")
#: a credential in a line: never repeated in an answer
_SECRET = re.compile(r"\s*\bwith \w*(?:TOKEN|KEY|SECRET|PASSWORD)\w*=\S+|\b(?:hf|sk|ghp)_[A-Za-z0-9]{8,}\b")


def with_challenge(c: Ctx, m: Match, got: Reply) -> Reply:
    """`got` with the failing step's batch line, and the named earlier event placed against the error,
    when the message puts forward another cause for a GPU out-of-memory error."""
    ini = c.view.initiating
    if ini is None or c.view.numbers.oom is None or not CHALLENGE.search(m.text):
        return got
    event, shown = _event(c, m, ini.rank)
    if event and event.lower() not in said(got):
        got = with_lead(got, event, shown)
    batch = answer_code.batch(c, replace(m, rank=ini.rank))
    if batch is None or not batch.lines or "batch" not in batch.lines[0].text:
        return got
    line = batch.lines[0]
    text = strip_prefix(line.text)
    if text.lower() in said(got):
        return got
    return with_lead(got, tc.STEP_BATCH.format(text=text, ref=ref(line)), [line])


def _event(c: Ctx, m: Match, rank: int) -> tuple[str, list[EvidenceLine]]:
    """The rank's last line before its error that names the event the message names (secrets cut), and
    the frame its error was raised in: the event came before, in another call."""
    words = {w[:4] for w in _EVENT.findall(m.text)}
    own = c.view.ranks[rank].first_line
    if not words or own is None:
        return "", []
    before = [
        ln
        for src in rank_lines(c, rank).values()
        for ln in src
        if ln.source == own.source and ln.line < own.line
    ]
    hits = [ln for ln in before if any(w in ln.text.lower() for w in words)]
    found = answer_code.user_frame(c, rank)
    if not hits or found is None:
        return "", []
    line, (frame, _, inner) = hits[-1], found
    text = _SECRET.sub("", strip_prefix(line.text)).strip()
    where = (
        f"inside {inner}"
        if inner
        else f"in `{frame.func}` ({frame.path.rsplit('/', 1)[-1]} line {frame.number})"
    )
    lead = tc.BEFORE_ERROR.format(rank=rank, text=text, ref=ref(line), where=where, eref=ref(own))
    return lead, []


__all__ = ["CHALLENGE", "with_challenge"]
