# ruff: noqa: E501 - realistic log lines are long
"""Failure classes from the December 6 blind corpus round, each as a small log in the format its tool
prints (not a copy of a case): UCX's crash handler (HPC-X ships it with every MPI/NCCL-over-UCX job)
reporting a fatal signal other than SIGSEGV, with its backtrace banner; and Python's exception chain,
whose first exception is the cause of one raised while handling it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from knowledge import lines, unwrap
from knowledge.phases import load_markers
from knowledge.schema import load_entries
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]

RAY_LOST_WORKER = (
    "(raylet) A worker died or was killed while executing a task by an unexpected system error. Worker PID: 3345 "
    "Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. "
    "End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to "
    "high memory usage.\n"
)


@pytest.mark.parametrize(
    "what",
    [
        "4 (Illegal instruction: illegal operand)",
        "6 (Aborted)",
        "8 (Floating point exception: integer divide by zero)",
    ],
)
def test_ucx_crash_handler_reports_a_native_crash(diagnose_dir: Run, tmp_path: Path, what: str) -> None:
    log = (
        "Starting training loop at iteration 0\n"
        f"[node7:77120:0:77120] Caught signal {what}\n"
        "==== backtrace (tid:  77120) ====\n"
        " 0  /opt/hpcx/ucx/lib/libucs.so.0(ucs_handle_error+0x2e4) [0x15551d4a3774]\n"
        " 1  /usr/local/lib/python3.12/dist-packages/some_ext.so(+0x204c2) [0x1555]\n"
        "srun: error: node7: tasks 0-7: Exited with exit code 132\n"
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "segfault"


def test_a_bare_shell_illegal_instruction_stays_an_environment_problem(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """The shell's `Illegal instruction (core dumped)` after an import is a binary built for a newer CPU."""
    log = "$ python -c 'import torch'\nIllegal instruction (core dumped)\n"
    assert diagnose_dir(_log(tmp_path, log)).category == "env_version_mismatch"


def _chain(first: str, then: str) -> str:
    return (
        "Traceback (most recent call last):\n"
        '  File "/env/lib/python3.10/site-packages/torch/serialization.py", line 652, in save\n'
        "    _save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)\n"
        '  File "/env/lib/python3.10/site-packages/torch/serialization.py", line 886, in _save\n'
        "    zip_file.write_record(name, storage, num_bytes)\n"
        f"{first}\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "/env/lib/python3.10/site-packages/torch/serialization.py", line 651, in save\n'
        "    with _open_zipfile_writer(f) as opened_zipfile:\n"
        f"{then}\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 410, in <module>\n'
        "    trainer.fit(model, datamodule)\n"
        '  File "/env/lib/python3.10/site-packages/pytorch_lightning/trainer/trainer.py", line 544, in fit\n'
        "    call._call_and_handle_interrupt(\n"
    )


def test_an_error_raised_while_handling_a_memory_error_is_its_consequence(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """Python prints the original exception first; the half-written zip's `unexpected pos` is the
    consequence of the save running out of host memory, not a full disk."""
    log = _chain(
        "MemoryError",
        "RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos 6057217600 vs 6057217496",
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "cpu_oom_checkpoint"


def test_an_emergency_save_failing_after_a_cuda_oom_does_not_hide_the_oom(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """Trainers that save on an exception write a half file when the first error left no room: the
    chain's first exception (the step's CUDA OOM) is the cause."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/env/lib/python3.10/site-packages/lightning/pytorch/loops/optimization/automatic.py", line 330, in backward_fn\n'
        '    call._call_strategy_hook(self.trainer, "backward", loss, optimizer)\n'
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.10 GiB is free.\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 88, in on_exception\n'
        "    torch.save(state, ckpt_path)\n"
        "RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos 4288 vs 4176\n"
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "gpu_oom"


def test_a_full_disk_first_stays_a_full_disk(diagnose_dir: Run, tmp_path: Path) -> None:
    log = _chain(
        "OSError: [Errno 28] No space left on device",
        "RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos 4288 vs 4176",
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "disk_full_or_io"


WINDOWS_SAVE_FRAME = (
    '  File "C:\\Users\\me\\envs\\ft\\lib\\site-packages\\torch\\serialization.py", line 668, in _save'
)


def test_windows_paths_in_a_save_traceback_are_save_frames() -> None:
    """Python on Windows prints frames with backslashes: the save frame and the save context must read
    them as they read `torch/serialization.py`."""
    marker = next(m for m in load_markers() if m.id == "frame-torch-save")
    assert re.search(marker.pattern, WINDOWS_SAVE_FRAME)
    entry = next(e for e in load_entries() if e.id == "checkpoint-cpu-alloc-oom")
    frame = next(c for c in entry.context if c.id == "save-load-frame")
    assert re.search(frame.pattern, WINDOWS_SAVE_FRAME)


def test_open_mpis_report_of_a_killed_process_names_its_rank(diagnose_dir: Run, tmp_path: Path) -> None:
    """mpirun (Horovod, DeepSpeed's MPI launcher) names the MPI rank of the process that died."""
    log = (
        "Epoch 1/30: loading the training set\n"
        "--------------------------------------------------------------------------\n"
        "mpirun noticed that process rank 2 with PID 41877 on node trainer-7 exited on signal 9 (Killed).\n"
        "--------------------------------------------------------------------------\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert (d.category, d.initiating.rank if d.initiating else None) == ("host_oom", 2)


def test_a_watchdog_line_quoted_with_its_fields_elided_is_still_a_timeout(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """Issue threads and PR descriptions quote the watchdog's line shortened (`WorkNCCL(... OpType=…)
    ran for N ms`): still a collective that timed out, not a silent hang."""
    log = "the run died with WorkNCCL(... OpType=ALLREDUCE, NumelIn=1 ...) ran for 600058 ms\n"
    assert diagnose_dir(_log(tmp_path, log)).category == "nccl_timeout"


@pytest.mark.parametrize(
    "save_line",
    [
        "(TaskRunner pid=1123) local_global_step_folder: /data/ckpt/global_step_200",  # verl's _save_checkpoint
        "(WorkerDict pid=3345) [rank0]: Saving actor checkpoint to /data/ckpt/global_step_200/actor",
    ],
)
def test_an_rl_trainers_save_before_a_lost_worker_is_a_checkpoint_host_oom(
    diagnose_dir: Run, tmp_path: Path, save_line: str
) -> None:
    log = (
        "(TaskRunner pid=1123) step:200 - actor/pg_loss:0.012 - critic/score/mean:0.61\n"
        f"{save_line}\n" + RAY_LOST_WORKER
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert (d.category, d.initiating.phase if d.initiating else None) == (
        "cpu_oom_checkpoint",
        "checkpoint_save",
    )


UNINDENTED_SAVE_OOM = (
    'File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1818, in _save_to_state_dict\n'
    "destination[prefix + name] = param if keep_vars else param.detach().to(self.dtype, copy=True)  # cast for export\n"
    'File "/opt/conda/lib/python3.10/site-packages/quantlib/nn/linear8bit.py", line 96, in dequantize_for_save\n'
    "outputs = torch.empty_like(weight, dtype=torch.float16)  # full-size copy of every int8 weight on the GPU\n"
    "torch.cuda.OutOfMemoryError: CUDA out of memory.\n"
)


def test_a_frame_pasted_without_indentation_is_not_a_wrapped_line() -> None:
    """A traceback pasted with its indentation lost puts each frame's source line under its header; the
    two long lines look like a hard wrap, but a whole frame header is never continued by the next line."""
    joined = unwrap.rejoin_text(UNINDENTED_SAVE_OOM)
    assert joined is None or "in _save_to_state_dict\n" in joined


def test_a_cuda_oom_while_building_a_state_dict_is_the_checkpoint_gather_class(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """`Module.state_dict()` calls `_save_to_state_dict` on every module: a CUDA OOM under it is a
    save's copy of the weights on the GPU, not a training step's."""
    d = diagnose_dir(_log(tmp_path, UNINDENTED_SAVE_OOM))
    assert (d.category, d.initiating.phase if d.initiating else None) == (
        "gpu_oom_checkpoint_gather",
        "checkpoint_save",
    )


def test_horovods_shutdown_is_a_peer_gone_not_a_user_code_error(diagnose_dir: Run, tmp_path: Path) -> None:
    """horovodrun tags each line with Open MPI's `[job,rank]<stderr>:`; Horovod's SHUT_DOWN_ERROR, raised
    inside TensorFlow's generic `UnknownError`, says another rank raised or finished first."""
    log = (
        "[1,2]<stderr>:Traceback (most recent call last):\n"
        '[1,2]<stderr>:  File "/usr/lib/python3.10/site-packages/horovod/tensorflow/mpi_ops.py", line 127, in _allreduce\n'
        "[1,2]<stderr>:tensorflow.python.framework.errors_impl.UnknownError: Graph execution error:\n"
        "[1,2]<stderr>:Horovod has been shut down. This was caused by an exception on one of the ranks or an attempt "
        "to allreduce, allgather or broadcast a tensor after one of the ranks finished execution.\n"
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "nccl_comm_error"


def test_open_mpis_output_tag_names_the_rank() -> None:
    assert lines.parse_rank("[1,3]<stderr>:RuntimeError: boom").rank == 3
    assert lines.parse_rank("[27131,12]<stdout>:step 10 loss 2.0").rank == 12


def test_a_labelled_traceback_pasted_as_an_indented_code_block_keeps_its_exception(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """A log pasted into an issue as a code block is indented; the rank label and the exception under it
    are still the rank's own failure, not a silent hang."""
    log = (
        "    [rank1]: Traceback (most recent call last):\n"
        '    [rank1]:   File "/usr/lib/python3.10/os.py", line 272, in renames\n'
        "    [rank1]:     rename(old, new)\n"
        "    [rank1]: FileExistsError: [Errno 17] File exists: 'out/tmp-checkpoint-x1' -> 'out/checkpoint-400'\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category != "hang_no_error"
    assert d.initiating is not None and d.initiating.rank == 1


def test_the_one_rank_that_printed_nothing_while_the_others_lost_it_is_named(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """Ranks 1-3 print tracebacks and one of them that Horovod shut down (a peer finished or raised);
    rank 0 printed nothing at all: the one rank missing below the highest seen is the lead."""
    shutdown = (
        "Horovod has been shut down. This was caused by an exception on one of the ranks or an attempt "
        "to allreduce, allgather or broadcast a tensor after one of the ranks finished execution."
    )
    frames = "".join(
        f"[1,{r}]<stderr>:Traceback (most recent call last):\n"
        f'[1,{r}]<stderr>:  File "/usr/lib/python3/site-packages/horovod/torch/mpi_ops.py", line 280, in synchronize\n'
        for r in (2, 1, 3)
    )
    log = frames + f"[1,3]<stderr>:RuntimeError: {shutdown}\n"  # the excerpt keeps one rank's message
    d = diagnose_dir(_log(tmp_path, log))
    assert (d.category, d.initiating.rank if d.initiating else None) == ("nccl_comm_error", 0)


@pytest.mark.parametrize(
    "line",
    [
        "AttributeError: /opt/venv/lib/python3.12/site-packages/somepkg/lib/libcudart_stub.so: undefined symbol: cudaDeviceReset",
        "AttributeError: module 'ml_dtypes' has no attribute 'float4_e2m1fn' ",
        "AttributeError: module 'transformer_engine.pytorch' has no attribute 'GroupedLinear'",
    ],
)
def test_a_library_missing_what_another_library_expects_is_a_version_mismatch(
    diagnose_dir: Run, tmp_path: Path, line: str
) -> None:
    """ctypes reports a symbol a shared library lacks as an AttributeError; an installed ML library's
    module without the attribute its caller uses is two releases that do not fit."""
    assert diagnose_dir(_log(tmp_path, line + "\n")).category == "env_version_mismatch"


def test_a_fork_that_fails_for_memory_in_megatrons_async_save_is_a_checkpoint_host_oom(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """Megatron's async checkpointing forks a worker for each save; a fork refused for memory (ENOMEM)
    happens in the save."""
    log = (
        '  File "/env/lib/python3.12/site-packages/megatron/core/dist_checkpointing/strategies/async_utils.py", line 204, in schedule_async_call\n'
        "    self.process.start()\n"
        '  File "/usr/lib/python3.12/multiprocessing/popen_fork.py", line 66, in _launch\n'
        "    self.pid = os.fork()\n"
        "OSError: [Errno 12] Cannot allocate memory\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert (d.category, d.initiating.phase if d.initiating else None) == (
        "cpu_oom_checkpoint",
        "checkpoint_save",
    )


def test_a_save_traceback_that_ends_in_another_error_is_not_an_oom(diagnose_dir: Run, tmp_path: Path) -> None:
    """The FSDP unshard frames of a full-state-dict save stand for the gather OOM only when a pasted
    trace lost its error line; when the trace ends in its own exception, that exception is the answer."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/app/trainer/checkpoint.py", line 238, in save_checkpoint\n'
        "    model_state_dict = self.model.state_dict()\n"
        '  File "/env/lib/python3.12/site-packages/torch/distributed/fsdp/_state_dict_utils.py", line 161, in _common_unshard_pre_state_dict_hook\n'
        "    _enter_unshard_params_ctx(\n"
        '  File "/env/lib/python3.12/site-packages/torch/distributed/fsdp/_state_dict_utils.py", line 125, in _enter_unshard_params_ctx\n'
        "    fsdp_state._unshard_params_ctx[module].__enter__()\n"
        '  File "/env/lib/python3.12/site-packages/torch/distributed/utils.py", line 159, in _p_assert\n'
        "    raise AssertionError(s)\n"
        "AssertionError: Expects tensor to be on the compute device cuda:0, was on cpu\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category not in ("gpu_oom_checkpoint_gather", "gpu_oom", "cpu_oom_checkpoint")


def test_the_unshard_frames_alone_still_point_at_the_gather_oom(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        '  File "/env/lib/python3.12/site-packages/torch/distributed/fsdp/_state_dict_utils.py", line 161, in _common_unshard_pre_state_dict_hook\n'
        "    _enter_unshard_params_ctx(\n"
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "gpu_oom_checkpoint_gather"


@pytest.mark.parametrize(
    "line",
    [
        "Exception: sgl-kernel is installed with version 0.1.0, which is less than the minimum required version 0.1.1.",
        "RuntimeError: Dynamo is not supported on Python 3.12+",
    ],
)
def test_a_librarys_own_version_check_is_a_version_mismatch(
    diagnose_dir: Run, tmp_path: Path, line: str
) -> None:
    assert diagnose_dir(_log(tmp_path, line + "\n")).category == "env_version_mismatch"
