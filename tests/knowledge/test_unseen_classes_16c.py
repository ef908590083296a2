# ruff: noqa: E501 - realistic log lines are long
"""The initiating rank read from a launcher's or a runtime's own line when no rank-prefixed failure names
one (round 16c), and a watchdog timeout whose desync report tripped its own assert.

- torchrun's `@record` wrapper logs the first failure's rank when the child left no error file
  (`('local_rank %s FAILED with no error file. …', 2)` in older builds, `local_rank 3 FAILED with no
  error file.` formatted); no rank is named when two agents name two.
- Horovod's background thread crashing in `RunLoopOnce (…, is_coordinator=true)` is rank 0's thread
  (`is_coordinator = rank == 0`); `is_coordinator=false` names no rank.
- `Timeout rank [N] last trace item must be kEventStart` / `must have collective tracking iteam`
  (TraceUtils.h's retrieveDesyncReport, run only on a watchdog timeout) is a timeout of the printing
  rank, not a silent hang.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case, pre

Run = Callable[[Path], Diagnosis]
SP = "/opt/conda/lib/python3.11/site-packages"
_DOC = "Decorate your entrypoint fn with @record for traceback info. See: https://pytorch.org/docs/stable/elastic/errors.html"


def agent_tail(stamp: str, wrapper: str) -> list[str]:
    """torchrun's agent after a child died: the wrapper's line, then its own ChildFailedError traceback."""
    return [
        f"I{stamp} 4411 torch/distributed/elastic/multiprocessing/errors/__init__.py:368] {wrapper}",
        "Traceback (most recent call last):",
        '  File "/opt/conda/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        f'  File "{SP}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper',
        "    return f(*args, **kwargs)",
        f'  File "{SP}/torch/distributed/launcher/api.py", line 269, in launch_agent',
        "    raise ChildFailedError(",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "======================================================",
        "train.py FAILED",
    ]


def nccl_setup(ranks: range) -> list[str]:
    """ProcessGroupNCCL's start-up line of each rank, behind torchrun's `[rankN]:` prefix."""
    return [
        f"[rank{r}]:[I1107 01:20:21.1593{r}8472 ProcessGroupNCCL.cpp:2262] [PG ID 0 PG GUID 0 Rank {r}] ProcessGroupNCCL broadcast unique ID through store took 13.4{r} ms"
        for r in ranks
    ]


def segv(host: str, pid: int) -> list[str]:
    """Open MPI's signal handler report of a segfault in a thread of Horovod's library."""
    return [
        f"[{host}:{pid}] *** Process received signal ***",
        f"[{host}:{pid}] Signal: Segmentation fault (11)",
        f"[{host}:{pid}] Signal code: Address not mapped (1)",
        f"[{host}:{pid}] Failing at address: 0x18",
        f"[{host}:{pid}] [ 0] /lib/x86_64-linux-gnu/libpthread.so.0(+0x12980)[0x7f1c0c6a3980]",
        f"[{host}:{pid}] [ 1] {SP}/horovod/torch/mpi_lib_v2.cpython-311-x86_64-linux-gnu.so(+0x5a1c7)[0x7f1b2e8a11c7]",
        f"[{host}:{pid}] [ 2] /lib/x86_64-linux-gnu/libc.so.6(clone+0x3f)[0x7f1c0c3c8133]",
        f"[{host}:{pid}] *** End of error message ***",
    ]


def gdb(coordinator: str) -> list[str]:
    """gdb's backtrace of the crashed thread from the core file."""
    return [
        "(gdb) bt",
        "#0  0x00007f1b2e8a11c7 in std::_Hashtable<std::string, std::pair<std::string const, horovod::common::TensorTableEntry> >::find (this=0x7f1b2ec11a88) at /usr/include/c++/9/bits/hashtable.h:1453",
        f"#1  horovod::common::(anonymous namespace)::RunLoopOnce (state=..., is_coordinator={coordinator}) at horovod/common/operations.cc:1612",
        "#2  0x00007f1b2e8a2f0a in horovod::common::(anonymous namespace)::BackgroundThreadLoop (state=...) at horovod/common/operations.cc:1418",
    ]


def assert_line(
    rank: int,
    prefix: str = "",
    what: str = "last trace item must be kEventStart. thisSeq = 1204, col = ALLREDUCE",
) -> list[str]:
    """torch 2.1's watchdog log when its desync report's own check failed (TraceUtils.h:237)."""
    return [
        f'{prefix}[E ProcessGroupNCCL.cpp:854] [Rank {rank}] NCCL watchdog thread terminated with exception: traceMap[thisSeq][myRank].second == kEventStart INTERNAL ASSERT FAILED at "../torch/csrc/distributed/c10d/TraceUtils.h":237, please report a bug to PyTorch. Timeout rank [{rank}] {what}',
        f"{prefix}Exception raised from retrieveDesyncReport at ../torch/csrc/distributed/c10d/TraceUtils.h:237 (most recent call first):",
        f"{prefix}frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f22c1a8e617 in {SP}/torch/lib/libc10.so)",
    ]


CASES: dict[str, tuple[dict[str, str], str, int | None]] = {}

CASES["torchrun_record_tuple_rank2"] = (
    {
        "console.log": pre(
            "",
            [
                *nccl_setup(range(4)),
                "[I1107 01:20:27.770733060 TCPStoreLibUvBackend.cpp:119] [c10d - debug] Read callback failed. code:-4095 name:EOF desc:end of file",
                *agent_tail(
                    "1107 01:20:28.501000", f"('local_rank %s FAILED with no error file. {_DOC}', 2)"
                ),
            ],
        )
    },
    "shape_or_user_code_error",
    2,
)

CASES["torchrun_record_formatted_crlf"] = (
    {
        "torchrun.out": "\r\n".join(
            [
                *nccl_setup(range(8)),
                *agent_tail("0611 02:50:05.298000", f"local_rank 5 FAILED with no error file. {_DOC}"),
            ]
        )
        + "\r\n"
    },
    "shape_or_user_code_error",
    5,
)

CASES["torchrun_record_stamped_by_collector"] = (
    {
        "launcher.log": pre(
            "2024-11-07T01:20:28.501934Z ",
            [
                *nccl_setup(range(2)),
                *agent_tail(
                    "1107 01:20:28.501000", f"('local_rank %s FAILED with no error file. {_DOC}', 1)"
                ),
            ],
        )
    },
    "shape_or_user_code_error",
    1,
)

CASES["horovod_coordinator_segfault"] = (
    {
        "console.log": pre("", segv("gpu-node-3", 28811)),
        "gdb_bt.txt": pre("", gdb("is_coordinator@entry=true")),
    },
    "segfault",
    0,
)

CASES["horovod_coordinator_segfault_one_file_crlf"] = (
    {"worker.log": "\r\n".join([*segv("dgx07", 4120), *gdb("true")]) + "\r\n"},
    "segfault",
    0,
)

CASES["watchdog_desync_assert_rank_prefixed"] = (
    {"console.log": pre("", assert_line(3, "[rank3]:"))},
    "nccl_timeout",
    None,  # a waiter's timeout with rank 0 out of view: the rank is the collateral rules' to name
)

CASES["watchdog_desync_assert_rank_file_tracking_item"] = (
    {
        "rank0.log": pre(
            "2023-07-15 08:41:03 ",
            assert_line(0, what="must have collective tracking iteam in c10::Store trace"),
        )
    },
    "nccl_timeout",
    0,
)

CASES["watchdog_desync_assert_srun_label_crlf"] = (
    {"slurm-551.out": "\r\n".join(assert_line(0, "0: ")) + "\r\n"},
    "nccl_timeout",
    0,
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_rank_from_launcher_or_runtime_line(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)


#: lookalikes: the same lines that must name no rank
NO_RANK: dict[str, dict[str, str]] = {
    "torchrun_record_two_agents_two_ranks": {
        "node0.log": pre(
            "", agent_tail("1107 01:20:28.501000", f"('local_rank %s FAILED with no error file. {_DOC}', 0)")
        ),
        "node1.log": pre(
            "", agent_tail("1107 01:20:28.733000", f"('local_rank %s FAILED with no error file. {_DOC}', 9)")
        ),
    },
    "horovod_worker_segfault": {
        "console.log": pre("", [*segv("gpu-node-3", 28811), *gdb("is_coordinator@entry=false")])
    },
}


@pytest.mark.parametrize("name", sorted(NO_RANK))
def test_lookalike_names_no_rank(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    for fname, text in NO_RANK[name].items():
        (folder / fname).write_bytes(text.encode("utf-8"))
    d = diagnose_dir(folder)
    assert d.initiating.rank is None, (name, d.category, d.initiating.rank)
