"""The diagnosis keeps the job's set-up lines (knowledge/setup_lines.py): the first of each kind per
log, masked like every kept line, capped, so follow-ups can quote the model, the world size, a rank's
NCCL init ids and launch line, and the driver a node loaded."""

from __future__ import annotations

from denpex.core.models import Diagnosis, LogSource, RunFacts
from knowledge import setup_lines
from knowledge.engine import Engine

_OOM = b"[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"


def _rank_log(rank: int, world: int = 8, extra: str = "") -> bytes:
    node, dev = ("gpu-01", rank) if rank < 4 else ("gpu-02", rank - 4)
    return (
        f"[2026-11-20 02:01:12,331] [INFO] [launch] rank={rank} local_rank={dev} world_size={world}"
        f" node={node}\n"
        f"[2026-11-20 02:01:20,540] [INFO] [rank{rank}] Loading model meta-llama/Llama-3.1-8B{extra}\n"
        f"[2026-11-20 02:02:41,077] [INFO] [rank{rank}] ProcessGroupNCCL initialized: world 8,"
        " timeout 600000 ms\n"
        f"{node}:4{rank}21:4{rank}21 [{dev}] NCCL INFO comm 0x5563a rank {rank} nranks 8 cudaDev {dev} "
        f"nvmlDev {dev} busId 3b000 commId 0x7d1f - Init COMPLETE\n"
        f"[2026-11-20 02:02:42,077] [INFO] [rank{rank}] Loading model meta-llama/Other-70B\n"
        f"[2026-11-20 02:03:33,699] [INFO] [rank{rank}] step 10/6000 loss=2.0864\n"
    ).encode()


def _diagnose(engine: Engine, logs: dict[str, bytes]) -> Diagnosis:
    return engine.diagnose([LogSource(name=name, data=data) for name, data in logs.items()])


def test_the_first_line_of_each_kind_is_kept_per_source(engine: Engine) -> None:
    dmesg = b"[Fri Nov 20 02:00:42 2026] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07\n"
    logs = {"rank0.log": _rank_log(0, world=4), "rank1.log": _rank_log(1) + _OOM, "node-gpu-01.dmesg": dmesg}
    setup = _diagnose(engine, logs).facts.setup
    kinds = {(ln.source, setup_lines.kind_of(ln.text)): ln for ln in setup}
    for rank in (0, 1):
        src = f"rank{rank}.log"
        assert kinds[(src, "launch")].line == 1
        assert kinds[(src, "model")].line == 2 and "Llama-3.1-8B" in kinds[(src, "model")].text
        assert kinds[(src, "process_group")].line == 3
        assert "busId 3b000" in kinds[(src, "nccl_init")].text
    assert "world_size=4" in kinds[("rank0.log", "launch")].text
    assert "550.90.07" in kinds[("node-gpu-01.dmesg", "driver")].text
    assert not any("Other-70B" in ln.text for ln in setup)  # only the first model line of a source
    assert len(setup) == 9


def test_the_kept_lines_are_capped(engine: Engine) -> None:
    logs = {f"rank{r}.log": _rank_log(r) for r in range(40)}
    logs["rank1.log"] += _OOM
    setup = _diagnose(engine, logs).facts.setup
    assert len(setup) == setup_lines.MAX_LINES


def test_a_secret_on_a_setup_line_is_masked(engine: Engine) -> None:
    secret = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
    key = "AKIA" + "IOSFODNN7EXAMPLE"
    logs = {"rank1.log": _rank_log(1, extra=f" token={secret} aws_access_key_id={key}") + _OOM}
    diag = _diagnose(engine, logs)
    model = next(ln for ln in diag.facts.setup if setup_lines.kind_of(ln.text) == "model")
    assert model.line == 2 and "Llama-3.1-8B" in model.text
    dumped = diag.model_dump_json()
    assert secret not in dumped and key not in dumped


def test_an_older_diagnosis_without_setup_lines_still_loads() -> None:
    assert RunFacts.model_validate({"world_size": 8}).setup == []
