# ruff: noqa: E501 - realistic log lines are long
"""Failure classes from the December 6 (fifth session) blind corpus round, each as a small log in the
format its tool prints (not a copy of a case)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from knowledge.labels import recognise
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]


def test_an_overflow_at_a_loss_scale_of_one_or_below_is_a_diverged_run(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """DeepSpeed's scaler already at its floor, and the exception that follows cut off: the run diverged."""
    log = (
        " 15%|█▌        | 417/2724 [15:23:53<84:00:48, 131.10s/it][2024-03-01 23:41:42,582] [INFO] [loss_scaler.py:181:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 0, reducing to 0\n"
        " 15%|█▌        | 418/2724 [15:26:04<83:57:06, 131.06s/it]Traceback (most recent call last):\n"
        '  File "./scripts/train.py", line 621, in <module>\n'
        "    main()\n"
        '  File "/opt/conda/lib/python3.8/site-packages/torch/distributed/launcher/api.py", line 246, in launch_agent\n'
        "    raise ChildFailedError(\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "nan_divergence"


def test_ordinary_overflows_at_a_high_scale_do_not_decide(diagnose_dir: Run, tmp_path: Path) -> None:
    """Overflows are routine in fp16 while the scale is still large: they are no verdict of their own."""
    log = (
        "[2024-03-01 10:00:01,100] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768\n"
        "[2024-03-01 10:00:03,200] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 16384, reducing to 8192\n"
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x512 and 1024x10)\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "shape_or_user_code_error"


def test_nccl_without_a_kernel_for_this_gpu_is_the_environment(diagnose_dir: Run, tmp_path: Path) -> None:
    """`named symbol not found` under NCCL's `unhandled cuda error`: the wheel has no code for the GPU."""
    log = (
        "gpu-node:811:811 [0] NCCL INFO cudaDriverVersion 12080\n"
        "NCCL version 2.14.3+cuda11.8\n"
        "gpu-node:811:811 [0] NCCL WARN Cuda failure 'named symbol not found'\n"
        "RuntimeError: NCCL Error 1: unhandled cuda error\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


def test_a_bootstrap_address_of_family_0_is_mismatched_nccl_versions(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = (
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, internal error - please report this issue to the NCCL developers, NCCL version 2.19.3\n"
        "ncclInternalError: Internal check failed.\n"
        "Last error:\n"
        "ncclSocketInit: connecting to address  with family 0 is neither AF_INET(2) nor AF_INET6(10)\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


STORE_FRAMES = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 40, in <module>\n'
    "    dist.init_process_group(backend='nccl', init_method='env://')\n"
    '  File "/usr/lib/python3.10/site-packages/torch/distributed/rendezvous.py", line 176, in _create_c10d_store\n'
    "    return TCPStore(\n"
)


@pytest.mark.parametrize(
    "error",
    [
        "RuntimeError: Address already in use",
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use",
    ],
)
def test_a_port_taken_under_the_processes_own_store_is_rank_0s(
    diagnose_dir: Run, tmp_path: Path, error: str
) -> None:
    """Only rank 0 listens on MASTER_PORT in the env:// rendezvous; the others connect as clients."""
    d = diagnose_dir(_log(tmp_path, STORE_FRAMES + error + "\n"))
    assert d.category == "rendezvous_failure"
    assert d.initiating.rank == 0
    assert "only rank 0" in d.root_cause


def test_a_port_taken_by_torchruns_agent_names_no_rank(diagnose_dir: Run, tmp_path: Path) -> None:
    """torchrun's agent binds its own store before any rank exists: no rank is named for it."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.10/site-packages/torch/distributed/elastic/rendezvous/static_tcp_rendezvous.py", line 55, in next_rendezvous\n'
        "    self._store = TCPStore(  # type: ignore[call-arg]\n"
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "rendezvous_failure"
    assert d.initiating.rank is None


def test_pdsh_host_labels_after_deepspeeds_own_lines_are_recognised() -> None:
    """DeepSpeed's launcher prints its own lines, then pdsh relays every node's output behind its host."""
    head = (
        b"[2024-03-01 10:00:00,100] [INFO] [runner.py:463:main] Using IP address of 10.0.0.1 for node worker-0\n"
        b"[2024-03-01 10:00:00,101] [INFO] [multinode_runner.py:72:get_cmd] Running on the following workers: worker-0,worker-1\n"
        b"worker-0: [2024-03-01 10:00:02,000] [INFO] [launch.py:146:main] WORLD INFO DICT: {'worker-0': [0, 1], 'worker-1': [0, 1]}\n"
        b"worker-1: [2024-03-01 10:00:02,010] [INFO] [launch.py:146:main] WORLD INFO DICT: {'worker-0': [0, 1], 'worker-1': [0, 1]}\n"
        b"worker-0: [2024-03-01 10:00:03,000] [INFO] [launch.py:256:main] process 4242 spawned with command: [...]\n"
        b"worker-1: [2024-03-01 10:00:03,010] [INFO] [launch.py:256:main] process 4343 spawned with command: [...]\n"
        b"worker-0: Traceback (most recent call last):\n"
    )
    label = recognise(head)
    assert label is not None
    assert label.sub(b"", b"worker-1: [rank3]: x") == b"[rank3]: x"
    assert label.sub(b"", b"RuntimeError: boom") == b"RuntimeError: boom"


@pytest.mark.parametrize(
    "head",
    [
        # an exception's module-qualified name is not a host
        b'Traceback (most recent call last):\n  File "a.py", line 1, in f\n    g()\nsafetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge\n',
        # srun's rank labels are numbers, and words before a colon are text
        b"0: a\n1: b\n0: c\n1: d\n0: e\n1: f\n",
        b"INFO: a\nINFO: b\nWARNING: c\nINFO: d\nINFO: e\nINFO: f\n",
    ],
)
def test_what_only_looks_like_a_pdsh_label_is_left_alone(head: bytes) -> None:
    assert recognise(head) is None


def test_an_exception_relayed_by_airflow_is_read_as_the_job_printed_it(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    relay = "[2024-05-01, 10:00:00 UTC] {subprocess.py:93} INFO - "
    log = "".join(
        relay + line + "\n"
        for line in (
            "Traceback (most recent call last):",
            '  File "train.py", line 3, in <module>',
            "    import flash_attn",
            "ModuleNotFoundError: No module named 'flash_attn'",
        )
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"
