"""The change to make where it failed, and how to exercise it on a short run before the relaunch.

"Whats the minimal change at train.py:174 and how do I check it on a 2-3 step run?", "where do I add
rotation? give me the line, and how do I test on a tiny run?", "fastest way to exercise the save path
before relaunching on 8 GPUs?", "give me the sbatch lines … and how do I test that without waiting
hours?". Why: the engineer has the diagnosis and is about to relaunch; what they need is the edit at
the line this job failed on and a run that reaches that code path in minutes, not the verdict again.
The edits and the short runs are data (`data/trial.toml`, by category); the line is the failing
rank's deepest frame in the user's code.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path
from types import MappingProxyType

from denpex.core.texts import followups_triage as tt
from knowledge import answer_code
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import Match
from knowledge.schema import DATA_DIR

TRIAL_PATH = DATA_DIR / "trial.toml"

#: asked how to try it quickly ("how do i check it on a 2-3 step run", "fastest way to exercise the
#: save path", "test that without waiting hours", "how do i rerun that fast", "test quickly")
_TEST_Q = re.compile(
    r"\b(?:test|check|try|exercise|verify|validate|rerun|re-run|repro\w*)\w* (?:it |that |this |them )?"
    r"(?:on|with|in) (?:a |an )?(?:tiny|short|small|quick|fast|few|\d+(?:-\d+)? ?steps?)\b"
    r"|\b(?:fast|quick)(?:est)? way to (?:test|exercise|check|try|hit|reach|repro\w*)\b"
    r"|\bon a (?:tiny|short|small|quick|fast|\d+(?:-\d+)? ?steps?) (?:run|job|test)\b"
    r"|\b(?:test|check|try|verify)\w* (?:it |that |this )?without (?:waiting|sitting)\b"
    r"|\b(?:rerun|re-run|run|test) (?:it |that |this )?(?:fast|quick(?:ly)?)\b"
    r"|\bquick(?:ly)? (?:test|check|try)\b|\bon a \d+(?:-\d+)? ?steps? run\b"
)
#: asked for the edit itself ("minimal change there", "what do i drop in", "where do i add", "give me
#: the line", "where should that live", "the exact sbatch lines")
_CHANGE_Q = re.compile(
    r"\bminimal (?:change|fix|edit)\b|\bwhat (?:do|should|can) (?:i|we) drop in\b"
    r"|\bwhat (?:do |should |can )?(?:i|we) change in (?:the |our |my )?\S+(?: code)?\b"
    r"|\bwhere (?:in \S+ )?(?:do|should|would|can) (?:i|we) (?:add|put)\b"
    r"|\bwhere should (?:that|it|this) (?:live|go|be)\b|\bgive me the (?:exact )?(?:line|lines|code)\b"
    r"|\bexact \w+ lines\b"
)


@cache
def load_trials(path: Path = TRIAL_PATH) -> MappingProxyType[str, MappingProxyType[str, str]]:
    """The edit and the short run, by category."""
    raw = tomllib.loads(path.read_text(encoding="utf-8")).get("trial", {})
    return MappingProxyType({k: MappingProxyType({f: str(x) for f, x in v.items()}) for k, v in raw.items()})


def trial(c: Ctx, m: Match) -> Reply | None:
    """The edit at the line this job failed on, and the short run that reaches it, as asked."""
    test, change = bool(_TEST_Q.search(m.text)), bool(_CHANGE_Q.search(m.text))
    found = load_trials().get(c.view.category)
    if found is None or not (test or change):
        return None
    parts: list[str] = []
    if change:
        at, code = _where(c)
        fitted = [v for k, v in found.items() if k.startswith("change_") and k[7:] in code]
        parts.append(tt.TRIAL_CHANGE.format(at=at, change=fitted[0] if fitted else found["change"]))
    if test:
        parts.append(tt.TRIAL_TEST.format(test=found["test"]))
    return reply("fix", " ".join(parts), c.view.key_line())


#: a check of the fix asked to cost less than the run did ("w/o burning another 100 steps", "quickly")
QUICK_Q = re.compile(
    r"\bw(?:ithout|/o) (?:burning|waiting|spending|running|wasting|sitting)\b|\bquick(?:ly|est)?\b"
    r"|\bfast(?:er|est)?\b|\bcheap(?:ly|er|est)?\b|\bshort(?:er)? (?:run|test|job)\b"
)


def short_run(c: Ctx, text: str) -> str:
    """The short run that reaches the failing code path, as a sentence ("" when not asked or none)."""
    found = load_trials().get(c.view.category)
    if found is None or not QUICK_Q.search(text):
        return ""
    return tt.TRIAL_TEST.format(test=found["test"])


def _where(c: Ctx) -> tuple[str, str]:
    """ " at train.py line 166 (`torch.save(…)`), where rank 0 failed" and that line's code; ("", "")
    without a frame of ours. A rank without a traceback: the first rank's that has one."""
    ini = c.view.initiating
    order = [ini.rank] if ini is not None else []
    order += sorted(r for r in c.view.ranks if r not in order)
    for rank in order:
        if (found := answer_code.user_frame(c, rank)) is not None:
            frame, code, _ = found
            said = f" (`{code}`)" if code else ""
            name = frame.path.rsplit("/", 1)[-1]
            return tt.TRIAL_AT.format(file=name, line=frame.number, code=said, rank=rank), code
    return "", ""


__all__ = ["QUICK_Q", "TRIAL_PATH", "load_trials", "short_run", "trial"]
