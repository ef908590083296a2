"""The job's own records a message asks for by name, quoted with file:line and time: the lines it cites
("combined.log:411 is cited: what does it show?", "the Root Cause block (console.log:107-114): what
time?"), the kernel's kill record ("quote the kernel line", "total-vm and UID of the killed proc?"), the
launcher's record of the failed process ("why rank 2? the only traceback is from rank 0", "exit code
of the killed one"), whom the launcher sent SIGTERM ("which process ids?"), the values logged at named
steps ("loss at step 0 and step 1, and when?"), how far it got ("how many completed?"), the last
training step before the save and when the save began, and the full path of a cited code frame
("which file + line of our code?").

Why: the answer for the message's first ask states the conclusion (a host OOM, rank 2 first, the save)
and leaves out the record the message asks to see: the kernel's `Killed process 3312 … total-vm`, the
launcher's `failed (exitcode: -9) local_rank: 2 (pid: 3312)`, each SIGTERM'd pid, each step line. Each
step quotes the job's line and its figures; nothing is added when the job has no such line.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_howfar as th
from denpex.core.texts import followups_records as tx
from knowledge import answer_asks, answer_code, answer_grounds
from knowledge.answer_join import first
from knowledge.answer_types import Ctx, Reply, rank_lines, ref, when
from knowledge.jobfacts_answers import launcher_exits
from knowledge.lines import parse_timestamp

_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")
#: a span of lines the message cites: `console.log:107-114` (one line: `answer_cited_line`)
_CITED = re.compile(r"\b([\w./-]+\.(?:log|out|err|txt|dmesg|json)):(\d+) ?[-–] ?(\d+)\b")
_KILL_ASK = re.compile(
    r"\bkernel(?:'s)? (?:line|log|record|message|entry)\b|\btotal[- ]?vm\b|\banon[- ]?rss\b|\buid\b"
    r"|\bkilled (?:proc\w*|pid)\b|\bquote\b[^?]{0,30}\b(?:dmesg|oom[- ]?killer)\b",
    re.IGNORECASE,
)
_KILL = re.compile(r"Killed process (\d+) \(([^)]+)\) total-vm:(\d+)kB, anon-rss:(\d+)kB(?:.*?UID:(\d+))?")
_EXIT_ASK = re.compile(
    r"\bexit ?codes?\b|\bexitcode\b|\blocal_rank\b|\bwhy (?:was it |is it )?rank (\d+)\b", re.IGNORECASE
)
_FAILED = re.compile(r"failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\)")
_SIGTERM_ASK = re.compile(r"\bsigterm\b|\bclosing signal\b|\bsignal 15\b", re.IGNORECASE)
_PIDS_ASK = re.compile(
    r"\bpids?\b|\bprocess(?:es)?(?: ids?)?\b|\bwho(?:m)?\b|\bwhich ranks?\b", re.IGNORECASE
)
_SENDING = re.compile(r"Sending process (\d+) closing signal (SIG\w+)")
_SUMMARY_RANK = re.compile(r"^\s*rank\s*: (\d+)")
_SUMMARY_PID = re.compile(r"^\s*exitcode\s*: -?\d+ \(pid: (\d+)\)")
_STEP_LINE = re.compile(r"\bstep (\d+)(?:/(\d+))?\b(?! *(?:of|/)? *\d* *(?:done|steps?))", re.IGNORECASE)
_STEPS_ASKED = re.compile(r"\bsteps? (\d+)(?:(?:,| and| &| or) (?:step )?(\d+))*", re.IGNORECASE)
_VALUE_ASK = re.compile(r"\bloss(?:es)?\b|\blr\b|\bgrad[_ ]?norm\b|\bvalues?\b|\bmetrics?\b", re.IGNORECASE)
_METRIC = re.compile(r"\b(?:loss|lr|grad_norm)\b", re.IGNORECASE)
_HOW_MUCH = re.compile(
    r"\bhow much (?:training|progress|work)\b|\bhow many (?:steps )?(?:completed|finished|done|ran)\b"
    r"|\bhow many (?:steps )?(?:did (?:it|we|the run) )?(?:complete|finish)\b",
    re.IGNORECASE,
)
_SAVE_GAP_ASK = re.compile(
    r"\b(?:last|final) (?:train\w* )?step\b[^?]{0,80}\bsav\w*|\bsav\w*\b[^?]{0,80}\b(?:last|final) "
    r"(?:train\w* )?step\b",
    re.IGNORECASE,
)
_SAVE_LINE = re.compile(
    r"\bsav(?:e|ing)\b[^\n]{0,30}\b(?:checkpoint|model|state)|\bcheckpoint\b[^\n]{0,20}\bsav", re.IGNORECASE
)
_FILE_ASK = re.compile(
    r"\bwhich (?:source )?file\b|\bfile ?(?:\+|and|&) ?line\b|\bfull path\b|\bwhat file\b", re.IGNORECASE
)
_EMPTY_ASK = re.compile(
    r"\b(?:stderr|stdout)(?:\.log)?s?\b[^?]{0,40}\bempty\b|\bempty\b[^?]{0,40}\b(?:stderr|stdout)",
    re.IGNORECASE,
)
#: answers not about the files: the empty file asked leads them ("r3 stderr empty, is that bad")
_NOT_RECORDS = frozenset({"hardware", "judge", "severity", "explain", "summary"})
_RANK_FILE = re.compile(r"(?:^|/)(\d+)/(stdout\.log|stderr\.log)$")
_FRAME_NAMED = re.compile(r"`?([\w.-]+\.py)`? line (\d+)")


def _quote(ln: EvidenceLine) -> str:
    text = _PREFIX.sub("", ln.text).strip()
    return text if len(text) <= 220 else text[:220] + "…"


def _at(ln: EvidenceLine) -> str:
    stamp = parse_timestamp(_PREFIX.sub("", ln.text))
    return f", {when(stamp.iso())}" if stamp is not None and not stamp.relative else ""


def _add(got: Reply, said: str, shown: list[EvidenceLine]) -> Reply:
    return answer_grounds.add(got, said, shown)


def _cited(c: Ctx, text: str, got: Reply) -> Reply:
    lines = answer_grounds.all_lines(c)
    for m in list(_CITED.finditer(text))[:3]:
        name, first = m.group(1), int(m.group(2))
        last = min(int(m.group(3)), first + 11)
        found = [
            ln
            for ln in lines
            if (ln.source == name or ln.source.endswith("/" + name)) and first <= ln.line <= last
        ]
        found.sort(key=lambda ln: ln.line)
        if not found:
            continue
        span = f"{found[0].source}:{first}" + (f"-{last}" if last > first else "")
        if len(found) == 1:
            said = tx.CITED.format(ref=found[0].ref, at=_at(found[0]), text=_quote(found[0]))
        else:
            texts = " / ".join(f"`{_quote(ln)}`" for ln in found if _quote(ln))
            said = tx.CITED_SPAN.format(ref=span, at="", texts=texts)
        got = _add(got, said, found[:3])
    return got


def _gib(kb: str) -> str:
    return f"{int(kb) / 1024**2:.1f} GiB"


def kill_record(c: Ctx) -> tuple[str, EvidenceLine] | None:
    """The kernel's `Killed process` line: the sentence with its pid, sizes and UID, and the line."""
    for ln in answer_grounds.all_lines(c):
        if (m := _KILL.search(ln.text)) is not None:
            uid = tx.KILL_UID.format(uid=m.group(5)) if m.group(5) else ""
            said = tx.KILL.format(
                ref=ln.ref,
                at=_at(ln),
                text=_quote(ln),
                pid=m.group(1),
                comm=m.group(2),
                vm=m.group(3),
                vm_gib=_gib(m.group(3)),
                rss=m.group(4),
                rss_gib=_gib(m.group(4)),
                uid=uid,
            )
            return said, ln
    return None


def _kill(c: Ctx, text: str, got: Reply) -> Reply:
    if not _KILL_ASK.search(text) or (found := kill_record(c)) is None:
        return got
    said, ln = found
    if re.search(r"\bgpu\b|\bcuda\b|\bvram\b", text, re.IGNORECASE):
        said = f"{said} {tx.KILL_HOST}"
    return _add(got, said, [ln])


def _launcher(c: Ctx, text: str, got: Reply) -> Reply:
    m = _EXIT_ASK.search(text)
    ini = c.view.initiating
    if m is None or (m.group(1) is not None and (ini is None or int(m.group(1)) != ini.rank)):
        return got
    for ln in answer_grounds.all_lines(c):
        if (f := _FAILED.search(ln.text)) is None:
            continue
        code = int(f.group(1))
        sig = " (SIGKILL)" if code == -9 else " (SIGTERM)" if code == -15 else ""
        said = tx.LAUNCHER.format(
            ref=ln.ref, at=_at(ln), text=_quote(ln), local=f.group(2), pid=f.group(3), code=code, sig=sig
        )
        shown = [ln]
        kill = kill_record(c)
        if kill is not None and f"Killed process {f.group(3)} " in kill[1].text:
            said += tx.LAUNCHER_SAME_PID.format(pid=f.group(3), ref=kill[1].ref)
            shown.append(kill[1])
        return _add(got, said, shown)
    return got


def _pid_ranks(lines: list[EvidenceLine]) -> dict[str, int]:
    """pid -> rank from the launcher's failure summary (`rank : 0 (local_rank: 0)` then `(pid: N)`)."""
    out: dict[str, int] = {}
    rank: int | None = None
    for ln in lines:
        if (r := _SUMMARY_RANK.search(ln.text)) is not None:
            rank = int(r.group(1))
        elif (p := _SUMMARY_PID.search(ln.text)) is not None and rank is not None:
            out.setdefault(p.group(1), rank)
    return out


def _sigterm(c: Ctx, text: str, got: Reply) -> Reply:
    if not (_SIGTERM_ASK.search(text) and _PIDS_ASK.search(text)):
        return got
    lines = answer_grounds.all_lines(c)
    sent = [(ln, m) for ln in lines if (m := _SENDING.search(ln.text)) is not None]
    if not sent:
        return got
    ranks = _pid_ranks(lines)
    pids = [m.group(1) for _, m in sent]
    who = ", ".join(f"pid {p} = rank {ranks[p]}" for p in pids if p in ranks)
    first, last = sent[0][0], sent[-1][0]
    span = first.ref + (f"-{last.line}" if last.line != first.line and last.source == first.source else "")
    said = tx.SIGTERM.format(
        sig=sent[0][1].group(2),
        pids=", ".join(pids),
        ref=span,
        at=_glog_at(first),
        who=tx.SIGTERM_WHO.format(ranks=who) if who else "",
    )
    return _add(got, said, [ln for ln, _ in sent][:4])


def _glog_at(ln: EvidenceLine) -> str:
    """`, at 21:37:15 (as printed)` from a glog line's `W1201 21:37:15.863000` (no year on it)."""
    if (t := _at(ln)) != "":
        return t
    m = re.match(r"^[IWEF]\d{4} (\d\d:\d\d:\d\d)", _PREFIX.sub("", ln.text))
    return f", {m.group(1)}" if m else ""


def _step_lines(c: Ctx) -> list[tuple[int, EvidenceLine]]:
    """(step, line) of every kept line that logs a training step with a metric, rank by rank in order."""
    out: list[tuple[int, EvidenceLine]] = []
    for ln in answer_grounds.all_lines(c):
        if _METRIC.search(ln.text) and (m := _STEP_LINE.search(ln.text)) is not None:
            out.append((int(m.group(1)), ln))
    return out


def _values(c: Ctx, text: str, got: Reply) -> Reply:
    named = " ".join(x.group(0) for x in _STEPS_ASKED.finditer(text))
    asked = [int(n) for n in re.findall(r"\b(\d+)\b", named)]
    if not asked or not _VALUE_ASK.search(text):
        return got
    rows = []
    shown = []
    lines = _step_lines(c)
    for step in dict.fromkeys(asked):
        mine = [ln for s, ln in lines if s == step]
        if mine:
            ln = mine[0]
            rows.append(tx.STEP_VALUE.format(step=step, text=_quote(ln), ref=ln.ref, at=_at(ln)))
            shown.append(ln)
    if not rows:
        return got
    return _add(got, tx.STEP_VALUES.format(rows="; ".join(rows)), shown)


def _how_much(c: Ctx, text: str, got: Reply) -> Reply:
    if not _HOW_MUCH.search(text):
        return got
    logged = [r for r in c.view.ranks.values() if r.last_step is not None and r.last_step_line is not None]
    if not logged:
        return got
    best = max(logged, key=lambda r: (r.last_step or 0, -r.rank))
    line = best.last_step_line
    assert line is not None
    total = re.search(r"\bstep\s+\d+\s*/\s*(\d+)\b", line.text, re.IGNORECASE)
    of = th.HOW_FAR_OF.format(step=best.last_step, total=total.group(1)) if total else ""
    said = th.HOW_FAR.format(step=best.last_step, of=of, rank=best.rank, ref=line.ref, at=_at(line))
    if f"step {best.last_step}" in answer_asks.said(got) and (not of or of.strip() in got.lead):
        return got
    return _add(got, said, [line])


def _save_gap(c: Ctx, text: str, got: Reply) -> Reply:
    ini = c.view.initiating
    if not _SAVE_GAP_ASK.search(text) or ini is None:
        return got
    for lines in rank_lines(c, ini.rank).values():
        steps = [ln for ln in lines if _METRIC.search(ln.text) and _STEP_LINE.search(ln.text)]
        if not steps:
            continue
        last = steps[-1]
        save = next((ln for ln in lines if ln.line > last.line and _SAVE_LINE.search(ln.text)), None)
        t0, t1 = parse_timestamp(_PREFIX.sub("", last.text)), None
        if save is not None:
            t1 = parse_timestamp(_PREFIX.sub("", save.text))
        if save is None or t0 is None or t1 is None or t0.relative or t1.relative:
            continue
        m = _STEP_LINE.search(last.text)
        assert m is not None
        gap = round(t1.value - t0.value)
        said = tx.LAST_BEFORE_SAVE.format(
            rank=ini.rank,
            step=m.group(1),
            ref=last.ref,
            at=_at(last),
            save_at=f"at {when(t1.iso())}",
            save_ref=save.ref,
            save_text=_quote(save),
            gap=f"{gap} s" + (f" ({gap / 60:.1f} min)" if gap >= 120 else ""),
        )
        return _add(got, said, [last, save])
    return got


def _full_path(c: Ctx, text: str, got: Reply) -> Reply:
    if not _FILE_ASK.search(text):
        return got
    told = answer_asks.said(got)
    frames = answer_code._frames(answer_grounds.all_lines(c))
    for m in _FRAME_NAMED.finditer(got.lead):
        name, number = m.group(1), int(m.group(2))
        for f in frames:
            if f.user and f.number == number and f.path.rsplit("/", 1)[-1] == name and f.path != name:
                if f.path.lower() in told:
                    return got
                said = tx.FULL_PATH.format(path=f.path, line=number, func=f.func, ref=f.line.ref)
                return _add(got, said, [f.line])
    return got


def _unread(c: Ctx) -> list[tuple[int, str]]:
    """(rank, path) of each per-rank `stdout.log`/`stderr.log` scanned without a line (empty): its twin
    file has lines and the scan counted exactly that many more files than those with lines."""
    sources = {t.source for t in c.d.tails}
    pairs = {"stdout.log": "stderr.log", "stderr.log": "stdout.log"}
    missing: list[tuple[int, str]] = []
    for src in sorted(sources):
        m = _RANK_FILE.search(src)
        if m is not None:
            twin = src[: m.start(2)] + pairs[m.group(2)]
            if twin not in sources and (int(m.group(1)), twin) not in missing:
                missing.append((int(m.group(1)), twin))
    return missing if missing and c.d.stats.files - len(sources) == len(missing) else []


def _empty(c: Ctx, text: str, got: Reply) -> Reply:
    if not _EMPTY_ASK.search(text):
        return got
    for rank, path in _unread(c):
        said, shown = tx.EMPTY_FILE.format(path=path, rank=rank, files=c.d.stats.files), []
        stop = next((e for e in launcher_exits(c.d) if e.rank == rank and e.signal is not None), None)
        if stop is not None:  # the launcher stopped it: nothing of its own to print, not a bad sign
            said += " " + tx.EMPTY_STOPPED.format(
                rank=rank,
                sig=stop.signal,
                code=stop.code,
                pid=f", pid {stop.pid}" if stop.pid else "",
                ref=ref(stop.line),
            )
            shown = [stop.line]
        got = first(got, said, shown) if got.intent in _NOT_RECORDS else _add(got, said, shown)
    ini = c.view.initiating
    if ini is None or ini.first_line is None:
        return got
    err = _PREFIX.sub("", ini.first_line.text).strip()
    for ln in answer_grounds.all_lines(c):
        if ln.source.endswith("stderr.log") and _PREFIX.sub("", ln.text).strip() == err:
            return _add(got, tx.ERR_FILE.format(rank=ini.rank, ref=ln.ref, text=err), [ln])
    return got


def with_records(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with each record of the job the message asks to see (see the module's docstring)."""
    got = _cited(c, text, got)
    got = _kill(c, text, got)
    got = _launcher(c, text, got)
    got = _sigterm(c, text, got)
    got = _values(c, text, got)
    got = _how_much(c, text, got)
    got = _save_gap(c, text, got)
    got = _empty(c, text, got)
    return _full_path(c, text, got)


__all__ = ["kill_record", "with_records"]
