# ruff: noqa: E501 - realistic log lines are long
"""Release bugs and builds too old for the job, read from the library's own words (round 17b), against
the same surfaces without the version fact.

env_version_mismatch:
- NCCL 2.18.1-2.18.5 failing its transport set-up with `Cuda failure 'invalid argument'` (the
  asynchronous device-address copy fixed in 2.18.6, NVIDIA/nccl#957): the CUDA error alone is no version
  fact, so the entry needs the release (NCCL's banner, torch's `…, NCCL version 2.18.x`) in the job.
- Lightning 1.7.0/1.7.1's DataLoader re-instantiation patch failing to undo itself: a bare
  `AttributeError: _old_init` (Lightning's own attribute, fixed in 1.7.2).
- Thrust's merge sort hitting an illegal address (`merge_sort: failed to synchronize:
  cudaErrorIllegalAddress`): in the resolved threads the CUDA toolkit / torch build (CUDA 11.0-11.4);
  the illegal-access reading stays the alternative.
- torch's `unhandled cuda error, NCCL version 2.4.8` (an NCCL from before Ampere support, 2.7.3):
  a PyTorch build too old for the GPU, answered as inconclusive.
Lookalikes that keep their category: the same CUDA error with the fixed NCCL 2.19.3, a 2.18.5 system
error over sockets, a user object's missing attribute, Thrust's `transform` losing an ECC page, a
plain illegal memory access, `unhandled cuda error` from NCCL 2.7.8 and `unhandled system error` from 2.4.8.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case, pre, tb

Run = Callable[[Path], Diagnosis]
SP = "/opt/conda/envs/ft/lib/python3.11/site-packages"

_BARRIER = [
    ("/srv/jobs/sft/run_sft.py", 211, "main", "dist.barrier()"),
    (f"{SP}/torch/distributed/c10d_logger.py", 79, "wrapper", "return func(*args, **kwargs)"),
    (f"{SP}/torch/distributed/distributed_c10d.py", 3696, "barrier", "work = default_pg.barrier(opts=opts)"),
]

_PL_FIT = [
    ("/home/ana/graphs/train_gnn.py", 97, "<module>", "trainer.fit(model, datamodule=dm)"),
    (
        f"{SP}/pytorch_lightning/trainer/trainer.py",
        700,
        "fit",
        "self._call_and_handle_interrupt(",
    ),
    (
        f"{SP}/pytorch_lightning/trainer/connectors/data_connector.py",
        431,
        "_request_dataloader",
        "dataloader = source.dataloader()",
    ),
    ("/usr/lib/python3.9/contextlib.py", 126, "__exit__", "next(self.gen)"),
    (f"{SP}/pytorch_lightning/utilities/data.py", 527, "_replace_init_method", "del cls._old_init"),
]

_SPAWN = [
    ("tools/train_net.py", 188, "<module>", "mp.spawn(main_worker, nprocs=ngpus, args=(ngpus, cfg))"),
    (
        "/usr/local/lib/python3.7/site-packages/torch/multiprocessing/spawn.py",
        200,
        "spawn",
        "return start_processes(fn, args, nprocs, join, daemon, start_method='spawn')",
    ),
    (
        "/usr/local/lib/python3.7/site-packages/torch/nn/parallel/distributed.py",
        305,
        "__init__",
        "self._distributed_broadcast_coalesced(",
    ),
]

CASES: dict[str, tuple[dict[str, str], str, int | None]] = {}

# ---------------------------------------------------------------- env_version_mismatch
# 1 NCCL_DEBUG=INFO on a 4-GPU box: NCCL 2.18.1's banner, its transport.cc WARN, torch's chained error
CASES["nccl_2181_transport_setup_invalid_argument"] = (
    {
        "train.log": pre(
            "",
            [
                "ws-41:30512:30512 [0] NCCL INFO Bootstrap : Using enp4s0:10.1.7.41<0>",
                "ws-41:30512:30512 [0] NCCL INFO cudaDriverVersion 12020",
                "NCCL version 2.18.1+cuda12.1",
                "ws-41:30514:30630 [2] NCCL INFO Channel 00/0 : 2[2] -> 3[3] via P2P/direct pointer",
                "ws-41:30514:30630 [2] transport.cc:154 NCCL WARN Cuda failure 'invalid argument'",
                "ws-41:30514:30630 [2] NCCL INFO init.cc:1079 -> 1",
                "ws-41:30514:30630 [2] NCCL INFO group.cc:64 -> 1 [Async thread]",
                *[
                    "[rank2]: " + ln
                    for ln in tb(
                        _BARRIER,
                        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1",
                    )
                ],
                "[rank2]: ncclUnhandledCudaError: Call to CUDA function failed.",
                "[rank2]: Last error:",
                "[rank2]: Cuda failure 'invalid argument'",
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 2 only torch's lines (no NCCL_DEBUG): the release is named in the error line itself, CRLF paste
CASES["nccl_2183_invalid_argument_torch_lines_only"] = (
    {
        "console.txt": pre(
            "",
            [
                "Running tokenizer on dataset: 100%|##########| 5000/5000 [00:03<00:00, 1402.17 examples/s]",
                "torch.distributed.DistBackendError: NCCL error in: /opt/conda/conda-bld/pytorch_1699449201336/work/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.3",
                "ncclUnhandledCudaError: Call to CUDA function failed.",
                "Last error:",
                "Cuda failure 'invalid argument'",
            ],
        ).replace("\n", "\r\n"),
    },
    "env_version_mismatch",
    None,
)

# 3 Lightning 1.7.1 undoing its DataLoader patch on a second subclass: the full traceback
CASES["lightning_171_old_init_traceback"] = (
    {
        "fit.log": pre(
            "",
            [
                "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4",
                "LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0,1,2,3]",
                *tb(_PL_FIT, "AttributeError: _old_init"),
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 4 the same error line under a rank prefix, without the traceback (a relay kept only the last line)
CASES["lightning_old_init_bare_line_rank_prefixed"] = (
    {
        "rank1.log": pre(
            "[rank1]: ",
            [
                "Epoch 0:   0%|          | 0/118 [00:00<?, ?it/s]",
                "AttributeError: _old_init",
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 5 a point-cloud extension's thrust::sort aborting the process (thrust's system_error via terminate)
CASES["thrust_merge_sort_illegal_address_terminate"] = (
    {
        "worker0.log": pre(
            "",
            [
                "2022-08-14 02:11:57 | INFO | epoch 3 iter 1400/5210 | loss 0.4132 | lr 0.00100",
                "terminate called after throwing an instance of 'thrust::system::system_error'",
                "  what():  merge_sort: failed to synchronize: cudaErrorIllegalAddress: an illegal memory access was encountered",
                "Aborted (core dumped)",
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 6 the older thrust wording (error string without its name), raised back into Python by an extension
CASES["thrust_merge_sort_old_wording_in_backward"] = (
    {
        "stderr.log": pre(
            "",
            [
                *tb(
                    [
                        ("train_seg.py", 142, "train_epoch", "loss.backward()"),
                        (
                            "/usr/lib/python3.8/site-packages/torch/autograd/__init__.py",
                            132,
                            "backward",
                            "allow_unreachable=True)  # allow_unreachable flag",
                        ),
                    ],
                    "RuntimeError: merge_sort: failed to synchronize: an illegal memory access was encountered",
                ),
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 7 torch 1.6 (its NCCL 2.4.8) under mp.spawn: the CUDA failure in a release that predates Ampere
CASES["torch16_nccl_248_unhandled_cuda_error_spawn"] = (
    {
        "log.txt": pre(
            "",
            [
                "-- Process 1 terminated with the following error:",
                *tb(
                    _SPAWN,
                    "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:514, unhandled cuda error, NCCL version 2.4.8",
                ),
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# ---------------------------------------------------------------- lookalikes that keep their category
# 8 the same CUDA error with the release that has the fix: no release fact, NCCL's own failure
CASES["nccl_2193_invalid_argument_stays_comm"] = (
    {
        "train.log": pre(
            "",
            [
                "NCCL version 2.19.3+cuda12.3",
                "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3",
                "ncclUnhandledCudaError: Call to CUDA function failed.",
                "Last error:",
                "Cuda failure 'invalid argument'",
            ],
        ),
    },
    "nccl_comm_error",
    None,
)

# 9 NCCL 2.18.5 with a socket failure (no CUDA error): the network, not the release bug
CASES["nccl_2185_system_error_socket_stays_comm"] = (
    {
        "node3.log": pre(
            "",
            [
                "gpu-n3:8811:9020 [1] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.20.0.4<41877> failed : Connection refused",
                "[rank9]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1331, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.5",
                "[rank9]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.",
            ],
        ),
    },
    "nccl_comm_error",
    None,
)

# 10 a missing attribute on the user's own object stays a code error
CASES["user_object_missing_attribute_stays_code"] = (
    {
        "fit.log": pre(
            "",
            [
                *tb(
                    [
                        (
                            "/home/ana/graphs/train_gnn.py",
                            97,
                            "<module>",
                            "trainer.fit(model, datamodule=dm)",
                        ),
                        (
                            "/home/ana/graphs/model.py",
                            58,
                            "training_step",
                            "out = self.encoder(batch.x, self._old_index)",
                        ),
                    ],
                    "AttributeError: 'GINEncoder' object has no attribute '_old_index'",
                ),
            ],
        ),
    },
    "shape_or_user_code_error",
    None,
)

# 11 Thrust's transform losing an ECC page is a GPU memory fault, not the sort's toolkit bug
CASES["thrust_transform_ecc_stays_hardware"] = (
    {
        "rank0.log": pre(
            "",
            [
                "RuntimeError: transform: failed to synchronize: cudaErrorECCUncorrectable: uncorrectable ECC error encountered",
            ],
        ),
    },
    "gpu_hardware_xid",
    None,
)

# 12 a plain illegal memory access in a kernel stays that
CASES["plain_illegal_access_stays_illegal_access"] = (
    {
        "rank0.log": pre(
            "",
            [
                "RuntimeError: CUDA error: an illegal memory access was encountered",
                "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
            ],
        ),
    },
    "cuda_illegal_access",
    None,
)

# 13 NCCL 2.7.8 (Ampere-capable) failing a CUDA call: NCCL's own failure
CASES["nccl_278_unhandled_cuda_error_stays_comm"] = (
    {
        "log.txt": pre(
            "",
            [
                "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:911, unhandled cuda error, NCCL version 2.7.8",
            ],
        ),
    },
    "nccl_comm_error",
    None,
)

# 14 NCCL 2.4.8 with a system error (sockets, shared memory): no CUDA failure, so no build fact
CASES["nccl_248_unhandled_system_error_stays_comm"] = (
    {
        "log.txt": pre(
            "",
            [
                "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:518, unhandled system error, NCCL version 2.4.8",
            ],
        ),
    },
    "nccl_comm_error",
    None,
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_release_bug_or_too_old_build_from_library_words(
    name: str, diagnose_dir: Run, tmp_path: Path
) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)
