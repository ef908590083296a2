"""Facts of a kind this job's evidence does not hold, asked as such: "lr? fp16 or bf16?", "who's holding
the port?", "total steps configured?", "which node was each rank on?", "who changed the save code?",
"which model, how many params?", "any sign clipping is on?".

Why: these asks matched another intent (the port, the memory figures, the rank count, `--time`'s
meaning) or none, and the reply answered something else or listed example questions, never saying the
fact is missing. Each kind below names what is asked, how a line would print it, and the nearest fact
the logs do hold: when no kept line (failure, tail, set-up, settings or version line) prints it, the
reply says so first, then that nearest fact. A fact a line does print is left to the usual answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_unheld as tx
from denpex.core.texts.thread import category_words
from knowledge import answer_asks, answer_lost
from knowledge.answer_join import first
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match
from knowledge.jobfacts_answers import seconds_between
from knowledge.lines import parse_timestamp

Fact = tuple[str, list[EvidenceLine]]


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of fact: the asked words, a line that would print it, what it is, its nearest fact."""

    asked: re.Pattern[str]
    printed: re.Pattern[str]
    what: str
    nearest: Callable[[Ctx], Fact]


def _lines(c: Ctx) -> list[EvidenceLine]:
    """Every line the diagnosis holds: kept, set-up, settings and version lines."""
    f = c.d.facts
    return [*pool(c), *f.setup, *f.settings, *f.versions]


def _failed(c: Ctx) -> Fact:
    """The first rank's failure line: the fact every job's logs hold."""
    ini = c.view.initiating
    if ini is None or ini.first_line is None:
        if not c.view.evidence:
            return "", []
        ln = c.view.evidence[0]  # no rank failed first (a launcher or scheduler end): its first line
        return tx.FIRST_LINE.format(ref=ref(ln), text=ln.text.strip()[:200]), [ln]
    ln = ini.first_line
    what = category_words(ini.category or c.view.category)
    return tx.FAILED.format(rank=ini.rank, what=what, ref=ref(ln), text=ln.text.strip()[:200]), [ln]


def _step_rank(c: Ctx) -> tuple[int, EvidenceLine] | None:
    """The rank with a step line to quote (the first rank's, else the furthest), and that line."""
    ranks = [r for r in c.view.ranks.values() if r.last_step_line is not None]
    ini = c.view.initiating
    mine = [r for r in ranks if ini is not None and r.rank == ini.rank]
    top = mine or sorted(ranks, key=lambda r: (-(r.last_step or 0), r.rank))
    if not top or top[0].last_step_line is None:
        return None
    return top[0].rank, top[0].last_step_line


_STEP = re.compile(r"\bstep (\d+)\b")


def _loss(c: Ctx) -> Fact:
    """The last step line (its loss as printed), then the first failure when another rank's; else the
    failure alone."""
    found = _step_rank(c)
    if found is None:
        return _failed(c)
    rank, ln = found
    step = m.group(1) if (m := _STEP.search(ln.text)) else "?"
    said = tx.LOSS_LINE.format(rank=rank, step=step, ref=ref(ln), text=ln.text.strip()[:200])
    ini = c.view.initiating
    if ini is None or ini.rank == rank:
        return said, [ln]
    failed, shown = _failed(c)
    return f"{said} Then {failed}", [ln, *shown]


_GRAD_NORM = re.compile(r"\bgrad_norm[ =:]+([0-9.]+)")


def _grad_norm(c: Ctx) -> Fact:
    """A grad_norm a step line prints (the norm, not a clip), else the last step line."""
    for ln in pool(c):
        if (g := _GRAD_NORM.search(ln.text)) and (s := _STEP.search(ln.text)):
            return tx.GRAD_NORM.format(value=g.group(1), step=s.group(1), ref=ref(ln)), [ln]
    return _loss(c)


_PORT = re.compile(r"\bport[:= ]+(\d{2,5})\b")
_IN_USE = re.compile(r"EADDRINUSE|address already in use", re.IGNORECASE)


def _port_line(c: Ctx) -> tuple[str, EvidenceLine] | None:
    for ln in pool(c):
        if _IN_USE.search(ln.text) and (p := _PORT.search(ln.text)):
            return p.group(1), ln
    return None


def _port(c: Ctx) -> Fact:
    found = _port_line(c)
    if found is None:
        return _failed(c)
    return tx.PORT_LINE.format(port=found[0], ref=ref(found[1])) + tx.PORT_CHECK.format(port=found[0]), [
        found[1]
    ]


def _pace(c: Ctx) -> Fact:
    """The last step logged and the seconds per step from the same log's step lines."""
    found = _step_rank(c)
    if found is None:
        return _failed(c)
    _, last = found
    steps = [
        (int(s.group(1)), ln)
        for ln in pool(c)
        if ln.source == last.source and (s := _STEP.search(ln.text)) and parse_timestamp(ln.text)
    ]
    end = _STEP.search(last.text)
    if len(steps) < 2 or end is None:
        return tx.LAST_STEP.format(step=end.group(1) if end else "?", ref=ref(last)), [last]
    (s0, l0), (s1, l1) = min(steps, key=lambda x: x[0]), max(steps, key=lambda x: x[0])
    t0, t1 = parse_timestamp(l0.text), parse_timestamp(l1.text)
    gap = seconds_between(t0.iso(), t1.iso()) if t0 and t1 else None
    if not gap or s1 <= s0 or gap <= 0:
        return tx.LAST_STEP.format(step=s1, ref=ref(l1)), [l1]
    per = gap / (s1 - s0)
    said = tx.PACE.format(step=s1, ref=ref(l1), per=f"{per:.3g} s", first=s0, hour=int(3600 / per))
    return said, [l1]


def _placed(c: Ctx) -> Fact:
    """Which ranks a line places on a host, and that the rest are not."""
    ranks = sorted(c.view.ranks.values(), key=lambda r: r.rank)
    known = [r for r in ranks if r.node]
    if not known:
        named = tx.NODES_NAMED.format(nodes=", ".join(c.view.nodes)) if c.view.nodes else ""
        return tx.NO_HOSTS.format(ranks=len(ranks), named=named) + tx.LAYOUT_CHECK, []
    placed = "; ".join(tx.PLACED_RANK.format(rank=r.rank, node=r.node) for r in known)
    shown = [r.first_line for r in known if r.first_line is not None][:1]
    return tx.PLACED.format(placed=placed) + tx.LAYOUT_CHECK, shown


_OWN_FRAME = re.compile(r"File \"([^\"]+\.py)\", line (\d+), in (\S+)")
_LIBRARY = re.compile(r"site-packages|/lib/python|/bin/")


def _own_code(c: Ctx) -> Fact:
    """The deepest frame of the job's own code in the first rank's traceback, and its source line."""
    ini = c.view.initiating
    lines = sorted(pool(c), key=lambda ln: (ln.source, ln.line))
    source = ini.first_line.source if ini is not None and ini.first_line is not None else None
    own = [
        (m, ln)
        for ln in lines
        if (source is None or ln.source == source)
        and (m := _OWN_FRAME.search(ln.text))
        and not _LIBRARY.search(m.group(1))
    ]
    if not own:
        fact, shown = _failed(c)
        return fact + tx.AUTHOR_CHECK, shown
    m, ln = own[-1]
    after = next((x for x in lines if x.source == ln.source and x.line == ln.line + 1), None)
    code = after.text.split("]:", 1)[-1].strip() if after is not None else ""
    name = m.group(1).rsplit("/", 1)[-1]
    said = tx.OWN_CODE.format(
        file=name,
        line=m.group(2),
        func=m.group(3),
        ref=ref(ln),
        code=tx.OWN_CODE_TEXT.format(code=code[:160]) if code and "File " not in code else "",
    )
    return said, [ln]


_ASKED = r"\b(?:what|which|how (?:much|big|high|many)|was|were|is|did|do|any|cu[aá]nto|cu[aá]l)\b"
KINDS: tuple[Kind, ...] = (
    Kind(
        re.compile(r"\b(?:lr|learning[ _-]?rate)\b(?!\s*(?:schedul|warm))"),
        re.compile(r"\b(?:lr|learning_rate)\s*[=:]?\s*[0-9.]+(?:e-?[0-9]+)?\b", re.IGNORECASE),
        tx.LR,
        _loss,
    ),
    Kind(
        re.compile(
            r"\b(?:fp16|bf16|fp32|tf32|mixed[ -]precision|precision|amp|autocast|half[ -]precision)\b"
        ),
        re.compile(
            r"\b(?:bf16|fp16)(?:\.enabled)?\s*[=:]|\b(?:torch_)?dtype\s*[=:]|--(?:bf|fp)16\b|autocast"
        ),
        tx.PRECISION,
        _loss,
    ),
    Kind(
        re.compile(
            r"\bclip\w*\b[^?]{0,40}\b(?:active|on|enabled|used|set|applied|in use|working|happen\w*)\b"
            r"|\b(?:sign|evidence|proof|trace)\b[^?]{0,40}\bclip\w*\b|\bis (?:grad(?:ient)? )?clipping\b"
        ),
        re.compile(
            r"\b(?:max_grad_norm|gradient_clipping|clip_grad\w*|clip)\s*[=:]\s*[0-9.]+", re.IGNORECASE
        ),
        tx.CLIPPING,
        _grad_norm,
    ),
    Kind(
        re.compile(
            r"\b(?:who|what|which)(?:'?s| is| was)?\b[^?]{0,40}?\b(?:hold\w*|held|us(?:ing|es)|own\w*|bound|"
            r"occup\w+|took|taking|listen\w*|grabb?\w*|squat\w*|sitting on)\b[^?]{0,30}\bport\b"
            r"|\b(?:another|other|a stale|some) (?:process|program|job)\b"
            r"[^?]{0,30}\b(?:hold|held|has|had|us)\w*"
            r"|\bport\b[^?]{0,30}\b(?:held|used|taken|owned) by\b|\bstale socket\b|\btime_wait\b"
        ),
        re.compile(r"\busers:\(\(|\bLISTEN\b.*\bpid=", re.IGNORECASE),
        tx.PORT_HOLDER,
        _port,
    ),
    Kind(
        re.compile(
            r"\btotal (?:number of )?(?:training )?(?:steps|iterations|iters)\b"
            r"|\bmax_steps\b|\bnum_train_\w+\b"
            r"|\bsteps?\b[^?]{0,40}\b(?:configured|planned|scheduled|set (?:up )?to run|meant to run)\b"
            r"|\b(?:configured|planned|set) (?:to run |for )(?:how many )?(?:\d+ )?steps\b"
            r"|\bhow many steps (?:in total|total|was it|were (?:planned|configured))\b"
        ),
        re.compile(r"\bstep \d+ ?/ ?\d+\b|\bstep \d+ of \d+\b|\bmax_steps\s*[=:]\s*\d+", re.IGNORECASE),
        tx.TOTAL_STEPS,
        _pace,
    ),
    Kind(
        re.compile(
            r"\b(?:which|what) (?:node|host|machine|box)s?\b[^?]{0,30}"
            r"\b(?:each|every|all|the \d+|the other)\b[^?]{0,20}\branks?\b"
            r"|\b(?:each|every) (?:of the \d+ )?ranks?\b[^?]{0,30}\b(?:node|host|machine)\b"
            r"|\brank[- ]to[- ](?:node|host)\b|\bhow many ranks\b[^?]{0,30}\b(?:shared|share|on|were on)\b"
        ),
        re.compile(r"$^"),
        tx.LAYOUT,
        _placed,
    ),
    Kind(
        re.compile(
            r"\bwho\b[^?]{0,40}\b(?:changed|touched|modified|edited|committed|wrote|pushed|merged|broke)\b"
            r"|\b(?:some(?:one|body)|any(?:one|body)|a colleague)'?s?\b[^?]{0,30}\bchange\w*\b"
            r"|\b(?:recent|last) (?:code )?(?:change|commit|edit)s?\b|\bgit (?:blame|log|history)\b"
        ),
        re.compile(r"\bcommit [0-9a-f]{7,40}\b|\bAuthor: ", re.IGNORECASE),
        tx.AUTHOR,
        _own_code,
    ),
    Kind(
        re.compile(
            r"\b(?:which|what) model\b|\bmodel(?:'s)? (?:name|size)\b"
            r"|\bhow (?:many|much) (?:parameters|params)\b"
            r"|\b(?:param(?:eter)?s?) count\b|\bhow big (?:is|was) the model\b|\bnumber of param"
        ),
        re.compile(r"\bparameters\b|\bparams\s*[=:]|\bloading (?:pretrained |the )?model\b", re.IGNORECASE),
        tx.MODEL,
        _failed,
    ),
    Kind(
        re.compile(
            r"\bdriver\b[^?]{0,40}\bversion|\bversion\b[^?]{0,40}\bdriver\b"
            r"|\b(?:which|what) (?:nvidia )?driver\b"
        ),
        re.compile(r"Kernel Module(?: for [^ ]+)? +[0-9]+\.[0-9.]+|Driver Version: +[0-9]+\.[0-9.]+"),
        tx.DRIVER,
        _failed,
    ),
)
_QUESTION = re.compile(_ASKED + r"|\?|\b(?:who\w*|whose|when|where|why|tell|show|give|know|say|find)\b")


def _held(c: Ctx, kind: Kind, lines: list[EvidenceLine]) -> bool:
    if kind.what == tx.LAYOUT:  # the rank-to-host map: every rank placed by a line
        ranks = [r for r in c.view.ranks.values() if r.role != "missing"]
        return bool(ranks) and all(r.node for r in ranks)
    if kind.what == tx.PORT_HOLDER and _port_line(c) is None:
        return True  # no port failed in this job: the ask is about something else
    return any(kind.printed.search(ln.text) for ln in lines)


def missing(c: Ctx, text: str) -> Fact:
    """The sentence for each asked kind no line holds (said plainly), then the nearest fact; empty if none."""
    if not _QUESTION.search(text):
        return "", []
    lines = _lines(c)
    said: list[str] = []
    shown: list[EvidenceLine] = []
    facts: list[str] = []
    for kind in KINDS:
        if not kind.asked.search(text) or _held(c, kind, lines):
            continue
        port = found[0] if (found := _port_line(c)) else "that port"
        said.append(tx.MISSING.format(what=kind.what.format(port=port)))
        fact, fact_lines = kind.nearest(c)
        if fact and fact not in facts:
            facts.append(fact)
            shown += [ln for ln in fact_lines if ln not in shown]
    if not said:
        return "", []
    nearest = "".join((tx.NEAREST if i == 0 else tx.ALSO).format(fact=f) for i, f in enumerate(facts[:2]))
    return " ".join(said) + nearest, shown


#: the last checkpoint saved asked ("when was the last checkpoint saved?", "latest ckpt we have?")
_LAST_SAVE = re.compile(
    r"\b(?:last|latest|most recent|previous|newest) (?:good |complete |successful )?"
    r"(?:checkpoint|ckpt|save)\b"
    r"|\bwhen (?:was|did) (?:the |it |we )?(?:last )?(?:checkpoint|ckpt|save)\w*\b"
)


def _last_save(c: Ctx, text: str) -> Fact:
    """The last save logged, or that none is, with the step reached (`knowledge.answer_lost`)."""
    if not _LAST_SAVE.search(text):
        return "", []
    got = answer_lost.lost(c, Match(None, 0.0, None, None, answer_lost.HOW_MUCH_LOST))
    return (got.lead, got.lines) if got is not None else ("", [])


def asks_total(text: str) -> bool:
    """Whether the ask is for the configured total of steps (its missing sentence is said here)."""
    return bool(KINDS[4].asked.search(text))


def printed(c: Ctx, text: str) -> Fact:
    """A kind asked whose value a line prints ("fp16 or bf16?" with `bf16.enabled=true`): that line."""
    if not _QUESTION.search(text):
        return "", []
    lines = _lines(c)
    for kind in KINDS:
        if kind.what in (tx.LAYOUT, tx.PORT_HOLDER) or not kind.asked.search(text):
            continue
        if (ln := next((x for x in reversed(lines) if kind.printed.search(x.text)), None)) is not None:
            return tx.PRINTED.format(ref=ref(ln), text=ln.text.strip()[:220]), [ln]
    return "", []


def held(c: Ctx, text: str, got: Reply) -> Reply:
    """The help text replaced by the printed line of a kind a line holds ("fp16 or bf16?")."""
    if got.intent != "help" or not (found := printed(c, text))[0]:
        return got
    return reply("facts", *found)


def lead(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` led by the missing facts' sentence (the help text replaced by it)."""
    said, shown = missing(c, text)
    saved, saved_lines = _last_save(c, text)
    if saved and saved.lower()[:60] not in answer_asks.said(got):
        said, shown = f"{said} {saved}".strip(), [*shown, *saved_lines]
    if not said or said.lower()[:60] in answer_asks.said(got):
        return got
    port = _port_line(c)
    if port is not None and "ss -" in answer_asks.said(got):  # the port answer's own command, not two
        said = said.replace(tx.PORT_CHECK.format(port=port[0]), " ")
    if got.intent == "help":
        return reply("facts", said, shown)
    return first(got, said, shown)


__all__ = ["KINDS", "asks_total", "held", "lead", "missing", "printed"]
