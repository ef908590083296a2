# ruff: noqa: E501 - realistic log lines are long
"""One launcher per node under srun's `--label`: `srun -l torchrun --nnodes 2 --nproc_per_node 4 …`.

srun prefixes every line with its task id (`%*d: `, SchedMD/slurm src/common/write_labelled_message.c);
with one torchrun agent per srun task that id is the node, not a rank. The rank is the one inside the
line: the worker's `[rank5]:`, torchrun's `[default1]:` (node-local, `--tee`), the failure summary's
`rank      : 6 (local_rank: 2)` (pytorch/pytorch torch/distributed/elastic/multiprocessing/errors/__init__.py)
and the agent's `failed (exitcode: -9) local_rank: 2 (pid: …)` (…/multiprocessing/api.py). Written as
the combined output of a 2-node job (interleaved `0: ` and `1: `), in the older (`[2024-…] torch.distributed
.elastic…: [ERROR]`) and newer (glog `E1207 …api.py:869]`) logger forms, with near-misses where srun runs
one task per rank and the label is the rank."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from knowledge.lines import parse_rank, reported_rank
from tests.knowledge.engine_support import write_log

Run = Callable[[Path], Diagnosis]

_LAUNCH = "+ srun --label --ntasks-per-node=1 torchrun --nnodes 2 --nproc_per_node 4 --rdzv_backend c10d --rdzv_endpoint gpu-a01:29500 --tee 3 train.py --config cfg/7b.yaml"


def _agent(node: int, level: str, msg: str, new: bool, t: str = "03:14:55") -> str:
    if new:
        where = {
            "E": "multiprocessing/api.py:869",
            "W": "multiprocessing/api.py:897",
            "I": "agent/server/api.py:680",
        }[level]
        return f"{node}: {level}1207 {t}.731000 2339{node} torch/distributed/elastic/{where}] {msg}"
    name = {"E": "ERROR", "W": "WARNING", "I": "INFO"}[level]
    return f"{node}: [2026-12-07 {t},731] torch.distributed.elastic.multiprocessing.api: [{name}] {msg}"


def _summary(node: int, host: str, rank: int, local: int, code: int, pid: int, message: str) -> list[str]:
    body = [
        "Traceback (most recent call last):",
        '  File "/opt/conda/bin/torchrun", line 33, in <module>',
        "    sys.exit(load_entry_point('torch', 'console_scripts', 'torchrun')())",
        '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/run.py", line 919, in main',
        "    run(args)",
        '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 263, in launch_agent',
        "    raise ChildFailedError(",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
        "  <NO_OTHER_FAILURES>",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2026-12-07_03:14:55",
        f"  host      : {host}",
        f"  rank      : {rank} (local_rank: {local})",
        f"  exitcode  : {code} (pid: {pid})",
        "  error_file: <N/A>",
        f"  traceback : {message}",
        "============================================================",
    ]
    return [f"{node}: {ln}" for ln in body]


def _steps() -> list[str]:
    out = []
    for step in (100, 110):
        for node in (0, 1):
            out.append(f"{node}: [default0]:[rank{node * 4}]:step {step} | loss 2.{step % 7}1 | lr 3.0e-04")
    return out


def _sigkill(new: bool) -> str:
    lines = [
        _LAUNCH,
        *_steps(),
        _agent(1, "W", "Sending process 23455 closing signal SIGTERM", new),
        _agent(0, "I", "[default] worker group still healthy on this node", new),
        _agent(1, "W", "Sending process 23456 closing signal SIGTERM", new),
        _agent(1, "W", "Sending process 23458 closing signal SIGTERM", new),
        _agent(
            1, "E", "failed (exitcode: -9) local_rank: 2 (pid: 23457) of binary: /opt/conda/bin/python", new
        ),
        *_summary(1, "gpu-a02", 6, 2, -9, 23457, "Signal 9 (SIGKILL) received by PID 23457"),
        "srun: error: gpu-a02: task 1: Exited with exit code 1",
        _agent(0, "W", "Received Signals.SIGTERM death signal, shutting down workers", new, "03:14:58"),
        _agent(0, "W", "Sending process 31101 closing signal SIGTERM", new, "03:14:58"),
        "srun: error: gpu-a01: task 0: Terminated",
    ]
    return "\n".join(lines) + "\n"


_DMESG = """[Mon Dec  7 03:14:55 2026] python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0
[Mon Dec  7 03:14:55 2026] Out of memory: Killed process 23457 (python) total-vm:612344128kB, anon-rss:498112334kB, file-rss:81920kB, shmem-rss:0kB, UID:1000 pgtables:988012kB oom_score_adj:0
"""


@pytest.mark.parametrize("new", [False, True])
def test_a_sigkilled_worker_on_node_1_is_global_rank_6(diagnose_dir: Run, tmp_path: Path, new: bool) -> None:
    folder = write_log(tmp_path, _sigkill(new), "slurm-88123.out")
    (folder / "gpu-a02.dmesg").write_text(_DMESG)
    d = diagnose_dir(folder)
    assert d.category == "host_oom"
    assert d.initiating.rank == 6


def _exception(new: bool) -> str:
    tb = [
        "[rank5]: Traceback (most recent call last):",
        '[rank5]:   File "/home/me/proj/train.py", line 212, in <module>',
        "[rank5]:     main()",
        '[rank5]:   File "/home/me/proj/train.py", line 187, in main',
        "[rank5]:     batch = collate(samples)",
        '[rank5]:   File "/home/me/proj/data.py", line 44, in collate',
        "[rank5]:     ids = torch.stack([s['input_ids'] for s in samples])",
        "[rank5]: RuntimeError: stack expects each tensor to be equal size, but got [512] at entry 0 and [498] at entry 3",
    ]
    lines = [_LAUNCH, *_steps()]
    for ln in tb:
        lines.append(f"1: [default1]:{ln}")
    lines += [
        "0: [default0]:[rank0]:step 120 | loss 2.11 | lr 3.0e-04",
        _agent(1, "W", "Sending process 23455 closing signal SIGTERM", new),
        _agent(
            1, "E", "failed (exitcode: 1) local_rank: 1 (pid: 23456) of binary: /opt/conda/bin/python", new
        ),
        *_summary(
            1,
            "gpu-a02",
            5,
            1,
            1,
            23456,
            "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        ),
        "srun: error: gpu-a02: task 1: Exited with exit code 1",
    ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("new", [False, True])
def test_a_python_exception_in_one_worker_is_its_global_rank(
    diagnose_dir: Run, tmp_path: Path, new: bool
) -> None:
    d = diagnose_dir(write_log(tmp_path, _exception(new), "slurm-88124.out"))
    assert d.category == "shape_or_user_code_error"
    assert d.initiating.rank == 5


def _exception_tee_only() -> str:
    """torchrun `--tee 3` without torch's own `[rankN]:` (older torch): only `[default2]:` and the node."""
    tb = [
        "Traceback (most recent call last):",
        '  File "/home/me/proj/train.py", line 212, in <module>',
        "    main()",
        '  File "/home/me/proj/model.py", line 90, in forward',
        "    h = self.proj(x)",
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4096x1024 and 2048x1024)",
    ]
    lines = [_LAUNCH, *_steps()]
    for ln in tb:
        lines.append(f"1: [default2]:{ln}")
    lines += [
        _agent(
            1, "E", "failed (exitcode: 1) local_rank: 2 (pid: 23457) of binary: /opt/conda/bin/python", True
        ),
        "srun: error: gpu-a02: task 1: Exited with exit code 1",
    ]
    return "\n".join(lines) + "\n"


def test_default_prefix_under_the_node_label_is_node_rank_times_nproc_plus_local(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    d = diagnose_dir(write_log(tmp_path, _exception_tee_only(), "slurm-88125.out"))
    assert d.category == "shape_or_user_code_error"
    assert d.initiating.rank == 6


def _wd(label: str, rank: int, t: int) -> str:
    return (
        f"{label}[E1207 03:24:5{t}.118000 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective operation timeout: "
        f"WorkNCCL(SeqNum=88213, OpType=ALLREDUCE, NumelIn=131072, NumelOut=131072, Timeout(ms)=600000) ran for 60004{t} milliseconds before timing out."
    )


def _watchdog(own_prefix: bool) -> str:
    """Every rank but 6 (node 1, local 2) times out in the same all-reduce: 6 never joined it."""
    lines = [_LAUNCH, *_steps()]
    for rank in (7, 0, 1, 2, 3, 4, 5):
        node, local = divmod(rank, 4)
        inner = f"[rank{rank}]:" if own_prefix else ""
        lines.append(_wd(f"{node}: [default{local}]:{inner}", rank, rank))
    lines += [
        _agent(1, "W", "Sending process 23455 closing signal SIGTERM", True, "03:24:58"),
        _agent(
            1,
            "E",
            "failed (exitcode: -6) local_rank: 3 (pid: 23458) of binary: /opt/conda/bin/python",
            True,
            "03:24:59",
        ),
        "srun: error: gpu-a02: task 1: Exited with exit code 1",
    ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("own_prefix", [True, False])
def test_an_nccl_watchdog_cascade_under_node_labels(
    diagnose_dir: Run, tmp_path: Path, own_prefix: bool
) -> None:
    d = diagnose_dir(write_log(tmp_path, _watchdog(own_prefix), "slurm-88126.out"))
    assert d.category == "nccl_timeout"
    assert d.initiating.rank == 6


# ------------------------------------------------------------------ near-misses: one task per rank


def _per_rank_exception() -> str:
    lines = ["+ srun --label --ntasks=8 --ntasks-per-node=4 python train.py --config cfg/7b.yaml"]
    for r in range(8):
        lines.append(f"{r}: step 100 | loss 2.31")
    tb = [
        "Traceback (most recent call last):",
        '  File "/home/me/proj/train.py", line 212, in <module>',
        "    main()",
        '  File "/home/me/proj/data.py", line 44, in collate',
        "    ids = torch.stack([s['input_ids'] for s in samples])",
        "RuntimeError: stack expects each tensor to be equal size, but got [512] at entry 0 and [498] at entry 3",
    ]
    lines += [f"6: {ln}" for ln in tb]
    lines += ["srun: error: gpu-a02: task 6: Exited with exit code 1"]
    return "\n".join(lines) + "\n"


def test_one_task_per_rank_keeps_the_label_as_the_rank(diagnose_dir: Run, tmp_path: Path) -> None:
    d = diagnose_dir(write_log(tmp_path, _per_rank_exception(), "slurm-88127.out"))
    assert d.category == "shape_or_user_code_error"
    assert d.initiating.rank == 6


def test_one_task_per_rank_oom_kill_maps_through_srun_task(diagnose_dir: Run, tmp_path: Path) -> None:
    lines = ["+ srun -l --ntasks=8 python train.py"]
    lines += [f"{r}: step 50 | loss 3.02" for r in range(8)]
    lines += [
        "srun: error: gpu-a02: task 3: Out Of Memory",
        "slurmstepd: error: Detected 1 oom_kill event in StepId=88128.0. Some of the step tasks have been OOM Killed.",
    ]
    d = diagnose_dir(write_log(tmp_path, "\n".join(lines) + "\n", "slurm-88128.out"))
    assert d.category == "host_oom"
    assert d.initiating.rank == 3


def test_per_rank_watchdog_with_labels_as_ranks(diagnose_dir: Run, tmp_path: Path) -> None:
    lines = ["+ srun --label --ntasks=8 python train.py"]
    lines += [_wd(f"{r}: [rank{r}]:", r, r) for r in (0, 1, 2, 3, 4, 5, 7)]
    d = diagnose_dir(write_log(tmp_path, "\n".join(lines) + "\n", "slurm-88129.out"))
    assert d.category == "nccl_timeout"
    assert d.initiating.rank == 6


def test_per_rank_labels_without_any_inner_prefix(diagnose_dir: Run, tmp_path: Path) -> None:
    lines = ["+ srun --label --ntasks=8 python train.py"]
    lines += [_wd(f"{r}: ", r, r) for r in (0, 1, 2, 3, 4, 5, 7)]
    d = diagnose_dir(write_log(tmp_path, "\n".join(lines) + "\n", "slurm-88130.out"))
    assert d.category == "nccl_timeout"
    assert d.initiating.rank == 6


# ------------------------------------------------------------------ the line parser


@pytest.mark.parametrize(
    ("line", "rank", "local", "task"),
    [
        ("1: [default2]:step 5", None, 2, 1),
        ("1: [default1]:[rank5]: RuntimeError: x", 5, 1, 1),
        ("1:   rank      : 6 (local_rank: 2)", 6, 2, 1),
        (
            "0: [2026-12-07 03:14:55,731] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 2 (pid: 4123) of binary: /usr/bin/python",
            None,
            2,
            0,
        ),
        (
            "1: W1207 03:14:55.402000 23398 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 23455 closing signal SIGTERM",
            None,
            None,
            1,
        ),
        ("3: RuntimeError: boom", 3, None, 3),
        ("3: [rank3]: RuntimeError: boom", 3, None, 3),
        (
            '3:   File "/x/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper',
            3,
            None,
            3,
        ),
        ("[default2]:step 5", None, 2, None),
    ],
)
def test_parse_rank_under_an_srun_label(
    line: str, rank: int | None, local: int | None, task: int | None
) -> None:
    info = parse_rank(line)
    assert (info.rank, info.local, info.task) == (rank, local, task)


def test_reported_rank_reads_through_the_srun_label() -> None:
    rep = reported_rank("1:   rank      : 6 (local_rank: 2)")
    assert rep is not None and (rep.rank, rep.local, rep.task) == (6, 2, 1)
