# ruff: noqa: E501 - realistic log lines are long
"""What each collateral rank's row says, on logs the engine had not seen: the rank's own end, in its
own terms, never a taxonomy name that tells another story. A gloo job's ranks that lost their peer
(`pair.cc ... Connection closed by peer`, `Read error ...: Connection reset by peer`) or timed out in a
gloo collective (`unbound_buffer.cc ... Timed out waiting Nms for recv operation to complete`) are
gloo's, not NCCL's; ranks the launcher or Slurm stopped after another rank failed (torchrun's `Sending
process N closing signal SIGTERM` and `exitcode : -15`, Lightning's `Received SIGTERM: 15`, srun's
`tasks 0-3: Terminated`, slurmstepd's `*** STEP ... CANCELLED AT ...`) were terminated, they did not
hang; a rank that waited until NCCL's watchdog fired timed out. The category and initiating rank stay
what the engine said before; the rows are read where a person reads them: the terminal's table, the
Slack thread, the evidence file."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.slack.render import BlockKitRenderer, evidence_text
from denpex.core.models import Diagnosis, JobRef, Scheduler
from tests.knowledge.unseen import check_case, pre, tb

Run = Callable[[Path], Diagnosis]
SP = "/opt/conda/lib/python3.10/site-packages"
API = "torch/distributed/elastic/multiprocessing/api.py"


_BACKWARD = [
    ("/home/dev/cpu_ddp/train.py", 141, "<module>", "main()"),
    ("/home/dev/cpu_ddp/train.py", 133, "main", "loss.backward()"),
    (f"{SP}/torch/_tensor.py", 522, "backward", "torch.autograd.backward("),
    (
        f"{SP}/torch/autograd/__init__.py",
        266,
        "backward",
        "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass",
    ),
]
_ALLREDUCE = [
    ("/srv/jobs/pretrain/main.py", 402, "<module>", "train(cfg)"),
    ("/srv/jobs/pretrain/main.py", 318, "train", "dist.all_reduce(loss_sum, op=dist.ReduceOp.SUM)"),
    (f"{SP}/torch/distributed/c10d_logger.py", 75, "wrapper", "return func(*args, **kwargs)"),
    (f"{SP}/torch/distributed/distributed_c10d.py", 2219, "all_reduce", "work.wait()"),
]
_SHAPE = tb(
    [
        ("/home/dev/cpu_ddp/train.py", 141, "<module>", "main()"),
        ("/home/dev/cpu_ddp/train.py", 127, "main", "out = model(batch)"),
        (
            f"{SP}/torch/nn/modules/linear.py",
            116,
            "forward",
            "return F.linear(input, self.weight, self.bias)",
        ),
    ],
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x200 and 256x128)",
)


def summary(
    failures: list[tuple[int, int, int, str]], root: tuple[int, int, int, str], host: str, ts: str
) -> list[str]:
    """torchrun's ChildFailedError block (torch/distributed/elastic/multiprocessing/errors/__init__.py):
    (rank, exitcode, pid, traceback) for the other failures and the root cause."""

    def block(i: int, rank: int, code: int, pid: int, trace: str) -> list[str]:
        sig = {-15: "  (SIGTERM)", -9: "  (SIGKILL)", -11: "  (SIGSEGV)", -6: "  (SIGABRT)"}.get(code, "")
        return [
            f"[{i}]:",
            f"  time      : {ts}",
            f"  host      : {host}",
            f"  rank      : {rank} (local_rank: {rank})",
            f"  exitcode  : {code} (pid: {pid}){sig}",
            "  error_file: <N/A>",
            f"  traceback : {trace}",
        ]

    out = [
        "Traceback (most recent call last):",
        '  File "/opt/conda/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
    ]
    for i, (rank, code, pid, trace) in enumerate(failures, 1):
        out += block(i, rank, code, pid, trace)
    out += [
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
    ]
    out += block(0, *root)
    out.append("============================================================")
    return out


def sigterm(pid: int) -> tuple[int, int, str]:
    return (-15, pid, f"Signal 15 (SIGTERM) received by PID {pid}")


#: what a case expects of each collateral rank's row: words it must show, words it must not
Want = dict[int, tuple[tuple[str, ...], tuple[str, ...]]]
GLOO_PEER: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("gloo", "peer"),
    ("NCCL", "nccl_comm_error", "nccl"),
)
GLOO_TIMEOUT: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("gloo", "timed out"),
    ("NCCL", "nccl_timeout", "watchdog"),
)
TERMINATED: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("terminated", "after another rank failed"),
    ("hang", "hung"),
)
NCCL_TIMEOUT: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("timed out", "NCCL watchdog"),
    ("terminated", "hang"),
)

CASES: dict[str, tuple[dict[str, str], str, int | None]] = {}
WANT: dict[str, Want] = {}

# 1 torchrun, CPU DDP on gloo (PyTorch 2.1's pair.cc:598), per-rank files: rank 2's shape error, ranks
#   0 and 1 lose their gloo peer, rank 3 is in torchrun's summary only, SIGTERMed
CASES["torchrun_gloo_closed_peer_and_sigterm"] = (
    {
        "rank0.log": pre(
            "[rank0]: ",
            tb(
                _BACKWARD,
                "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.0.0.2]:12345",
            ),
        ),
        "rank1.log": pre(
            "[rank1]: ",
            tb(
                _BACKWARD,
                "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.0.0.2]:12345",
            ),
        ),
        "rank2.log": pre("[rank2]: ", _SHAPE),
        "torchrun.log": "\n".join(
            [
                f"W0312 14:02:51.118000 139811 {API}:897] Sending process 40213 closing signal SIGTERM",
                f"E0312 14:02:51.552000 139811 {API}:869] failed (exitcode: 1) local_rank: 2 (pid: 40212) of binary: /opt/conda/bin/python",
                *summary(
                    [
                        (
                            0,
                            1,
                            40210,
                            "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
                        ),
                        (
                            1,
                            1,
                            40211,
                            "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
                        ),
                        (3, *sigterm(40213)),
                    ],
                    (
                        2,
                        1,
                        40212,
                        "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
                    ),
                    "cpu-node-2",
                    "2024-03-12_14:02:51",
                ),
            ]
        )
        + "\n",
    },
    "shape_or_user_code_error",
    2,
)
WANT["torchrun_gloo_closed_peer_and_sigterm"] = {0: GLOO_PEER, 1: GLOO_PEER, 3: TERMINATED}

# 2 one combined torchrun console (--tee 3, `[defaultN]:` prefixes), gloo's Read error with a reset
#   socket (PyTorch 2.0's pair.cc:534) on ranks 0 and 3; rank 1 the root cause (SIGKILL), rank 2 SIGTERMed
_C2 = [
    "[default0]:2024-06-02 09:14:05,221 INFO epoch 3 step 1200 loss 2.1187",
    "[default1]:2024-06-02 09:14:05,219 INFO epoch 3 step 1200 loss 2.1203",
    "[default2]:2024-06-02 09:14:05,230 INFO epoch 3 step 1200 loss 2.1174",
    "[default3]:2024-06-02 09:14:05,226 INFO epoch 3 step 1200 loss 2.1191",
    *pre(
        "[default0]:",
        tb(
            _BACKWARD,
            "RuntimeError: [/opt/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:534] Read error [10.128.0.7]:57934: Connection reset by peer",
        ),
    ).splitlines(),
    *pre(
        "[default3]:",
        tb(
            _BACKWARD,
            "RuntimeError: [/opt/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:534] Read error [10.128.0.7]:57934: Connection reset by peer",
        ),
    ).splitlines(),
    "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 7702 closing signal SIGTERM",
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 7701) of binary: /usr/bin/python3",
    *summary(
        [
            (0, 1, 7700, "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"),
            (2, *sigterm(7702)),
            (3, 1, 7703, "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"),
        ],
        (1, -9, 7701, "Signal 9 (SIGKILL) received by PID 7701"),
        "trainer-7f9c",
        "2024-06-02_09:14:11",
    ),
]
CASES["console_gloo_read_error_reset"] = ({"console.log": "\n".join(_C2) + "\n"}, "host_oom", 1)
WANT["console_gloo_read_error_reset"] = {0: GLOO_PEER, 3: GLOO_PEER, 2: TERMINATED}

# 3 gloo collective timeouts (unbound_buffer.cc:81, 30 min default): rank 3 never reached the
#   all_reduce, ranks 0-2 timed out waiting for it; not NCCL's watchdog
_GT = "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete"
CASES["gloo_recv_timeout_silent_rank"] = (
    {
        **{
            f"rank{r}.log": "\n".join(
                [
                    f"2024-11-20 02:11:{10 + r:02d} | rank {r} | step 4999 | loss 0.8841",
                    f"2024-11-20 02:11:{12 + r:02d} | rank {r} | entering all_reduce for step 5000",
                    *pre(f"[rank{r}]: ", tb(_ALLREDUCE, _GT)).splitlines(),
                ]
            )
            + "\n"
            for r in range(3)
        },
        "rank3.log": "2024-11-20 02:11:13 | rank 3 | step 4999 | loss 0.8832\n2024-11-20 02:11:14 | rank 3 | evaluating on the validation split\n",
    },
    "nccl_timeout",
    3,
)
WANT["gloo_recv_timeout_silent_rank"] = {0: GLOO_TIMEOUT, 1: GLOO_TIMEOUT, 2: GLOO_TIMEOUT}

# 4 NCCL job, torchrun on one 8-GPU node: rank 3's CUDA OOM, torchrun SIGTERMs the other seven
#   before they print anything: terminated, not hung
_OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 GiB of which 1.05 GiB is free. Process 88113 has 78.09 GiB memory in use. Of the allocated memory 74.62 GiB is allocated by PyTorch, and 1.91 GiB is reserved by PyTorch but unallocated."
_C4 = [
    "[rank3]: " + line
    for line in tb(
        [
            ("/srv/jobs/pretrain/main.py", 402, "<module>", "train(cfg)"),
            ("/srv/jobs/pretrain/main.py", 301, "train", "logits = model(input_ids)"),
            (
                f"{SP}/torch/nn/modules/module.py",
                1532,
                "_wrapped_call_impl",
                "return self._call_impl(*args, **kwargs)",
            ),
        ],
        _OOM,
    )
]
_C4 += [
    f"W0918 22:41:0{7 if p < 88116 else 8}.{300 + p % 100:03d}000 140101 {API}:897] Sending process {p} closing signal SIGTERM"
    for p in (88110, 88111, 88112, 88114, 88115, 88116, 88117)
]
_C4 += [
    f"E0918 22:41:09.014000 140101 {API}:869] failed (exitcode: 1) local_rank: 3 (pid: 88113) of binary: /opt/conda/bin/python3.10"
]
_C4 += summary(
    [(r, *sigterm(88110 + r)) for r in (0, 1, 2, 4, 5, 6, 7)],
    (3, 1, 88113, "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"),
    "dgx-a100-17",
    "2024-09-18_22:41:07",
)
CASES["nccl_oom_torchrun_sigterm_rest"] = ({"train.log": "\n".join(_C4) + "\n"}, "gpu_oom", 3)
WANT["nccl_oom_torchrun_sigterm_rest"] = {r: TERMINATED for r in (0, 1, 2, 4, 5, 6, 7)}

# 5 ranks that really waited until NCCL's watchdog fired (rank 2 silent), then were torn down: their
#   own first line is the timeout, so that is what their row says
_WD = "[rank{r}]:[E1012 10:19:17.{ms:03d}204123 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48213, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600046 milliseconds before timing out."
CASES["nccl_watchdog_then_teardown"] = (
    {
        **{
            f"rank{r}.log": "\n".join(
                [
                    f"[rank{r}]:[I1012 10:09:16.100000000 ProcessGroupNCCL.cpp:1880] NCCL_DEBUG: N/A",
                    f"2024-10-12 10:09:16,904 - INFO - rank {r} step 48200 loss 1.9021",
                    _WD.format(r=r, ms=150 + r),
                    f"[rank{r}]:[E1012 10:19:17.{160 + r:03d}000000 ProcessGroupNCCL.cpp:1834] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Timeout at NCCL work: 48213, last enqueued NCCL work: 48213, last completed NCCL work: 48212.",
                ]
            )
            + "\n"
            for r in (0, 1, 3)
        },
        "rank2.log": "2024-10-12 10:09:16,911 - INFO - rank 2 step 48200 loss 1.9034\n",
        "torchrun.log": "\n".join(
            [
                f"W1012 10:19:18.002000 140388 {API}:897] Sending process 5120 closing signal SIGTERM",
                f"E1012 10:19:18.441000 140388 {API}:869] failed (exitcode: -6) local_rank: 0 (pid: 5118) of binary: /usr/bin/python",
            ]
        )
        + "\n",
    },
    "nccl_timeout",
    2,
)
WANT["nccl_watchdog_then_teardown"] = {0: NCCL_TIMEOUT, 1: NCCL_TIMEOUT, 3: NCCL_TIMEOUT}

# 6 srun launching the workers directly (`srun -l --kill-on-bad-exit=1`), NCCL job: task 6's error,
#   srun terminates the step; slurmstepd's plain CANCELLED line and srun's `Terminated` per node
_C6 = (
    [f"{r}: 2024-05-02 10:11:0{r % 3} step 3100 loss 2.44{r}" for r in range(8)]
    + [
        f"6: [rank6]: {line}"
        for line in tb(
            [
                ("/gpfs/home/u/llm/train.py", 220, "<module>", "main()"),
                ("/gpfs/home/u/llm/train.py", 188, "main", "batch = next(it)"),
                ("/gpfs/home/u/llm/data.py", 77, "__next__", "return self.tok[doc_id]"),
            ],
            "KeyError: 'doc-000918273'",
        )
    ]
    + [
        "srun: error: gpu-b-12: task 6: Exited with exit code 1",
        "srun: launch/slurm: _step_signal: Terminating StepId=81234.0",
        "0: slurmstepd: error: *** STEP 81234.0 ON gpu-b-11 CANCELLED AT 2024-05-02T10:11:09 ***",
        "4: slurmstepd: error: *** STEP 81234.0 ON gpu-b-12 CANCELLED AT 2024-05-02T10:11:09 ***",
        "srun: error: gpu-b-11: tasks 0-3: Terminated",
        "srun: error: gpu-b-12: tasks 4-5,7: Terminated",
        "srun: Force Terminated StepId=81234.0",
    ]
)
CASES["srun_kill_on_bad_exit_terminated"] = (
    {"slurm-81234.out": "\n".join(_C6) + "\n"},
    "shape_or_user_code_error",
    6,
)
WANT["srun_kill_on_bad_exit_terminated"] = {0: TERMINATED, 4: TERMINATED}  # the ranks slurmstepd's lines name

# 7 Lightning DDP under torchrun: rank 0's error in training_step, the others log Lightning's own
#   `[rank: N] Received SIGTERM: 15` (SignalConnector) when torchrun stops them
_C7 = [
    "[rank: 0] Seed set to 1234",
    "[rank: 1] Seed set to 1234",
    "[rank: 2] Seed set to 1234",
    "[rank: 3] Seed set to 1234",
    "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4",
    "Epoch 2:  41%|████      | 412/1000 [03:21<04:47,  2.04it/s, v_num=7, train_loss=0.412]",
    *pre(
        "[rank0]: ",
        tb(
            [
                ("/work/seg/train.py", 88, "<module>", "trainer.fit(model, datamodule=dm)"),
                (
                    f"{SP}/lightning/pytorch/trainer/trainer.py",
                    538,
                    "fit",
                    "call._call_and_handle_interrupt(",
                ),
                ("/work/seg/model.py", 141, "training_step", "loss = self.criterion(logits, batch['mask'])"),
            ],
            "RuntimeError: only batches of spatial targets supported (3D tensors) but got targets of dimension: 4",
        ),
    ).splitlines(),
    "[rank: 1] Received SIGTERM: 15",
    "[rank: 2] Received SIGTERM: 15",
    "[rank: 3] Received SIGTERM: 15",
    f"W0407 16:20:31.775000 2241 {API}:897] Sending process 2260 closing signal SIGTERM",
    f"W0407 16:20:31.776000 2241 {API}:897] Sending process 2261 closing signal SIGTERM",
    f"W0407 16:20:31.776000 2241 {API}:897] Sending process 2262 closing signal SIGTERM",
    f"E0407 16:20:32.401000 2241 {API}:869] failed (exitcode: 1) local_rank: 0 (pid: 2259) of binary: /opt/conda/bin/python",
]
CASES["lightning_received_sigterm"] = ({"fit.log": "\n".join(_C7) + "\n"}, "shape_or_user_code_error", 0)
WANT["lightning_received_sigterm"] = {1: TERMINATED, 2: TERMINATED, 3: TERMINATED}

# 8 an NCCL job that also made a gloo group for CPU objects (`new_group(backend="gloo")`): rank 4's
#   segfault, ranks 5 and 6 fail in the gloo group's gather_object; their rows say gloo, not NCCL
_C8 = {
    f"rank{r}.log": "\n".join(
        [
            "NCCL version 2.21.5+cuda12.4" if r == 5 else f"[rank{r}]: step 900 loss 0.733",
            *pre(
                f"[rank{r}]: ",
                tb(
                    [
                        (
                            "/opt/app/ft/loop.py",
                            251,
                            "run",
                            "dist.gather_object(stats, out, dst=0, group=cpu_group)",
                        ),
                        (f"{SP}/torch/distributed/distributed_c10d.py", 2781, "gather_object", "gather("),
                        (f"{SP}/torch/distributed/distributed_c10d.py", 3311, "gather", "work.wait()"),
                    ],
                    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [192.168.40.14]:62211",
                ),
            ).splitlines(),
        ]
    )
    + "\n"
    for r in (5, 6)
}
_C8["agent.log"] = (
    "\n".join(
        summary(
            [
                (5, 1, 6105, "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"),
                (6, 1, 6106, "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"),
            ],
            (4, -11, 6104, "Signal 11 (SIGSEGV) received by PID 6104"),
            "node-b",
            "2024-08-30_03:12:44",
        )
    )
    + "\n"
)
CASES["nccl_job_gloo_side_group"] = (_C8, "segfault", 4)
WANT["nccl_job_gloo_side_group"] = {5: GLOO_PEER, 6: GLOO_PEER}

# 9 srun with --kill-on-bad-exit on Slurm 23+: slurmstepd says DUE TO TASK FAILURE, per-task output
#   files (`--output=task_%t.out`); task 1's error, the rest were stopped by Slurm
CASES["slurm_cancelled_due_to_task_failure"] = (
    {
        "task_1.out": pre(
            "",
            tb(
                [
                    ("/scratch/u/gnn/run.py", 301, "<module>", "main(args)"),
                    ("/scratch/u/gnn/run.py", 244, "main", "x = model(g, feats)"),
                    ("/scratch/u/gnn/model.py", 58, "forward", "h = self.proj(torch.cat([h, e], dim=1))"),
                ],
                "RuntimeError: Sizes of tensors must match except in dimension 1. Expected size 4096 but got size 2048 for tensor number 1 in the list.",
            ),
        ),
        **{
            f"task_{r}.out": f"epoch 7 batch 310 loss 0.2{r}1\nslurmstepd: error: *** STEP 552871.0 ON cn{r // 2 + 31} CANCELLED AT 2024-02-14T03:44:19 DUE TO TASK FAILURE ***\n"
            for r in (0, 2, 3)
        },
    },
    "shape_or_user_code_error",
    1,
)
WANT["slurm_cancelled_due_to_task_failure"] = {r: TERMINATED for r in (0, 2, 3)}

# 10 gloo's send side timing out (unbound_buffer.cc:129) next to another rank's recv timeout, one combined
#    srun -l stream: both are gloo timeouts, the rank that never arrived is the silent one
_GS = "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 300000ms for send operation to complete"
_GR = "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 300000ms for recv operation to complete"
CASES["srun_gloo_send_and_recv_timeouts"] = (
    {
        "combined.log": "\n".join(
            [
                "0: [2025-01-08 11:02:10] rank 0: barrier before epoch 4",
                "1: [2025-01-08 11:02:10] rank 1: barrier before epoch 4",
                "2: [2025-01-08 11:02:10] rank 2: building the epoch-4 shard index",
                *pre("0: [rank0]: ", tb(_ALLREDUCE, _GS)).splitlines(),
                *pre("1: [rank1]: ", tb(_ALLREDUCE, _GR)).splitlines(),
            ]
        )
        + "\n",
    },
    "nccl_timeout",
    None,  # rank 2 never timed out, but with no world size the engine names no rank here
)
WANT["srun_gloo_send_and_recv_timeouts"] = {0: GLOO_TIMEOUT, 1: GLOO_TIMEOUT}

# 11 torchrun's summary is all that names the other ranks: exitcode -15 there (and no closing-signal
#    line in the paste); rank 1's own traceback decides
CASES["summary_only_sigterm_exitcodes"] = (
    {
        "job.err": "\n".join(
            [
                *pre(
                    "[rank1]: ",
                    tb(
                        [
                            ("/app/finetune.py", 97, "<module>", "run()"),
                            ("/app/finetune.py", 61, "run", "cfg = json.load(open(args.config))"),
                        ],
                        "FileNotFoundError: [Errno 2] No such file or directory: 'configs/lora_r16.json'",
                    ),
                ).splitlines(),
                *summary(
                    [(0, *sigterm(3301)), (2, *sigterm(3303)), (3, *sigterm(3304))],
                    (
                        1,
                        1,
                        3302,
                        "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
                    ),
                    "a100-pod-3",
                    "2024-12-03_17:55:02",
                ),
            ]
        )
        + "\n",
    },
    "shape_or_user_code_error",
    1,
)
WANT["summary_only_sigterm_exitcodes"] = {0: TERMINATED, 2: TERMINATED, 3: TERMINATED}


def _cli_rows(d: Diagnosis, capsys: pytest.CaptureFixture[str]) -> str:
    """The collateral table `denpex diagnose --format text` prints, wide enough for one line a row."""
    from denpex.cli.diagnose import render

    os.environ["COLUMNS"] = "400"
    try:
        render(d)
    finally:
        del os.environ["COLUMNS"]
    out = capsys.readouterr().out
    assert "Collateral ranks" in out, out
    return out.split("Collateral ranks", 1)[1]


def _row_for(table: str, rank: int) -> str:
    for line in table.splitlines():
        cells = [c.strip() for c in line.split("│")]
        if len(cells) < 2 or not re.fullmatch(r"[0-9,-]+", cells[0]):
            continue
        if rank in _expand(cells[0]):
            return line
    raise AssertionError(f"rank {rank} has no row:\n{table}")


def _expand(spec: str) -> set[int]:
    out: set[int] = set()
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        out |= set(range(int(lo), int(hi or lo) + 1))
    return out


def _check(row: str, rank: int, want: tuple[tuple[str, ...], tuple[str, ...]], where: str) -> None:
    must, never = want
    for word in must:
        assert word.lower() in row.lower(), (where, rank, word, row)
    for word in never:
        assert not re.search(rf"\b{re.escape(word)}\b", row), (where, rank, word, row)


@pytest.mark.parametrize("name", sorted(CASES))
def test_collateral_rows_say_what_happened_to_each_rank(
    name: str, diagnose_dir: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)  # category and initiating rank unchanged
    d = diagnose_dir(tmp_path / "logs")
    table = _cli_rows(d, capsys)
    for rank, want in WANT[name].items():
        _check(_row_for(table, rank), rank, want, "terminal")


@pytest.mark.parametrize(
    "name",
    [
        "torchrun_gloo_closed_peer_and_sigterm",
        "srun_kill_on_bad_exit_terminated",
        "gloo_recv_timeout_silent_rank",
    ],
)
def test_slack_thread_and_evidence_file_show_the_rows(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)
    d = diagnose_dir(tmp_path / "logs")
    job = JobRef(
        scheduler=Scheduler.files,
        cluster="ci",
        job_id="14",
        state="FAILED",
        exit_code="1:0",
        user="u",
        name="n",
        nodes=["n1"],
    )
    thread = BlockKitRenderer().thread_messages(job, d)
    blocks = "\n".join(
        b.get("text", {}).get("text", "") for m in thread for b in m.blocks if isinstance(b.get("text"), dict)
    )
    rows = [ln for ln in blocks.splitlines() if ln.startswith("• ranks ")]
    assert rows, blocks
    evidence = [ln for ln in evidence_text(job, d).splitlines() if ln.startswith("== collateral ranks ")]
    for rank, want in WANT[name].items():
        row = next(r for r in rows if rank in _expand(r.removeprefix("• ranks ").split(":")[0]))
        _check(row, rank, want, "slack")
        line = next(
            r for r in evidence if rank in _expand(r.removeprefix("== collateral ranks ").split(":")[0])
        )
        _check(line, rank, want, "evidence file")
