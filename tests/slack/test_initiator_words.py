"""Who started the failure is said the same way in the terminal, the Slack thread and the evidence
file, and never as "rank unknown" / "rank ?" / "rank None" when no rank could have started it: a
scheduler's time limit stops every rank at once, and a launcher whose port was taken fails before any
rank runs. A job whose failing rank the lines do not name still says "rank unknown"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.slack.render import BlockKitRenderer, evidence_text
from denpex.core.models import Diagnosis, JobRef, Scheduler
from denpex.core.texts import cli as cli_texts
from tests.slack import factjobs

WHO = {
    "time_limit": "the scheduler (no rank failed on its own)",
    "rendezvous_port_in_use": "the launcher, before any rank started",
    "gpu_oom": "rank 5",
}


def _diagnosis(job: str, tmp_path: Path) -> tuple[Diagnosis, Path]:
    folder = tmp_path / job
    folder.mkdir()
    seen: list[Path] = []
    real = factjobs._diagnose

    def spy(path: Path) -> Diagnosis:
        seen.append(path)
        return real(path)

    factjobs._diagnose = spy  # type: ignore[assignment]
    try:
        diag = factjobs.JOBS[job](folder)
    finally:
        factjobs._diagnose = real  # type: ignore[assignment]
    return diag, seen[0]


@pytest.mark.parametrize("job", sorted(WHO))
def test_the_thread_and_the_evidence_file_name_who_started_it(job: str, tmp_path: Path) -> None:
    diag, _ = _diagnosis(job, tmp_path)
    ref = JobRef(scheduler=Scheduler.slurm, cluster="ci", job_id="991")
    messages = BlockKitRenderer(factjobs.engine().entries).thread_messages(ref, diag)
    blocks = json.dumps([m.blocks for m in messages]) + "".join(m.text for m in messages)
    assert WHO[job] in blocks
    for wrong in ("rank ?", "rank None", "rank unknown"):
        assert wrong not in blocks
    evidence = evidence_text(ref, diag)
    assert f"== initiating: {WHO[job]}" in evidence
    assert "None" not in evidence.split("\n== initiating: ")[1].split("\n")[0]


@pytest.mark.parametrize("job", ["time_limit", "rendezvous_port_in_use"])
def test_the_terminal_summary_names_who_started_it(job: str, tmp_path: Path) -> None:
    _, folder = _diagnosis(job, tmp_path)
    env = dict(os.environ, COLUMNS="200")
    out = subprocess.run(
        [str(Path(sys.executable).with_name("denpex")), "diagnose", str(folder), "--format", "text"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert f"Initiating: {WHO[job]}" in out
    assert "rank unknown" not in out


def test_a_scheduler_kills_ranks_are_stopped_by_it_not_waiting(tmp_path: Path) -> None:
    diag, _ = _diagnosis("time_limit", tmp_path)
    assert [(g.ranks, g.why) for g in diag.collateral] == [
        ([0, 1, 2, 3], "stopped by the scheduler with the rest of the job")
    ]


def test_a_failure_whose_rank_no_line_names_is_still_rank_unknown() -> None:
    assert cli_texts.initiator(None, category="host_oom", ranks_seen=4) == "rank unknown"
    # a diagnosis built without reading files says nothing about how many ranks ran
    assert (
        cli_texts.initiator(None, category="host_oom", ranks_seen=cli_texts.ranks_seen(0, 0))
        == "rank unknown"
    )
    assert cli_texts.initiator(3, category="scheduler_kill", ranks_seen=4) == "rank 3"
