"""Flight Recorder dumps of a real Slurm job: a real 4-rank gloo job (torch 2.13, CPU) on the real
cluster writes them where the sbatch script's `TORCH_FR_DUMP_TEMP_FILE` says; the collector finds
them under the job's folders, by name and by content, with the owner checks of the logs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from denpex.core.models import Evidence, JobRef
from integrations.slurm import CliBackend, SlurmCollector
from integrations.slurm.dumps import DumpOptions
from knowledge.engine import Engine
from tests.flightrec.dumps import FIXTURES
from tests.slurm.support import ROOT, Cluster

pytest.importorskip("torch")

#: the documented setup (docs/flight-recorder.md): dumps on shared storage next to the job, one per rank
SCRIPT = f"""#!/bin/bash
export TORCH_FR_BUFFER_SIZE=2000
export TORCH_FR_DUMP_TEMP_FILE="$SLURM_SUBMIT_DIR/fr-$SLURM_JOB_ID/nccl_trace_rank_"
mkdir -p "$SLURM_SUBMIT_DIR/fr-$SLURM_JOB_ID"
export PYTHONPATH={ROOT}
srun -n 4 --overcommit --output=frjob_%j_%t.log {sys.executable} -m tests.flightrec.rank_job skip_collective
"""


SBATCH = ("sbatch", "--parsable", "-J", "frjob", "-n", "4", "--overcommit", "--mem=4G", "-o", "frjob_%j.out")


def collect(job_id: str, options: DumpOptions | None = None) -> Evidence:
    return SlurmCollector(CliBackend(), dump_options=options).collect(
        JobRef(scheduler="slurm", cluster="ci", job_id=job_id)
    )


def dumps_of(ev: Evidence) -> dict[str, bytes]:
    return {s.name: b"".join(s.open_bytes()) for s in ev.sources if s.kind == "flight_recorder"}


@pytest.fixture(scope="module")
def fr_job(slurm_cluster: Cluster) -> Iterator[tuple[str, Path]]:
    """The job, run once for the module: rank 2 skips an all_reduce, the others time out (gloo, 3 s)."""
    work = slurm_cluster.workdir
    (work / "frjob.sh").write_text(SCRIPT)
    out = subprocess.run(  # sbatch run from the work dir, so $SLURM_SUBMIT_DIR is it
        [*SBATCH, str(work / "frjob.sh")],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    job = out.stdout.strip().split(";")[0]
    slurm_cluster.wait_done(job, timeout=240)
    slurm_cluster.accounted(job)
    fr = work / f"fr-{job}"
    assert sorted(p.name for p in fr.iterdir()) == [f"nccl_trace_rank_{r}" for r in range(4)], (
        work / f"frjob_{job}_0.log"
    ).read_text()
    # rank 3's dump under a name no glob knows: found by its content
    (fr / "odd").mkdir()
    (fr / "nccl_trace_rank_3").rename(fr / "odd" / "r3.dump")
    yield job, fr
    shutil.rmtree(fr, ignore_errors=True)


def test_the_jobs_dumps_are_collected_and_name_the_rank_that_skipped(fr_job: tuple[str, Path]) -> None:
    job, fr = fr_job
    ev = collect(job)
    got = dumps_of(ev)
    assert sorted(got) == [f"fr-{job}/nccl_trace_rank_{r}" for r in range(3)] + [f"fr-{job}/odd/r3.dump"]
    assert got[f"fr-{job}/nccl_trace_rank_0"] == (fr / "nccl_trace_rank_0").read_bytes()
    assert ev.missing == []
    diag = Engine.load().diagnose(ev.sources, missing=ev.missing)
    assert diag.suspect_ranks == [2] and diag.initiating.rank == 2
    assert diag.collectives.dumps == 4
    assert diag.initiating.evidence[0].source == f"fr-{job}/nccl_trace_rank_2"


def test_other_users_stale_and_oversized_dumps_are_not_read(fr_job: tuple[str, Path], tmp_path: Path) -> None:
    job, fr = fr_job
    foreign = fr / "nccl_trace_rank_9"
    shutil.copy(FIXTURES / "skip_collective" / "nccl_trace_rank_1", foreign)
    os.chown(foreign, 65534, 65534)  # nobody's: the job ran as root
    stale = fr.parent / "nccl_trace_rank_7"  # an earlier job's dump in the same submit folder
    shutil.copy(FIXTURES / "two_ranks_hang" / "nccl_trace_rank_7", stale)
    os.utime(stale, (1_600_000_000, 1_600_000_000))
    link = fr / "nccl_trace_rank_8"
    secret = tmp_path / "secret"
    secret.write_bytes((FIXTURES / "skip_collective" / "nccl_trace_rank_0").read_bytes())
    os.chown(secret, 65534, 65534)
    link.symlink_to(secret)  # a link to another user's file
    try:
        ev = collect(job)
        assert sorted(dumps_of(ev)) == sorted(
            [f"fr-{job}/nccl_trace_rank_{r}" for r in range(3)] + [f"fr-{job}/odd/r3.dump"]
        )
        refused = sorted(m.what for m in ev.missing)
        assert len(refused) == 2 and all("not a regular file owned by the job's user" in w for w in refused)
        assert any(str(foreign) in w for w in refused) and any(str(link) in w for w in refused)

        small = collect(job, DumpOptions(byte_cap=1024))
        assert dumps_of(small) == {}
        too_large = [m for m in small.missing if "over the 1024-byte limit" in m.what]
        assert len(too_large) == 4 and all("DENPEX_FR_MAX_BYTES" in m.next_action for m in too_large)
    finally:
        for p in (foreign, stale, link):
            p.unlink(missing_ok=True)


def test_settings_reach_the_collector(slurm_cluster: Cluster) -> None:
    from denpex.core.models import Scheduler
    from denpex.core.settings import Settings
    from workers.collect import CollectorRegistry

    settings = Settings(DENPEX_FR_GLOB="fr-%j/*, /scratch/%u/fr/*", DENPEX_FR_MAX_BYTES=8192)
    collector = CollectorRegistry(settings).get(Scheduler.slurm)
    assert isinstance(collector, SlurmCollector)
    assert collector.dump_options == DumpOptions(globs=("fr-%j/*", "/scratch/%u/fr/*"), byte_cap=8192)
