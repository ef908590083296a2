"""SlurmCollector against real jobs on the real cluster (scontrol + sacct + files on disk)."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from denpex.core.models import Evidence, JobRef
from integrations.base import UnknownJob
from integrations.slurm import CliBackend, SlurmCollector
from knowledge.engine import Engine
from tests.slurm.support import ROOT, Cluster, sh, wait_until

CUDA_OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
TWO_RANKS = f"""#!/bin/bash
srun -n 2 {{opts}} -K bash -c '
echo "rank $SLURM_PROCID: step 1 loss=2.31"
if [ "$SLURM_PROCID" = 1 ]; then
  echo "Traceback (most recent call last):"
  echo "{CUDA_OOM}"
  exit 1
fi
sleep 30'
"""


def collect(job_id: str, cap: int = 64 << 20) -> Evidence:
    return SlurmCollector(CliBackend(), rank_byte_cap=cap).collect(
        JobRef(scheduler="slurm", cluster="ci", job_id=job_id)
    )


def text(evidence: Evidence, kind: str) -> dict[str, str]:
    return {s.name: b"".join(s.open_bytes()).decode() for s in evidence.sources if s.kind == kind}


def ranks(evidence: Evidence) -> dict[int, str]:
    return {
        s.rank: b"".join(s.open_bytes()).decode()
        for s in evidence.sources
        if s.kind == "rank" and s.rank is not None
    }


def run_job(cluster: Cluster, script: str, *args: str, name: str) -> str:
    job = cluster.submit(script, *args, name=name)
    cluster.wait_done(job)
    cluster.accounted(job)
    return job


def test_per_task_output_files_become_one_source_per_rank(slurm_cluster: Cluster) -> None:
    job = run_job(
        slurm_cluster,
        TWO_RANKS.format(opts="--output=%j_%t.log"),
        "-n",
        "2",
        "-o",
        "batch_%j.out",
        name="pertask",
    )
    ev = collect(job)
    by_rank = ranks(ev)
    assert sorted(by_rank) == [0, 1]
    assert CUDA_OOM in by_rank[1] and "CANCELLED AT" in by_rank[0]
    scheduler = "\n".join(text(ev, "scheduler").values())
    assert "JobState=FAILED" in scheduler and f"slurm: step {job}.0 State=CANCELLED" in scheduler
    assert any("task 1: Exited with exit code 1" in t for t in text(ev, "combined").values())
    assert ev.job is not None and ev.job.state == "FAILED" and ev.job.nodes == [slurm_cluster.node]
    assert ev.job.stdout == str(slurm_cluster.workdir / f"batch_{job}.out") and ev.missing == []


def test_label_file_is_one_combined_source_and_rank_1_is_named(slurm_cluster: Cluster) -> None:
    job = run_job(
        slurm_cluster, TWO_RANKS.format(opts="--label"), "-n", "2", "-o", "label_%j.out", name="label"
    )
    ev = collect(job)
    [combined] = text(ev, "combined").values()
    assert f"1: {CUDA_OOM}" in combined and "task 1: Exited with exit code 1" in combined
    diagnosis = Engine.load().diagnose(ev.sources, missing=ev.missing)
    assert diagnosis.initiating.rank == 1 and diagnosis.category.startswith("gpu_oom")


def test_per_rank_byte_cap_keeps_every_ranks_tail(slurm_cluster: Cluster) -> None:
    script = """#!/bin/bash
srun -n 2 --label bash -c '
if [ "$SLURM_PROCID" = 0 ]; then
  for i in $(seq 1 3000); do echo "chatty line $i of rank zero"; done; exit 0
fi
echo "rank one: first words"
echo "RuntimeError: rank one died here"
exit 2'
"""
    job = run_job(slurm_cluster, script, "-n", "2", "-o", "cap_%j.out", name="cap")
    [combined] = text(collect(job, cap=4096), "combined").values()
    lines = combined.splitlines()
    assert "1: RuntimeError: rank one died here" in lines and "1: rank one: first words" in lines
    assert "0: chatty line 3000 of rank zero" in lines and "0: chatty line 1 of rank zero" not in lines
    assert sum(len(x) + 1 for x in lines if x.startswith("0: ")) <= 4096


def test_missing_logs_are_reported_with_the_next_action(slurm_cluster: Cluster) -> None:
    job = run_job(
        slurm_cluster,
        TWO_RANKS.format(opts="--output=%x_%j_%t.log"),
        "-n",
        "2",
        "-o",
        "gone_%j.out",
        name="gone",
    )
    (slurm_cluster.workdir / f"gone_{job}_1.log").unlink()
    (slurm_cluster.workdir / f"gone_{job}.out").unlink()
    ev = collect(job)
    assert sorted(ranks(ev)) == [0]
    whats = [m.what for m in ev.missing]
    assert any("rank(s) 1" in w for w in whats), whats
    assert any(f"gone_{job}.out" in w and "does not exist" in w for w in whats), whats
    assert all(m.next_action for m in ev.missing)


def collect_as(user: str, job_id: str) -> list[dict[str, str]]:
    """Run the collector in a forked child that dropped root for `user` (the worker's own user in a
    real deployment); returns its missing evidence."""
    pw = pwd.getpwnam(user)
    collect(job_id)  # as root first: the child cannot import what lives under /root (lazy stdlib imports)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never return into pytest
        try:
            os.close(read)
            os.setgroups([])
            os.setresgid(pw.pw_gid, pw.pw_gid, pw.pw_gid)
            os.setresuid(pw.pw_uid, pw.pw_uid, pw.pw_uid)
            ev = collect(job_id)
            os.write(write, json.dumps([m.model_dump() for m in ev.missing]).encode())
        except BaseException as exc:  # report it to the parent, which fails the test with it
            os.write(write, json.dumps({"error": repr(exc)}).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    result = json.loads(data)
    assert isinstance(result, list), result
    return result


def test_unreadable_logs_as_an_unprivileged_worker(slurm_cluster: Cluster) -> None:
    """The worker runs as `nobody`; the job's folder is root-only (0700)."""
    job = run_job(
        slurm_cluster,
        TWO_RANKS.format(opts="--output=%j_%t.log"),
        "-n",
        "2",
        "-o",
        "priv_%j.out",
        name="priv",
    )
    missing = collect_as("nobody", job)
    denied = [m for m in missing if "permission denied" in m["what"]]
    assert denied and all("setfacl" in m["next_action"] for m in denied), missing
    assert any(f"priv_{job}.out" in m["what"] for m in denied)


def test_unknown_job_ids(slurm_cluster: Cluster) -> None:
    with pytest.raises(UnknownJob):
        collect("987654321")
    with pytest.raises(UnknownJob):
        collect("not-a-job; rm -rf /")


def test_array_job_diagnoses_the_failed_task(slurm_cluster: Cluster) -> None:
    script = "#!/bin/bash\necho task $SLURM_ARRAY_TASK_ID\n[ $SLURM_ARRAY_TASK_ID = 1 ] && exit 4\nexit 0\n"
    job = slurm_cluster.submit(script, "--array=0-1", "-o", "arr_%A_%a.out", name="arr")
    for task in ("0", "1"):
        slurm_cluster.wait_done(f"{job}_{task}")
    slurm_cluster.accounted(job)
    ev = collect(job)
    scheduler = "\n".join(text(ev, "scheduler").values())
    assert f"array job {job} has 2 tasks" in scheduler and f"diagnosing {job}_1" in scheduler
    assert "JobState=FAILED ExitCode=4:0" in scheduler
    assert list(text(ev, "combined")) == [f"arr_{job}_1.out"]
    assert "task 1" in text(ev, "combined")[f"arr_{job}_1.out"]


def test_oom_job_facts_give_host_oom(slurm_cluster: Cluster) -> None:
    script = "#!/bin/bash\npython3 -c 'x = []\nwhile True: x.append(bytearray(8 << 20))'\n"
    job = run_job(slurm_cluster, script, "--mem=100M", "-o", "oom_%j.out", name="oom")
    ev = collect(job)
    scheduler = "\n".join(text(ev, "scheduler").values())
    assert "JobState=OUT_OF_MEMORY ExitCode=0:125" in scheduler
    assert f"step {job}.batch State=OUT_OF_MEMORY" in scheduler
    assert any("oom-kill event" in t for t in text(ev, "combined").values())
    assert Engine.load().diagnose(ev.sources, missing=ev.missing).category == "host_oom"


def test_collector_is_registered_for_the_worker() -> None:
    from denpex.core.models import Scheduler
    from denpex.core.settings import Settings
    from workers.collect import CollectorRegistry

    collector = CollectorRegistry(Settings(DENPEX_RANK_BYTE_CAP=8192)).get(Scheduler.slurm)
    assert isinstance(collector, SlurmCollector) and collector.cap == 8192


def test_scripts_are_committed_executable() -> None:
    for name in ("dev-cluster.sh", "denpex-slurm-hook", "sync-masking-rules"):
        assert (Path(ROOT, "deploy", "slurm", name).stat().st_mode & 0o111) == 0o111, name


def test_only_the_job_owners_regular_files_are_read(slurm_cluster: Cluster, tmp_path: Path) -> None:
    """Output paths are the user's choice: a symlink to another user's file, or a FIFO that would block
    the worker, must not be read (the worker often runs with more rights than the job's user)."""
    shared = Path(tempfile.mkdtemp(prefix="denpex-owner-"))
    try:
        shared.chmod(0o777)  # the job runs as nobody and writes here
        secret = tmp_path / "root-only.txt"
        secret.write_text("ROOT_ONLY_CONTENT must never be posted\n")
        script = TWO_RANKS.format(opts=f"--output={shared}/own_%j_%t.log")
        path = shared / "own.sh"
        path.write_text(script)
        job = sh(
            "sbatch",
            "--parsable",
            "--uid=nobody",
            "-n",
            "2",
            "-D",
            str(shared),
            "-o",
            "own_%j.out",
            str(path),
        ).strip()
        slurm_cluster.wait_done(job)
        slurm_cluster.accounted(job)
        (shared / f"own_{job}_1.log").unlink()
        (shared / f"own_{job}_1.log").symlink_to(secret)
        (shared / f"own_{job}_0.log").unlink()
        os.mkfifo(shared / f"own_{job}_0.log")
        ev = collect(job)
        everything = "".join(b"".join(s.open_bytes()).decode() for s in ev.sources)
        assert "ROOT_ONLY_CONTENT" not in everything and ranks(ev) == {}
        refused = [m for m in ev.missing if "not a regular file owned by the job's user" in m.what]
        assert len(refused) == 2, ev.missing
        assert "task 1: Exited with exit code 1" in everything  # the job's own output is read
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_srun_job_without_batch_script_uses_its_submit_line(slurm_cluster: Cluster) -> None:
    """`srun` run directly (no sbatch): no output file; per-task files come from the SubmitLine."""
    name = f"direct-{os.getpid()}"
    script = f"[ $SLURM_PROCID = 1 ] && {{ echo '{CUDA_OOM}'; exit 1; }}; sleep 30"
    argv = [
        "srun",
        "-n",
        "2",
        "-K",
        "-J",
        name,
        "-D",
        str(slurm_cluster.workdir),
        "--output=direct_%j_%t.log",
        "bash",
        "-c",
        script,
    ]
    subprocess.run(argv, capture_output=True, timeout=60, check=False)
    job = wait_until(
        lambda: sh("sacct", "-n", "-X", "-P", f"--name={name}", "-o", "JobID").strip(),
        20,
        "sacct to know the srun job",
    )
    slurm_cluster.wait_done(job)
    slurm_cluster.accounted(job)
    ev = collect(job)
    assert CUDA_OOM in ranks(ev)[1] and sorted(ranks(ev)) == [0, 1]
    assert ev.missing == [] and text(ev, "combined") == {}
