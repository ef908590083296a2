"""A knowledge-base template (a verify command, a fix snippet) filled with this job's facts.

Entries write `{launcher} {script} {args} --max_steps {past_step|20}`; the job's facts
(`knowledge.jobfacts`) fill what the logs showed, the template's default or a generic value the rest,
and the command is fitted to the job's collective backend and masked (arguments can hold secrets).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import MappingProxyType

from denpex.core.models import Diagnosis
from denpex.core.texts import verify as tv
from knowledge.backend import for_backend
from knowledge.jobfacts import JobFacts

# ---------------------------------------------------------------------------------- templates
#: `{name}` or `{name|default}`; the default may hold one level of braces (`${MASTER_PORT:-29500}`)
PLACEHOLDER = re.compile(r"(?<!\$)\{([a-z_]+)(?:\|((?:[^{}]|\{[^{}]*\})*))?\}")

#: what a placeholder becomes when neither the job nor the template says more
GENERIC: Mapping[str, str] = MappingProxyType(
    {
        "launcher": "python",
        "script": "train.py",
        "args": "",
        "nproc_per_node": "$NPROC_PER_NODE",
        "nnodes": "$NNODES",
        "world_size": "$WORLD_SIZE",
        "node": "$NODE",
        "nodes": "$NODES",
        "hosts": "$HOSTS",
        "master_addr": "$MASTER_ADDR",
        "master_port": "${MASTER_PORT:-29500}",
        "past_step": "20",
    }
)
NAMES = frozenset(GENERIC)


def values(facts: JobFacts) -> dict[str, str]:
    """Each placeholder's value from the facts; unknown facts are left out."""
    out: dict[str, str] = {}
    pairs: list[tuple[str, object]] = [
        ("launcher", facts.launcher),
        ("script", facts.script),
        ("args", facts.args),
        ("nproc_per_node", facts.nproc_per_node),
        ("nnodes", facts.nnodes),
        ("world_size", facts.world_size),
        ("node", facts.node),
        ("nodes", ",".join(facts.nodes) if facts.nodes else None),
        ("master_addr", facts.master_addr),
        ("master_port", facts.master_port),
        ("past_step", facts.last_step + 10 if facts.last_step is not None else None),
    ]
    for name, value in pairs:
        if value is not None and value != "":
            out[name] = str(value)
    if facts.nodes and facts.nproc_per_node:
        out["hosts"] = ",".join(f"{n}:{facts.nproc_per_node}" for n in facts.nodes)
    return out


def placeholders(template: str) -> set[str]:
    """The placeholder names a template uses (entries are checked against `NAMES` in the tests)."""
    return {m.group(1) for m in PLACEHOLDER.finditer(template)}


def fill(template: str, facts: JobFacts) -> str:
    """The template with every placeholder replaced: the job's fact, else the default, else generic."""
    known = values(facts)

    def one(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        if name not in NAMES:
            return m.group(0)  # not ours (a brace in a snippet's code)
        value = known.get(name, default if default is not None else GENERIC[name])
        return value or "\x00"

    out = PLACEHOLDER.sub(one, template)
    return re.sub(r" \x00|\x00 ?", "", out)  # an empty value takes one of its spaces with it


def _past_step_note(verify: str, template: str, facts: JobFacts) -> str:
    """A verify filled with this job's own step (`--max_steps 2011` for a job that died at step 2001)
    says what that costs: run from scratch it repeats all of them, resumed it is a few steps. Without
    the note the command reads as a cheap check and is not one."""
    if facts.last_step is None or "{past_step" not in template or not verify:
        return verify
    note = tv.PAST_STEP.format(step=facts.last_step, until=facts.last_step + 10)
    if "  # " in verify:
        return verify + tv.AND + note.removeprefix("# ")
    return f"{verify}  {note}"


def fit(diag: Diagnosis, facts: JobFacts, mask: Callable[[str], str]) -> Diagnosis:
    """`diag` with its verify command and fix snippet filled (and masked: args can hold secrets)."""
    if not diag.verify and not diag.fix_snippet:
        return diag
    verify = mask(for_backend(fill(diag.verify, facts), facts.backend, debug=True)) if diag.verify else ""
    verify = _past_step_note(verify, diag.verify, facts)
    snippet = mask(for_backend(fill(diag.fix_snippet, facts), facts.backend)) if diag.fix_snippet else ""
    return diag.model_copy(update={"verify": verify, "fix_snippet": snippet})
