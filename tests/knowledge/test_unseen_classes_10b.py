# ruff: noqa: E501 - realistic log lines are long
"""Classes the engine did not know: the Trainer release bug where every rank renames the staged
`tmp-checkpoint-*` directory (transformers 4.36.0, a 4.49 dev build), and ranks a log names only
inside a message (HCCL's abnormal device, torch_npu's `RankID` tag, torchrun's Root Cause when the only
traceback is another rank's, the one rank still at work while unlabelled processes time out on the
store). Each as a small log in the form the framework prints, with a lookalike that must not change."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from denpex.core.models import Diagnosis
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]
STAGED = "env-transformers-staged-checkpoint-rename"


def _rename_tb(rank: int, error: str, call: str = "os.rename(staging_output_dir, output_dir)") -> list[str]:
    p = f"[rank{rank}]:"
    return [
        f"{p} Traceback (most recent call last):",
        f'{p}   File "/opt/venv/lib/python3.10/site-packages/transformers/trainer.py", line 1914, in _inner_training_loop',
        f"{p}     self._maybe_log_save_evaluate(tr_loss, model, trial, epoch, ignore_keys_for_eval)",
        f'{p}   File "/opt/venv/lib/python3.10/site-packages/transformers/trainer.py", line 2383, in _save_checkpoint',
        f"{p}     {call}",
        f"{p} {error}",
    ]


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def test_every_rank_renaming_the_staged_checkpoint_is_the_release_bug(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = _text(
        [
            "{'loss': 1.21, 'learning_rate': 1.9e-05, 'epoch': 0.4}",
            "Saving model checkpoint to out/llama/tmp-checkpoint-500",
            *_rename_tb(
                2,
                "FileNotFoundError: [Errno 2] No such file or directory: 'out/llama/tmp-checkpoint-500' -> 'out/llama/checkpoint-500'",
            ),
            *_rename_tb(
                3,
                "FileNotFoundError: [Errno 2] No such file or directory: 'out/llama/tmp-checkpoint-500' -> 'out/llama/checkpoint-500'",
            ),
        ]
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"
    assert d.entry is not None and d.entry.id == STAGED
    assert "transformers" in d.fix


def test_the_dev_build_renames_its_tempfile_staging_dir(diagnose_dir: Run, tmp_path: Path) -> None:
    """transformers PR #35580 (reverted by #36112): `os.renames` of a `tempfile` `tmp-checkpoint-*`."""
    log = _text(
        _rename_tb(
            5,
            "OSError: [Errno 39] Directory not empty: '/data/runs/qwen/tmp-checkpoint-k3j9x0_a' -> '/data/runs/qwen/checkpoint-1200'",
            call="os.renames(output_dir, checkpoint_dir)",
        )
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"
    assert d.entry is not None and d.entry.id == STAGED


def test_a_missing_trainer_state_in_the_staging_dir_is_the_same_bug(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = _text(
        _rename_tb(
            1,
            "FileNotFoundError: [Errno 2] No such file or directory: 'saves/mistral/tmp-checkpoint-950/trainer_state.json'",
            call="self.state.save_to_json(os.path.join(staging_output_dir, TRAINER_STATE_NAME))",
        )
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.entry is not None and d.entry.id == STAGED


def test_a_rename_of_the_users_own_directory_stays_what_it_is(diagnose_dir: Run, tmp_path: Path) -> None:
    log = _text(
        [
            "[rank1]: Traceback (most recent call last):",
            '[rank1]:   File "/home/me/proj/train.py", line 212, in save',
            "[rank1]:     os.rename(tmp_dir, final_dir)",
            "[rank1]: FileExistsError: [Errno 17] File exists: 'runs/exp7/ckpt_tmp_800' -> 'runs/exp7/ckpt_800'",
        ]
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.entry is None or d.entry.id != STAGED
    assert d.category != "env_version_mismatch"


_EI0002 = [
    "[W compiler_depend.ts:487] Warning: NPU warning, error code is 507048[Error]: ",
    "[Error]: The execution of the internal task times out. ",
    "EI0002: [PID: 4410] 2025-03-02-08:11:02.120.008 The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank [unknown].base information: [streamID:[118], taskID[9], tag[AllReduce_10.2.0.17%eth0_60000_0_1740903062], AlgType(level 0-1-2):[fullmesh-ring-ring].] task information: [",
]


def test_hccl_names_the_device_whose_heartbeat_it_lost(diagnose_dir: Run, tmp_path: Path) -> None:
    log = _text(
        [
            *_EI0002,
            "there are(is) 1 abnormal device(s):",
            "    Cluster Exception Location[IP/ID]:[10.2.0.17/3], Arrival Time:[Sun Mar  2 08:01:40 2025], Discoverer:[10.2.0.17/0], ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. Process has exited, 2. Network Disconnected",
            "]",
        ]
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "nccl_timeout"
    assert d.initiating.rank == 3


def test_an_hccl_timeout_without_the_heartbeat_report_names_no_rank(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    d = diagnose_dir(_log(tmp_path, _text([*_EI0002, "]"])))
    assert d.category == "nccl_timeout"
    assert d.initiating.rank is None


def _npu_error(tags: list[str]) -> str:
    return _text(
        [
            "Traceback (most recent call last):",
            '  File "train_npu.py", line 88, in <module>',
            "    dist.all_gather(outs, x)",
            '  File "/usr/local/python3.9/site-packages/torch/distributed/distributed_c10d.py", line 2810, in all_gather',
            "    work = default_pg.allgather([tensor_list], [tensor])",
            "RuntimeError: Tensors must be contiguous",
            *tags,
        ]
    )


def test_torch_npus_error_tag_names_the_rank_that_raised(diagnose_dir: Run, tmp_path: Path) -> None:
    d = diagnose_dir(
        _log(
            tmp_path,
            _npu_error(
                ["[ERROR] 2025-01-09-10:42:17 (PID:5521, Device:2, RankID:2) ERR02002 DIST invalid type"]
            ),
        )
    )
    assert d.initiating.rank == 2


def test_two_ranks_tagged_in_one_stream_name_neither(diagnose_dir: Run, tmp_path: Path) -> None:
    tags = [
        "[ERROR] 2025-01-09-10:42:17 (PID:5521, Device:2, RankID:2) ERR02002 DIST invalid type",
        "[ERROR] 2025-01-09-10:42:17 (PID:5523, Device:3, RankID:3) ERR02002 DIST invalid type",
    ]
    d = diagnose_dir(_log(tmp_path, _npu_error(tags)))
    assert d.initiating.rank is None


def _summary(
    entries: list[tuple[int, str]], root: tuple[int, str] | None = None, full: bool = True
) -> list[str]:
    def block(rank: int, code: str) -> list[str]:
        return [
            "  time      : 2025-02-11_03:15:40",
            "  host      : gpu-node-07",
            f"  rank      : {rank} (local_rank: {rank})",
            f"  exitcode  : {code} (pid: {41200 + rank})",
            "  error_file: <N/A>",
            "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        ]

    out = (
        [
            "============================================================",
            "train.py FAILED",
            "------------------------------------------------------------",
            "Failures:",
        ]
        if full
        else []
    )
    for i, (r, c) in enumerate(entries):
        out += [f"[{i + 1}]:", *block(r, c)]
    if root is not None:
        out += [
            "------------------------------------------------------------",
            "Root Cause (first observed failure):",
            "[0]:",
            *block(*root),
        ]
    return [*out, "============================================================"]


def test_torchruns_root_cause_orders_ranks_that_failed_alike(diagnose_dir: Run, tmp_path: Path) -> None:
    """Only rank 1's traceback is kept; the summary's tail (all a paste kept) gives rank 6 as first."""
    folder = _log(
        tmp_path,
        _text(
            _rename_tb(
                1,
                "FileExistsError: [Errno 17] File exists: 'out/q/tmp-checkpoint-zz81mq0e' -> 'out/q/checkpoint-300'",
                call="os.renames(output_dir, checkpoint_dir)",
            )
        ),
        "rank1.log",
    )
    _log(tmp_path, _text(_summary([(6, "1")], full=False)[1:]), "torchrun_summary.log")
    d = diagnose_dir(folder)
    assert d.initiating.rank == 6


def test_the_root_cause_is_not_a_listed_other_failure(diagnose_dir: Run, tmp_path: Path) -> None:
    """The summary lists rank 4 under Failures and rank 1, whose traceback is shown, as Root Cause."""
    log = _text(
        _rename_tb(
            1,
            "FileExistsError: [Errno 17] File exists: 'out/q/tmp-checkpoint-zz81mq0e' -> 'out/q/checkpoint-300'",
            call="os.renames(output_dir, checkpoint_dir)",
        )
        + _summary([(4, "1")], root=(1, "1"))
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.initiating.rank == 1


def test_a_waiters_root_cause_does_not_outrank_a_timeout_verdict(diagnose_dir: Run, tmp_path: Path) -> None:
    log = _text(
        [
            "[rank0]:[E211 03:15:39.1 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600041 milliseconds before timing out.",
            *_summary([], root=(5, "-6")),
        ]
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.initiating.rank != 5


def _store_wait(named: list[str]) -> str:
    return _text(
        [
            "ep 3 dev eval, step 41, ce 0.912, mem_usage:cuda:0 2.1GB",
            *named,
            "Unhandled exception <class 'RuntimeError'> in thread <_MainThread(MainThread, started 1403)>, proc 8812.",
            "Unhandled exception <class 'RuntimeError'> in thread <_MainThread(MainThread, started 1404)>, proc 8813.",
            "RuntimeError: Socket Timeout",
            "Exception raised from doWait at ../torch/csrc/distributed/c10d/TCPStore.cpp:445 (most recent call first):",
        ]
    )


def test_the_one_rank_still_entering_the_collective_is_the_one_waited_for(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    line = "[I ProcessGroupWrapper.cpp:562] [Rank 0] Running collective: CollectiveFingerPrint(SequenceNumber=7, OpType=BROADCAST, TensorShape=[1], TensorDtypes=Char)"
    d = diagnose_dir(_log(tmp_path, _store_wait([line])))
    assert d.category == "nccl_timeout"
    assert d.initiating.rank == 0


def test_two_ranks_entering_collectives_name_no_one(diagnose_dir: Run, tmp_path: Path) -> None:
    lines = [
        f"[I ProcessGroupWrapper.cpp:562] [Rank {r}] Running collective: CollectiveFingerPrint(SequenceNumber=7, OpType=BROADCAST, TensorShape=[1], TensorDtypes=Char)"
        for r in (0, 2)
    ]
    d = diagnose_dir(_log(tmp_path, _store_wait(lines)))
    assert d.initiating.rank is None
