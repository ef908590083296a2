"""Texts the Slurm collector writes into evidence (missing evidence and its next actions)."""

from __future__ import annotations


def not_a_job_id(job_id: str) -> str:
    return (
        f"{job_id!r} is not a Slurm job id (expected 1234, 1234_7 for an array task or 1234+1 for a "
        "het job component)"
    )


def unknown_job(job_id: str, accounting: str | None) -> str:
    text = f"Slurm does not know job {job_id}: not in slurmctld's memory"
    return text + (f", and sacct is unavailable ({accounting})" if accounting else " nor in sacct")


def log_missing(what: str, path: str, problem: str) -> str:
    return f"{what} ({path}): {problem}"


def log_next_action(path: str, problem: str, worker_user: str, worker_host: str) -> str:
    folder = path.rsplit("/", 1)[0] or "/"
    if problem.startswith("not a regular file owned"):
        return (
            "check who wrote it (`ls -lL` it): Denpex reads only files owned by the job's user, so a "
            "symlink to another user's file is never posted"
        )
    if problem == "permission denied":
        return (
            f"let the Denpex worker's user ({worker_user}) read it, e.g. "
            f"`setfacl -R -m u:{worker_user}:rX {folder}`, or run the worker in the job owner's group"
        )
    return (
        f"check that {folder} is on a filesystem the worker host ({worker_host}) mounts at the same "
        "path, and that the job did not move or delete the file (`ls -l` it on a login node)"
    )


def ranks_missing(ranks: list[int], pattern: str) -> str:
    shown = ", ".join(str(r) for r in ranks[:20]) + (" …" if len(ranks) > 20 else "")
    return f"logs of rank(s) {shown} (pattern {pattern})"


def ranks_next_action(pattern: str) -> str:
    return (
        f"check whether those tasks started at all (`sacct -j <job> -o JobID,State,NTasks,NodeList`) and "
        f"whether their files from {pattern} exist on the nodes' shared filesystem"
    )


def output_discarded(job_id: str) -> str:
    return f"the output of job {job_id} (it went to /dev/null)"


def output_discarded_action() -> str:
    return "write rank logs to files, e.g. `srun --output=%x_%j_%t.log` or `#SBATCH --output=%x_%j.out`"


def output_unknown(job_id: str) -> str:
    return f"where job {job_id} wrote its output"


def output_unknown_action() -> str:
    return (
        "the job left slurmctld's memory (MinJobAge) before it was collected and no batch script is "
        "stored: install the Denpex Slurm hooks (they send the expanded paths), raise MinJobAge, or "
        "set AccountingStoreFlags=job_script"
    )


def accounting_missing(problem: str) -> str:
    return f"per-step states and exit codes from sacct ({problem})"


def accounting_next_action() -> str:
    return "run slurmdbd with AccountingStorageType=accounting_storage/slurmdbd so `sacct -j <job>` works"
