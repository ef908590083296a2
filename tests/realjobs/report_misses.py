"""Where the engine disagrees with the real jobs' labels, with the log lines that decide the truth.

    .venv/bin/python -m tests.realjobs.report_misses [OUT.md]

For every fixture view the engine gets wrong, writes the label, the engine's answer and the lines
(file:line) that establish the true class and initiating rank, found by the patterns below (one
list per injected fault kind; `{r}` is the faulty rank).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from knowledge.engine import Engine
from tests.knowledge.engine_support import entries_dir
from tests.realjobs.runner import FIXTURES
from tests.realjobs.test_realjobs import diagnose, problems

DECISIVE: dict[str, list[str]] = {
    "shape": [
        r"\[rank{r}\]: RuntimeError: mat1 and mat2",
        r"failed \(exitcode: 1\) local_rank: {r}",
        r"^\s*{r}: .*RuntimeError: mat1 and mat2",
        r"task {r}: Exited",
    ],
    "sigkill": [
        r"exitcode: -9\) local_rank: {r}",
        r"Signal 9 \(SIGKILL\)",
        r"Connection (reset|closed) by peer",
    ],
    "hang": [
        r"\[rank\d\]: RuntimeError: .*Timed out waiting",
        r"failed to pass monitoredBarrier",
        r"exitcode  : -15 \(pid: \d+\)",
    ],
    "desync": [r"Detected mismatch between collectives", r"\[rank{r}\]:\s+dist\.broadcast"],
    "nan": [r"Loss is nan", r"failed \(exitcode: 1\) local_rank: {r}"],
    "disk_full": [
        r"Saving checkpoint to",
        r"No space left|file write failed|PytorchStreamWriter",
        r"Errno 28",
    ],
    "worker_kill": [r"DataLoader worker \(pid"],
    "memory_train": [r"DefaultCPUAllocator", r"failed \(exitcode: 1\) local_rank: {r}"],
    "memory_python": [r"\[rank{r}\]: MemoryError", r"failed \(exitcode: 1\) local_rank: {r}"],
    "memory_gather": [
        r"Saving checkpoint to",
        r"\[rank{r}\]:.*(get_state_dict|_gather_state_dict)",
        r"\[rank{r}\]: RuntimeError: .*DefaultCPUAllocator",
    ],
    "segfault": [
        r"exitcode: -11\) local_rank: {r}",
        r"SIGSEGV|Segmentation fault",
        r"task {r}: Segm",
        r"Connection (reset|closed) by peer",
    ],
    "user_error": [r"\[rank{r}\]: KeyError", r"Restarting|restart_count|max_restarts"],
    "none": [
        r"EADDRINUSE|address already in use|DistNetworkError|DistStoreError",
        r"SIGSEGV",
        r"set_construction_data",
    ],
}
MAX_LINES = 5


def decisive_lines(logs: Path, paths: list[str], kind: str, rank: int | None) -> list[str]:
    patterns = [
        re.compile(p.replace("{r}", str(rank if rank is not None else r"\d"))) for p in DECISIVE[kind]
    ]
    out: list[str] = []
    files = sorted(
        f
        for p in paths
        for f in ([logs / p] if (logs / p).is_file() else (logs / p).rglob("*"))
        if f.is_file()
    )
    for pattern in patterns:
        hits = [
            f"`{f.relative_to(logs.parent.parent)}:{n}`: `{line.strip()[:160]}`"
            for f in files
            for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1)
            if pattern.search(line)
        ]
        out.extend(hits[:2])
    return out[:MAX_LINES]


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else None
    engine = Engine.load(entries_dir())
    lines = [
        "# Real jobs the engine gets wrong",
        "",
        "Made by `.venv/bin/python -m tests.realjobs.report_misses`; labels from the injected fault "
        "(tests/realjobs/jobs.toml), not from the engine.",
        "",
    ]
    total = wrong = 0
    for meta_path in sorted(FIXTURES.glob("*/meta.json")):
        meta = json.loads(meta_path.read_text())
        for view, paths in meta["views"].items():
            exp = meta["expected_per_view"][view]
            total += 1
            diag = diagnose(engine, meta_path.parent / "logs", paths)
            found = problems(diag, exp)
            if not found:
                continue
            wrong += 1
            ev = diag.initiating.evidence[0] if diag.initiating.evidence else None
            lines += [
                f"## {meta['job']} [{view}: {', '.join(paths)}]",
                "",
                f"- label: **{exp['category'] or '(none provable)'}**, rank **{exp['initiating_rank']}** "
                f"- {exp['why']}",
                f"- engine: {diag.category} ({diag.entry.id if diag.entry else '-'}), conf "
                f"{diag.confidence:.2f}, rank {diag.initiating.rank}"
                + (f"; its evidence `{ev.source}:{ev.line}`: `{ev.text[:140]}`" if ev else ""),
                f"- wrong: {'; '.join(found)}",
                "- deciding lines:",
            ]
            lines += [
                f"  - {d}"
                for d in decisive_lines(
                    meta_path.parent / "logs", paths, meta["fault"]["kind"], exp["initiating_rank"]
                )
            ]
            lines.append("")
    lines.insert(4, f"**{total - wrong}/{total} fixture views right, {wrong} wrong.**\n")
    text = "\n".join(lines) + "\n"
    if out:
        out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
