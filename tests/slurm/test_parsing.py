"""The collector's parsers on text Slurm 22.05 printed (no cluster needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from integrations.base import UnknownJob
from integrations.slurm import CliBackend, pyslurm_backend
from integrations.slurm.collector import choose, normalise_id
from integrations.slurm.commands import parse_sacct_script
from integrations.slurm.outputs import Values, find_files, parse_options, sbatch_streams, srun_specs
from integrations.slurm.records import (
    derive_state,
    job_from_show,
    jobs_from_sacct,
    parse_sacct,
    parse_show_job,
)
from integrations.slurm.tails import labelled_tail, tail_chunks

HET = (
    "JobId=12 HetJobId=12 HetJobOffset=0 JobName=het UserId=alice(1000) JobState=COMPLETED Reason=None "
    "ExitCode=0:0 NodeList=gpu-01 WorkDir=/w StdErr=/w/het_12_0.out StdOut=/w/het_12_0.out NumTasks=1\n"
    "JobId=13 HetJobId=12 HetJobOffset=1 JobName=het UserId=alice(1000) JobState=FAILED "
    "Reason=NonZeroExitCode ExitCode=6:0 NodeList=gpu-02 WorkDir=/w StdErr=/w/het_12_1.out "
    "StdOut=/w/het_12_1.out NumTasks=1\n"
)
T1, T2, T3 = "2026-11-29T19:14:08", "2026-11-29T19:14:10", "2026-11-29T19:14:38"
# sacct -P -n -D --format=<records.SACCT_FIELDS>, as Slurm 22.05 printed them
REQUEUE = (
    "\n".join(
        [
            f"30|30|requeued|REQUEUED|0:0|0:0|None|vm||{T1}|{T2}|00:00:02|UNLIMITED||||1G|root|/w|0|sbatch rq.sh",  # noqa: E501
            f"30.batch|30.batch|batch|CANCELLED|0:15||||1|{T1}|{T2}|00:00:03||0|vm|0|||||",
            f"30|30|requeued|FAILED|5:0|0:0|None|vm||{T3}|{T3}|00:00:00|UNLIMITED||||1G|root|/w|0|sbatch rq.sh",  # noqa: E501
            f"30.batch|30.batch|batch|FAILED|5:0||||1|{T3}|{T3}|00:00:00||0|vm|0|||||",
        ]
    )
    + "\n"
)
MULTILINE = (
    "\n".join(
        [
            f"23|23|label|FAILED|15:0|0:15|None|vm||{T1}|{T1}|00:00:00|UNLIMITED||||1G|root|/w|0|sbatch -o l_%j x",  # noqa: E501
            f"23.0|23.0|bash|CANCELLED|0:15||||2|{T1}|{T1}|00:00:00||108K|vm|0|||||srun -n 2 --label bash -c 'a |",  # noqa: E501
            "b'",
        ]
    )
    + "\n"
)


def test_het_records_diagnose_every_component() -> None:
    jobs = [job_from_show(r) for r in parse_show_job(HET)]
    assert [j.display_id for j in jobs] == ["12+0", "12+1"]
    targets, notes = choose(jobs, "12")
    assert [t.job_id for t in targets] == ["12", "13"]
    assert "heterogeneous job 12 with 2 components: 12+0 COMPLETED, 12+1 FAILED" in notes[0]


def test_requeued_runs_become_history_of_the_latest() -> None:
    [job] = jobs_from_sacct(parse_sacct(REQUEUE))
    assert job.state == "FAILED" and job.exit_code == "5:0" and job.restarts == 1
    assert job.earlier_runs[0].startswith("slurm: earlier run of JobId=30 (requeued) State=REQUEUED")
    assert "FailedSteps=30.batch:CANCELLED:0:15" in job.earlier_runs[0]


def test_submit_line_may_span_lines_and_hold_pipes() -> None:
    [job] = jobs_from_sacct(parse_sacct(MULTILINE))
    assert [s.step_id for s in job.steps] == ["23.0"] and job.num_tasks == 2
    assert job.steps[0].submit_line == "srun -n 2 --label bash -c 'a |\nb'"


@pytest.mark.parametrize(
    ("rec", "state"),
    [
        ({"JobState": "COMPLETING", "Reason": "OutOfMemory", "ExitCode": "0:125"}, "OUT_OF_MEMORY"),
        ({"JobState": "COMPLETING", "Reason": "None", "ExitCode": "0:125"}, "OUT_OF_MEMORY"),
        ({"JobState": "COMPLETING", "Reason": "TimeLimit"}, "TIMEOUT"),
        ({"JobState": "COMPLETING", "Reason": "NonZeroExitCode", "ExitCode": "1:0"}, "FAILED"),
        ({"JobState": "COMPLETING", "Reason": "None", "ExitCode": "0:0"}, "COMPLETED"),
        ({"State": "CANCELLED by 0"}, "CANCELLED"),
        ({"JobState": "RUNNING"}, "RUNNING"),
    ],
)
def test_state_derivation(rec: dict[str, str], state: str) -> None:
    assert derive_state(rec) == state


def test_output_options_of_sbatch_and_srun() -> None:
    script = (
        "#!/bin/bash\n#SBATCH --job-name=x\n#SBATCH --output=logs/%x-%j.out  # comment\n"
        "#SBATCH -e e_%j\nmodule load cuda\n"
        "export A=1 && srun --exclusive -N2 \\\n   --output=logs/%j-%N-%t.log -l python t.py\n"
        "#SBATCH -o ignored_after_first_command\n"
    )
    assert sbatch_streams(script, "sbatch --parsable -o override_%j.out x.sh") == {
        "output": "override_%j.out",
        "error": "e_%j",
    }
    [spec] = srun_specs(script)
    assert spec.pattern == "logs/%j-%N-%t.log" and spec.label and spec.origin == "srun (line 6)"
    assert parse_options(["-ofile_%t", "-K", "--label", "prog", "-o", "not-an-option-of-srun"]) == (
        {"output": "file_%t"},
        True,
    )


def test_patterns_match_files_and_recover_task_and_node(tmp_path: Path) -> None:
    for name in ("7-gpu-01-0.log", "7-gpu-01-1.log", "7-gpu-02-2.log", "8-gpu-01-0.log", "7-gpu-01-x.log"):
        (tmp_path / name).write_text("x\n")
    found = find_files("%j-%N-%t.log", Values(job_id="7", work_dir=str(tmp_path)))
    assert [(f.task, f.node) for f in found] == [(0, "gpu-01"), (1, "gpu-01"), (2, "gpu-02")]
    (tmp_path / "arr_9_0003.out").write_text("x\n")
    [one] = find_files(
        "arr_%A_%4a.out", Values(job_id="12", array_job_id="9", array_task_id="3", work_dir=str(tmp_path))
    )
    assert one.path.endswith("arr_9_0003.out")
    (tmp_path / "run_7_0.log").write_text("x\n")
    found = find_files("run_${SLURM_JOB_ID}_%t.log", Values(job_id="7", work_dir=str(tmp_path)))
    assert [f.task for f in found] == [0]


def test_labelled_tail_keeps_a_quiet_ranks_last_lines(tmp_path: Path) -> None:
    path = tmp_path / "job.out"
    lines = ["1: rank one started", "1: RuntimeError: the real failure"]
    lines += [f"0: chatty {i:05d}" for i in range(20000)] + ["srun: error: gpu-01: task 1: Exited"]
    path.write_text("\n".join(lines) + "\n")
    data, truncated = labelled_tail(str(path), 2048)
    kept = data.decode().splitlines()
    assert truncated and kept[:2] == lines[:2] and kept[-1] == lines[-1]
    assert kept[-2] == "0: chatty 19999" and sum(len(x) + 1 for x in kept if x.startswith("0:")) <= 2048


def test_tail_chunks_start_at_a_line(tmp_path: Path) -> None:
    path = tmp_path / "rank3.log"
    path.write_text("".join(f"line {i}\n" for i in range(1000)))
    text = b"".join(tail_chunks(str(path), 100)()).decode()
    assert text.endswith("line 999\n") and text.startswith("line ") and len(text) <= 100
    assert b"".join(tail_chunks(str(tmp_path / "gone.log"), 100)()) == b""


def test_job_ids() -> None:
    assert normalise_id(" 1234 ") == "1234" and normalise_id("12_3") == "12_3"
    assert normalise_id("12+1") == "12+1" and normalise_id("77.batch") == "77"
    for bad in ("", "abc", "12;rm", "-1", "12_"):
        with pytest.raises(UnknownJob):
            normalise_id(bad)


def test_batch_script_from_sacct() -> None:
    text = "Batch Script for 1\n" + "-" * 80 + "\n#!/bin/bash\nsrun x\n"
    assert parse_sacct_script(text) == "#!/bin/bash\nsrun x\n"
    assert parse_sacct_script("Batch Script for 2\n" + "-" * 80 + "\nNONE\n") is None


def test_pyslurm_is_used_only_when_it_matches_the_installed_slurm() -> None:
    class Fake:
        __version__ = "25.11.0"

    assert pyslurm_backend.pyslurm_version(Fake) == "25.11"
    backend, why = pyslurm_backend.load(CliBackend())
    assert backend is None and "pyslurm" in why  # PyPI has no pyslurm for Slurm 22.05


def test_output_to_dev_null_is_reported_not_read() -> None:
    from denpex.core.models import JobRef
    from integrations.slurm import SlurmCollector

    class Backend:
        name = "recorded"

        def show_job(self, job_id: str) -> list[dict[str, str]]:
            return parse_show_job(
                "JobId=5 JobName=t UserId=alice(1000) JobState=FAILED Reason=NonZeroExitCode ExitCode=1:0 "
                "NodeList=n1 WorkDir=/nonexistent StdErr=/dev/null StdOut=/dev/null NumTasks=1"
            )

        def accounting(self, job_id: str) -> list[dict[str, str]]:
            return []

        def batch_script(self, job_id: str) -> str | None:
            return None

    ev = SlurmCollector(Backend()).collect(JobRef(scheduler="slurm", cluster="c", job_id="5"))
    assert [m.what for m in ev.missing] == ["the output of job 5 (it went to /dev/null)"]
    assert [s.kind for s in ev.sources] == ["scheduler"]
