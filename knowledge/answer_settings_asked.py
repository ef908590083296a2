"""The training settings the logs print, when a message asks which settings did it: "which deepspeed /
sequence length settings made step 2001 blow up", "what fsdp config was this run on?".

Why: the batch answer quotes the batch line (the sequence length) and stops; the DeepSpeed or FSDP
config line the job printed at start-up (`zero_optimization.stage=3 …`) is kept as a job fact
(`Diagnosis.facts.settings`) that no failure answer quotes. Each printed settings line the answer
does not quote yet is added with its file and line.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.texts import followups_memjobs as tm
from knowledge.answer_types import Ctx, Reply, reply

#: asks for the job's settings (a framework's config, "which settings made it blow up")
SETTINGS_Q = re.compile(
    r"\b(?:deepspeed|ds_?config|zero(?:[- ]?[0-3])?|fsdp|training|run|job)\b[^?]{0,40}"
    r"\b(?:settings?|config\w*)\b"
    r"|\bsettings?\b[^?]{0,40}\b(?:made|caused|led to|blew|blow|broke|triggered)\b"
    r"|\b(?:which|what) (?:settings?|config\w*) (?:was|were|did) (?:it|this|the job|the run)"
    r" (?:on|use|using|run)\b"
)
_PREFIX = re.compile(r"^(?:\[[^\]]*\]:?\s*)*")
MAX_SETTINGS = 3


def with_settings(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the job's printed settings lines it does not quote yet, when the message asks them."""
    if not SETTINGS_Q.search(text):
        return got
    quoted = {ln.ref for ln in got.lines}
    lines = [ln for ln in c.d.facts.settings if ln.ref not in quoted and ln.ref not in got.lead]
    if not lines:
        return got
    listed = "; ".join(
        f"`{_PREFIX.sub('', ln.text).strip()[:200]}` ({ln.ref})" for ln in lines[:MAX_SETTINGS]
    )
    sentence = tm.SETTINGS_LOGGED.format(listed=listed)
    if got.intent == "help":
        return reply("facts", sentence, lines[:MAX_SETTINGS])
    shown = got.lines + lines[:MAX_SETTINGS]
    return replace(
        got, lead=f"{got.lead} {sentence}".strip(), lines=shown, material=[*got.material, sentence]
    )


__all__ = ["SETTINGS_Q", "with_settings"]
