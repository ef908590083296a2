"""End to end on the real cluster: real hooks → `denpex serve` → `denpex worker` → fake Slack.

Nothing is simulated on the Denpex side: the hooks Slurm runs are the files in deploy/slurm, the
server and the worker are the `denpex` processes, Redis is a real redis-server, the collector reads
the real scontrol/sacct and the files the job wrote. Only Slack is the protocol fake.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from bot.slack.render import job_key_from_message
from tests.fakes.slack import FakeSlack, payloads
from tests.slurm.support import Cluster, hooks_env, make_hook_log, sh, wait_until
from tests.support.redis_server import RedisServer, free_port
from workers.quota import Quota

DENPEX = str(Path(sys.executable).parent / "denpex")
SECRET = "e2e-webhook-secret-51aa"
SIGNING = "e2e-signing-secret-0c3d"
CUDA_OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 1; 79.15 GiB total)"
LABEL_JOB = f"""#!/bin/bash
srun -n 2 --label -K python3 -c '
import os, sys, time
rank = int(os.environ["SLURM_PROCID"])
print(f"[rank {{rank}}] step 120 loss=1.873", flush=True)
if rank == 1:
    print("Traceback (most recent call last):", flush=True)
    print("  File \\"train.py\\", line 88, in training_step", flush=True)
    print("{CUDA_OOM}", flush=True)
    sys.exit(1)
time.sleep(60)
'
"""
OOM_JOB = """#!/bin/bash
echo "loading the whole dataset into RAM"
python3 -c '
chunks = []
while True:
    chunks.append(bytearray(8 << 20))
'
"""


class Pipeline:
    """`denpex serve` + `denpex worker` processes wired to a fake Slack and a private Redis."""

    def __init__(self, slack: FakeSlack, redis_url: str, log_dir: Path) -> None:
        self.slack, self.redis_url, self.log_dir = slack, redis_url, log_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        base = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DENPEX_", "REDIS_"))}
        self.env = {
            **base,
            "REDIS_URL": redis_url,
            "DENPEX_WEBHOOK_SECRET": SECRET,
            "DENPEX_CLUSTER": "ci",
            "DENPEX_CHANNEL": "C0ALERTS",
            "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_API_URL": slack.base_url,
            "SLACK_SIGNING_SECRET": SIGNING,
            "DENPEX_NODE_GRACE_SECONDS": "15",
            "DENPEX_LOG_LEVEL": "INFO",
        }
        self.server: subprocess.Popen[bytes] | None = None
        self.worker: subprocess.Popen[bytes] | None = None

    def _spawn(self, name: str, *argv: str) -> subprocess.Popen[bytes]:
        out = (self.log_dir / f"{name}.log").open("ab")
        return subprocess.Popen(
            [DENPEX, *argv], env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )

    def start_server(self) -> None:
        self.server = self._spawn("server", "serve", "--host", "127.0.0.1", "--port", str(self.port))

        def healthy() -> bool:
            assert self.server is not None and self.server.poll() is None, self.output()
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1):  # noqa: S310 - 127.0.0.1
                    return True
            except OSError:
                return False

        wait_until(healthy, 30, "denpex serve")

    def start(self) -> None:
        self.start_server()
        self.worker = self._spawn("worker", "worker")

    def stop_server(self) -> None:
        self._stop(self.server)
        self.server = None

    @staticmethod
    def _stop(proc: subprocess.Popen[bytes] | None) -> None:
        if proc is None or proc.poll() is not None:
            return
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)

    def stop(self) -> None:
        self._stop(self.worker)
        self.stop_server()

    def output(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-4000:] for p in sorted(self.log_dir.glob("*.log")))

    def roots(self, job_id: str) -> list[dict[str, Any]]:
        return [m for m in self.slack.roots("C0ALERTS") if job_key_from_message(m) == f"slurm:ci:{job_id}"]

    def thread_text(self, root: dict[str, Any]) -> str:
        return json.dumps(self.slack.thread(root["ts"]))

    def diagnosis(self, job_id: str) -> dict[str, Any]:
        client = redis.Redis.from_url(self.redis_url)
        try:
            raw = client.get(f"denpex:diagnosis:slurm:ci:{job_id}")
        finally:
            client.close()
        assert raw is not None, f"no diagnosis stored for {job_id}"
        return json.loads(raw)

    def posted(self, job_id: str, timeout: float = 90) -> dict[str, Any]:
        """Wait for the root message of this job, then for its thread; returns the root."""
        roots = wait_until(lambda: self.roots(job_id), timeout, f"the post of job {job_id}\n{self.output()}")
        root = roots[0]
        wait_until(lambda: len(self.slack.thread(root["ts"])) > 1, 30, "the diagnosis thread")
        return root


@pytest.fixture(scope="module")
def pipeline(
    slurm_cluster: Cluster,
    redis_server: RedisServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Pipeline]:
    if redis_server.proc is None or redis_server.proc.poll() is not None:
        redis_server.start()
    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    log_dir = tmp_path_factory.mktemp("e2e-logs")
    hook_log = make_hook_log()
    with FakeSlack() as slack:
        pipe = Pipeline(slack, redis_server.url, log_dir)
        pipe.hook_log = hook_log  # type: ignore[attr-defined]
        pipe.start()
        try:
            with hooks_env(
                DENPEX_URL=pipe.url,
                DENPEX_WEBHOOK_SECRET=SECRET,
                DENPEX_CLUSTER="ci",
                DENPEX_HOOK_LOG=str(hook_log),
                DENPEX_TIMEOUT="3",
            ):
                yield pipe
        finally:
            pipe.stop()
            shutil.rmtree(hook_log.parent, ignore_errors=True)


def hook_lines(pipe: Pipeline, job_id: str) -> list[str]:
    return [x for x in pipe.hook_log.read_text().splitlines() if f"job={job_id} " in x]  # type: ignore[attr-defined]


def test_label_job_cuda_oom_names_rank_1_in_one_thread(slurm_cluster: Cluster, pipeline: Pipeline) -> None:
    job = slurm_cluster.submit(LABEL_JOB, "-n", "2", "-o", "train_%j.out", name="llama-ft")
    assert slurm_cluster.wait_done(job) == "FAILED"
    root = pipeline.posted(job)
    time.sleep(1.5)  # time enough for a duplicate post to show up, if there were one
    assert len(pipeline.roots(job)) == 1
    diagnosis = pipeline.diagnosis(job)
    assert diagnosis["initiating"]["rank"] == 1, diagnosis
    assert diagnosis["category"].startswith("gpu_oom")
    assert "rank 1" in pipeline.thread_text(root)
    assert not [m for m in diagnosis["missing_evidence"] if m["what"].startswith("kernel log of")]


def test_job_over_mem_is_host_oom_from_state_and_kernel_line(
    slurm_cluster: Cluster, pipeline: Pipeline
) -> None:
    job = slurm_cluster.submit(OOM_JOB, "--mem=100M", "-o", "oom_%j.out", name="preprocess")
    assert slurm_cluster.wait_done(job) == "OUT_OF_MEMORY"
    root = pipeline.posted(job)
    diagnosis = pipeline.diagnosis(job)
    assert diagnosis["category"] == "host_oom", diagnosis
    everything = json.dumps(diagnosis)
    assert "OUT_OF_MEMORY" in everything  # Slurm's state
    assert "Memory cgroup out of memory" in everything  # the node's real kernel line, sent by the epilog
    assert len(pipeline.roots(job)) == 1 and pipeline.thread_text(root)

    def kernel_line_in_slack() -> bool:  # the evidence file in the thread carries the node's lines
        files = [json.dumps(f, default=str) for f in pipeline.slack.files.values()]
        return any(f"slurm:ci:{job}" in f and "Memory cgroup out of memory" in f for f in files)

    wait_until(kernel_line_in_slack, 30, "the kernel line in the thread's evidence file")


def test_successful_job_posts_nothing(slurm_cluster: Cluster, pipeline: Pipeline) -> None:
    job = slurm_cluster.submit("#!/bin/bash\necho all good\n", "-o", "ok_%j.out", name="fine")
    assert slurm_cluster.wait_done(job) == "COMPLETED"
    wait_until(lambda: len(hook_lines(pipeline, job)) >= 2, 30, "both hooks")
    assert all("not reported" in x for x in hook_lines(pipeline, job))
    time.sleep(2)
    assert pipeline.roots(job) == []


def test_slash_command_diagnoses_a_slurm_job_id(slurm_cluster: Cluster, pipeline: Pipeline) -> None:
    """`/denpex diagnose <jobid>` for a job no hook reported (hooks pointed elsewhere) → same collector."""
    # A Scale workspace: the module's earlier failures may have used the free plan's 3 a day already.
    with redis.Redis.from_url(pipeline.redis_url) as client:
        quota = Quota(client)
        assert quota.redeem(pipeline.slack.workspace.team_id, quota.create_codes()[0]).ok
    with hooks_env(DENPEX_HOOKS_DISABLED="1"):
        job = slurm_cluster.submit(LABEL_JOB, "-n", "2", "-o", "manual_%j.out", name="manual")
        assert slurm_cluster.wait_done(job) == "FAILED"
        slurm_cluster.accounted(job)
    body = payloads.form_body(pipeline.slack.slash_command(f"diagnose {job}"))
    headers = {**payloads.sign(body, SIGNING), "Content-Type": "application/x-www-form-urlencoded"}
    request = urllib.request.Request(  # noqa: S310
        f"{pipeline.url}/slack/events", data=body.encode(), headers=headers
    )
    with urllib.request.urlopen(request, timeout=10) as resp:  # noqa: S310 - 127.0.0.1
        assert resp.status == 200
    pipeline.posted(job)
    assert pipeline.diagnosis(job)["initiating"]["rank"] == 1


def test_failure_while_server_is_down_leaves_the_node_up(slurm_cluster: Cluster, pipeline: Pipeline) -> None:
    pipeline.stop_server()
    try:
        job = slurm_cluster.submit("#!/bin/bash\necho dying\nexit 9\n", "-o", "down_%j.out", name="down")
        assert slurm_cluster.wait_done(job) == "FAILED"
        wait_until(
            lambda: sum("unreachable" in x for x in hook_lines(pipeline, job)) >= 2,
            40,
            "both hooks to give up",
        )
        assert slurm_cluster.node_state() in ("idle", "mixed", "completing", "planned")
        node = sh("scontrol", "show", "node", slurm_cluster.node)
        assert "DRAIN" not in node and "Epilog error" not in node
        # and the cluster still runs the next job
        nxt = slurm_cluster.submit("#!/bin/bash\ntrue\n", "-o", "next_%j.out", name="next")
        assert slurm_cluster.wait_done(nxt) == "COMPLETED"
    finally:
        pipeline.start_server()
