# ruff: noqa: E501 - realistic log lines are long
"""Attribution rules found in the field: who is collateral, when a weak primary loses, teardown tracebacks."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis, LogSource
from knowledge.engine import Engine
from knowledge.schema import ENTRIES_DIR, EntryError, load_entries
from knowledge.sources import discover
from tests.knowledge import scenarios

Run = Callable[[Path], Diagnosis]


def k8s_oom_sources(n: int = 8, oom: int = 6) -> list[LogSource]:
    """What the Kubernetes collector hands the engine for an Indexed Job whose pod `oom` was OOMKilled:
    per-pod logs, the pod-status and event facts (`[rankN]:`-tagged scheduler lines) and the node's
    kernel log. Every source names rank `oom` on its own, with no pid a rank line could link."""
    srcs = []
    for i in range(n):
        lines = [f"[rank{i}]: step {s} loss {2.5 - s * 0.01:.3f} lr 1e-4" for s in range(20)]
        if i != oom:
            lines.append(
                f"[rank{i}]:[E1129 19:10:02.123456 ProcessGroupNCCL.cpp:616] [Rank {i}] Watchdog caught collective "
                "operation timeout: WorkNCCL(SeqNum=4242, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, "
                "Timeout(ms)=600000) ran for 600031 milliseconds before timing out."
            )
        data = ("\n".join(lines) + "\n").encode()
        srcs.append(
            LogSource(name=f"train-{i}-x8k2p/pytorch", data=data, rank=i, node=f"gpu-{i:02d}", kind="rank")
        )
    status = ["k8s: Job default/train condition Failed reason=BackoffLimitExceeded"]
    for i in range(n):
        end = "19:01:00Z" if i == oom else "19:11:00Z"
        reason = "reason=OOMKilled exitCode=137 signal=9 (SIGKILL)" if i == oom else "reason=Error exitCode=1"
        status.append(
            f"2026-11-29T{end} k8s: [rank{i}]: pod train-{i}-x8k2p node gpu-{i:02d} container pytorch "
            f"terminated {reason} restarts=0"
        )
    srcs.append(LogSource(name="k8s-pod-status", kind="scheduler", data=("\n".join(status) + "\n").encode()))
    srcs.append(
        LogSource(
            name="kube-events",
            kind="scheduler",
            data=f"2026-11-29T19:01:00Z k8s: [rank{oom}]: event Pod train-{oom}-x8k2p Warning OOMKilling count=1: "
            "Memory cgroup out of memory: Killed process 4242 (python3)\n".encode(),
        )
    )
    srcs.append(
        LogSource(
            name=f"gpu-{oom:02d}/kern.log",
            kind="kernel",
            node=f"gpu-{oom:02d}",
            data=f"Nov 29 19:01:00 gpu-{oom:02d} kernel: Memory cgroup out of memory: Killed process 4242 "
            "(python3) total-vm:98765432kB, anon-rss:81234567kB\n".encode(),
        )
    )
    return srcs


def test_initiating_rank_is_never_in_its_own_collateral(engine: Engine) -> None:
    """Regression (k8s end-to-end): the node's kernel OOM line was chosen, and rank 6's own scheduler
    facts then listed rank 6 as `host_oom` collateral "failed after rank 6"."""
    diag = engine.diagnose(k8s_oom_sources())
    assert diag.initiating.rank == 6
    assert diag.category == "host_oom"
    assert all(6 not in g.ranks for g in diag.collateral), diag.collateral
    nccl = {r for g in diag.collateral if g.category == "nccl_timeout" for r in g.ranks}
    assert nccl == {0, 1, 2, 3, 4, 5, 7}


def test_weak_generic_exception_loses_to_strong_primary_soon_after(tmp_path: Path, diagnose_dir: Run) -> None:
    """Rank 2 logs a bare `ValueError` 3 s before rank 5's CUDA OOM: the OOM started it."""
    for r in range(4):
        lines = scenarios.training(r, 200)
        if r == 2:
            lines += [
                f"{scenarios.ts(840)} [INFO] step 211 forward",
                "[rank2]: ValueError: could not convert string to float: 'nan%'",
            ]
        elif r == 3:
            lines += [f"{scenarios.ts(843)} [INFO] step 211 forward", *scenarios.gpu_oom(r)]
        else:
            lines += scenarios.watchdog(r, "1120 03:24:02.123456")
        scenarios.write(tmp_path, f"rank{r}.log", lines)
    diag = diagnose_dir(tmp_path)
    assert diag.category == "gpu_oom"
    assert diag.initiating.rank == 3


def test_weak_exception_alone_still_initiates(tmp_path: Path, diagnose_dir: Run) -> None:
    """Without a strong primary nearby, the generic exception is the best evidence there is."""
    for r in range(4):
        lines = scenarios.training(r, 200)
        if r == 2:
            lines += [
                f"{scenarios.ts(840)} [INFO] step 211 forward",
                "[rank2]: ValueError: could not convert string to float: 'nan%'",
            ]
        else:
            lines += scenarios.watchdog(r, "1120 03:24:02.123456")
        scenarios.write(tmp_path, f"rank{r}.log", lines)
    diag = diagnose_dir(tmp_path)
    assert diag.initiating.rank == 2
    assert diag.category == "shape_or_user_code_error"


def test_traceback_after_a_ranks_watchdog_line_is_teardown(tmp_path: Path, diagnose_dir: Run) -> None:
    """Rank 1 prints a generic RuntimeError traceback while being taken down after its own watchdog
    timeout; rank 2 is the one that never reached the collective. Neither traceback nor rank 1 is the cause."""
    for r in range(4):
        lines = scenarios.training(r, 200 if r != 2 else 150)
        if r != 2:
            lines += scenarios.watchdog(r, "1120 03:24:02.123456")
        if r == 1:
            lines += [
                "[rank1]: Traceback (most recent call last):",
                '[rank1]:   File "/workspace/train.py", line 412, in training_step',
                "[rank1]:     dist.all_reduce(loss)",
                "[rank1]: RuntimeError: Some NCCL operations have failed or timed out.",
            ]
        scenarios.write(tmp_path, f"rank{r}.log", lines)
    diag = diagnose_dir(tmp_path)
    assert diag.category == "nccl_timeout"
    assert diag.initiating.rank == 2  # the straggler, whose last step lags
    ranks = {r for g in diag.collateral for r in g.ranks}
    assert 1 in ranks
    assert all(g.category == "nccl_timeout" for g in diag.collateral), diag.collateral


def test_generic_traceback_before_any_collateral_is_still_a_cause(tmp_path: Path, diagnose_dir: Run) -> None:
    """The same traceback printed *before* the rank's watchdog line is a failure of that rank."""
    for r in range(4):
        lines = scenarios.training(r, 200)
        if r == 1:
            lines += ["[rank1]: Traceback (most recent call last):", "[rank1]: KeyError: 'pixel_values'"]
        else:
            lines += scenarios.watchdog(r, "1120 03:24:02.123456")
        scenarios.write(tmp_path, f"rank{r}.log", lines)
    diag = diagnose_dir(tmp_path)
    assert diag.initiating.rank == 1
    assert diag.category == "shape_or_user_code_error"


def _copy_entries(tmp_path: Path) -> Path:
    folder = tmp_path / "entries"
    shutil.copytree(ENTRIES_DIR, folder)
    return folder


def test_no_match_answer_is_the_entry_tagged_fallback(tmp_path: Path) -> None:
    """Chosen by the `fallback` tag, not by file order or category: move the tag, the answer moves."""
    folder = _copy_entries(tmp_path)
    hang = folder / "hang-no-progress.toml"
    hang.write_text(hang.read_text().replace(', "fallback"]', "]", 1))
    other = folder / "scheduler-preempted-cancelled.toml"
    text = other.read_text()
    other.write_text(text.replace('tags = ["', 'tags = ["fallback", "', 1))
    logs = tmp_path / "logs"
    scenarios.write(logs, "rank0.log", scenarios.training(0, 10))
    diag = Engine.load(folder).diagnose(discover([logs]))
    assert diag.entry is not None and diag.entry.id == "scheduler-preempted-cancelled"
    bundled = Engine.load().diagnose(discover([logs]))
    assert bundled.entry is not None and bundled.entry.id == "hang-no-progress"
    assert bundled.confidence <= 0.1


def test_when_stalled_must_name_a_known_entry(tmp_path: Path) -> None:
    folder = _copy_entries(tmp_path)
    path = folder / "scheduler-time-limit.toml"
    path.write_text(path.read_text().replace('entry = "hang-no-progress"', 'entry = "no-such-entry"', 1))
    with pytest.raises(EntryError) as err:
        load_entries(folder)
    assert "scheduler-time-limit.toml" in str(err.value) and "when_stalled.entry" in str(err.value)
