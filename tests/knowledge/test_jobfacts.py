"""Verify commands and fix snippets fitted to the job: launcher facts from its lines, templates filled."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from denpex.demo import LOGS, PLANTED_TOKEN
from knowledge.engine import Engine
from knowledge.jobfacts import JobFacts, read
from knowledge.jobfill import NAMES, PLACEHOLDER, fill, placeholders
from knowledge.schema import ENTRIES_DIR, load_entries
from knowledge.sources import discover

OOM_VERIFY = "{launcher} {script} {args} --max_steps {past_step|20}"

#: (a line the job printed, what `{launcher} {script} {args} --max_steps {past_step|20}` becomes)
LAUNCH_FORMS = [
    (
        "+ torchrun --nproc_per_node=3 train.py --config cfg.yaml",
        "torchrun --nproc_per_node=3 train.py --config cfg.yaml --max_steps 20",
    ),
    (
        "[2026-11-20 02:01:00] launching: torchrun --nnodes 2 --nproc-per-node 4 --rdzv_endpoint h:29500 "
        "pretrain.py --lr 3e-4",
        "torchrun --nnodes 2 --nproc-per-node 4 --rdzv_endpoint h:29500 pretrain.py --lr 3e-4 --max_steps 20",
    ),
    (
        "python -m torch.distributed.run --standalone --nproc_per_node 2 main.py",
        "python -m torch.distributed.run --standalone --nproc_per_node 2 main.py --max_steps 20",
    ),
    (
        "+ srun -N 2 -n 16 python -u train.py --bs 4",
        "srun -N 2 -n 16 python -u train.py --bs 4 --max_steps 20",
    ),
    (
        "srun -N 2 --ntasks-per-node 1 torchrun --nnodes 2 --nproc_per_node 8 fsdp.py",
        "srun -N 2 --ntasks-per-node 1 torchrun --nnodes 2 --nproc_per_node 8 fsdp.py --max_steps 20",
    ),
    (
        "deepspeed --num_gpus 4 --num_nodes 2 train.py --deepspeed ds.json",
        "deepspeed --num_gpus 4 --num_nodes 2 train.py --deepspeed ds.json --max_steps 20",
    ),
    (
        "accelerate launch --num_processes 8 --num_machines 2 --multi_gpu tune.py --epochs 1",
        "accelerate launch --num_processes 8 --num_machines 2 --multi_gpu tune.py --epochs 1 --max_steps 20",
    ),
    ("mpirun -np 16 -N 8 python train.py", "mpirun -np 16 -N 8 python train.py --max_steps 20"),
]


@pytest.mark.parametrize(("line", "command"), LAUNCH_FORMS)
def test_each_launcher_form_gives_the_job_s_command(line: str, command: str) -> None:
    assert fill(OOM_VERIFY, read([line])) == command


@pytest.mark.parametrize(
    ("line", "nproc", "nnodes", "world"),
    [
        ("torchrun --nproc_per_node=3 train.py", 3, None, 3),
        ("srun -N 2 -n 16 python train.py", 8, 2, 16),
        ("deepspeed --num_gpus 4 --num_nodes 2 train.py", 4, 2, 8),
        ("accelerate launch --num_processes 8 --num_machines 2 finetune.py", 4, 2, 8),
        ("mpirun -np 16 -N 8 python train.py", 8, 2, 16),
    ],
)
def test_the_job_s_shape(line: str, nproc: int, nnodes: int | None, world: int) -> None:
    facts = read([line])
    assert (facts.nproc_per_node, facts.nnodes, facts.world_size) == (nproc, nnodes, world)


def test_prose_that_names_a_launcher_is_no_command_line() -> None:
    for line in (
        "[INFO] [rank0] torch 2.5.1+cu124, deepspeed 0.16.2, NCCL 2.21.5",
        "mpirun noticed that process rank 5 with PID 0 on node gpu-02 exited on signal 9 (Killed).",
        "srun: error: gpu-02: task 5: Out Of Memory",
    ):
        assert read([line]).launcher is None, line


def test_torchrun_s_launch_config_lines_when_the_command_line_is_not_logged() -> None:
    lines = [
        "INFO:torch.distributed.launcher.api:Starting elastic_operator with launch configs:",
        "  entrypoint       : finetune.py",
        "  min_nodes        : 2",
        "  max_nodes        : 2",
        "  nproc_per_node   : 4",
    ]
    assert (
        fill(OOM_VERIFY, read(lines)) == "torchrun --nnodes 2 --nproc_per_node 4 finetune.py --max_steps 20"
    )


def test_world_size_and_nodes_alone_give_a_launcher_of_that_shape() -> None:
    three = read([], world=3, nodes=["gpu-01"])
    assert fill("{launcher} {script}", three) == "torchrun --nproc_per_node 3 train.py"
    assert "--nproc_per_node 8" not in fill("{launcher|torchrun --nproc_per_node 8} x.py", three)
    two = read([], world=16, nodes=["gpu-01", "gpu-02"])
    assert fill("{launcher}", two) == "torchrun --nnodes 2 --nproc_per_node 8"


def test_unknown_facts_fall_back_and_never_show_a_placeholder() -> None:
    empty = JobFacts()
    assert fill(OOM_VERIFY, empty) == "python train.py --max_steps 20"
    assert fill("ssh {node|$NODE} 'dmesg -T | grep -i xid'", empty) == "ssh $NODE 'dmesg -T | grep -i xid'"
    assert fill("ssh {node|$NODE} x", JobFacts(node="gpu-02")) == "ssh gpu-02 x"
    assert fill("nc {master_port|${MASTER_PORT:-29500}} ${X:-1}", empty) == "nc ${MASTER_PORT:-29500} ${X:-1}"
    hosts = JobFacts(nodes=("gpu-01", "gpu-02"), nproc_per_node=4)
    assert fill("-H {hosts|nodeA:8,nodeB:8}", hosts) == "-H gpu-01:4,gpu-02:4"


def test_every_entry_template_uses_known_names_and_fills_completely() -> None:
    facts = [JobFacts(), read(["srun -N 2 -n 16 python train.py --bs 4"], nodes=["a1", "a2"])]
    for entry in load_entries(ENTRIES_DIR):
        for template in (entry.verify, entry.fix.snippet):
            shell = "\n".join(ln for ln in template.split("\n") if not re.search(r"\bf[\"']", ln))
            assert placeholders(shell) <= NAMES, (entry.id, placeholders(shell) - NAMES)  # typos
            for f in facts:
                out = fill(template, f)
                assert not [m for m in PLACEHOLDER.finditer(out) if m.group(1) in NAMES], (entry.id, out)


def _rank_logs(folder: Path, command: str, ranks: int = 3, culprit: int = 1) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for r in range(ranks):
        lines = [f"+ {command}"] if r == 0 else []
        lines += [
            f"[2026-11-20 03:1{i}:00,000] [INFO] [rank{r}] step {i * 10}/500 loss=2.0" for i in range(5)
        ]
        if r == culprit:
            lines += [
                "Traceback (most recent call last):",
                '  File "/home/me/proj/train.py", line 88, in <module>',
                "    main()",
                '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1736, in f',
                "    return forward_call(*args, **kwargs)",
                f"[rank{r}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
            ]
        else:
            lines += [
                f"[rank{r}]: [E1120 03:24:02.1 ProcessGroupNCCL.cpp:616] Watchdog caught collective "
                "operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, Timeout(ms)=600000)"
            ]
        (folder / f"rank{r}.log").write_text("\n".join(lines) + "\n")
    return folder


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load()


def test_a_3_rank_torchrun_job_gets_its_own_command(engine: Engine, tmp_path: Path) -> None:
    logs = _rank_logs(tmp_path / "job", "torchrun --nproc_per_node 3 train.py --config cfg/a.yaml")
    d = engine.diagnose(discover([logs]))
    assert d.category == "gpu_oom"
    assert "torchrun --nproc_per_node 3 train.py --config cfg/a.yaml --max_steps 50" in d.verify
    assert "--nproc_per_node 3 train.py --config cfg/a.yaml" in d.fix_snippet
    assert "--nproc_per_node 8" not in d.fix_snippet + d.verify
    assert not re.search(r"\{[a-z_]+(\|[^}]*)?\}", d.verify + d.fix_snippet)


def test_a_secret_in_the_command_line_is_masked(engine: Engine, tmp_path: Path) -> None:
    token = "hf_" + "Zq8Xw2Lm4Np6Rt1Vb3Cd5Fg7Hj9Kl0Mn2Pq"
    logs = _rank_logs(tmp_path / "job", f"torchrun --nproc_per_node 3 train.py --hub_token {token}")
    d = engine.diagnose(discover([logs]))
    assert "torchrun --nproc_per_node 3 train.py" in d.verify
    assert token not in d.verify + d.fix_snippet


def test_the_demo_job_gets_a_deepspeed_command_of_its_shape(engine: Engine) -> None:
    d = engine.diagnose(discover([LOGS]))
    assert d.initiating.rank == 5
    assert "deepspeed --num_nodes 2 --num_gpus 4 /workspace/train.py --max_steps 2011" in d.verify
    assert "--nproc_per_node 8" not in d.fix_snippet
    assert PLANTED_TOKEN not in d.verify + d.fix_snippet


def test_a_verify_past_the_jobs_own_step_says_what_it_costs(engine: Engine) -> None:
    """`--max_steps 2011` for a job that logged step 2001 is not a cheap check unless it resumes: the
    command says so (two blind readers took it for a short run)."""
    d = engine.diagnose(discover([LOGS]))
    assert d.verify.endswith(
        "# runs past step 2001, the last one logged: 2011 steps from scratch,"
        " fewer only if the script resumes from a checkpoint"
    )


def test_a_verify_with_a_generic_step_count_has_no_cost_note(tmp_path: Path) -> None:
    """No step logged: the template's own short count stands and needs no note."""
    (tmp_path / "rank0.log").write_text(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity"
        " of 79.15 GiB of which 1.02 GiB is free.\n"
    )
    d = Engine.load().diagnose(discover([tmp_path]))
    assert "--max_steps 20" in d.verify and "from scratch" not in d.verify


def test_the_port_in_use_check_greps_the_port_the_error_names(tmp_path: Path) -> None:
    """No launch line says the port, but c10d's error does: the verify command checks that port."""
    (tmp_path / "console.log").write_text(
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
        "address. port: 54661, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use\n"
    )
    diag = Engine.load().diagnose(discover([tmp_path]))
    assert diag.category == "rendezvous_failure"
    assert '":54661"' in diag.verify and "29500" not in diag.verify
