# ruff: noqa: E501 - realistic log lines are long
"""Failure classes from the December 6 (fourth session) blind corpus round, each as a small log in the
format its tool prints (not a copy of a case), and the labels multiplexers put on every line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from knowledge.labels import recognise
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]


def test_a_bare_exception_name_indented_under_the_rank_label_ends_a_traceback(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """An assertion with no message, copied with its indentation kept under the `[rankN]:` label and
    without the `Traceback` header: the model code's own check failed, it is not a hang."""
    log = (
        '[rank2]:    File "/home/u/.cache/huggingface/modules/transformers_modules/m/modeling_m.py", line 88, in forward\n'
        "[rank2]:      assert not self.training\n"
        "[rank2]:\n"
        "[rank2]:    AssertionError\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "shape_or_user_code_error"
    assert d.initiating.rank == 2


@pytest.mark.parametrize(
    "line",
    [
        # megatron/core/tensor_parallel/layers.py: a fused kernel turned on without its extension
        "RuntimeError: RowParallelLinear was called with gradient_accumulation_fusion set to True but the custom CUDA extension fused_weight_gradient_mlp_cuda module is not found. To use gradient_accumulation_fusion you must install APEX with --cpp_ext and --cuda_ext.",
        "ImportError: FlashAttention2 has been toggled on, but the package `flash_attn` is not installed in this environment.",
    ],
)
def test_a_feature_whose_package_or_extension_is_missing_is_the_environment(
    diagnose_dir: Run, tmp_path: Path, line: str
) -> None:
    d = diagnose_dir(_log(tmp_path, f"[rank0]: {line}\n"))
    assert d.category == "env_version_mismatch"


def test_deepspeed_rejecting_a_float_its_trainer_filled_in_is_a_version_mismatch(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """transformers fills `auto` ZeRO-3 sizes as floats; a DeepSpeed release with strict pydantic
    fields rejects them. Neither side's code is wrong alone: the pair of versions is."""
    log = (
        "[rank1]: pydantic_core._pydantic_core.ValidationError: 1 validation error for DeepSpeedZeroConfig\n"
        "[rank1]: stage3_param_persistence_threshold\n"
        "[rank1]:   Input should be a valid integer, got a number with a fractional part [type=int_from_float, input_value=40960.0, input_type=float]\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


def test_peers_lost_mid_save_with_no_error_of_their_own_point_at_a_silent_kill(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """Ranks in the barrier after a save lose their connection to a peer that printed nothing: a
    process killed outright while a full state dict filled host RAM, not the network. The
    communication error stays the first alternative and the kernel log decides."""
    frames = (
        "[rank{r}]: Traceback (most recent call last):\n"
        '[rank{r}]:   File "/opt/recipes/finetune.py", line 912, in train\n'
        "[rank{r}]:     self.save_checkpoint(epoch=0)\n"
        '[rank{r}]:   File "/opt/recipes/finetune.py", line 640, in save_checkpoint\n'
        "[rank{r}]:     torch.distributed.barrier()\n"
        '[rank{r}]:   File "/usr/lib/python3/site-packages/torch/distributed/distributed_c10d.py", line 4159, in barrier\n'
        "[rank{r}]:     work.wait()\n"
        "[rank{r}]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.0.0.4]:{port}\n"
    )
    log = "".join(frames.format(r=r, port=40000 + r) for r in (1, 2, 3))
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "cpu_oom_checkpoint"
    assert d.initiating.phase == "checkpoint_save"
    assert "nccl_comm_error" in {a.category for a in d.alternatives}
    assert d.confidence < 0.5


def test_peers_lost_in_a_training_step_stay_a_communication_error(diagnose_dir: Run, tmp_path: Path) -> None:
    """The same lost connection outside a save or a load says nothing about host RAM."""
    log = "".join(
        f"[rank{r}]: Traceback (most recent call last):\n"
        f'[rank{r}]:   File "/opt/train.py", line 140, in train_step\n'
        f"[rank{r}]:     dist.all_reduce(loss)\n"
        f"[rank{r}]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.0.0.4]:{40000 + r}\n"
        for r in (1, 2, 3)
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "nccl_comm_error"


_TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "/app/train.py", line 51, in <module>',
    "    loss = model(batch).loss",
    "KeyError: 'labels'",
]


@pytest.mark.parametrize(
    "label",
    ["trainer-1  | ", "\x1b[36mtrainer-1  |\x1b[0m ", "[pod/ft-worker-0/pytorch] ", "ft-worker-0 pytorch "],
)
def test_a_multiplexers_label_on_every_line_is_looked_through(
    diagnose_dir: Run, tmp_path: Path, label: str
) -> None:
    """`docker compose logs`, `kubectl logs --prefix` and stern put the service or pod before each
    line: the traceback under the label is the same traceback."""
    lines = ["starting epoch 0", "step 1 loss 2.31", "step 2 loss 2.07", *_TRACEBACK]
    d = diagnose_dir(_log(tmp_path, "".join(f"{label}{ln}\n" for ln in lines)))
    assert d.category == "shape_or_user_code_error"
    assert d.initiating.evidence and "KeyError" in d.initiating.evidence[0].text
    assert not d.initiating.evidence[0].text.startswith(label.strip())


@pytest.mark.parametrize(
    "text",
    [
        # two words at the start of lines that are not a pod and a container
        b"Epoch 1: loss 2.3\nEpoch 2: loss 2.1\nEpoch 3: loss 1.9\nsaving model now\ndone training ok\n",
        # a table with bars that is not compose's label
        b"| step | loss |\n|---|---|\n| 1 | 2.3 |\n| 2 | 2.1 |\n",
        # many different leading words: no recurring label
        b"load-a x 1\nload-b y 2\nload-c z 3\nload-d w 4\nload-e v 5\nload-f u 6\nload-g t 7\nload-h s 8\nload-i r 9\nload-j q 10\n",
    ],
)
def test_text_that_only_looks_labelled_is_left_alone(text: bytes) -> None:
    assert recognise(text) is None


def test_nccl_kernels_too_big_for_a_newer_gpu_are_the_environment(diagnose_dir: Run, tmp_path: Path) -> None:
    """An NCCL release older than the GPU sizes its kernels' shared memory past what the GPU allows:
    the log may stop right after NCCL's init lines, which is not a rendezvous that never formed."""
    log = (
        "node-3:8812:8812 [0] NCCL INFO NCCL version 2.25.1+cuda12.8\n"
        "node-3:8812:8830 [0] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856\n"
        "node-3:8812:8831 [1] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856\n"
        "node-3:8812:8830 [0] NCCL INFO Using network Socket\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


def test_an_old_nccl_failing_to_open_a_peers_ipc_handle_is_a_communication_error(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """NCCL 2.4's own WARN (without the `NCCL` word) when two hosts share a hostname and it tries CUDA
    IPC across them."""
    log = "gpu-a:4410:4460 [2] transport/p2p.cu:431 WARN failed to open CUDA IPC handle : 30 unknown error\n"
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "nccl_comm_error"


def test_an_hccl_collective_wait_timeout_is_a_collective_timeout(diagnose_dir: Run, tmp_path: Path) -> None:
    """Ascend's HCCL (NCCL's counterpart on NPUs) times a collective out waiting for a peer."""
    log = (
        "[W compiler_depend.ts:487] Warning: NPU warning, error code is 507048[Error]:\n"
        "EI0002: [PID: 9120] 2025-02-03-10:11:12.345.678 The wait execution of the Notify register times out. "
        "Reason: The Notify register has not received the Notify record from remote rank [3].\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "nccl_timeout"


def test_determineds_task_log_names_each_lines_rank(diagnose_dir: Run, tmp_path: Path) -> None:
    """Determined prints `[<stamp>] <container> [rank=N] || ` before each line of a trial's processes:
    the traceback is the rank's own, the watchdog lines are the others'."""
    rows = [
        (
            1,
            "[E ProcessGroupNCCL.cpp:828] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600041 milliseconds before timing out.",
        ),
        (3, "Traceback (most recent call last):"),
        (3, '  File "/run/determined/workdir/model_def.py", line 88, in train_batch'),
        (3, "    loss = self.loss_fn(output, batch['label'])"),
        (3, "KeyError: 'label'"),
    ]
    log = "".join(
        f"[2024-03-15T16:29:{i:02d}.552162Z] 5c902731 [rank={r}] || {text}\n"
        for i, (r, text) in enumerate(rows)
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "shape_or_user_code_error"
    assert d.initiating.rank == 3


def test_skypilots_node_label_is_looked_through_and_not_taken_for_the_rank(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """SkyPilot's `(worker1, rank=1, pid=…, ip=…)` names the node; the process's own `[rank9]:` decides."""
    lines = [
        "[rank9]: Traceback (most recent call last):",
        '[rank9]:   File "/home/sky/train.py", line 51, in <module>',
        "[rank9]:     loss = model(batch).loss",
        "[rank9]: KeyError: 'labels'",
    ]
    log = "".join(f"(worker1, rank=1, pid=15406, ip=10.164.0.57) {ln}\n" for ln in lines)
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "shape_or_user_code_error"
    assert d.initiating.rank == 9


def test_triton_finding_no_driver_is_the_environment(diagnose_dir: Run, tmp_path: Path) -> None:
    """Triton's driver discovery found no active GPU backend: the environment (a conflicting package,
    a CPU-only build, no GPU visible), not the training code."""
    log = (
        '  File "/opt/venv/lib/python3.11/site-packages/triton/runtime/driver.py", line 8, in _create_driver\n'
        '    raise RuntimeError(f"{len(actives)} active drivers ({actives}). There should only be one.")\n'
        "RuntimeError: 0 active drivers ([]). There should only be one.\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


def test_triton_failing_to_build_its_driver_stub_is_the_environment(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """Triton compiles a C helper the first time it runs; the system compiler failing there is the
    environment (no compiler, Python headers or libcuda), whatever exception class it raises."""
    log = (
        '  File "/env/lib/python3.10/site-packages/triton/backends/nvidia/driver.py", line 57, in compile_module_from_src\n'
        "    so = _build(name, src_path, tmpdir, library_dirs(), include_dir, libraries)\n"
        '  File "/env/lib/python3.10/site-packages/triton/runtime/build.py", line 48, in _build\n'
        "    ret = subprocess.check_call(cc_cmd)\n"
        '  File "/env/lib/python3.10/subprocess.py", line 369, in check_call\n'
        "    raise CalledProcessError(retcode, cmd)\n"
        "subprocess.CalledProcessError: Command '['/usr/bin/gcc', '/tmp/tmpx/main.c', '-O3', '-shared', '-fPIC']' returned non-zero exit status 1.\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


def test_the_launchers_teardown_lines_before_its_summary_are_kept(diagnose_dir: Run) -> None:
    """torchrun's `Sending process N closing signal SIGTERM` lines are the only ones that time when the
    launcher stopped the others: a tail widened to its failure summary takes them too (a follow-up
    asking when the others were stopped then gets the line's own time, not the summary's second)."""
    logs = Path(__file__).parents[1] / "realjobs" / "fixtures" / "dataloader_worker_killed" / "logs"
    d = diagnose_dir(logs)
    kept = [ln.text for tail in d.tails for ln in tail.lines]
    assert any("closing signal SIGTERM" in t for t in kept)
    assert any("ChildFailedError" in t for t in kept)


def test_a_collateral_groups_borrowed_time_is_marked(diagnose_dir: Run) -> None:
    """Ranks 0 and 2 of the real NaN job fail on lines without a time of their own: the group's time is
    an earlier line's, so it is marked (the table shows `≥`) and never reads as before rank 1's."""
    logs = Path(__file__).parents[1] / "realjobs" / "fixtures" / "nan_loss" / "logs"
    d = diagnose_dir(logs)
    assert d.initiating.rank == 1
    group = next(g for g in d.collateral if 0 in g.ranks)
    assert group.first_time_borrowed
    # the borrowed bound was 21:36:34.102, before rank 1's own 21:36:34.184: ranks that waited on rank 1
    # failed no earlier than it did, so the cause's time is the bound shown (three blind readers took
    # the earlier one for the collateral ranks failing first)
    assert d.initiating.time is not None and group.first_time is not None
    assert group.first_time >= d.initiating.time


def test_the_cli_table_marks_a_borrowed_group_time() -> None:
    from denpex.core.texts.cli import group_time

    assert group_time("2026-12-01T21:36:34.102Z", True) == "≥ 2026-12-01T21:36:34.102Z"
    assert group_time("2026-12-01T21:36:34.102Z", False) == "2026-12-01T21:36:34.102Z"
    assert group_time(None, False) == "-"
