"""The answer when no failure mode matched: read the last fatal line, never call a crash a hang.

No entry's signature fired, so nothing says *which* failure this is. But a log still says *how* it
ended, in the grammar every Python or POSIX program shares: a traceback ending in an exception line,
a fatal signal (`Segmentation fault`, `Bus error`, `Caught signal 7`, `Fatal Python error`,
`terminate called after throwing`), or a launcher's non-zero exit code. That kind is mapped to the
taxonomy class it belongs to (TAXONOMY.md) at a low confidence, naming the line as the evidence. A
hang stays the answer only when the log stops without any such line (or was stopped from outside:
KeyboardInterrupt, SIGTERM): that is what `hang_no_error` means.

Only the failure *kind* lives here (generic log grammar, not failure modes); which entry explains a
class is read from the entries: those of the class, the one carrying the kind's tag first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from knowledge import wording
from knowledge.lines import Stamp, parse_rank, parse_timestamp, strip_delivery
from knowledge.scanner import LineHit
from knowledge.schema import Entry
from knowledge.signals import ActorKey, Job, job_year

# `[rank3]: `, `[default0]:`, srun's `3: ` and similar labels a launcher puts before a line
# (Open MPI's `--tag-output` adds the stream: `[1,3]<stderr>:`, SageMaker's `[1,mpirank:3,algo-2]<stderr>:`)
_LABELS = r"^[ \t]*(?:\[[^\]\n]{1,40}\](?:<std[a-z]{3,4}>)?:? ?|[0-9]{1,5}: )*[ \t*_>`]*"  # and Markdown
_TRACEBACK = re.compile(_LABELS + r"Traceback \(most recent call last\):")
# CPython's last traceback line: `pkg.mod.SomeError: message` (Lib/traceback.py format_exception_only);
# TF1's session wrapper prints `InternalError (see above for traceback): message`. CPython writes the
# colon only before a message, so `SomeError:` ending its line is one whose message went on the next
# line (a message that starts with a newline, or a paste wrapped at a fixed width)
_EXCEPTION = re.compile(
    _LABELS + r"((?:[A-Za-z_][A-Za-z0-9_]*\.)*([A-Z][A-Za-z0-9_]*(?:Error|Exception|Exit|Interrupt)))"
    r"(?:(: [^ \t]| \(see above for traceback\): |:[ \t]*$)|[ \t*`]*$)"
)
# IPython/Jupyter names the exception before its frames: `KeyError     Traceback (most recent call last)`
_IPYTHON_HEADER = re.compile(
    _LABELS + r"(?:[A-Za-z_][A-Za-z0-9_]*\.)*([A-Z][A-Za-z0-9_]*(?:Error|Exception|Interrupt))"
    r"[ \t]{2,}Traceback \(most recent call last\)"
)
# a traceback frame header, wherever a copy put it (`246 [rank0]:   File "…", line 9, in main`)
_FRAME = re.compile(r'File "[^"\n]+", line [0-9]+, in [A-Za-z_<]')
#: a traceback whose exception line was cut (a truncated paste, a log cut at a size limit): a Python
#: exception ended the process, which one the log no longer says
CUT_TRACEBACK = "a Python traceback whose exception line is missing"
# a module-qualified exception with a message is Python's own format wherever the line starts
_QUALIFIED = re.compile(
    r"(?:^|[^A-Za-z0-9_.])((?:[a-z_][a-z0-9_]*\.)+([A-Z][A-Za-z0-9_]*(?:Error|Exception))): [^ \t]"
    # a class of a module of errors, whatever its name ends in (`triton.runtime.errors.OutOfResources`)
    r"|(?:^|[^A-Za-z0-9_.])((?:[a-z_][a-z0-9_]*\.)*(?:errors|exc|exceptions)\.([A-Z][A-Za-z0-9_]*)): [^ \t]"
)
#: exceptions that report another process's failure (the launcher's) or an exit, not a crash of their own
_REPORTS = frozenset(
    {
        "ChildFailedError",
        "CalledProcessError",
        "ProcessExitedException",
        "ProcessRaisedException",
        "SystemExit",
    }
)
# a fatal signal named in words: the shell, faulthandler, UCX's handler, libstdc++'s terminate handler
_SIGNAL_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("SIGSEGV", re.compile(r"Segmentation fault|\bSIGSEGV\b|\b[Ss]ignal 11\b")),
    ("SIGBUS", re.compile(r"\b[Bb]us error\b|\bSIGBUS\b|\b[Ss]ignal 7\b")),
    ("SIGFPE", re.compile(r"Floating point exception|\bSIGFPE\b|\b[Ss]ignal 8\b")),
    ("SIGILL", re.compile(r"Illegal instruction|\bSIGILL\b|\b[Ss]ignal 4\b")),
    (
        "SIGABRT",
        re.compile(
            r"Aborted \(core dumped\)|\bSIGABRT\b|\b[Ss]ignal 6\b|Fatal Python error: "
            r"|terminate called (?:after throwing|without an active exception|recursively)"
            r"|^\*\*\* (?:Error in `|stack smashing detected|buffer overflow detected)"
        ),
    ),
    ("SIGKILL", re.compile(r"\bSIGKILL\b|\b[Ss]ignal 9\b|(?:^|[\]: ])Killed[ \t]*$")),
    ("SIGTERM", re.compile(r"\bSIGTERM\b|\b[Ss]ignal 15\b")),
)
#: every line a signal's words can match holds one of these (a substring test per line before the
#: seven searches: `last_fatal` reads every tail line of a thousand ranks)
_SIGNAL_HINTS = (
    "Segmentation",
    "SIG",
    "ignal ",
    "us error",
    "Floating",
    "Illegal",
    "Aborted",
    "Fatal Python",
    "terminate called",
    "*** ",
    "Killed",
)
# a launcher's or the shell's exit report: torchrun `exitcode: -7`, DeepSpeed `return code = -7`,
# srun `Exited with exit code 1`, subprocess `returned non-zero exit status 1`
_EXIT = re.compile(
    r"(?:exit ?code|exit status|return ?code|returncode"
    r"|(?:exited|terminated|died|failed) with (?:exit )?code)[ \t]*[:=]?[ \t]*(-?[0-9]{1,3})\b",
    re.IGNORECASE,
)
# a launcher tearing the other workers down after one failed: a consequence, never how a process ended
_TEARDOWN = re.compile(r"closing signal SIG|Sending process [0-9]+ |Killing subprocess [0-9]")
_WAITING = re.compile(r"\bwaiting\b|\btimed? ?out\b|\btimeout\b|\bstuck\b|\bhang", re.IGNORECASE)
_SIGNAL_NUMBERS = {
    4: "SIGILL",
    6: "SIGABRT",
    7: "SIGBUS",
    8: "SIGFPE",
    9: "SIGKILL",
    11: "SIGSEGV",
    15: "SIGTERM",
}
_STOPPED = frozenset({"SIGTERM", "KeyboardInterrupt"})  # ended from outside: no crash of its own


@dataclass(frozen=True, slots=True)
class _Class:
    """A fatal kind's taxonomy class, the entry tag that picks the entry in it, and how sure it is."""

    category: str
    tag: str
    confidence: float


#: the class each kind belongs to (TAXONOMY.md). SIGBUS: the corpus labels a bus error from a full
#: /dev/shm `dataloader_worker_killed`; SIGKILL: host memory, at most INCONCLUSIVE as elsewhere;
#: SIGILL: a binary built for another CPU or library, an environment mismatch.
CLASSES: dict[str, _Class] = {
    "exception": _Class("shape_or_user_code_error", "exception", 0.2),
    "exit": _Class("shape_or_user_code_error", "exception", 0.1),
    "SIGSEGV": _Class("segfault", "sigsegv", 0.3),
    "SIGABRT": _Class("segfault", "sigabrt", 0.25),
    "SIGFPE": _Class("segfault", "native", 0.25),
    "SIGILL": _Class("env_version_mismatch", "abi", 0.2),
    "SIGBUS": _Class("dataloader_worker_killed", "bus-error", 0.3),
    "SIGKILL": _Class("host_oom", "sigkill", 0.3),
    "traceback": _Class("shape_or_user_code_error", "exception", 0.15),
}


@dataclass(frozen=True, slots=True)
class Fatal:
    """The line a source ended with: its kind (`exception`, `exit` or a signal name) and a name for it."""

    kind: str
    name: str
    source: int
    line: int
    text: str
    firsthand: bool  # the process's own words, not a launcher's exit report about it


def verdict_kind(text: str, after_traceback: bool) -> tuple[str, str, bool] | None:
    """(kind, name, first-hand) of one line, or None when it is no fatal line."""
    bare = strip_delivery(text.lstrip(" \t"))  # a paste's indent may sit before a worker's label
    if _TEARDOWN.search(bare):
        return None
    if any(hint in bare for hint in _SIGNAL_HINTS):
        for name, rx in _SIGNAL_WORDS:
            if rx.search(bare):
                return name, name, True
    m = _EXCEPTION.match(bare)
    # an excerpt often drops the `Traceback` header; a message after the name is Python's format too
    found = (m.group(2), m.group(3)) if m else None
    if found is None and (h := _IPYTHON_HEADER.match(bare)) is not None:
        found = (h.group(1), h.group(1))  # a notebook's header: the name, even if the excerpt stops here
    if found is None and ": " in bare and (q := _QUALIFIED.search(bare)) is not None:
        found = (q.group(2), q.group(1)) if q.group(1) else (q.group(4), q.group(3))
    if found is not None and (after_traceback or found[1]) and found[0] not in _REPORTS:
        return ("stopped" if found[0] in _STOPPED else "exception"), found[0], True
    low = bare.lower()
    m = _EXIT.search(bare) if "exit" in low or "code" in low or "died" in low or "failed" in low else None
    if m:
        code = int(m.group(1))
        signo = -code if code < 0 else code - 128 if 128 < code < 160 else 0
        if signo in _SIGNAL_NUMBERS:
            return _SIGNAL_NUMBERS[signo], f"exit code {code}", False
        if code > 0:
            return "exit", f"exit code {code}", False
    return None


def last_fatal(job: Job, source: int) -> Fatal | None:
    """The source's strongest kind of fatal line (`_strength`), the last of that kind: what ended it."""
    seen_traceback = False
    last: dict[int, Fatal] = {}  # by `_strength`
    frames: list[tuple[int, str]] = []
    for n, text in job.scans[source].numbered_tail:
        if _TRACEBACK.match(strip_delivery(text.lstrip(" \t"))):
            seen_traceback = True
            continue
        if _FRAME.search(text):
            frames.append((n, text))
            continue
        found = verdict_kind(text, seen_traceback)
        if found is not None:
            kind, name, firsthand = found
            last[_strength(kind, firsthand)] = Fatal(kind, name, source, n, text, firsthand)
    if not last and len(frames) >= 2:  # frames and no line that ends them: the exception line was cut
        n, text = frames[-1]
        return Fatal("traceback", CUT_TRACEBACK, source, n, text, True)
    return last[min(last)] if last else None


def _strength(kind: str, firsthand: bool) -> int:
    """0 a crash in the process's own words, 1 a launcher's report of a fatal signal, 2 a stop from
    outside (KeyboardInterrupt, SIGTERM received), 3 a launcher's report of a plain non-zero exit."""
    if kind not in CLASSES:
        return 2
    if kind == "traceback":  # the process's own, but which exception is lost: a report's rank
        return 1
    if firsthand:
        return 0
    return 3 if kind == "exit" else 1


def first_failing(job: Job) -> Fatal | None:
    """The fatal line of the first failing source: the strongest kind (a process's own crash before a
    launcher's report), then the earliest timestamp, then the source order."""
    year = job_year(job.scans)
    found = [
        f for i, scan in enumerate(job.scans) if scan.source.kind != "kernel" if (f := last_fatal(job, i))
    ]

    def key(f: Fatal) -> tuple[int, float, int]:
        stamp = parse_timestamp(f.text, year)
        t = stamp.value if stamp is not None and not stamp.relative else float("inf")
        return (_strength(f.kind, f.firsthand), t, f.source)

    return min(found, key=key) if found else None


#: the tag of entries whose lines are never a root cause (a launcher tearing the workers down): when
#: one is all that matched, a crash in the logs is the better answer than the entry's hang
TEARDOWN_TAG = "teardown"


def yields_to_crash(job: Job, entry: Entry) -> bool:
    """Only a launcher's teardown matched, and a source ended on a crash: the crash is the answer."""
    if TEARDOWN_TAG not in entry.tags:
        return False
    fatal = first_failing(job)
    return fatal is not None and fatal.kind in CLASSES


def entry_for(job: Job, category: str, tag: str) -> Entry | None:
    """The entry that explains `category`: those carrying `tag` first, then priority, then id."""
    pool = [e for e in job.entries.values() if e.category == category]
    pool.sort(key=lambda e: (tag not in e.tags, -e.priority, e.id))
    return pool[0] if pool else None


@dataclass(slots=True)
class NoMatch:
    """What the no-match answer says; `attribution` turns it into its `Verdict`."""

    category: str
    entry: Entry | None
    confidence: float
    notes: list[str]
    rank: int | None = None
    node: str | None = None
    stamp: Stamp | None = None
    actor: ActorKey | None = None
    context: list[tuple[int, LineHit]] = field(default_factory=list)


def no_match(job: Job, fallback_entry: Entry | None) -> NoMatch:
    """The class of the first failing source's last fatal line; the hang (`fallback_entry`) only when
    no source ended on one, or the job was stopped from outside."""
    fatal = first_failing(job)
    cls = CLASSES.get(fatal.kind) if fatal is not None else None
    if fatal is None or cls is None:
        category = fallback_entry.category if fallback_entry else wording.FALLBACK_CATEGORY
        if fatal is not None:  # stopped from outside (KeyboardInterrupt, SIGTERM): still no crash
            note = wording.no_match_stopped(_short(fatal.text))
            return NoMatch(
                category, fallback_entry, 0.1, [note], context=[(fatal.source, hit_of(job, fatal))]
            )
        waiting = _waiting_line(job)
        if waiting is None:
            return NoMatch(category, fallback_entry, 0.1, [wording.no_match()])
        note = wording.no_match_waiting(_short(waiting[1].text))
        return NoMatch(category, fallback_entry, 0.1, [note], context=[waiting])
    rank, node, actor, stamp = who(job, fatal)
    return NoMatch(
        category=cls.category,
        entry=entry_for(job, cls.category, cls.tag),
        confidence=cls.confidence,
        notes=[wording.no_match_last_error(_short(fatal.text), fatal.name, fatal.firsthand)],
        rank=rank,
        node=node,
        stamp=stamp,
        actor=actor,
        context=[(fatal.source, hit_of(job, fatal))],
    )


def hit_of(job: Job, fatal: Fatal) -> LineHit:
    """The fatal line as a retained hit, so the report shows it as the evidence."""
    return _hit(job, fatal.line, fatal.text)


def who(job: Job, fatal: Fatal) -> tuple[int | None, str | None, ActorKey, Stamp | None]:
    """Rank, node, actor and time of the fatal line: a rank is named only from its own words."""
    src = job.scans[fatal.source].source
    hit = hit_of(job, fatal)
    rank = hit.rank.rank if hit.rank.rank is not None else src.rank if src.kind == "rank" else None
    if rank is None and hit.rank.local is not None and job.single_node:
        rank = hit.rank.local  # a node-local index (spawn: `process 1`, `--local_rank=1`): one node
    if not fatal.firsthand:
        rank = None
    actor: ActorKey = ("rank", str(rank)) if rank is not None else ("source", src.name)
    node = job.rank_node.get(rank, src.node) if rank is not None else src.node
    return rank, node, actor, hit.stamp


def _hit(job: Job, line: int, text: str) -> LineHit:
    stamp = parse_timestamp(text, job_year(job.scans))
    return LineHit(line=line, text=text, patterns=[], rank=parse_rank(text), stamp=stamp)


def _waiting_line(job: Job) -> tuple[int, LineHit] | None:
    """The last line of a source, if it says the job was waiting or timing out."""
    for i, scan in enumerate(job.scans):
        if scan.source.kind != "kernel" and scan.numbered_tail:
            n, text = scan.numbered_tail[-1]
            if _WAITING.search(text):
                return i, _hit(job, n, text)
    return None


def _short(text: str) -> str:
    text = strip_delivery(text).strip()
    return text if len(text) <= 200 else text[:200] + "…"
