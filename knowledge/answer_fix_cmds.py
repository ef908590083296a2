"""The diagnosis's own fix commands, when the message asks what the bot suggested: "launcher cmd + alloc
env the bot suggests for the rerun", "slurm way to give each job its own port, per the bot".

Why: the answer for the message's first ask (the rerun verdict, the port) says what to change in words;
a reader who quotes "the bot" wants the commands its fix printed, to paste. They are read from this
job's fitted fix snippet, only those of the kind the message names (the launcher line, an env var, the
Slurm or port setting); nothing is added when the snippet has no such command.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_linefigs as tl
from knowledge import answer_asks, answer_grounds
from knowledge.answer_types import Ctx, Reply

#: the bot's (the diagnosis's) suggestion referred to
_BOT_ASK = re.compile(
    r"\b(?:per|from|by|according to) (?:the )?(?:bot|diagnosis|denpex|fix|summary|you)\b"
    r"|\b(?:the )?(?:bot|diagnosis|denpex|you) (?:suggest|recommend|propos|gave|give|says?|said)\w*\b"
    r"|\b(?:suggested|recommended)\b",
    re.IGNORECASE,
)
_LAUNCH = re.compile(r"^(?:torchrun|deepspeed|srun|sbatch|accelerate|mpirun|python\d?(?: -m)?)\b")
_ENV = re.compile(r"^(?:export\s+)?[A-Z][A-Z0-9_]*=")
#: (what the message names, what a command or its comment must hold to be of that kind)
_KINDS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (re.compile(r"\bslurm\b|\bsbatch\b|\bsrun\b", re.I), re.compile(r"slurm|\bsrun\b|\bsbatch\b", re.I)),
    (re.compile(r"\bports?\b", re.I), re.compile(r"port|rdzv-endpoint", re.I)),
    (
        re.compile(r"\blaunch\w*\b|\bcmd\b|\bcommand(?: line)?\b|\btorchrun\b|\bdeepspeed\b", re.I),
        _LAUNCH,
    ),
    (re.compile(r"\benv\b|\benvironment\b|\balloc\w*\b|\bvars?\b|\bvariables?\b|\bexport\b", re.I), _ENV),
)


def with_commands(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the fix snippet's commands of the kinds the message names, when it quotes the bot."""
    if not _BOT_ASK.search(text) or not c.d.fix_snippet:
        return got
    kinds = [hold for names, hold in _KINDS if names.search(text)]
    if not kinds:
        return got
    scored = [(sum(_holds(k, note, cmd) for k in kinds), cmd) for note, cmd in _commands(c.d.fix_snippet)]
    best = max((n for n, _ in scored), default=0)  # "slurm way to set the port": the one of both kinds
    picked = [cmd for n, cmd in scored if n and n == best]
    told = answer_asks.said(got)
    if not picked or all(cmd.lower() in told for cmd in picked):
        return got
    return answer_grounds.add(got, tl.fix_commands(picked), [])


def _holds(kind: re.Pattern[str], note: str, cmd: str) -> bool:
    """A command of this kind: a launcher or env line by its start, else by its words or its comment's."""
    if kind in (_LAUNCH, _ENV):
        return bool(kind.search(cmd))
    return bool(kind.search(cmd) or kind.search(note))


def _commands(snippet: str) -> list[tuple[str, str]]:
    """(the comment above it, the command) for each shell command of the snippet, its `\\` continuations
    joined; a snippet of Python code (an `import`, a `def`) has none."""
    out: list[tuple[str, str]] = []
    note, cont = "", ""
    for raw in snippet.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#") and not cont:
            note = line.lstrip("# ")
            continue
        if re.match(r"(?:import|from|def|class|if|for|with|return)\b", line) and not cont:
            return []
        if line.endswith("\\"):
            cont += line[:-1].strip() + " "
            continue
        out.append((note, (cont + line).strip()))
        note, cont = "", ""
    return out


__all__ = ["with_commands"]
