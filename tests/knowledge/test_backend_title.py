"""A gloo job's diagnosis title does not say NCCL (blind readers of batches 65–66 and two earlier
authors took "NCCL Timeout" on a CPU/gloo job for an NCCL problem and went looking at NCCL settings).

The class and the entry stay the same: only the words the title shows are fitted to the backend the
job's lines name; an NCCL job, or one whose lines name no backend, keeps the entry's own title.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from knowledge.backend import title_for

Run = Callable[[Path], Diagnosis]
FIXTURES = Path(__file__).parents[1] / "realjobs" / "fixtures"


@pytest.mark.parametrize("job", ["desync", "hang_before_collective"])
def test_a_real_gloo_jobs_title_names_gloo_not_nccl(diagnose_dir: Run, job: str) -> None:
    d = diagnose_dir(FIXTURES / job / "logs")
    assert d.category == "nccl_timeout"  # the class is unchanged
    assert d.entry is not None
    assert "NCCL" not in d.entry.title
    assert d.entry.title.endswith("(gloo backend)")


def test_an_nccl_jobs_title_is_the_entrys_own(diagnose_dir: Run, tmp_path: Path) -> None:
    (tmp_path / "rank1.log").write_text(
        "[rank1]:[E1201 21:36:04.266000 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=48213, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
        "Timeout(ms)=600000) ran for 600043 milliseconds before timing out.\n"
    )
    d = diagnose_dir(tmp_path)
    assert d.entry is not None and "NCCL" in d.entry.title
    assert "gloo" not in d.entry.title


def test_title_words() -> None:
    assert (
        title_for("NCCL Watchdog Timeout: A Collective Never Completed", "gloo")
        == "Collective Timeout: A Collective Never Completed (gloo backend)"
    )
    assert title_for("NCCL Watchdog Timeout: A Collective Never Completed", None).startswith("NCCL")
    assert (
        title_for("CUDA Out of Memory in the Training Step", "gloo")
        == "CUDA Out of Memory in the Training Step"
    )
