# ruff: noqa: E501 - realistic log lines are long
"""Failure classes from the December 6 (third session) blind corpus round, each as a small log in the
format its tool prints (not a copy of a case): NCCL's own socket failure relayed by torch after
"Last error:" without NCCL's `NCCL WARN` prefix, which is NCCL failing to reach a peer (interface,
firewall, route), not the rendezvous store."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]

_RELAYED = (
    "[rank5]: torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027, "
    "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n"
    "[rank5]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
    "[rank5]: Last error:\n"
    "[rank5]: {last}\n"
)


@pytest.mark.parametrize(
    "last",
    [
        "socketStartConnect: Connect to 10.4.2.17<41913> failed : No route to host",
        "socketStartConnect: Connect to 10.4.2.17<41913> failed : Connection refused",
        "socketPollConnect: Connect to 10.4.2.17<41913> returned 113(No route to host) errno 115(Operation now in progress)",
    ],
)
def test_nccls_socket_failure_relayed_after_last_error_is_a_communication_error(
    diagnose_dir: Run, tmp_path: Path, last: str
) -> None:
    """The address is a peer's NCCL listening socket, not MASTER_ADDR:MASTER_PORT: the store had
    already formed the group. NCCL_SOCKET_IFNAME and the route between nodes decide it."""
    d = diagnose_dir(_log(tmp_path, _RELAYED.format(last=last)))
    assert d.category == "nccl_comm_error"
    assert d.entry is not None and d.entry.id == "nccl-network-transport-error"


def test_the_stores_own_no_route_stays_a_rendezvous_failure(diagnose_dir: Run, tmp_path: Path) -> None:
    """The c10d store's client failing to reach the master is the rendezvous, whatever NCCL says."""
    log = (
        "[W socket.cpp:601] [c10d] The client socket has failed to connect to [node-a]:29500 (errno: 113 - No route to host).\n"
        "torch.distributed.DistNetworkError: The client socket has timed out after 900s while trying to connect to (node-a, 29500).\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "rendezvous_failure"


def test_transformers_underflow_overflow_report_is_a_numerical_divergence(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """DebugUnderflowOverflow prints its report and raises: an activation reached inf (fp16 overflow)."""
    log = (
        "\nDetected inf/nan during batch_number=412\n"
        "Last 21 forward frames:\n"
        "abs min  abs max  metadata\n"
        "                  model.layers.30.mlp.down_proj Linear\n"
        "3.05e-05 1.84e+01 weight\n"
        "1.22e-04 5.91e+03 input[0]\n"
        "0.00e+00      inf output\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "nan_divergence"


def _import_error(importer: str, module: str, path: str) -> str:
    return (
        "Traceback (most recent call last):\n"
        f'  File "{importer}", line 7, in <module>\n'
        f"    from {module} import load_thing\n"
        f"ImportError: cannot import name 'load_thing' from '{module}' ({path})\n"
    )


@pytest.mark.parametrize(
    ("importer", "path"),
    [
        ("/home/alice/proj/train.py", "/home/alice/proj/datasets.py"),  # a file beside the script
        ("./recipes/data/loader.py", "./recipes/datasets/__init__.py"),  # a package in the script's tree
    ],
)
def test_a_library_name_found_in_the_projects_own_folder_is_a_code_error(
    diagnose_dir: Run, tmp_path: Path, importer: str, path: str
) -> None:
    """No installed version is wrong: the script's folder comes first on sys.path and hides the library."""
    d = diagnose_dir(_log(tmp_path, _import_error(importer, "datasets", path)))
    assert d.category == "shape_or_user_code_error"
    assert "project's own folder" in d.root_cause
    assert any(a.category == "env_version_mismatch" for a in d.alternatives)


@pytest.mark.parametrize(
    ("importer", "path"),
    [
        ("/opt/NeMo/nemo/collections/llm/gpt/model/base.py", "/opt/megatron-lm/megatron/__init__.py"),
        ("/home/alice/proj/train.py", "/usr/lib/python3/dist-packages/datasets/__init__.py"),
    ],
)
def test_a_name_missing_from_another_tree_or_an_installed_package_stays_a_version_question(
    diagnose_dir: Run, tmp_path: Path, importer: str, path: str
) -> None:
    d = diagnose_dir(_log(tmp_path, _import_error(importer, "megatron", path)))
    assert d.category == "env_version_mismatch"


def test_a_circular_import_is_a_code_error(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "ImportError: cannot import name 'Trainer' from partially initialized module 'mytrain.engine' "
        "(most likely due to a circular import) (/work/mytrain/engine/__init__.py)\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "shape_or_user_code_error"


def test_cudas_unknown_error_in_the_watchdog_is_a_gpu_fault(diagnose_dir: Run, tmp_path: Path) -> None:
    """cudaErrorUnknown from an event query in NCCL's watchdog: the GPU, not an illegal access."""
    log = (
        "[default5]:terminate called after throwing an instance of 'c10::CUDAError'\n"
        "[default5]:  what():  CUDA error: unknown error\n"
        "[default5]:Exception raised from query at /opt/pytorch/aten/src/ATen/cuda/CUDAEvent.h:106 (most recent call first):\n"
        "[default5]:frame #1: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x5c (0x7f in libtorch_cuda.so)\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "gpu_hardware_xid"


def test_a_core_file_backtrace_of_the_nccl_watchdogs_abort_is_a_communication_error(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """The process aborted itself rethrowing a collective's NCCL error: not a crash in native code."""
    log = (
        "(gdb) bt\n"
        "#0  0x00007f2a1c8a9e2c in __pthread_kill_implementation () from /lib/x86_64-linux-gnu/libc.so.6\n"
        "#1  0x00007f2a1c85afb2 in raise () from /lib/x86_64-linux-gnu/libc.so.6\n"
        "#2  0x00007f2a1c845472 in abort () from /lib/x86_64-linux-gnu/libc.so.6\n"
        "#3  0x00007f2a0f8a0b9e in std::rethrow_exception(std::__exception_ptr::exception_ptr) () from /lib/x86_64-linux-gnu/libstdc++.so.6\n"
        "#4  0x00007f29c1e1a2d1 in c10d::ProcessGroupNCCL::WorkNCCL::handleException(c10d::ErrorHandlingMode) () from libtorch_cuda.so\n"
        "#5  0x00007f29c1e2b9a4 in c10d::ProcessGroupNCCL::watchdogHandler() () from libtorch_cuda.so\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "nccl_comm_error"


def test_a_triton_kernel_without_an_allocator_is_a_version_mismatch(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.11/site-packages/triton/runtime/_allocation.py", line 20, in __call__\n'
        "RuntimeError: Kernel requires a runtime memory allocation, but no allocator was set. "
        "Use triton.set_allocator to specify an allocator.\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


def test_ranks_in_different_collectives_are_named_with_their_calls(diagnose_dir: Run, tmp_path: Path) -> None:
    """Tracebacks blocked in different c10d calls: the desync entry and each side's call, never a
    'desync report' the logs do not hold."""
    lines = []
    for r in range(4):
        call = "broadcast" if r == 1 else "all_reduce"
        lines += [
            f"[default{r}]:[rank{r}]: Traceback (most recent call last):",
            f'[default{r}]:[rank{r}]:   File "/srv/job/train.py", line 88, in step',
            f"[default{r}]:[rank{r}]:     dist.{call}(t)",
            f'[default{r}]:[rank{r}]:   File "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 2501, in {call}',
            f"[default{r}]:[rank{r}]:     work.wait()",
            f"[default{r}]:[rank{r}]: RuntimeError: [/opt/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 30000ms for recv operation to complete",
        ]
    d = diagnose_dir(_log(tmp_path, "\n".join(lines) + "\n"))
    assert d.category == "nccl_timeout" and d.initiating.rank == 1
    assert d.entry is not None and d.entry.id == "nccl-desync-report"
    assert "`broadcast`" in d.root_cause and "`all_reduce`" in d.root_cause
    assert "desync report" not in d.root_cause


def test_a_time_borrowed_from_another_ranks_line_is_marked(diagnose_dir: Run, tmp_path: Path) -> None:
    """In one combined stream rank 2's traceback has no time; the nearest earlier one is rank 0's."""
    log = (
        "[default2]:2026-03-02 10:00:01,000 INFO step 1/10\n"
        "[default0]:2026-03-02 10:00:05,500 INFO step 2/10\n"
        "[default2]:[rank2]: Traceback (most recent call last):\n"
        "[default2]:[rank2]: ValueError: Loss is nan, stopping training\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.initiating.rank == 2
    assert d.initiating.time is not None and d.initiating.time.startswith("2026-03-02T10:00:05")
    assert d.initiating.time_borrowed


def test_a_rank_files_own_earlier_time_is_not_marked(diagnose_dir: Run, tmp_path: Path) -> None:
    log = "2026-03-02 10:00:05,500 [rank2] INFO step 2/10\nValueError: Loss is nan, stopping training\n"
    d = diagnose_dir(_log(tmp_path, log, name="rank2.log"))
    assert d.initiating.time is not None and not d.initiating.time_borrowed


@pytest.mark.parametrize(
    "log",
    [
        # NCCL's own wording (already a communication error through its other WARN lines)
        "node-7:88121:88402 [3] misc/socket.cc:484 NCCL WARN socketAccept: Call to accept failed : Too many open files\n"
        "node-7:88121:88402 [3] NCCL INFO transport/net_socket.cc:337 -> 2\n",
        # the Neuron collectives library (an NCCL fork) says CCOM where NCCL says NCCL
        "2024-Feb-02 11:20:41.0117 77120:77188 [5] bootstrap.cc:106 CCOM WARN Call to accept failed : Too many open files\n"
        "2024-Feb-02 11:20:41.0118 77120:77188 ERROR   ENC:ncclBootstrapRecv failed neuronBootstrapRecv request to NCCL\n",
    ],
)
def test_open_file_limit_in_the_communicator_is_a_communication_error(
    diagnose_dir: Run, tmp_path: Path, log: str
) -> None:
    """EMFILE on the collectives' sockets: every peer is a socket; `ulimit -n` decides it."""
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "nccl_comm_error"


def test_open_mpi_daemons_that_cannot_decode_each_other_are_a_version_mismatch(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = (
        "--------------------------------------------------------------------------\n"
        "An internal error has occurred in ORTE:\n\n"
        "[[4711,0],2] FORCE-TERMINATE AT Data unpack would read past end of buffer:-26 - error grpcomm_direct.c(359)\n"
        "--------------------------------------------------------------------------\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


def _state_dict_oom(outer: str) -> str:
    return (
        "Traceback (most recent call last):\n"
        '  File "/srv/rl/trainer.py", line 310, in fit\n'
        f"    self.{outer}()\n"
        f'  File "/srv/rl/trainer.py", line 188, in {outer}\n'
        "    params = self.model.state_dict()\n"
        '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 2271, in state_dict\n'
        "    hook_result = hook(self, destination, prefix, local_metadata)\n"
        '  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/fsdp/_state_dict_utils.py", line 714, in _post_state_dict_hook\n'
        "    processed_state_dict = _post_state_dict_hook_fn[fsdp_state._state_dict_type](module, fsdp_state, state_dict, prefix)\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 79.11 GiB "
        "of which 612.00 MiB is free. Process 4411 has 40.20 GiB memory in use.\n"
    )


def test_a_state_dict_taken_to_sync_weights_to_the_inference_engine_is_a_training_step(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """RL trainers hand the policy's weights to vLLM every step: the state_dict under that call is not a
    checkpoint save, so the OOM is a training-step OOM (another process shares the GPU)."""
    d = diagnose_dir(_log(tmp_path, _state_dict_oom("_broadcast_to_vllm")))
    assert d.category == "gpu_oom"
    assert d.initiating.phase == "train"


def test_the_same_state_dict_under_a_save_stays_a_checkpoint_gather(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    d = diagnose_dir(_log(tmp_path, _state_dict_oom("save_checkpoint")))
    assert d.category == "gpu_oom_checkpoint_gather"


def test_the_dynamic_loaders_own_assertion_is_a_native_crash(diagnose_dir: Run, tmp_path: Path) -> None:
    """ld.so aborted the process; the peers' connection resets that follow are its consequence."""
    log = (
        "Inconsistency detected by ld.so: dl-open.c: 272: dl_open_worker: Assertion `_dl_debug_initialize (0, args->nsid)->r_state == RT_CONSISTENT' failed!\n"
        "[E socket.cpp:957] [c10d] Connection reset by peer\n"
        "RuntimeError: Connection reset by peer\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "segfault"


def test_a_library_attribute_missing_from_numpy_in_any_report_format_is_a_version_mismatch(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """A tool's crash report that puts the exception class and message on separate lines."""
    log = (
        "ERROR: Internal error in the graph compiler\n"
        "  Exception type: AttributeError\n"
        "  Exception text: module 'numpy' has no attribute 'float'\n"
        "  Compiler exited with status 70\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


def test_an_oom_while_a_worker_builds_and_loads_its_model_is_not_a_save(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """An RL worker's `init_model` loading a full state dict onto the GPU, beside an inference engine that
    still holds memory: model loading, never a checkpoint gather."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/srv/rl/workers/fsdp_worker.py", line 201, in init_model\n'
        "    self._build_model()\n"
        '  File "/srv/rl/utils/fsdp_utils.py", line 365, in fsdp2_load_full_state_dict\n'
        "    model.to(device)\n"
        '  File "/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1381, in to\n'
        "    return self._apply(convert)\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 520.00 MiB. GPU 0 has a total capacity of 79.11 GiB "
        "of which 247.50 MiB is free. Process 5120 has 61.80 GiB memory in use.\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "gpu_oom"
    assert d.initiating.phase == "model_load"


def test_transformers_lazy_import_failing_is_a_version_mismatch(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        '  File "/opt/venv/lib/python3.11/site-packages/transformers/utils/import_utils.py", line 2045, in __getattr__\n'
        "    raise ModuleNotFoundError(\n"
        "ModuleNotFoundError: Could not import module 'AutoModelForCausalLM'. Are this object's requirements defined correctly?\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"
