# ruff: noqa: E501 - realistic log lines are long
"""The thread's "failed first" line hedges a phase the engine inferred rather than read."""

from __future__ import annotations

from pathlib import Path

from bot.slack.render import _phase_phrase
from denpex.core.models import Diagnosis
from knowledge.engine import Engine
from knowledge.sources import discover

AGENT = "W0613 07:54:19.850000 180275 site-packages/torch/distributed/elastic/multiprocessing/api.py:897]"


def _diagnose(folder: Path, step: int) -> Diagnosis:
    (folder / "console.log").write_text(
        f"  5%|▍         | {step}/4443 [11:11:27<255:23:04, 216.68s/it]{AGENT} Sending process 1 closing signal SIGTERM\n"
        "E0613 07:54:22.195000 180275 api.py:869] failed (exitcode: -9) local_rank: 3 (pid: 2) of binary: python\n",
        encoding="utf-8",
    )
    return Engine.load().diagnose(discover([folder]))


def test_a_save_inferred_from_a_round_step_is_said_to_be_probable(tmp_path: Path) -> None:
    diag = _diagnose(tmp_path, 200)
    assert diag.initiating.phase == "checkpoint_save" and diag.initiating.phase_inferred
    assert _phase_phrase(diag).startswith(", probably while saving")


def test_a_phase_the_log_shows_is_stated_plainly(tmp_path: Path) -> None:
    (tmp_path / "console.log").write_text(
        "[INFO|trainer.py:2753] 2023-02-06 18:39:45,439 >> Saving model checkpoint to out/checkpoint-500\n"
        "Killed\n",
        encoding="utf-8",
    )
    diag = Engine.load().diagnose(discover([tmp_path]))
    assert diag.initiating.phase == "checkpoint_save" and not diag.initiating.phase_inferred
    assert _phase_phrase(diag).startswith(", while saving")
