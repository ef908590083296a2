"""Texts of a rank's blame contested and a verdict's confidence challenged (knowledge/answer_contest.py)."""

from __future__ import annotations

#: torchrun's root cause is another rank than the one that started it
ROOT_OTHER = (
    'torchrun\'s "Root Cause (first observed failure)" is rank {root} ({exit}, {ref}): the first process '
    "it saw exit with an error, not the first to fail. Rank {rank} failed first ({first})."
)
#: torchrun's root cause is the rank that started it
ROOT_SAME = (
    'torchrun\'s "Root Cause (first observed failure)" names rank {rank} too ({exit}, {ref}): the first '
    "process it saw exit with an error."
)
#: the exit code and pid as the summary prints them
EXIT = "exitcode: {code}{pid}"
#: the failing rank's own traceback holds another error line than the one quoted first
OWN_ERROR = "Rank {rank}'s own traceback also says `{error}` ({ref}){at}."
#: where that error was raised, the code line just before it
RAISED_AT = ", raised at `{code}` ({ref})"
#: what would show why a rank that printed no error stopped
NEED = "The logs cannot say why rank {rank} stopped: it printed no error of its own. {steps}"
