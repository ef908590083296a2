"""Helpers for the Slurm tests: the real single-node cluster, a signed-webhook sink, hooks.env.

Slurm's daemons are machine state shared by every test run on this host, so everything here is
written to survive leftovers: the cluster is brought up idempotently under an exclusive file lock
(two test sessions never reconfigure it at once), a drained node is resumed, and jobs are waited
for by id rather than by "the queue is empty".
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from integrations.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, verify

ROOT = Path(__file__).resolve().parents[2]
DEV_CLUSTER = ROOT / "deploy" / "slurm" / "dev-cluster.sh"
HOOK = ROOT / "deploy" / "slurm" / "denpex-slurm-hook"
HOOKS_ENV = Path("/etc/denpex/hooks.env")
LOCK = Path("/run/denpex-slurm-tests.lock")
FINAL = {
    "COMPLETED",
    "FAILED",
    "OUT_OF_MEMORY",
    "TIMEOUT",
    "NODE_FAIL",
    "PREEMPTED",
    "CANCELLED",
    "BOOT_FAIL",
    "DEADLINE",
}


def wait_until(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def sh(*argv: str, timeout: float = 30, check: bool = True) -> str:
    proc = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} -> {proc.returncode}: {proc.stderr.strip()}")
    return proc.stdout


AGED_JOB = """#!/bin/bash
#SBATCH -o aged_%j.out
echo "aged job starting"
srun -n 2 -K --output=aged_%j_%t.log bash -c '
if [ "$SLURM_PROCID" = 1 ]; then echo "RuntimeError: rank one of the aged job failed"; exit 3; fi
sleep 30'
"""
REQUEUE_JOB = """#!/bin/bash
#SBATCH -o requeued_%j.out
echo "run ${SLURM_RESTART_COUNT:-0}"
if [ "${SLURM_RESTART_COUNT:-0}" -ge 1 ]; then echo "second run fails"; exit 5; fi
sleep 120
"""


class Cluster:
    """The real single-node cluster brought up by deploy/slurm/dev-cluster.sh."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.node = socket.gethostname().split(".")[0]
        self.aged = self.requeued = ""

    def submit(self, script: str, *args: str, name: str = "job") -> str:
        """sbatch a script written into the work dir; returns the job id."""
        path = self.workdir / f"{name}.sh"
        path.write_text(script)
        out = sh("sbatch", "--parsable", "-J", name, "-D", str(self.workdir), *args, str(path))
        return out.strip().split(";")[0]

    def show(self, job_id: str) -> dict[str, str]:
        out = sh("scontrol", "show", "job", "-o", job_id, check=False)
        line = out.splitlines()[0] if out.strip() else ""
        return dict(f.split("=", 1) for f in line.split() if "=" in f)

    def state(self, job_id: str) -> str:
        """The job's state once slurmctld is done with it (not COMPLETING), from scontrol or sacct."""
        rec = self.show(job_id)
        if rec:
            return rec.get("JobState", "")
        out = sh("sacct", "-n", "-X", "-P", "-j", job_id, "-o", "State", check=False)
        return out.split("\n")[0].split()[0] if out.strip() else ""

    def wait_done(self, job_id: str, timeout: float = 60) -> str:
        return wait_until(lambda: (s := self.state(job_id)) in FINAL and s, timeout, f"job {job_id} to end")

    def accounted(self, job_id: str, timeout: float = 20) -> None:
        """Wait until slurmdbd has the job and its steps (sacct lags slurmctld a little)."""

        def rows() -> int:
            return len(sh("sacct", "-n", "-P", "-j", job_id, "-o", "JobID", check=False).split())

        wait_until(lambda: rows() >= 2, timeout, f"sacct to know job {job_id}")

    def start_background(self) -> None:
        """Jobs whose checks must wait (a requeue's delay, slurmctld forgetting a job after MinJobAge
        plus its 60 s purge cycle): started when the session starts, checked by test_late.py."""
        self.aged = self.submit(AGED_JOB, "-n", "2", name="aged")
        self.requeued = self.submit(REQUEUE_JOB, "--requeue", name="requeued")
        wait_until(lambda: self.show(self.requeued).get("JobState") == "RUNNING", 60, "the requeue job")
        sh("scontrol", "requeue", self.requeued)

    def node_state(self) -> str:
        return sh("sinfo", "-h", "-N", "-n", self.node, "-o", "%T").strip()

    def resume(self) -> None:
        if any(s in self.node_state() for s in ("drain", "down", "fail")):
            sh("scontrol", "update", f"nodename={self.node}", "state=resume", check=False)


def make_hook_log() -> Path:
    """A log file both hooks can append to (node hook: root; controller hook: `slurm`), outside the
    root-only pytest folders. The caller removes its folder."""
    folder = Path(tempfile.mkdtemp(prefix="denpex-hook-log-"))
    folder.chmod(0o711)
    log = folder / "hook.log"
    log.touch()
    shutil.chown(log, "slurm", "slurm")
    return log


# How long a second test session waits for the cluster: a whole Slurm area takes about 5 minutes on a
# busy machine, so 20 minutes means the other session is stuck.
LOCK_WAIT = 1200.0


class LockBusy(RuntimeError):
    """Another test session on this machine is using the cluster."""


@contextmanager
def exclusive_lock(timeout: float = LOCK_WAIT) -> Iterator[None]:
    """One Slurm test session per machine at a time (they share the daemons and hooks.env).

    A second session on the same machine waits for the first one's Slurm tests to finish (they run
    last in the one-at-a-time stream, so the wait is about their length), then runs its own: both
    sessions test Slurm. The conftest gives the first Slurm test a pytest-timeout that covers this
    wait; a lock still held after it is an error (a stuck session), not a silent skip."""
    fd = os.open(LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LockBusy(f"another Slurm test session held {LOCK} for {timeout:.0f} s") from None
                time.sleep(0.5)
        yield
    finally:
        os.close(fd)


def cancel_leftovers() -> None:
    """Cancel jobs an earlier (interrupted) test session left queued: they were submitted from a
    pytest temporary folder, and a stuck one would hold the single node."""
    out = sh("squeue", "-h", "-o", "%i|%Z", check=False)
    stale = [
        line.split("|", 1)[0]
        for line in out.splitlines()
        if "|" in line and "/pytest-of-" in line.split("|", 1)[1]
    ]
    if stale:
        sh("scancel", *{s.split("_")[0].split("+")[0] for s in stale}, check=False)
        wait_until(
            lambda: not any(i in sh("squeue", "-h", "-o", "%i", check=False).split() for i in stale),
            60,
            "leftover jobs to go",
        )


def cluster_up(env: dict[str, str] | None = None) -> None:
    proc = subprocess.run(
        [str(DEV_CLUSTER), "up"],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "DENPEX_SLURM_HOOKS": "epilog", **(env or {})},
        check=False,
    )
    if proc.returncode != 0:
        raise AssertionError(f"dev-cluster.sh up failed:\n{proc.stdout}\n{proc.stderr}")


def can_run_cluster() -> str | None:
    """None when this machine can host the cluster, else why not (the tests are skipped)."""
    if os.geteuid() != 0:
        return "the Slurm tests run as root (they install and start Slurm's daemons)"
    if shutil.which("apt-get") is None or shutil.which("dpkg-query") is None:
        return "the Slurm tests need a Debian/Ubuntu machine"
    return None


@contextmanager
def hooks_env(**values: str) -> Iterator[Path]:
    """Write /etc/denpex/hooks.env (as the hooks read it) and restore what was there afterwards."""
    before = HOOKS_ENV.read_bytes() if HOOKS_ENV.exists() else None
    HOOKS_ENV.parent.mkdir(parents=True, exist_ok=True)
    tmp = HOOKS_ENV.with_suffix(".tmp")
    tmp.write_text("".join(f"{k}={v}\n" for k, v in values.items()))
    shutil.chown(tmp, "root", "slurm")
    tmp.chmod(0o640)
    tmp.replace(HOOKS_ENV)
    try:
        yield HOOKS_ENV
    finally:
        if before is None:
            HOOKS_ENV.unlink(missing_ok=True)
        else:
            HOOKS_ENV.write_bytes(before)


class Sink:
    """A stdlib HTTP server that accepts only correctly signed webhooks and records them."""

    def __init__(self, secret: str) -> None:
        self.secret = secret
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.rejected: list[str] = []
        self.log: Path | None = None  # the hooks' log file, when a fixture configured one
        self._lock = threading.Lock()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                problem = verify(
                    sink.secret,
                    body,
                    self.headers.get(TIMESTAMP_HEADER),
                    self.headers.get(SIGNATURE_HEADER),
                    path=self.path.partition("?")[0],
                )
                with sink._lock:
                    if problem:
                        sink.rejected.append(problem)
                    else:
                        sink.events.append((self.path, json.loads(body)))
                self.send_response(401 if problem else 202)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Sink:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def for_job(self, job_id: str, path: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return [e for p, e in self.events if e.get("job_id") == job_id and (path is None or p == path)]
