"""Report pieces: rank ranges, missing evidence with next actions, masking of retained text."""

from __future__ import annotations

from pathlib import Path

from denpex.core.models import LogSource
from knowledge.engine import Engine
from knowledge.wording import alternative_why, ranges
from tests.knowledge import scenarios


def test_rank_ranges() -> None:
    assert ranges([0, 1, 2, 3, 4, 6, 7]) == "0-4,6,7"
    assert ranges([5]) == "5"
    assert ranges([]) == ""
    assert ranges([9, 1, 2, 3, 3]) == "1-3,9"


def test_an_alternative_tied_on_score_is_not_called_weaker() -> None:
    """Users read "weaker evidence (1.8 against 1.8)" as a contradiction: a tie says the logs can't
    separate the two; only a lower score is weaker."""
    tied = alternative_why([], None, 1.8, 1.8)
    assert "weaker" not in tied and "as strong" in tied and "1.8 against 1.8" in tied
    assert alternative_why([], None, 0.9, 1.8).startswith("weaker evidence (score 0.9 against 1.8)")


def test_missing_kernel_log_names_the_node_and_the_command(tmp_path: Path, engine: Engine) -> None:
    folder = scenarios.oom_then_watchdog(tmp_path / "gpu-07")
    diag = engine.diagnose([LogSource(name=f"gpu-07/{p.name}", path=p) for p in sorted(folder.iterdir())])
    assert diag.initiating.node == "gpu-07"
    kernel = next(m for m in diag.missing_evidence if "kernel log" in m.what)
    assert "gpu-07" in kernel.what and "dmesg -T" in kernel.next_action


def test_inconclusive_result_says_how_to_get_sacct(engine: Engine) -> None:
    diag = engine.diagnose([LogSource(name="rank0.log", data=b"step 1 loss 2.0\nstep 2 loss 1.9\n")])
    assert diag.confidence < 0.5
    assert any("sacct" in m.next_action for m in diag.missing_evidence)


def test_absent_rank_logs_are_named(tmp_path: Path, engine: Engine) -> None:
    folder = scenarios.oom_then_watchdog(tmp_path)
    (folder / "rank6.log").unlink()
    (folder / "rank7.log").unlink()
    srcs = [LogSource(name=p.name, path=p) for p in sorted(folder.iterdir())]
    srcs.append(LogSource(name="world", data=b"[rank0]: NCCL INFO world_size=8\n"))
    diag = engine.diagnose(srcs)
    assert any(m.what == "logs of ranks 6,7" for m in diag.missing_evidence)


def test_every_retained_line_is_masked(engine: Engine) -> None:
    secret = "AKIA" + "IOSFODNN7EXAMPLE"
    data = (
        f"[rank0]: aws_access_key_id={secret}\n"
        f"[rank0]: torch.OutOfMemoryError: CUDA out of memory. key={secret}\n"
    ).encode()
    diag = engine.diagnose([LogSource(name="rank0.log", data=data)])
    dumped = diag.model_dump_json()
    assert secret not in dumped
    assert diag.tails and diag.initiating.evidence


def test_a_tail_that_cuts_into_torchruns_summary_keeps_all_of_it(tmp_path: Path, engine: Engine) -> None:
    """The summary's `Failures:` list holds every rank's exit code; 20 last lines would cut it."""
    failures = "".join(
        f"[{i}]:\n  time      : 2026-12-01_21:38:35\n  host      : localhost\n"
        f"  rank      : {r} (local_rank: {r})\n  exitcode  : -15 (pid: 90{r})\n"
        f"  error_file: <N/A>\n  traceback : Signal 15 (SIGTERM) received by PID 90{r}\n"
        for i, r in enumerate((0, 2, 3), start=1)
    )
    (tmp_path / "console.log").write_text(
        "[rank1]: RuntimeError: [enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't "
        "allocate memory: you tried to allocate 16777216 bytes.\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "============================================================\ntrain.py FAILED\n"
        "------------------------------------------------------------\nFailures:\n"
        + failures
        + "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n"
        "[0]:\n  rank      : 1 (local_rank: 1)\n  exitcode  : 1 (pid: 901)\n"
        "============================================================\n"
    )
    diag = engine.diagnose([LogSource(name="console.log", path=tmp_path / "console.log")])
    (tail,) = diag.tails
    texts = [ln.text for ln in tail.lines]
    assert "ChildFailedError" in texts[0]
    assert [t for t in texts if t.strip().startswith("rank ")] == [
        "  rank      : 0 (local_rank: 0)",
        "  rank      : 2 (local_rank: 2)",
        "  rank      : 3 (local_rank: 3)",
        "  rank      : 1 (local_rank: 1)",
    ]


def test_the_initiating_ranks_category_in_the_facts_is_the_verdicts(tmp_path: Path, engine: Engine) -> None:
    """A kill in the data phase fits the checkpoint entry's signature too; the per-rank facts the
    follow-ups read must not call the rank a checkpoint OOM when the verdict says host OOM."""
    folder = scenarios.host_oom(tmp_path)
    diag = engine.diagnose([LogSource(name=p.name, path=p) for p in sorted(folder.iterdir())])
    assert diag.initiating.rank is not None
    mine = next(r for r in diag.facts.ranks if r.rank == diag.initiating.rank)
    assert mine.category == diag.category == "host_oom"
