"""The job's configuration asked as such ("4 procs via torchrun, right?", "python binary / venv path?",
"script name + total steps configured?", "which env vars were set?", "core dump or faulthandler
output?", "last step / loss / lr?", "which node had which ranks?", "num_workers=4 I thought").

Why: these asks were answered with the usual cause, a verify command or the rank count, and left the
value out. Each value comes from the diagnosis: the launcher, world size and ranks' nodes from its run
facts, the interpreter and script from a kept traceback's paths, the total steps and lr from the step
lines, a setting from its printed line; a value no kept line shows is said to be missing, with where
to read it instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_runconf as tx
from denpex.core.texts import followups_runfacts as tr
from knowledge import answer_checks, answer_envvar, answer_logged, answer_unheld
from knowledge.answer_asks import said, with_lead
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply, at, rank_list, ref, reply

_LAUNCHER_Q = re.compile(
    r"\b(?:via|with|by|using|through|under) (?:torchrun|srun|deepspeed|mpirun|accelerate)\b"
    r"|\b(?:which|what) launcher\b|\blauncher (?:was|did we|we) use\w*\b|\blaunched (?:with|via|by)\b"
    r"|\b(?:torchrun|srun) or (?:torchrun|srun|deepspeed|mpirun)\b"
    # "backend + launcher for this one?", "comm backend and launcher?": the launcher listed as a fact
    r"|\blauncher\s*(?:[?+&/,]|$|and\b|for (?:this|the|that)\b|in use\b|used\b)"
)
#: the collective backend listed as a fact ("backend + timeout value in use?"), not rdzv's
_BACKEND_Q = re.compile(r"(?<!rdzv )(?<!rdzv-)(?<!rendezvous )\bbackend\b")
_CMDLINE_Q = re.compile(
    r"\b(?:cmd ?line|command ?line|cmdline)\b|\b(?:torchrun|launch|launcher|full) (?:args|arguments)\b"
    r"|\bargs (?:were |we )?passed\b|\brdzv\b|\bnnodes\b|\bexact (?:torchrun|launch) (?:command|cmd)\b"
)
_PYTHON_Q = re.compile(
    r"\bpython (?:binary|path|version|interpreter|executable|exe)\b|\bvenv\b|\bvirtualenv\b"
    r"|\binterpreter\b|\bsystem python\b|\bwhich python\b"
)
_SCRIPT_Q = re.compile(
    r"\bscript(?:s)? (?:name|path)\b|\bname of the script\b|\b(?:which|what) (?:training )?script\b"
    r"|\bentry ?point\b|\bscript name\b"
    # "launch setup for the repro - world size, steps, script": the script listed as a fact
    r"|(?:[,+/&]|\band)\s*(?:the |training |entry )?script\b(?!\s+(?:was|is|did|does|failed|crashed))"
)
_TOTAL_Q = re.compile(r"\btotal steps\b|\bsteps configured\b|\bmax_steps\b|\bhow many steps\b|\b\d+-step\b")
#: an environment variable asked by name, or the environment as a whole
_ENV_NAME = re.compile(r"\b(?:nccl|torch|cuda|python|omp|tokenizers|master)_[a-z_]+\b")
_ENV_Q = re.compile(r"\benv(?:ironment)? ?var(?:iable)?s?\b|\benvironment\b|\basync error handling\b")
_ENV_ADVICE = re.compile(
    r"\b(?:should|shall|do|can|could) (?:i|we|you) (?:set|use|try|add|turn)\b|\bhow to set\b"
)
_CORE_Q = re.compile(r"\bcore ?dumps?\b|\bcore file\b|\bfaulthandler\b|\bcoredumpctl\b")
_CORE_LINE = re.compile(r"core dumped|Fatal Python error|Current thread 0x|faulthandler|coredump", re.I)
_LR_Q = re.compile(r"\blr\b|\blearning rate\b")
_STEP_Q = re.compile(
    r"\blast step\b|\bstep (?:reached|number)\b|\bwhat step were\b|\bstep\b[^?]{0,12}\bloss\b"
    r"|\bloss\b[^?]{0,12}\blr\b"
)
_LAYOUT_Q = re.compile(
    r"\bnode layout\b|\bhow many nodes\b|\bper node\b|\bwhich node had which\b"
    r"|\branks? (?:on|per) (?:each|which) node\b|\bwhich ranks? (?:ran |were )?on which node\b"
)
_WORKERS_Q = re.compile(r"\bnum_workers\b|\b(?:data ?loader|loader) workers\b")
_OTHERS_WHEN_Q = re.compile(r"\btimeout\b[^?]{0,40}\bother ranks\b[^?]{0,30}\bwhen\b")
_SETTING_Q = re.compile(r"\bzero(?:-| )?(?:stage|[123])\b|\bstage\b|\boffload\w*\b")

_SITE = re.compile(r"File \"(/[^\"]*?)/lib/python(\d\.\d+)/site-packages/")
_SCRIPT = re.compile(r"File \"(/[^\"]+\.py)\", line \d+, in (\S+)")
_STEP_OF = re.compile(r"\bstep (\d+)/(\d+)\b")
_LR = re.compile(r"\blr[ =:]+([0-9.]+(?:e-?\d+)?)\b", re.IGNORECASE)
_STEP = re.compile(r"\bstep (\d+)\b")


def added(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with each configuration value the ask names and `got` does not already say."""
    for part in _PARTS:
        lead, lines = part(c, text)
        if lead and got.intent == "help":
            got = reply("facts", lead, lines)  # the value answers it: not the help text
        elif lead and lead.lower()[:60] not in said(got):
            got = with_lead(got, lead, lines)
    return got


def _launcher(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    v = c.view
    said_: list[str] = []
    if _LAUNCHER_Q.search(text) and v.launcher and v.ranks:
        nodes = ", ".join(v.nodes) or "its node(s)"
        said_.append(tx.LAUNCHER.format(launcher=v.launcher, n=v.world_size or len(v.ranks), nodes=nodes))
    if _CMDLINE_Q.search(text):
        said_.append(tx.NO_CMDLINE)
    return " ".join(said_), []


def _first(c: Ctx, rx: re.Pattern[str]) -> tuple[re.Match[str], EvidenceLine] | None:
    """The first kept line `rx` finds, the set-up, version and settings lines too (a launch line's
    `MASTER_ADDR=gpu-01` is printed: never "not shown")."""
    facts = c.d.facts
    for ln in [*pool(c), *facts.setup, *facts.versions, *facts.settings]:
        if (found := rx.search(ln.text)) is not None:
            return found, ln
    return None


def _python(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    if not _PYTHON_Q.search(text):
        return "", []
    if (hit := _first(c, _SITE)) is None:
        return tx.NO_PYTHON, []
    found, ln = hit
    return tx.PYTHON.format(prefix=found.group(1), version=found.group(2), ref=ref(ln)), [ln]


def script_name(c: Ctx) -> tuple[str, EvidenceLine] | None:
    """The training script a kept traceback runs from (its `<module>` frame), and that line."""
    frames = [
        (found, ln)
        for ln in pool(c)
        if (found := _SCRIPT.search(ln.text))
        and not re.search(r"site-packages|/bin/|/lib/python", found.group(1))
    ]
    top = [f for f in frames if f[0].group(2) == "<module>"] or frames
    if not top:
        return None
    found, ln = min(top, key=lambda f: (f[1].source, f[1].line))
    return found.group(1), ln


def _script(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    said_: list[str] = []
    lines: list[EvidenceLine] = []
    if _SCRIPT_Q.search(text):
        if (hit := script_name(c)) is None:
            said_.append(tx.NO_SCRIPT)
        else:
            said_.append(tx.SCRIPT.format(script=hit[0], ref=ref(hit[1])))
            lines.append(hit[1])
    if _TOTAL_Q.search(text) and not ((total := _total(c)) == tx.NO_TOTAL and answer_unheld.asks_total(text)):
        said_.append(total)  # none printed, asked as the configured total: knowledge.answer_unheld says so
    return " ".join(said_), lines


def _total(c: Ctx) -> str:
    for r in sorted(c.view.ranks.values(), key=lambda r: r.rank):
        if r.last_step_line and (found := _STEP_OF.search(r.last_step_line.text)):
            step, total = found.groups()
            return tx.TOTAL.format(total=total, rank=r.rank, step=step, ref=ref(r.last_step_line))
    return tx.NO_TOTAL


def _env(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    names = [n.upper() for n in dict.fromkeys(_ENV_NAME.findall(text))]
    if "async error handling" in text and "NCCL_ASYNC_ERROR_HANDLING" not in names:
        names.append("NCCL_ASYNC_ERROR_HANDLING")
    if (
        _ENV_ADVICE.search(text)
        or answer_envvar.wanted(c, text)
        or not (_ENV_Q.search(text) or (names and re.search(r"\b(?:set|on)\b", text)))
    ):
        return "", []
    said_, lines, unseen = [], [], []
    for name in names:
        hit = _first(c, re.compile(re.escape(name) + r"\s*[=:]\s*\S+"))
        if hit is None:
            unseen.append(name)
            continue
        said_.append(tx.ENV_SEEN.format(name=name, text=hit[1].text.strip()[:160], ref=ref(hit[1])))
        lines.append(hit[1])
    if not names and (logged := answer_logged.env_settings(c))[0]:
        return logged  # "dump every env var the logs show": the `NAME=value` settings they print
    if unseen or not names:
        listed = " and ".join(unseen) if unseen else "The environment variables this job ran with"
        single = len(unseen) == 1
        said_.append(
            tx.ENV_NONE.format(names=listed, verb="is" if single else "are", them="it" if single else "them")
        )
    return " ".join(said_), lines


def _core(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    if not _CORE_Q.search(text):
        return "", []
    if (hit := _first(c, _CORE_LINE)) is not None:
        return tx.CORE_SEEN.format(text=hit[1].text.strip()[:160], ref=ref(hit[1])), [hit[1]]
    return tx.CORE_NONE, []


def _progress(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """The asked (or first failing, else lowest logging) rank's last step line; its lr if asked."""
    if not (_STEP_Q.search(text) or (_LR_Q.search(text) and "step" in text)):
        return "", []
    ranks = sorted(c.view.ranks.values(), key=lambda r: r.rank)
    named = re.search(r"\brank ?(\d+)\b", text)
    ini = c.view.initiating
    pick = [r for r in ranks if named and r.rank == int(named.group(1))]
    pick += [ini] if ini is not None else []
    pick += ranks
    r = next((r for r in pick if r is not None and r.last_step_line is not None), None)
    if r is None or r.last_step_line is None or r.last_step is None:
        return "", []
    ln = r.last_step_line
    lead = tx.PROGRESS.format(rank=r.rank, step=r.last_step, ref=ref(ln), text=ln.text.strip()[:160])
    lines = [ln]
    if _LR_Q.search(text) and not _LR.search(ln.text):
        lr_lines = [x for x in pool(c) if _LR.search(x.text) and _STEP.search(x.text)]
        if lr_lines:
            last = max(lr_lines, key=lambda x: int(_STEP.search(x.text).group(1)))  # type: ignore[union-attr]
            lr = _LR.search(last.text).group(1)  # type: ignore[union-attr]
            step = _STEP.search(last.text).group(1)  # type: ignore[union-attr]
            lead += tx.LAST_LR.format(lr=lr, step=step, ref=ref(last))
            lines.append(last)
    return lead, lines


def _layout(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    if not _LAYOUT_Q.search(text):
        return "", []
    v = c.view
    ranks = [r for r in v.ranks.values() if r.role != "missing"]
    n = v.world_size or len(ranks)
    if not ranks or any(r.node is None for r in ranks):
        seen = f" (the lines name only {', '.join(v.nodes)})" if v.nodes else ""
        return tx.NO_LAYOUT.format(n=n, seen=seen), []
    by_node: dict[str, list[int]] = {}
    for r in sorted(ranks, key=lambda r: r.rank):
        by_node.setdefault(r.node or "", []).append(r.rank)
    layout = ", ".join(
        tx.LAYOUT_NODE.format(node=node, k=len(rs), ranks=rank_list(rs)) for node, rs in by_node.items()
    )
    return tx.LAYOUT.format(n=n, count=len(by_node), layout=layout), []


def _workers(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    if not _WORKERS_Q.search(text) or _first(c, re.compile(r"\bnum_workers\s*[=:]")) is not None:
        return "", []
    hit = script_name(c)
    return tx.NO_WORKERS.format(script=hit[0] if hit else "the training script"), []


def _others_when(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    ini, when = c.view.initiating, c.view.first_collateral_time()
    if not _OTHERS_WHEN_Q.search(text) or ini is None or when is None:
        return "", []
    return tx.TIMEOUT_HIT.format(when=at(when), rank=ini.rank), []


def _settings(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    if not _SETTING_Q.search(text):
        return "", []
    lines = [ln for ln in c.d.facts.settings if re.search(r"stage|offload", ln.text, re.IGNORECASE)]
    if not lines:
        return "", []
    return " ".join(f"{ref(ln)}: `{ln.text.strip()[:200]}`." for ln in lines[:2]), lines[:2]


def with_backend(c: Ctx, text: str, got: Reply) -> Reply:
    """ "Backend + timeout value in use?": `got` with the collective backend the failure lines name,
    when the message lists it and the answer (another ask's, the timeout's) does not say it."""
    if not _BACKEND_Q.search(text) or got.intent == "backend":
        return got
    found = answer_checks.backend_of(c)
    lead = tr.BACKEND.format(name=found[0], ref=ref(found[1])) if found else tr.BACKEND_NONE
    if lead.lower() in said(got):
        return got
    if got.intent == "help":
        return reply("backend", lead, [found[1]] if found else [])
    return with_lead(got, lead, [found[1]] if found else [])


_PARTS: tuple[Callable[[Ctx, str], tuple[str, list[EvidenceLine]]], ...] = (
    _launcher,
    _python,
    _script,
    _env,
    _core,
    _progress,
    _layout,
    _workers,
    _others_when,
    _settings,
)

__all__ = ["added", "script_name", "with_backend"]
