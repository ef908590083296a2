# ruff: noqa: E501 - realistic log lines are long
"""Which host-OOM entry explains a kernel OOM kill: the dataset held in RAM when the killed rank's own
log says it was loading or indexing data into memory just before the kill; the generic OOM-killer entry
otherwise.

Why: the kernel's kill line is the same for every host-RAM cause; the line that tells them apart is in
the rank's log (`building in-memory index of 1.2B samples`, `loading the full dataset into memory`),
while the kill is in the node's dmesg — a different file, so the context is read across the job.
Blind readers of the posted diagnosis named the index line as the cause where the bot did not.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis

Run = Callable[[Path], Diagnosis]

_KILL = (
    "[Fri Nov 20 03:14:05 2026] python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0\n"
    "[Fri Nov 20 03:14:05 2026] Out of memory: Killed process 51234 (python) total-vm:98765432kB, anon-rss:64223412kB, file-rss:12345kB, shmem-rss:0kB, UID:1000 pgtables:130000kB oom_score_adj:0\n"
)
_LAUNCHER = "[2026-11-20 03:14:06,001] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 1 (pid: 51234) of binary: /usr/bin/python3\n"


def _steps(rank: int, last: str) -> str:
    lines = [
        f"[2026-11-20 03:1{i // 60}:{i % 60:02d},000] [INFO] [rank{rank}] step {i} loss 2.{90 - i // 10:02d}"
        for i in range(0, 40, 4)
    ]
    return "\n".join(lines) + "\n" + (last + "\n" if last else "")


CASES = {
    "indexing into memory": "[2026-11-20 03:14:04,870] [INFO] [rank1] data: building in-memory index of 1.2B samples (pid 51234)",
    "loading into RAM": "[2026-11-20 03:14:04,870] [INFO] [rank1] Loading the full tokenized corpus into memory (412 shards)",
    "caching in RAM": "2026-11-20 03:14:04 rank1 dataset.py:88 caching 40,000,000 samples in RAM for fast shuffling",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_data_in_memory_line_before_the_kill_names_the_dataset_entry(
    name: str, tmp_path: Path, diagnose_dir: Run
) -> None:
    (tmp_path / "node-gpu-01.dmesg").write_text(_KILL)
    (tmp_path / "launcher.log").write_text(_LAUNCHER)
    (tmp_path / "rank0.log").write_text(_steps(0, ""))
    (tmp_path / "rank1.log").write_text(_steps(1, CASES[name]))
    d = diagnose_dir(tmp_path)
    assert d.category == "host_oom"
    assert d.entry is not None and d.entry.id == "host-oom-dataset-in-ram", (name, d.entry)
    assert any("-9" in e.text for e in d.initiating.evidence), "the launcher's SIGKILL line stays evidence"


def test_a_kill_in_the_middle_of_training_stays_the_generic_oom_killer(
    tmp_path: Path, diagnose_dir: Run
) -> None:
    (tmp_path / "node-gpu-01.dmesg").write_text(_KILL)
    (tmp_path / "launcher.log").write_text(_LAUNCHER)
    (tmp_path / "rank0.log").write_text(_steps(0, ""))
    (tmp_path / "rank1.log").write_text(
        _steps(1, "[2026-11-20 03:14:04,870] [INFO] [rank1] step 44 loss 2.51")
    )
    d = diagnose_dir(tmp_path)
    assert d.category == "host_oom"
    assert d.entry is not None and d.entry.id == "host-oom-killer", d.entry
