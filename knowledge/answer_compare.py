"""This job set against other failure kinds: a collateral error taken for a second failure, the code
a line prints, the confidence behind a call, what Slurm would show for another kind of ending.

Why: "ranks 1-3 died in dist.barrier — a separate comm failure I should chase?" is answered by whom
they waited on; "which error code did the socket return?" by the code as the line prints it; "the
confidence is only 0.46, what would push you to call it a hang instead?" must say the figure; "what
would slurm show if this were preemption or OOM?" by the states and lines each would leave.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_around as tx
from knowledge import answer_overview
from knowledge.answer_types import Ctx, Reply, rank_list, ref, reply
from knowledge.glossary import find
from knowledge.intents import Match

#: a collateral error put as a failure of its own ("a separate comm failure?", "a second problem?")
SEPARATE_Q = re.compile(
    r"\b(?:separate|second|another|independent|unrelated|different|own|extra)\b[^?]{0,25}?"
    r"\b(?:failure|problem|issue|bug|error|fault|crash)\b"
    r"|\bshould i (?:also )?(?:chase|debug|look into|worry about)\b"
    r"|\bfall ?out\b|\b(?:errors?|timeouts?)\b[^?]{0,30}\b(?:mean|matter|tell us)s? (?:anything|something)\b"
)
#: the code a line prints asked ("which error code did the socket return?", "what errno?")
CODE_Q = re.compile(
    r"\b(?:which|what) (?:error ?code|errno|error number|return code|code)\b|\berrno\b"
    # "error code number is -98? what name": a printed code asked for its name or meaning
    r"|\b(?:code|error number)\b(?:\s+\w+){0,3}\s*-?\d+\b(?=.*\b(?:what|which|name|mean\w*)\b)"
)
_CODE = re.compile(r"\b(?:errno|code)[:= ]+\s*(-?\d+)\b", re.IGNORECASE)
#: another call asked against the confidence ("what would push you to call it a hang instead?")
INSTEAD_Q = re.compile(
    r"\bwhat would (?:push|make|get|lead|convince|move|tip) (?:you|u|denpex|it)\b[^?]{0,40}"
    r"\b(?:instead|call it|say it|rather|to (?:a|an|the) )"
)  # "what evidence would confirm it?" (a low confidence's missing fact) is the missing-evidence answer's
#: what the scheduler would show for another kind of ending
SLURM_Q = re.compile(
    r"\bwhat would (?:slurm|sacct|squeue|the scheduler)\b[^?]{0,40}\b(?:show|say|report|print|look like)\b"
    r"|\bif (?:this|it) (?:were|was|had been)\b[^?]{0,20}\b(?:preempt\w*|oom|out of memory)\b"
)


def separate(c: Ctx, m: Match) -> Reply | None:
    """The named ranks' errors are collateral: they waited on the rank that failed first."""
    ini = c.view.initiating
    if not SEPARATE_Q.search(m.text) or ini is None or ini.first_line is None:
        return None
    named = [c.view.ranks[r] for r in m.ranks if r in c.view.ranks] or c.view.with_role("collateral")
    if not named or any(r.role != "collateral" for r in named):
        return None
    base = answer_overview.others(c, m)  # who they waited on, where (`barrier`), how they were stopped
    if base is not None:
        return reply("others", f"{tx.NOT_SEPARATE} {base.lead[:1].lower()}{base.lead[1:]}", base.lines)
    their = named[0].first_line
    said = tx.COLLATERAL.format(
        ranks=rank_list(named),
        why=named[0].why or f"waited on rank {ini.rank}",
        ini=ini.rank,
        ref=ref(ini.first_line),
        their=f"{ref(their)}: `{their.text.strip()[:140]}`" if their is not None else "",
    )
    return reply("others", said, [ini.first_line, *([their] if their is not None else [])])


#: the question also asks what failed, which the failure's own answer names (the TCPStore, the bind)
_WHAT_FAILED = re.compile(r"\bwhat (?:\w+ )?(?:tried|failed|went wrong|broke)\b")


def code(c: Ctx, m: Match) -> Reply | None:
    """The code a kept line prints, and what that errno means."""
    if not CODE_Q.search(m.text) or re.search(r"\bexit ?code\b|\bexit(?:ed)? with\b", m.text):
        return None
    if _WHAT_FAILED.search(
        m.text
    ):  # "what tried to listen and failed? errno?": the failure's answer says both
        return None
    for ln in c.view.evidence:
        if (got := _CODE.search(ln.text)) is not None:
            num = got.group(1).lstrip("-")
            term = find(f"errno {num}", c.glossary)  # "errno 12, ENOMEM …" when the glossary has it
            meaning = tx.CODE_MEANINGS.get(num) or (term.text if term is not None else tx.CODE_UNKNOWN)
            return reply(
                "show_lines", tx.CODE_IN_LINE.format(code=got.group(0), ref=ref(ln), meaning=meaning), [ln]
            )
    return None


def instead(c: Ctx, m: Match) -> Reply | None:
    """The confidence as a figure, then what else it could be and why it lost."""
    if not INSTEAD_Q.search(m.text):
        return None
    conf = c.view.confidence
    lead = tx.CONFIDENCE.format(conf=conf, pct=round(conf * 100), title=c.view.title or c.view.category)
    other = answer_overview.alternatives(c, m)
    if other is None:
        return reply("alternatives", lead, c.view.key_line())
    return reply("alternatives", f"{lead} {other.lead}", other.lines, bullets=other.bullets)


def slurm_states(c: Ctx, m: Match) -> Reply | None:
    """The states and lines preemption or a memory kill would leave, against this job's own line."""
    if not SLURM_Q.search(m.text) or not re.search(r"preempt|oom|out of memory|memory", m.text):
        return None
    shown = c.view.key_line()
    if not shown:
        return None
    text = shown[0].text.strip()[:160]
    this = tx.SLURM_THIS_TIMEOUT if "TIME LIMIT" in text else tx.SLURM_THIS
    said = tx.SLURM_OTHERS.format(this=this.format(text=text), ref=ref(shown[0]))
    return reply("alternatives", said, shown)


__all__ = ["code", "instead", "separate", "slurm_states"]
