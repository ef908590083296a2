# ruff: noqa: E501 - realistic log lines are long
"""NCCL failures read from what ProcessGroupNCCL and NCCL themselves say (round 17e), against the
same surfaces when another reading is printed.

nccl_timeout: a collective's work descriptor named as timed out without the watchdog's own words:
`Work WorkNCCL(SeqNum=.., OpType=..) timed out in blocking wait` (TORCH_NCCL_BLOCKING_WAIT=1, where
the caller times out, not the watchdog) and the shortened quote `NCCL collective timeout:
WorkNCCL(...)` that reports give of the watchdog line.
nccl_comm_error: (a) NCCL's own `NCCL WARN Cuda failure 'an illegal memory access was encountered'`
printed while it tears down a communicator whose IB/socket transport already failed (`NET/IB : Got
completion with error 12`): the CUDA failure is the teardown's; (b) ProcessGroupNCCL's tear-down pair
`Some NCCL operations have failed or timed out ... taking the entire process down` with no timeout
named anywhere: the watchdog names a timeout first (`Watchdog caught collective operation timeout`),
an NCCL error it does not, so the "failed" half is the likelier reading (the timeout stays the
alternative).
Lookalikes: a WorkNCCL descriptor on an NCCL-error line stays nccl_comm_error; a PyTorch illegal
memory access on one rank before its peers' IB errors, and NCCL's own CUDA failure printed before a
peer's IB error (the transport error counts only above the CUDA failure), stay cuda_illegal_access;
the tear-down pair after a named watchdog timeout stays nccl_timeout, and after a rank's CUDA OOM
stays gpu_oom.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case, pre, tb

Run = Callable[[Path], Diagnosis]
SP = "/opt/conda/lib/python3.11/site-packages"

CASES: dict[str, tuple[dict[str, str], str, int | None]] = {}

# ---------------------------------------------------------------- nccl_timeout
# 1 TORCH_NCCL_BLOCKING_WAIT=1: the caller's wait times out, named by the work descriptor
CASES["blocking_wait_work_timed_out"] = (
    {
        "rank5.log": pre(
            "",
            [
                "2025-06-02 11:40:13,120 - INFO - epoch 2 step 3400 loss 1.882",
                "[rank5]:[E602 12:10:13.441729 ProcessGroupNCCL.cpp:1671] [PG ID 0 PG GUID 0(default_pg) Rank 5] Work WorkNCCL(SeqNum=20417, OpType=ALLREDUCE, NumelIn=25690112, NumelOut=25690112, Timeout(ms)=1800000) timed out in blocking wait.",
            ],
        ),
    },
    "nccl_timeout",
    None,
)

# 2 a report's shortened quote of the watchdog line (a pipeline group's batched P2P), no ranks
CASES["shortened_collective_timeout_quote"] = (
    {
        "excerpt.txt": pre(
            "",
            [
                "collective timeout: WorkNCCL(SeqNum=7, OpType=ALLTOALL_BASE, NumelIn=4194304, NumelOut=4194304)",
                "  ... EXPERT_MODEL_PARALLEL_GROUP",
            ],
        ),
    },
    "nccl_timeout",
    None,
)

# ---------------------------------------------------------------- nccl_comm_error
# 3 NCCL's CUDA failure while destroying a communicator whose IB transport failed first (newer wording)
CASES["ib_completion_error_then_nccl_cuda_failure"] = (
    {
        "nccl_tests.log": pre(
            "",
            [
                "dgx-b07:40211:40388 [2] transport/net_ib.cc:1695 NCCL WARN NET/IB : Got completion from peer 10.20.3.18<39122> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid fe80::a288:c2ff:fe3b:1d40 remoteGids fe80::a288:c2ff:fe3b:2e11",
                "dgx-b07:40211:40388 [2] NCCL INFO transport/net.cc:1298 -> 6",
                "dgx-b07:40211:40388 [2] NCCL INFO proxy.cc:694 -> 6",
                "dgx-b07:40211:40211 [2] NCCL INFO comm 0x55d0c71a2f40 rank 2 nranks 16 cudaDev 2 busId 41000 - Destroy COMPLETE",
                "dgx-b07:40211:40211 [3] enqueue.cc:1457 NCCL WARN Cuda failure 'an illegal memory access was encountered'",
                "dgx-b07: Test NCCL failure common.cu:1012 'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / '",
            ],
        ),
    },
    "nccl_comm_error",
    None,
)

# 4 the same after NCCL's socket transport was reset (NCCL_IB_DISABLE=1 cluster)
CASES["socket_reset_then_nccl_cuda_failure"] = (
    {
        "worker.log": pre(
            "",
            [
                "gpu-node3:7781:7859 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection reset by peer",
                "gpu-node3:7781:7859 [0] NCCL INFO transport/net_socket.cc:541 -> 6",
                "gpu-node3:7781:7859 [0] NCCL INFO transport/net.cc:1140 -> 6",
                "gpu-node3:7781:7781 [0] NCCL INFO Destroyed comm 0x7f6a48002c10 rank 1",
                "gpu-node3:7781:7781 [1] init.cc:218 NCCL WARN Cuda failure 'an illegal memory access was encountered'",
                "gpu-node3:7781:7781 [1] NCCL INFO init.cc:1471 -> 1",
            ],
        ),
    },
    "nccl_comm_error",
    None,
)

# 5 the tear-down pair alone (torch 1.x one-line wording), no timeout named anywhere
CASES["teardown_pair_without_named_timeout_torch1"] = (
    {
        "node1.out": pre(
            "",
            [
                "iter 0: loss 10.9866, time 8123.45ms, mfu -100.00%",
                "[E ProcessGroupNCCL.cpp:414] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. To avoid this inconsistency, we are taking the entire process down.",
            ],
        ),
    },
    "nccl_comm_error",
    None,
)

# 6 the torch 2.x two-line wording behind launcher rank prefixes
CASES["teardown_pair_without_named_timeout_torch2"] = (
    {
        "train.log": pre(
            "[rank2]:",
            [
                "[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 2] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
                "[E ProcessGroupNCCL.cpp:1322] [PG 0 Rank 2] To avoid data inconsistency, we are taking the entire process down.",
            ],
        ),
    },
    "nccl_comm_error",
    None,
)

# ---------------------------------------------------------------- lookalikes that keep their class
# 7 a watchdog that died of an NCCL error (not a timeout) stays the network error
CASES["watchdog_nccl_remote_error_stays_comm"] = (
    {
        "rank0.log": pre(
            "[rank0]:",
            [
                "[E ProcessGroupNCCL.cpp:1025] [Rank 0] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.19.3",
                "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
                "Last error:",
                "NET/IB : Got completion from peer 172.16.8.40<60211> with status=12 opcode=1 len=0 vendor err 129 (Recv)",
            ],
        ),
    },
    "nccl_comm_error",
    None,
)

# 8 a user kernel's illegal memory access on rank 3 first; its peers' IB errors follow: the kernel's
CASES["pytorch_illegal_access_before_peer_ib_errors_stays_illegal"] = (
    {
        "rank3.log": pre(
            "[rank3]: ",
            [
                *tb(
                    [
                        ("/work/llm/train.py", 311, "train_step", "loss = model(batch).loss"),
                        (
                            f"{SP}/flash_attn/flash_attn_interface.py",
                            92,
                            "_flash_attn_forward",
                            "out, softmax_lse, S_dmask, rng_state = flash_attn_cuda.fwd(",
                        ),
                    ],
                    "RuntimeError: CUDA error: an illegal memory access was encountered",
                ),
            ],
        ),
        "rank1.log": pre(
            "",
            [
                "gpu-a2:9120:9301 [1] transport/net_ib.cc:1403 NCCL WARN NET/IB : Got completion from peer 10.1.0.7<41112> with status=12 opcode=0 len=0 vendor err 129 (Send)",
                "gpu-a2:9120:9301 [1] NCCL INFO transport/net.cc:1132 -> 6",
            ],
        ),
    },
    "cuda_illegal_access",
    None,
)

# 8b NCCL's own CUDA failure first, a peer's IB error only after it: the CUDA failure is the cause
CASES["nccl_cuda_failure_before_peer_ib_error_stays_illegal"] = (
    {
        "allnodes.log": pre(
            "",
            [
                "trn-017:5512:5512 [3] NCCL INFO Channel 02/0 : 3[3] -> 11[3] [send] via NET/IB/3/GDRDMA",
                "trn-017:5512:5512 [3] enqueue.cc:1457 NCCL WARN Cuda failure 'an illegal memory access was encountered'",
                "trn-017:5512:5512 [3] NCCL INFO enqueue.cc:1523 -> 1",
                "trn-018:6120:6233 [1] transport/net_ib.cc:1695 NCCL WARN NET/IB : Got completion from peer 10.0.4.4<50112> with status=12 opcode=0 len=0 vendor err 129 (Recv)",
                "trn-018:6120:6233 [1] NCCL INFO transport/net.cc:1298 -> 6",
            ],
        ),
    },
    "cuda_illegal_access",
    None,
)

# 9 the tear-down pair right after the watchdog named the timeout stays the timeout
CASES["teardown_pair_after_named_timeout_stays_timeout"] = (
    {
        "rank4.log": pre(
            "",
            [
                "[E ProcessGroupNCCL.cpp:828] [Rank 4] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1532, OpType=BROADCAST, NumelIn=3072, NumelOut=3072, Timeout(ms)=600000) ran for 600513 milliseconds before timing out.",
                "[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
                "[E ProcessGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process down.",
            ],
        ),
    },
    "nccl_timeout",
    None,
)

# 10 the tear-down pair after a rank's CUDA OOM: the OOM is the failure
CASES["teardown_pair_after_cuda_oom_stays_oom"] = (
    {
        "rank1.log": pre(
            "[rank1]: ",
            [
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.53 GiB. GPU 1 has a total capacity of 79.15 GiB of which 402.31 MiB is free. Including non-PyTorch memory, this process has 78.74 GiB memory in use.",
            ],
        ),
        "rank0.log": pre(
            "[rank0]:",
            [
                "[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
                "[E ProcessGroupNCCL.cpp:1322] [PG 0 Rank 0] To avoid data inconsistency, we are taking the entire process down.",
            ],
        ),
    },
    "gpu_oom",
    1,
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_nccl_failure_from_processgroup_and_nccl_words(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)
