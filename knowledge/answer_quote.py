"""Answers about a piece of the logs the asker quotes or names: "what does 'unexpected pos 1088 vs 982'
mean", "wat is 10000ms", "what's code: -98", "what port was it", "where was it writing to?".

On call, people copy a fragment they do not understand out of the thread or the log. The answer finds
the line that holds it, quotes it with its place, then says what it means: the glossary's text for a
term in it, else what the diagnosis made of that line (the verdict's line or a collateral rank's).
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import followups_facts as tff
from denpex.core.texts import thread as t
from knowledge import answer_dumps, answer_launch, answer_launcher, answer_volume
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.glossary import Term, find
from knowledge.intents import Match
from knowledge.lines import parse_rank

#: a quoted fragment: '...', "...", `...` (4+ characters)
QUOTED = re.compile(r"['\"`‘“]([^'\"`’”]{4,120})['\"`’”]")
#: a fragment people name without quotes: a number with a unit, an errno name, a code, an address
_TOKEN = re.compile(
    r"\b(?:[0-9]+(?:\.[0-9]+)? ?(?:ms|s|sec|seconds|bytes|kb|mb|gb|mib|gib)\b|E[A-Z]{4,15}\b"
    r"|code:? ?-?[0-9]+|exit ?code:? ?-?[0-9]+|[0-9]{1,3}(?:\.[0-9]{1,3}){3}:[0-9]{2,5}|port:? ?[0-9]{2,5})",
    re.IGNORECASE,
)


def _pool(c: Ctx) -> list[EvidenceLine]:
    """Every line the diagnosis kept, the verdict's first."""
    out = list(c.view.evidence)
    out += [r.first_line for r in c.view.ranks.values() if r.first_line is not None]
    if c.d.initiating.phase_evidence is not None:
        out.append(c.d.initiating.phase_evidence)
    out += [ln for tl in c.d.tails for ln in tl.lines]
    out += [ln for ls in c.d.nodes.values() for ln in ls]
    seen: set[tuple[str, int]] = set()
    unique = []
    for ln in out:
        if (ln.source, ln.line) not in seen:
            seen.add((ln.source, ln.line))
            unique.append(ln)
    return unique


def _fragments(text: str) -> list[str]:
    found = [m.group(1).strip() for m in QUOTED.finditer(text)]
    found += [m.group(0).strip() for m in _TOKEN.finditer(text)]
    return [f for f in found if f and not _NOT_ERRNO.match(f)]


#: a word that only looks like an errno name to the case-blind token pattern (`elastic`, `Errors`)
_NOT_ERRNO = re.compile(r"^(?!E[A-Z]+$)[Ee][A-Za-z]+$")
#: a signal the line names by number (`Received 15 death signal`, `Signal 15 (SIGTERM) received`)
_SIGNAL = re.compile(r"\b(?:received|got|caught) (\d{1,2}) (?:death )?signal\b|\bsignal (\d{1,2})\b", re.I)


def _signal_term(text: str, c: Ctx) -> Term | None:
    """The glossary's signal a line names by its number ("Received 15 death signal" is SIGTERM)."""
    if (sig := _SIGNAL.search(text)) is None:
        return None
    return find(f"signal {sig.group(1) or sig.group(2)}", c.glossary)


def _normal(s: str) -> str:
    """Case, spacing and separators aside (`code -98` is the line's `code: -98,`, `127.0.0.1:1931` gloo's
    `[127.0.0.1]:1931`)."""
    return re.sub(r"\s+", " ", re.sub(r"[:=,\[\]]", " ", s.lower().replace("ms", " ms"))).strip()


#: a phrase of the question must have this many words to be taken for a quote of a line
MIN_WORDS = 3


def located(c: Ctx, m: Match, raw: str = "", words: bool = True) -> tuple[str, EvidenceLine] | None:
    """The fragment the question quotes or names and the first kept line that holds it: a quoted
    string, a named token (`10000ms`, `EADDRINUSE`, `code: -98`), else the longest run of words of
    the question that a kept line contains."""
    lines = [(ln, _normal(ln.text)) for ln in _pool(c)]
    for frag in _fragments(raw or m.text):
        want = _normal(frag)
        for ln, text in lines:
            if want in text:
                return frag, ln
    if not words:
        return None
    toks = re.findall(r"[\w.:/-]+", m.text)
    for size in range(len(toks), MIN_WORDS - 1, -1):
        for i in range(len(toks) - size + 1):
            phrase = " ".join(toks[i : i + size])
            want = _normal(phrase)
            if len(want) < 12:
                continue
            for ln, text in lines:
                if want in text:
                    return phrase, ln
    return None


def quote(c: Ctx, m: Match, raw: str = "", words: bool = True) -> Reply | None:
    """ "What does '…' mean?": the line that says it, then what it means for this job."""
    found = located(c, m, raw, words)
    if found is None:
        return None
    frag, ln = found
    term = find(ln.text, c.glossary) or find(frag, c.glossary) or _signal_term(ln.text, c)
    numbered = _numbered(m.text, ln.text)  # "#5 — the 5th step?": that first, not the line's terms
    meaning = t.term(term.name, term.text) if term is not None and not numbered else ""
    role = _role(c, ln)
    lead = tf.QUOTED.format(frag=frag, ref=ref(ln), role=role, meaning=meaning).strip()
    if role == _verdict_role(c) and (note := saving_note(c)):
        lead += " " + note
    if numbered:  # "… #5? what state were the others in on it": the dumps' states after the meaning
        numbered += answer_dumps.states(c, m)
    lead = f"{numbered} {lead}".strip()
    ended = c.view.evidence[:1] if c.view.initiating is None and ln not in c.view.evidence[:1] else []
    return reply("quote", re.sub(r"\s+", " ", lead), [ln, *ended])


_SEQ = re.compile(r"#([0-9]{1,9})\b")
_STEP = re.compile(r"\bsteps?\b")


def _numbered(question: str, line: str) -> str:
    """ "'all_reduce #5' — 5th step?": `#5` of a collective is its sequence number, not a step."""
    found = _SEQ.search(question)
    if found is None or found.group(0) not in line:
        return ""
    said = tf.COLLECTIVE_NUMBER.format(n=found.group(1))
    return said + (" " + tff.COLLECTIVE_NOT_STEP if _STEP.search(question) else "")


def saving_note(c: Ctx, term: str = "") -> str:
    """ "It came while rank 0 was saving `checkpoint-4.pt` (…)": the save the failing line cut short,
    when the failing rank was saving (and, given a term, the failing line says it); else ""."""
    ini = c.view.initiating
    if ini is None or ini.phase != "checkpoint_save" or (saving := saving_line(c)) is None:
        return ""
    if term and (ini.first_line is None or term.lower() not in ini.first_line.text.lower()):
        return ""
    return tf.QUOTED_SAVING.format(rank=ini.rank, name=saving[0], ref=ref(saving[1]))


def _verdict_role(c: Ctx) -> str:
    ini = c.view.initiating
    return tf.QUOTED_VERDICT.format(what=t.category_words(c.view.category), rank=ini.rank if ini else "?")


def _role(c: Ctx, ln: EvidenceLine) -> str:
    """What the diagnosis made of the line: the failure that started it, a collateral rank's, context."""
    v = c.view
    ini = v.initiating
    owner = next((r for r in v.ranks.values() if r.first_line == ln), None)
    if owner is None and (named := parse_rank(ln.text).rank) is not None:
        owner = v.ranks.get(named)
    if owner is not None and owner.role == "collateral" and ini is not None:
        return tf.QUOTED_COLLATERAL.format(rank=owner.rank, ini=ini.rank)
    if ini is not None and (ln in v.evidence[:3] or (owner is not None and owner.rank == ini.rank)):
        return tf.QUOTED_VERDICT.format(what=t.category_words(v.category), rank=ini.rank)
    if ln in v.evidence[:3]:
        return tf.QUOTED_JOB.format(what=t.category_words(v.category))
    if ini is not None:
        return tf.QUOTED_CONTEXT.format(what=t.category_words(v.category), rank=ini.rank)
    if v.evidence:  # no rank started it (a scheduler's kill): the line that says how the job ended
        return tf.QUOTED_ENDED.format(what=t.category_words(v.category), ref=ref(v.evidence[0]))
    return ""


_PATH = re.compile(r"(?<![:/\w.])(/[\w.@%+=,~-]+(?:/[\w.@%+=,~-]+)+)")
_WRITE = re.compile(r"\b(?:sav\w*|writ\w*|checkpoint\w*|torch\.save|to)\b", re.IGNORECASE)


def path(c: Ctx, m: Match) -> Reply | None:
    """ "Where was it writing to?": the path the save (or the failing write) named."""
    found = [
        (ln, p.group(1))
        for ln in _pool(c)
        if _WRITE.search(ln.text)
        and not _FRAME.search(ln.text)
        and (p := _PATH.search(ln.text))
        and not _SOURCE.search(p.group(1))  # gloo's `…/pair.cc:553` in an error: a source file, no output
    ]
    found.sort(key=lambda x: not _SAVE_WORDS.search(x[0].text))  # a save's own line first
    if not found:
        return None
    ln, where = found[0]
    rank = _line_rank(c, ln)
    lead = (
        tf.WRITING_TO.format(path=where, ref=ref(ln))
        if rank is None
        else tf.RANK_WRITING_TO.format(rank=rank, path=where, ref=ref(ln))
    )
    if victims := answer_launcher.named_victims(c, m.ranks):  # "were ranks 1-3 writing as well?": no
        lead = f"{victims} {lead}"
    if answer_volume.disk_verdict(c) and answer_volume.ASKS_VOLUME.search(m.text):  # "which volume filled"
        lead = f"{lead} {answer_volume.df_note(c)}".strip()
    return reply("path", lead, [ln])


def _line_rank(c: Ctx, ln: EvidenceLine) -> int | None:
    """The rank whose log (or own prefix) holds `ln`: "rank 0 was writing to …"."""
    if (named := parse_rank(ln.text).rank) is not None:
        return named
    return next((tl.rank for tl in c.d.tails if tl.source == ln.source and tl.rank is not None), None)


_FRAME = re.compile(r"\bFile \"|site-packages|\.py\", line |://")
#: a library's source file named in an error (`…/gloo/transport/tcp/unbound_buffer.cc`): never written to
_SOURCE = re.compile(r"\.(?:cc|cpp|cxx|c|h|hpp|cu|py)$")
_SAVE_WORDS = re.compile(r"\b(?:sav(?:e|ing)|checkpoint|torch\.save)\b", re.IGNORECASE)
#: a save's own line and the file it names (`Saving checkpoint to …/checkpoint-4.pt`)
_SAVING = re.compile(
    r"\b[Ss]av(?:e|ing)\b[^/\n]*?(/\S*?([\w.-]*(?:checkpoint|ckpt|step|epoch|model)[\w.-]*))\s*$"
)


def saving_line(c: Ctx) -> tuple[str, EvidenceLine] | None:
    """The file the last save line named, and that line (the save a failure may have cut short)."""
    hits = saving_lines(c)
    return hits[-1] if hits else None


def saving_lines(c: Ctx) -> list[tuple[str, EvidenceLine]]:
    """Every kept save line and the file it names, in the order the diagnosis kept them."""
    return [(f.group(2), ln) for ln in _pool(c) if (f := _SAVING.search(ln.text))]


#: `port: 54661`, `MASTER_PORT=29500`, or a host's `10.0.0.5:29500` / `gpu-01:29500` / `localhost:29500`;
#: never a `key:value` whose key is a word (`UID:1000`) nor a clock (`03:14:05`): a host starts with a
#: letter and has a digit or a dot, or is an IP address or localhost
_PORT = re.compile(
    r"\bport:? ?=?([0-9]{2,5})\b"
    r"|(?<![\w.:-])(?:localhost|[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[a-z][\w-]*[0-9.][\w.-]*|\[[0-9a-f:]+\])"
    # a source file's line (`api.py:1028]`) is no host's port
    r"(?<!\.py)(?<!\.cc)(?<!\.cpp)(?<!\.cu)(?<!\.h)(?<!\.c)"
    r":([0-9]{4,5})\b(?![0-9.:])",
    re.IGNORECASE,
)


def port(c: Ctx, m: Match) -> Reply | None:
    """ "What port was it?": the port the failing line names."""
    for ln in _pool(c):
        if (found := _PORT.search(ln.text)) is not None:
            lead = tf.PORT_IS.format(port=found.group(1) or found.group(2), ref=ref(ln))
            command = c.d.verify or (c.entry.verify if c.entry else "")
            if _DEFAULT.search(m.text):  # "is 54661 the torchrun default?"
                lead += " " + tf.PORT_DEFAULT.format(default=TORCHRUN_PORT)
            if _IN_USE.search(ln.text) and (_HOLDER.search(m.text) or _EXPLAIN.search(m.text)):  # "old run?"
                lead += " " + tf.PORT_IN_USE
            if _IN_USE.search(ln.text) and _WHICH_HOLDER.search(m.text):  # "which process? my old job?"
                lead += " " + tf.PORT_HOLDER_UNNAMED
            if _IN_USE.search(ln.text) and _BLAME.search(m.text) and (step := _port_step(c)):
                lead = tf.PORT_BLAME.format(lead=lead, step=step)  # "I hardcode it: is that it?"
            if _IN_USE.search(ln.text) and _PICK.search(m.text) and (step := _port_step(c)):
                lead += f" {step}"  # "which flag makes it pick a free port?": the entry's port step
            if _HOLDER.search(m.text) and command:  # "how do I see what's holding the port?"
                return reply("port", f"{lead} {tf.PORT_HOLDER}", [ln], code=command)
            return reply("port", lead, [ln])
    ini = c.view.initiating
    if ini is None:
        return None
    what = t.category_words(c.view.category)  # no port in any kept line: say so, and what it was instead
    if (told := answer_launch.port_told(c, what, ini.rank)) is not None:  # the launch line's MASTER_PORT
        return reply("port", told[0], [told[1], *c.view.key_line()])
    return reply("port", tf.PORT_NONE.format(what=what, rank=ini.rank), c.view.key_line())


#: torchrun's `--master-port` when none is given (and `MASTER_PORT` is unset)
TORCHRUN_PORT = 29500
_EXPLAIN = re.compile(r"\b(?:explain\w*|mean|means|meaning|what is|what's|wat is)\b")
_DEFAULT = re.compile(r"\b(?:default|standard|usual)\b")
_IN_USE = re.compile(r"EADDRINUSE|address already in use", re.IGNORECASE)


#: "how do I see what's holding the port", "who is using it": the command that shows the holder
_HOLDER = re.compile(
    r"\b(?:hold|holds|holding|hanging onto|using|uses|bound|owns|listening|occup\w*|sits?|sitting|squat\w*)\b"
    r"|\bhow (?:(?:do|can|would) )?(?:i|we|to) (?:see|find|check|tell)|\bwho (?:has|had|took|grabbed)\b"
    r"|\b(?:which|what) (?:process|program|pid|app)\w*\b"
    r"|\b(?:cmd|command)s? to (?:check|see|find)\b|\bcheck (?:it|that|the port)\b"
)
#: asks who the holder is ("which process is squatting on it?", "is it my old job?"): no line names it
_WHICH_HOLDER = re.compile(
    r"\b(?:which|what|whose) (?:\w+ )?(?:process|program|pid|app|job|run|service)\b"
    r"|\bwho(?:'s| is| was)? (?:\w+ )?(?:holding|using|sitting|squatting|hogging|has|had|took|grabbed|on)\b"
    r"|\b(?:is|was) it (?:my|our|the|an?|some) (?:own )?(?:old|previous|earlier|last|other|stale|zombie"
    r"|leftover|prior)\b|\b(?:my|our) (?:old|previous|earlier|last|prior) (?:job|run|launch)\b"
)
#: "which flag makes it pick a free port?", "how do I avoid the clash?": how to choose the port
_PICK = re.compile(
    r"\bflag\b|\bfree port\b|\bpick\w*\b|\bavoid\w*\b|\b(?:other|different|another|random) port\b"
    r"|\bstop (?:it|this) from\b|\bhow (?:do|to|can) (?:i |we )?(?:fix|prevent)\b"
)


#: "I hardcode the port: is that it?": the user's own choice of port offered as the cause
_BLAME = re.compile(
    r"\bis (?:that|this|it) (?:it|the (?:problem|cause|issue|reason))\b"
    r"|\bhard-?cod\w*|\b(?:fixed|static|same) port\b"
)


def _port_step(c: Ctx) -> str:
    """The entry's fix step about choosing the port, for a port the user set by hand."""
    steps = c.steps
    return next((s for s in steps if "port" in s.lower()), "")


def pool(c: Ctx) -> list[EvidenceLine]:
    """Every line the diagnosis kept, the verdict's first, each once."""
    return _pool(c)


__all__ = ["QUOTED", "located", "path", "pool", "port", "quote", "saving_line", "saving_lines"]
