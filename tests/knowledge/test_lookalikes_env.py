"""Lookalikes: a loud surface error whose cause the log itself says is the environment, and the
DataLoader deaths that look like a teardown or a hang.

The logs are written from the upstream message formats (torch/cuda/__init__.py, torch/backends/cudnn,
cuDNN's loader, NumPy's ABI warning, torch/csrc/DataLoader.cpp, DeepSpeed's launcher), not copied from
the corpus. Each deciding line is one the engine must weigh above the surface error; the guards check
that the surface class still stands when that line is absent.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis

_SITE = "/opt/conda/lib/python3.8/site-packages"

_ARCH_WARNING = f"""\
{_SITE}/torch/cuda/__init__.py:143: UserWarning:
NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70 sm_75.
If you want to use the NVIDIA GeForce RTX 3090 GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/

  warnings.warn(incompatible_device_warn.format(device_name, capability, " ".join(arch_list), device_name))
"""

_CONV_TRACEBACK = f"""\
Traceback (most recent call last):
  File "tools/train.py", line 201, in <module>
    main(args)
  File "tools/train.py", line 160, in main
    logits = model(images)
  File "{_SITE}/torch/nn/modules/conv.py", line 453, in _conv_forward
    return F.conv2d(input, weight, bias, self.stride,
"""

_OLD_GPU_WARNING = f"""\
{_SITE}/torch/cuda/__init__.py:123: UserWarning:
    Found GPU0 Tesla K40m which is of cuda capability 3.5.
    PyTorch no longer supports this GPU because it is too old.
    The minimum cuda capability supported by this library is 3.7.

  warnings.warn(old_gpu_warn % (d, name, major, minor, min_arch // 10, min_arch % 10))
"""

_NUMPY_ABI = """\

A module that was compiled using NumPy 1.x cannot be run in
NumPy 2.0.1 as it may crash. To support both 1.x and 2.x
versions of NumPy, modules must be compiled with NumPy 2.0.
Some module may need to rebuild instead e.g. with 'pybind11>=2.12'.

If you are a user of the module, the easiest solution will be to
downgrade to 'numpy<2' or try to upgrade the affected module.
We expect that some modules will need time to support NumPy 2.

"""

_SEGV_IN_NCCL = """\
Fatal Python error: Segmentation fault

Thread 0x00007f3b1c9e7740 (most recent call first):
  File "/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py", line 2050 in all_reduce
  File "/workspace/train.py", line 131 in train_step
Segmentation fault (core dumped)
"""

#: (log text, expected category, expected entry): the deciding line is the environment's
ENV_LOOKALIKES = {
    "arch-warning-then-cudnn-failure": (
        "2024-03-11 10:02:14,551 INFO building model resnet50\n"
        + _ARCH_WARNING
        + "2024-03-11 10:02:20,118 INFO start training, 1563 iterations per epoch\n"
        + _CONV_TRACEBACK
        + "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n",
        "env-cuda-driver-mismatch",
    ),
    "old-gpu-warning-then-cublas-failure": (
        _OLD_GPU_WARNING
        + "epoch 1 step 0\n"
        + "Traceback (most recent call last):\n"
        + '  File "train_lm.py", line 77, in <module>\n'
        + "    loss = model(input_ids, labels=labels).loss\n"
        + "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling "
        + "`cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`\n",
        "env-cuda-driver-mismatch",
    ),
    "cudnn-reports-arch-mismatch": (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 90, in <module>\n'
        "    out = model(x.half())\n"
        "RuntimeError: cuDNN error: CUDNN_STATUS_ARCH_MISMATCH\n",
        "env-cuda-driver-mismatch",
    ),
    "cudnn-runtime-older-than-build": (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/workspace/train.py", line 58, in <module>\n'
        "[rank0]:     features = backbone(batch)\n"
        '[rank0]:   File "/usr/local/lib/python3.10/dist-packages/torch/backends/cudnn/__init__.py", '
        "line 95, in _init\n"
        "[rank0]:     raise RuntimeError(\n"
        "[rank0]: RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) "
        "but found runtime version (8, 5, 0). PyTorch already comes bundled with cuDNN. One option to "
        "resolving this error is to ensure PyTorch can find the bundled cuDNN. Looks like your "
        "LD_LIBRARY_PATH contains incompatible version of cudnn. Please either remove it from the path "
        "or install cudnn (8, 9, 2)\n",
        "env-import-undefined-symbol",
    ),
    "cudnn-sublibrary-missing-then-abort": (
        "Epoch 0:   0%|          | 0/938 [00:00<?, ?it/s]\n"
        "Could not load library libcudnn_cnn_infer.so.8. Error: libnvrtc.so: cannot open shared object "
        "file: No such file or directory\n"
        "Please make sure libcudnn_cnn_infer.so.8 is in your library path!\n"
        "Aborted (core dumped)\n",
        "env-import-undefined-symbol",
    ),
    "tensorflow-cudnn-older-than-build": (
        "Epoch 1/50\n"
        "2024-09-10 18:01:31.221710: E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:425] Loaded "
        "runtime CuDNN library: 8.5.0 but source was compiled with: 8.6.0.  CuDNN library needs to have "
        "matching major version and equal or higher minor version.\n"
        "tensorflow.python.framework.errors_impl.UnimplementedError: Graph execution error:\n\n"
        "DNN library is not found.\n",
        "env-import-undefined-symbol",
    ),
    "numpy-abi-then-segfault": (
        _NUMPY_ABI
        + 'Traceback (most recent call last):  File "/workspace/train.py", line 4, in <module>\n'
        + "    import cv2\n"
        + "Fatal Python error: Segmentation fault\n\n"
        + "Current thread 0x00007f3b1c9e7740 (most recent call first):\n"
        + '  File "/usr/local/lib/python3.10/dist-packages/cv2/__init__.py", line 153 in bootstrap\n'
        + '  File "/workspace/train.py", line 4 in <module>\n'
        + "Segmentation fault (core dumped)\n",
        "env-import-undefined-symbol",
    ),
}


@pytest.mark.parametrize("name", sorted(ENV_LOOKALIKES))
def test_the_environment_line_decides_over_the_surface_error(
    name: str, tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    text, entry = ENV_LOOKALIKES[name]
    (tmp_path / "train.log").write_text(text)
    diag = diagnose_dir(tmp_path)
    assert diag.category == "env_version_mismatch", (name, diag.category, diag.entry)
    assert diag.entry is not None and diag.entry.id == entry


#: one line each, other releases' and libraries' wording of a version/build mismatch
ENV_LINES = [
    "RuntimeError: operator torchvision::nms does not exist",
    "RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision versions "
    "are incompatible, or if you had errors while compiling torchvision from source.",
    "RuntimeError: Found Tesla P100-PCIE-16GB which is too old to be supported by the triton GPU compiler, "
    "which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device "
    "is of CUDA capability 6.0",
    "RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match the version "
    "used to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda 11.7.",
    "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, libcudnn_ops.so}",
    "RuntimeError: cuDNN error: CUDNN_STATUS_VERSION_MISMATCH",
    # an old transformers meeting a new model type: the KeyError itself is a plain Python error
    '  File "/opt/venv/lib/python3.10/site-packages/transformers/models/auto/configuration_auto.py", '
    'line 1022, in from_pretrained\n    config_class = CONFIG_MAPPING[config_dict["model_type"]]\n'
    '  File "/opt/venv/lib/python3.10/site-packages/transformers/models/auto/configuration_auto.py", '
    "line 723, in __getitem__\n    raise KeyError(key)\nKeyError: 'qwen2'",
]


@pytest.mark.parametrize("line", ENV_LINES)
def test_a_version_mismatch_line_alone_is_the_environment(
    line: str, tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    (tmp_path / "train.log").write_text(line + "\n")
    assert diagnose_dir(tmp_path).category == "env_version_mismatch"


def test_a_library_failure_with_no_environment_line_stays_a_library_failure(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    """Without a line that says the stack is unsupported, a cuDNN status is the cuDNN failure."""
    (tmp_path / "train.log").write_text(
        _CONV_TRACEBACK + "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR\n"
    )
    assert diagnose_dir(tmp_path).category == "cudnn_or_cublas_error"


def test_a_kernel_the_library_could_not_execute_is_first_a_build_mismatch(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    """A bare EXECUTION_FAILED: resolved threads mostly trace it to a build without kernels for the GPU
    (a CUDA 10 wheel on an Ampere card); the library bug stays the named alternative."""
    (tmp_path / "train.log").write_text(
        _CONV_TRACEBACK + "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n"
    )
    d = diagnose_dir(tmp_path)
    assert d.category == "env_version_mismatch"
    assert "cudnn_or_cublas_error" in [a.category for a in d.alternatives]


def test_an_import_failure_long_before_a_crash_does_not_explain_it(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    """An optional fused op failed to import at start-up, the job fell back and trained 80 steps, then
    crashed in a collective: a segfault. The same import line just before the crash would explain it."""
    failed_op = (
        "ImportError: /usr/local/lib/python3.10/dist-packages/fused_layer_norm_cuda.cpython-310-x86_64-"
        "linux-gnu.so: undefined symbol: _ZN3c104cuda20getCurrentCUDAStreamEa\n"
        "Falling back to the PyTorch LayerNorm\n"
    )
    steps = "".join(f"step {i} loss {2.5 - i / 100:.3f}\n" for i in range(80))
    (tmp_path / "late.log").write_text(failed_op + steps + _SEGV_IN_NCCL)
    assert diagnose_dir(tmp_path).category == "segfault"
    (tmp_path / "late.log").unlink()
    (tmp_path / "soon.log").write_text(steps + failed_op + _SEGV_IN_NCCL)
    assert diagnose_dir(tmp_path).category == "env_version_mismatch"


def test_a_worker_bus_error_on_one_rank_is_the_cause_of_the_others_timeouts(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    (tmp_path / "rank1.log").write_text(
        "Epoch 3:  41%|####      | 410/1000 [03:10<04:33,  2.16it/s]\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/conda/lib/python3.10/site-packages/torch/utils/data/_utils/signal_handling.py", '
        "line 66, in handler\n"
        "    _error_if_any_worker_fails()\n"
        "RuntimeError: DataLoader worker (pid 28871) is killed by signal: Bus error. It is possible that "
        "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.\n"
    )
    (tmp_path / "rank0.log").write_text(
        "Epoch 3:  41%|####      | 410/1000 [03:10<04:33,  2.16it/s]\n"
        "[rank0]:[E502 09:46:12.114559 7740 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=8221, OpType=ALLREDUCE, NumelIn=25557032, NumelOut=25557032, "
        "Timeout(ms)=1800000) ran for 1800088 milliseconds before timing out.\n"
    )
    diag = diagnose_dir(tmp_path)
    assert diag.category == "dataloader_worker_killed" and diag.initiating.rank == 1


def test_a_launcher_reporting_sigbus_is_a_dataloader_shm_death(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    """DeepSpeed's launcher prints only the failed child's command and its return code -7 (SIGBUS)."""
    cmd = "['/usr/bin/python', '-u', 'train.py', '--local_rank=1', '--deepspeed', 'ds.json']"
    (tmp_path / "console.log").write_text(
        "  0%|          | 0/5000 [00:00<?, ?it/s]\n"
        "[2024-05-02 09:16:03,880] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 51211\n"
        "[2024-05-02 09:16:03,881] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 51212\n"
        f"[2024-05-02 09:16:03,990] [ERROR] [launch.py:325:sigkill_handler] {cmd} "
        "exits with return code = -7\n"
    )
    diag = diagnose_dir(tmp_path)
    assert diag.category == "dataloader_worker_killed" and diag.initiating.rank == 1


def test_ucx_reporting_sigbus_in_nccl_is_the_shared_memory_death(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    """UCX's signal handler names SIGBUS inside libnccl and torchrun only says a child failed: the
    /dev/shm class, not a generic native crash or a teardown."""
    (tmp_path / "worker.log").write_text(
        "[gpu-node-07:41822:0:41907] Caught signal 7 (Bus error: nonexistent physical address)\n"
        "==== backtrace (tid:  41907) ====\n"
        " 0  /usr/lib/libucs.so.0(ucs_handle_error+0x2dc) [0x7f1c2c0d2e4c]\n"
        " 1  /usr/lib/libucs.so.0(+0x3012c) [0x7f1c2c0d312c]\n"
        " 2  /usr/lib/x86_64-linux-gnu/libnccl.so.2(+0x7a1e3) [0x7f1d5a27a1e3]\n"
        "=================================\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
    )
    assert diagnose_dir(tmp_path).category == "dataloader_worker_killed"
