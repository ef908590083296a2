"""Where a Slurm job's ranks wrote their logs: filename patterns, batch scripts and the files on disk.

Slurm expands `--output`/`--error` patterns itself (`%j` job id, `%t` task id, `%N` node, …), and only
`scontrol show job` reports the expanded batch StdOut, only while the job is in memory. Per-task
files (`srun --output=%j_%t.out`) are never reported anywhere: the collector reads the batch script
(`scontrol write batch_script`, or `sacct -B` later), finds each `srun`'s `-o/-e`, and matches the
pattern against the files that exist, which also recovers `%N`/`%n` without knowing the task layout.
"""

from __future__ import annotations

import glob
import os
import re
import shlex
from dataclasses import dataclass

#: srun/sbatch short options that take a value (so the parser can skip them to reach the program)
_SHORT_WITH_VALUE = set("ABbCcDdeGiJLMmNnopqSTtwxz")
_LONG_NO_VALUE = {
    "label",
    "unbuffered",
    "overlap",
    "exact",
    "exclusive",
    "kill-on-bad-exit",
    "quiet",
    "verbose",
    "no-kill",
    "wait-all-nodes",
    "pty",
    "spread-job",
    "test-only",
    "use-min-nodes",
    "oversubscribe",
    "preserve-env",
    "disable-status",
    "no-allocate",
    "multi-prog",
    "hold",
    "contiguous",
    "nice",
    "parsable",
    "wait",
    "requeue",
    "no-requeue",
    "ignore-pbs",
    "overcommit",
    "get-user-env",
    "export-file",
}
_PATTERN = re.compile(r"%(\d*)([A-Za-z%])")
_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
MAX_MATCHES = 4096


@dataclass(frozen=True)
class OutputSpec:
    """One place a launcher writes to: a filename pattern, its stream, and whether lines are labelled."""

    pattern: str
    stream: str  # "stdout" | "stderr"
    label: bool
    origin: str  # where it was found, for messages: "srun (line 7)", "#SBATCH", "SubmitLine"
    cwd: str | None = None  # `srun -D/--chdir`


@dataclass(frozen=True)
class Found:
    """A file that matches a pattern, with the task id and node its name encodes."""

    path: str
    task: int | None
    node: str | None


def logical_lines(script: str) -> list[tuple[int, str]]:
    """Lines with backslash continuations joined, numbered from 1 (the first physical line)."""
    out: list[tuple[int, str]] = []
    buf, start = "", 0
    for number, line in enumerate(script.splitlines(), 1):
        if not buf:
            start = number
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        out.append((start, buf + line))
        buf = ""
    if buf:
        out.append((start, buf))
    return out


def _tokens(line: str) -> list[str]:
    try:
        return shlex.split(line, comments=True)
    except ValueError:  # unbalanced quotes: fall back to whitespace
        return line.split("#", 1)[0].split()


def parse_options(args: list[str]) -> tuple[dict[str, str], bool]:
    """`-o X`, `-oX`, `--output=X`, `--output X`, `-l`/`--label`, `-D`/`--chdir` of srun/sbatch args,
    up to the program; returns ({'output':…, 'error':…, 'chdir':…}, label)."""
    opts: dict[str, str] = {}
    label = False
    short_names = {"o": "output", "e": "error", "D": "chdir"}
    i = 0
    while i < len(args):
        tok = args[i]
        if tok == "--" or not tok.startswith("-") or tok == "-":
            break
        if tok.startswith("--"):
            name, eq, val = tok[2:].partition("=")
            if name == "label":
                label = True
            nxt = args[i + 1] if i + 1 < len(args) else None
            # a value follows unless the option is a known flag, or the next word is another option
            takes = (
                nxt is not None
                and name not in _LONG_NO_VALUE
                and (name in ("output", "error", "chdir") or not nxt.startswith("-"))
            )
            if not eq and takes and nxt is not None:
                val, i = nxt, i + 1
            if name in ("output", "error", "chdir"):
                opts[name] = val
        else:
            letters = tok[1:]
            for pos, ch in enumerate(letters):
                if ch == "l":
                    label = True
                if ch in _SHORT_WITH_VALUE:
                    val = letters[pos + 1 :].lstrip("=")
                    if not val and i + 1 < len(args):
                        val, i = args[i + 1], i + 1
                    if ch in short_names:
                        opts[short_names[ch]] = val
                    break
        i += 1
    return opts, label


def _launch_args(tokens: list[str], program: str) -> list[str] | None:
    """The arguments after `program` (srun) in a command line, skipping `exec`, `time`, VAR=x, …."""
    for i, tok in enumerate(tokens):
        if os.path.basename(tok) == program:
            return tokens[i + 1 :]
    return None


def srun_specs(script: str) -> list[OutputSpec]:
    """Every `srun` in a batch script that sets `--output`/`--error` or `--label`."""
    specs: list[OutputSpec] = []
    for number, line in logical_lines(script):
        if line.lstrip().startswith("#"):
            continue
        for segment in re.split(r"\s(?:&&|\|\||;|\|)\s", line):
            args = _launch_args(_tokens(segment), "srun")
            if args is None:
                continue
            opts, label = parse_options(args)
            origin = f"srun (line {number})"
            for stream in ("output", "error"):
                if stream in opts:
                    specs.append(
                        OutputSpec(
                            opts[stream],
                            "stdout" if stream == "output" else "stderr",
                            label,
                            origin,
                            opts.get("chdir"),
                        )
                    )
    return specs


def sbatch_streams(script: str | None, submit_line: str | None) -> dict[str, str]:
    """The batch job's `--output`/`--error` patterns from `#SBATCH` lines, overridden by the command
    line (SubmitLine), as Slurm applies them."""
    found: dict[str, str] = {}
    for _, line in logical_lines(script or ""):
        stripped = line.strip()
        if not stripped.startswith("#SBATCH"):
            if stripped and not stripped.startswith("#"):
                break  # sbatch stops reading #SBATCH at the first command
            continue
        opts, _ = parse_options(_tokens(stripped[len("#SBATCH") :]))
        found.update({k: v for k, v in opts.items() if k in ("output", "error")})
    if submit_line:
        args = _launch_args(_tokens(submit_line), "sbatch")
        if args is not None:
            opts, _ = parse_options(args)
            found.update({k: v for k, v in opts.items() if k in ("output", "error")})
    return found


@dataclass(frozen=True)
class Values:
    """What a job's patterns may be expanded with; None means "any" (matched against the disk)."""

    job_id: str
    array_job_id: str | None = None
    array_task_id: str | None = None
    user: str | None = None
    name: str | None = None
    work_dir: str | None = None


def _vars(text: str, v: Values) -> tuple[str, bool]:
    """Expand `$SLURM_JOB_ID`-style variables in a path; unknown ones become a glob `*`."""
    known = {
        "SLURM_JOB_ID": v.job_id,
        "SLURM_JOBID": v.job_id,
        "SLURM_ARRAY_JOB_ID": v.array_job_id,
        "SLURM_ARRAY_TASK_ID": v.array_task_id,
        "SLURM_JOB_NAME": v.name,
        "USER": v.user,
        "SLURM_SUBMIT_DIR": v.work_dir,
        "HOME": None,
    }
    wild = False

    def sub(m: re.Match[str]) -> str:
        nonlocal wild
        val = known.get(m.group(1))
        if val is None:
            wild = True
            return "\0*\0"
        return val

    return _VAR.sub(sub, text), wild


def pattern_regex(pattern: str, v: Values) -> tuple[str, re.Pattern[str]]:
    """(glob, regex) for a filename pattern: known letters expanded, `%t`/`%N`/`%n`/`%s` captured."""
    text, _ = _vars(pattern, v)
    if not os.path.isabs(text):
        text = os.path.join(v.work_dir or ".", text)
    fixed = {"j": v.job_id, "A": v.array_job_id or v.job_id, "a": v.array_task_id, "u": v.user, "x": v.name}
    glob_parts: list[str] = []
    rx_parts: list[str] = []
    pos = 0
    for m in _PATTERN.finditer(text):
        literal = text[pos : m.start()]
        glob_parts.append(glob.escape(literal).replace("\0[*]\0", "*"))
        rx_parts.append(re.escape(literal).replace(re.escape("\0*\0"), "[^/]*"))
        pos = m.end()
        width, letter = m.group(1), m.group(2)
        val = fixed.get(letter)
        if letter == "%":
            glob_parts.append("[%]")
            rx_parts.append("%")
        elif val is not None:
            val = val.zfill(int(width)) if width and val.isdigit() else val
            glob_parts.append(glob.escape(val))
            rx_parts.append(re.escape(val))
        else:
            glob_parts.append("*")
            group = {"t": "(?P<t>\\d+)", "N": "(?P<N>[^/]+?)", "n": "(?P<n>\\d+)", "J": "[^/]+"}
            rx_parts.append(group.get(letter, "[^/]*?"))
    literal = text[pos:]
    glob_parts.append(glob.escape(literal).replace("\0[*]\0", "*"))
    rx_parts.append(re.escape(literal).replace(re.escape("\0*\0"), "[^/]*"))
    return "".join(glob_parts), re.compile("".join(rx_parts))


def find_files(pattern: str, v: Values) -> list[Found]:
    """Files on disk matching a pattern, sorted by task id then path (at most MAX_MATCHES). A relative
    pattern with no known work dir matches nothing (never the worker's own directory)."""
    if not os.path.isabs(_vars(pattern, v)[0]) and not v.work_dir:
        return []
    gpat, rx = pattern_regex(pattern, v)
    found: list[Found] = []
    for path in glob.iglob(gpat):
        m = rx.fullmatch(path)
        if m is None:
            continue
        groups = m.groupdict()
        task = int(groups["t"]) if groups.get("t") else None
        found.append(Found(path, task, groups.get("N")))
        if len(found) >= MAX_MATCHES:
            break
    return sorted(found, key=lambda f: (f.task if f.task is not None else -1, f.path))


def per_task(pattern: str) -> bool:
    """Whether a pattern makes one file per task (`%t`)."""
    return any(m.group(2) == "t" for m in _PATTERN.finditer(pattern))


def expand_single(pattern: str, v: Values, node: str | None = None) -> str:
    """A batch-step pattern expanded the way Slurm does for the batch step (task 0 on the first node)."""
    text, _ = _vars(pattern, v)
    if not os.path.isabs(text):
        text = os.path.join(v.work_dir or ".", text)
    subs = {
        "j": v.job_id,
        "J": f"{v.job_id}.batch",
        "A": v.array_job_id or v.job_id,
        "a": v.array_task_id or "4294967294",
        "u": v.user or "",
        "x": v.name or "",
        "N": node or "",
        "n": "0",
        "t": "0",
        "s": "batch",
        "%": "%",
    }

    def sub(m: re.Match[str]) -> str:
        val = subs.get(m.group(2), m.group(0))
        return val.zfill(int(m.group(1))) if m.group(1) and val.isdigit() else val

    return _PATTERN.sub(sub, text).replace("\0*\0", "*")


def default_output(v: Values) -> str:
    """sbatch's default output pattern."""
    return "slurm-%A_%a.out" if v.array_task_id else "slurm-%j.out"
