# ruff: noqa: E501 - realistic log lines are long
"""TORCH_DISTRIBUTED_DEBUG=DETAIL collective mismatches (ProcessGroupWrapper's `Detected mismatch between
collectives on ranks`): two flat ALLREDUCE tensors of DDP gradient-bucket scale that differ only in size
mean the ranks launched different gradient buckets, i.e. their autograd graphs differ (a parameter used on
one rank only: the DDP unused-parameter class). Every other mismatch stays the mismatched-collectives
hang. The report names the printing rank and the first rank that differs from it, so with two ranks it
names no culprit; with more, the odd one out is the rank whose fingerprint differs from the majority.
Horovod's stall inspector stays a hang."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from denpex.core.models import Diagnosis
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]
DDP, HANG = "ddp-unused-parameters", "mismatched-collectives-hang"
_OPTS = "TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))"


def _fp(op: str, shape: str, dtype: str, seq: int = 812) -> str:
    return f"CollectiveFingerPrint(SequenceNumber={seq}, OpType={op}, TensorShape=[{shape}], TensorDtypes={dtype}, TensorDeviceTypes={_OPTS})"


def _diff(mine: tuple[str, str, str], theirs: tuple[str, str, str]) -> str:
    out = "Collectives differ in the following aspects: "
    if mine[0] != theirs[0]:
        out += f"  Op type: {mine[0]}vs {theirs[0]}"
    if mine[1] != theirs[1]:
        out += f"  Tensor Tensor shapes: {mine[1]}vs {theirs[1]}"
    if mine[2] != theirs[2]:
        out += f"  Tensor Tensor dtypes: {mine[2]}vs {theirs[2]}"
    return out


def _mismatch(me: int, mine: tuple[str, str, str], other: int, theirs: tuple[str, str, str]) -> str:
    return (
        f"RuntimeError: Detected mismatch between collectives on ranks. Rank {me} is running collective: "
        f"{_fp(*mine)}, but Rank {other} is running collective: {_fp(*theirs)}.{_diff(mine, theirs)}"
    )


def _backward_tb(prefix: str, error: str) -> list[str]:
    return [
        f"{prefix}Traceback (most recent call last):",
        f'{prefix}  File "/workspace/train.py", line 211, in <module>',
        f"{prefix}    accelerator.backward(loss)",
        f'{prefix}  File "/opt/conda/lib/python3.11/site-packages/accelerate/accelerator.py", line 2196, in backward',
        f"{prefix}    loss.backward(**kwargs)",
        f'{prefix}  File "/opt/conda/lib/python3.11/site-packages/torch/autograd/__init__.py", line 347, in backward',
        f"{prefix}    _engine_run_backward(",
        f'{prefix}  File "/opt/conda/lib/python3.11/site-packages/torch/autograd/graph.py", line 825, in _engine_run_backward',
        f"{prefix}    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass",
        f"{prefix}{error}",
    ]


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def _rank(d: Diagnosis) -> int | None:
    return d.initiating.rank if d.initiating is not None else None


BIG_A = ("ALLREDUCE", "26214400", "BFloat16")
BIG_B = ("ALLREDUCE", "6553600", "BFloat16")


def test_two_ranks_in_different_gradient_buckets_is_a_graph_difference(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """Both ranks print it from backward(); neither is named (each names the other as the first that differs)."""
    log = _text(
        [
            "{'loss': 1.734, 'grad_norm': 2.11, 'learning_rate': 1.8e-05, 'epoch': 0.31}",
            *_backward_tb("[rank0]: ", _mismatch(0, BIG_A, 1, BIG_B)),
            *_backward_tb("[rank1]: ", _mismatch(1, BIG_B, 0, BIG_A)),
        ]
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "ddp_unused_parameters"
    assert d.entry is not None and d.entry.id == DDP
    assert _rank(d) is None


def test_fp32_buckets_in_rank_files_without_a_traceback(diagnose_dir: Run, tmp_path: Path) -> None:
    a, b = ("ALLREDUCE", "262144", "Float"), ("ALLREDUCE", "6291456", "Float")
    _log(tmp_path, _mismatch(0, a, 1, b) + "\n", "rank0.log")
    folder = _log(tmp_path, _mismatch(1, b, 0, a) + "\n", "rank1.log")
    d = diagnose_dir(folder)
    assert d.category == "ddp_unused_parameters"
    assert _rank(d) is None


def test_the_one_rank_whose_bucket_differs_from_the_majority_is_named(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    odd = ("ALLREDUCE", "1048576", "Half")
    base = ("ALLREDUCE", "13107200", "Half")
    lines = [f"[rank{r}]: " + _mismatch(r, base, 2, odd) for r in (0, 1, 3)]
    lines.insert(2, "[rank2]: " + _mismatch(2, odd, 0, base))
    d = diagnose_dir(_log(tmp_path, _text(lines)))
    assert d.category == "ddp_unused_parameters"
    assert _rank(d) == 2


def test_small_allreduce_shapes_stay_a_mismatched_collectives_hang(diagnose_dir: Run, tmp_path: Path) -> None:
    """A metric vector of a per-rank length: same op, different shape, but not bucket-sized."""
    a, b = ("ALLREDUCE", "8", "Float"), ("ALLREDUCE", "5", "Float")
    log = _text(["[rank1]: " + _mismatch(1, a, 0, b), "[rank0]: " + _mismatch(0, b, 1, a)])
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "hang_no_error"
    assert d.entry is not None and d.entry.id == HANG
    assert _rank(d) is None


def test_a_bucket_against_a_scalar_of_another_op_stays_a_hang(diagnose_dir: Run, tmp_path: Path) -> None:
    """Uneven inputs: one rank still reducing gradients, the other already broadcasting an object size."""
    a, b = ("ALLREDUCE", "26214400", "Float"), ("BROADCAST", "1", "Long")
    log = _text(["[rank0]: " + _mismatch(0, a, 1, b), "[rank1]: " + _mismatch(1, b, 0, a)])
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "hang_no_error"
    assert _rank(d) is None


def test_same_bucket_size_in_another_dtype_stays_a_hang(diagnose_dir: Run, tmp_path: Path) -> None:
    a, b = ("ALLREDUCE", "6553600", "Float"), ("ALLREDUCE", "6553600", "BFloat16")
    d = diagnose_dir(_log(tmp_path, _text(["[rank1]: " + _mismatch(1, a, 0, b)])))
    assert d.category == "hang_no_error"


def test_big_allgathers_of_different_sizes_stay_a_hang(diagnose_dir: Run, tmp_path: Path) -> None:
    a, b = ("_ALLGATHER_BASE", "4194304", "BFloat16"), ("_ALLGATHER_BASE", "3932160", "BFloat16")
    d = diagnose_dir(_log(tmp_path, _text(["[rank1]: " + _mismatch(1, a, 0, b)])))
    assert d.category == "hang_no_error"


def test_multi_dim_allreduce_shapes_stay_a_hang(diagnose_dir: Run, tmp_path: Path) -> None:
    a, b = ("ALLREDUCE", "320000, 4", "Float"), ("ALLREDUCE", "310000, 4", "Float")
    d = diagnose_dir(_log(tmp_path, _text(["[rank0]: " + _mismatch(0, a, 1, b)])))
    assert d.category == "hang_no_error"


def test_two_rank_files_do_not_name_rank_zero_for_being_the_reference(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    a, b = ("BROADCAST", "1", "Long"), ("ALLREDUCE", "25", "Float")
    _log(tmp_path, _mismatch(0, a, 1, b) + "\n", "rank0.log")
    folder = _log(tmp_path, _mismatch(1, b, 0, a) + "\n", "rank1.log")
    d = diagnose_dir(folder)
    assert d.category == "hang_no_error"
    assert _rank(d) is None


def test_one_report_naming_rank_zero_names_no_one(diagnose_dir: Run, tmp_path: Path) -> None:
    a, b = ("BARRIER", "1", "Float"), ("ALLREDUCE", "1", "Float")
    d = diagnose_dir(_log(tmp_path, _text(["[rank2]: " + _mismatch(2, a, 0, b)])))
    assert d.category == "hang_no_error"
    assert _rank(d) is None


def test_rank_zero_is_named_when_it_is_the_odd_one_out(diagnose_dir: Run, tmp_path: Path) -> None:
    odd, base = ("BROADCAST", "1", "Long"), ("ALLREDUCE", "1", "Float")
    lines = ["[rank0]: " + _mismatch(0, odd, 1, base)] + [
        f"[rank{r}]: " + _mismatch(r, base, 0, odd) for r in (1, 2)
    ]
    d = diagnose_dir(_log(tmp_path, _text(lines)))
    assert d.category == "hang_no_error"
    assert _rank(d) == 0


def test_horovod_stall_inspector_stays_a_hang(diagnose_dir: Run, tmp_path: Path) -> None:
    """horovod/common/stall_inspector.cc: different tensors submitted by different ranks."""
    warn = (
        "[1]<stderr>:[2024-03-02 11:04:17.118204: W /tmp/pip-req-build/horovod/common/stall_inspector.cc:107] "
        "One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are "
        "waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are "
        "trying to submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock. "
    )
    log = _text(
        [
            warn,
            "[1]<stderr>:Missing ranks:",
            "[1]<stderr>:0: [allgather.metrics.val_acc]",
            "[1]<stderr>:1: [allreduce.encoder.layer0.weight, allreduce.encoder.layer0.bias ...]",
        ]
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "hang_no_error"
