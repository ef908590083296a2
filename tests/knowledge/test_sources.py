"""File and folder discovery: rank, node and kind from names; unreadable paths are one-line errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from denpex.core.models import LogSource
from knowledge.sources import UnreadableInput, complete, discover, infer_kind, infer_node, infer_rank


@pytest.mark.parametrize(
    ("name", "rank"),
    [
        ("rank3.log", 3),
        ("rank_12.txt", 12),
        ("job_123_3.out", 3),
        ("4242_7.err", 7),
        ("train-worker-3.log", 3),
        ("worker-3", 3),
        ("llama-ft-5.log", 5),
        ("combined.log", None),
        ("output.txt", None),
        ("slurm-4242.out", None),
        ("slurm-4242_7.out", None),
    ],
)
def test_rank_from_name(name: str, rank: int | None) -> None:
    assert infer_rank(name) == rank


@pytest.mark.parametrize(
    ("name", "kind", "node"),
    [
        ("node-gpu12.dmesg", "kernel", "gpu12"),
        ("node-192.168.11.119.dmesg", "kernel", "192.168.11.119"),
        ("gpu-07.dmesg", "kernel", "gpu-07"),
        ("dmesg-gpu-07.log", "kernel", "gpu-07"),
        ("dmesg.log", "kernel", None),
        ("kern.log", "kernel", None),
        ("slurm-4242.log", "scheduler", None),
        ("slurm-4242.out", "combined", None),
        ("job.sacct", "scheduler", None),
        ("scheduler.txt", "scheduler", None),
        ("combined.log", "combined", None),
        ("rank0.log", "rank", None),
    ],
)
def test_kind_and_node_from_name(name: str, kind: str, node: str | None) -> None:
    assert infer_kind(name) == kind
    assert infer_node(name, infer_kind(name)) == node


def test_discover_walks_folders_and_keeps_names(tmp_path: Path) -> None:
    (tmp_path / "ranks").mkdir()
    (tmp_path / "ranks" / "rank1.log").write_text("x\n")
    (tmp_path / "node-gpu-01.dmesg").write_text("")
    (tmp_path / ".hidden").write_text("secret")
    srcs = discover([tmp_path])
    names = {s.name: s for s in srcs}
    assert set(names) == {"ranks/rank1.log", "node-gpu-01.dmesg"}
    assert names["ranks/rank1.log"].rank == 1 and names["ranks/rank1.log"].kind == "rank"
    assert names["node-gpu-01.dmesg"].node == "gpu-01"


def test_unreadable_paths_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(UnreadableInput, match="no such file"):
        discover([tmp_path / "missing.log"])
    locked = tmp_path / "locked.log"
    locked.write_text("x")
    locked.chmod(0)
    if os.geteuid() != 0:  # root reads anything
        with pytest.raises(UnreadableInput) as err:
            discover([locked])
        assert "\n" not in str(err.value)


def test_complete_keeps_what_a_collector_set() -> None:
    src = complete(LogSource(name="pod-a.log", data=b"", rank=4, node="n1", kind="rank"))
    assert (src.rank, src.node, src.kind) == (4, "n1", "rank")
    inferred = complete(LogSource(name="rank9.log", data=b""))
    assert (inferred.rank, inferred.kind) == (9, "rank")


def test_per_node_folders_name_the_node(tmp_path: Path) -> None:
    for folder in ("gpu-07", "ranks", "job_4242"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "rank1.log").write_text("x\n")
    nodes = {s.name.split("/")[0]: s.node for s in discover([tmp_path])}
    assert nodes == {"gpu-07": "gpu-07", "ranks": None, "job_4242": None}


@pytest.mark.parametrize(
    ("name", "kind", "rank", "node"),
    [
        ("none_k2v1/attempt_0/3/stderr.log", "rank", 3, None),
        ("attempt_1/0/stdout.log", "rank", 0, None),
        ("logs/none_k2v1/attempt_0/5/error.json", "rank", 5, None),
        # gathered from several nodes: local ranks repeat, so the file is that node's stream
        ("gpu-07/none_k2v1/attempt_0/3/stderr.log", "combined", None, "gpu-07"),
        ("attempt_0/notes.txt", "combined", None, None),
    ],
)
def test_torchrun_log_dir_layout(name: str, kind: str, rank: int | None, node: str | None) -> None:
    src = complete(LogSource(name=name, data=b""))
    assert (src.kind, src.rank, src.node) == (kind, rank, node)


def test_torchrun_log_dir_names_the_initiating_rank(tmp_path: Path) -> None:
    """torchrun `--log-dir` writes unprefixed lines per local rank: the folder says whose they are."""
    from knowledge.engine import Engine

    run = tmp_path / "none_k2v1" / "attempt_0"
    oom = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
        "GPU 0 has a total capacity of 79.15 GiB of which 1.12 GiB is free."
    )
    wait = (
        "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] "
        "Timed out waiting 30000ms for recv operation to complete"
    )
    for r in range(4):
        (run / str(r)).mkdir(parents=True)
        (run / str(r) / "stdout.log").write_text(f"step 10 loss 1.0{r}\n")
        (run / str(r) / "stderr.log").write_text((oom if r == 2 else wait) + "\n")
    diag = Engine.load().diagnose(discover([tmp_path]))
    assert diag.category == "gpu_oom"
    assert diag.initiating.rank == 2
    assert diag.initiating.evidence[0].source == "none_k2v1/attempt_0/2/stderr.log"
