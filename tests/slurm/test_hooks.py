"""The hook scripts in deploy/slurm, fired by the real slurmctld/slurmd, against a signed-webhook sink."""

from __future__ import annotations

import os
import socket
import subprocess
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from knowledge.masking import RULES_PATH, Masker
from tests.slurm.conftest import SECRET
from tests.slurm.support import HOOK, Cluster, Sink, hooks_env, sh, wait_until

LABEL_JOB = """#!/bin/bash
srun -n 2 --label -K bash -c '
if [ "$SLURM_PROCID" = 1 ]; then
  echo "Traceback (most recent call last):"
  echo "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
  exit 1
fi
sleep 30'
"""
OOM_JOB = """#!/bin/bash
python3 -c '
chunks = []
while True:
    chunks.append(bytearray(8 << 20))
'
"""
PLANTED = "hf_PlantedKernelTok3nXq7ZpL2mVb9RtYw4KcNs"


def load_hook() -> ModuleType:
    """The hook file as a module (compiled by hand: no __pycache__ next to the deployable file)."""
    module = ModuleType("denpex_slurm_hook")
    module.__file__ = str(HOOK)
    exec(compile(HOOK.read_text(), str(HOOK), "exec"), module.__dict__)  # noqa: S102 - our own file
    return module


def hook_lines(sink: Sink, job_id: str) -> list[str]:
    assert sink.log is not None
    return [x for x in sink.log.read_text().splitlines() if f"job={job_id} " in x]


def wait_hooks(sink: Sink, job_id: str, n: int = 2) -> list[str]:
    """Both hooks (controller and node) logged their decision for this job."""
    return wait_until(
        lambda: len(hook_lines(sink, job_id)) >= n and hook_lines(sink, job_id),
        30,
        f"both hooks of job {job_id}",
    )


def test_failed_job_reports_once_with_derived_state_and_node_log(slurm_cluster: Cluster, sink: Sink) -> None:
    job = slurm_cluster.submit(LABEL_JOB, "-n", "2", "-o", "label_%j.out", name="label")
    assert slurm_cluster.wait_done(job) == "FAILED"
    wait_until(
        lambda: sink.for_job(job, "/hooks/slurm") and sink.for_job(job, "/hooks/slurm/node"),
        30,
        "both webhooks",
    )
    [event] = sink.for_job(job, "/hooks/slurm")
    assert event["state"] == "FAILED"  # derived: scontrol says COMPLETING while the hook runs
    assert event["cluster"] == "ci" and event["user"] == "root" and event["name"] == "label"
    assert event["node_list"] == slurm_cluster.node
    assert event["stdout"] == str(slurm_cluster.workdir / f"label_{job}.out")  # expanded, not label_%j.out
    assert event["exit_code"].split(":")[0] != "0" and event["start"] and event["end"]
    [node] = sink.for_job(job, "/hooks/slurm/node")
    assert node["node"] == slurm_cluster.node and node["since"] and node["truncated"] is False
    assert isinstance(node["kernel_log"], str)
    assert not sink.rejected


def test_oom_job_reports_state_and_the_real_kernel_line(slurm_cluster: Cluster, sink: Sink) -> None:
    job = slurm_cluster.submit(OOM_JOB, "--mem=100M", "-o", "oom_%j.out", name="oom")
    assert slurm_cluster.wait_done(job) == "OUT_OF_MEMORY"
    wait_until(lambda: sink.for_job(job, "/hooks/slurm/node"), 30, "the node webhook")
    [event] = sink.for_job(job, "/hooks/slurm")
    assert event["state"] == "OUT_OF_MEMORY" and event["exit_code"] == "0:125"
    [node] = sink.for_job(job, "/hooks/slurm/node")
    assert "Memory cgroup out of memory: Killed process" in node["kernel_log"]
    assert "(python3)" in node["kernel_log"]


def test_successful_job_sends_nothing(slurm_cluster: Cluster, sink: Sink) -> None:
    job = slurm_cluster.submit("#!/bin/bash\necho fine\n", "-o", "ok_%j.out", name="ok")
    assert slurm_cluster.wait_done(job) == "COMPLETED"
    lines = wait_hooks(sink, job)
    assert all("not reported" in x for x in lines), lines
    assert sink.for_job(job) == []


def test_kernel_log_is_masked_and_capped_on_the_node(
    slurm_cluster: Cluster, sink: Sink, hook_log: Path
) -> None:
    # The job writes dmesg-format lines (stamped with the uptime, as the ring buffer is) to a file the
    # node hook reads instead of `dmesg`: the machine's own kernel log is left alone.
    kmsg = slurm_cluster.workdir / "kmsg.log"
    kmsg.write_text("")
    stamp = "[$(cut -d' ' -f1 /proc/uptime)0000]"
    script = (
        "#!/bin/bash\n"
        "for i in $(seq 1 300); do\n"
        f'  echo "{stamp} denpex-test: filler line $i of the kernel log" >> {kmsg}\n'
        "done\n"
        f'echo "{stamp} denpex-test: leaked HF_TOKEN={PLANTED}" >> {kmsg}\n'
        "exit 3\n"
    )
    with hooks_env(
        DENPEX_URL=sink.url,
        DENPEX_WEBHOOK_SECRET=SECRET,
        DENPEX_CLUSTER="ci",
        DENPEX_HOOK_LOG=str(hook_log),
        DENPEX_KERNEL_LOG_BYTES="6000",
        DENPEX_KERNEL_LOG_FILE=str(kmsg),
    ):
        job = slurm_cluster.submit(script, "-o", "kmsg_%j.out", name="kmsg")
        assert slurm_cluster.wait_done(job) == "FAILED"
        wait_until(lambda: sink.for_job(job, "/hooks/slurm/node"), 30, "the node webhook")
    [node] = sink.for_job(job, "/hooks/slurm/node")
    log = node["kernel_log"]
    assert PLANTED not in log and "HF_TOKEN=[MASKED:hf_token]" in log
    assert node["truncated"] is True and len(log.encode()) <= 6000
    assert "filler line 300 " in log and "kernel log lines omitted" in log  # the newest lines are kept


@pytest.mark.parametrize("failure", ["refused", "hangs"])
def test_unreachable_server_does_not_drain_the_node(
    slurm_cluster: Cluster, hook_log: Path, failure: str
) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    if failure == "hangs":
        listener.listen(16)  # connections complete in the kernel, but nothing ever answers
    else:
        listener.close()
    try:
        with hooks_env(
            DENPEX_URL=f"http://127.0.0.1:{port}",
            DENPEX_WEBHOOK_SECRET=SECRET,
            DENPEX_HOOK_LOG=str(hook_log),
            DENPEX_TIMEOUT="1",
        ):
            job = slurm_cluster.submit("#!/bin/bash\nexit 7\n", "-o", "down_%j.out", name="down")
            assert slurm_cluster.wait_done(job) == "FAILED"

            def gave_up() -> bool:
                lines = [x for x in hook_log.read_text().splitlines() if f"job={job} " in x]
                return sum("unreachable" in x or "timed out" in x for x in lines) >= 2

            wait_until(gave_up, 40, "both hooks to give up")
    finally:
        listener.close()
    state = slurm_cluster.node_state()
    node = sh("scontrol", "show", "node", slurm_cluster.node)
    assert state in ("idle", "mixed", "allocated", "completing"), state
    assert "Epilog error" not in node and "DRAIN" not in node


def test_hook_exits_zero_whatever_happens(tmp_path: Path) -> None:
    # no python3 on PATH: the sh line exits 0 before Python is involved
    assert subprocess.run(["/bin/sh", str(HOOK)], env={"PATH": "/nonexistent"}, check=False).returncode == 0
    # a broken configuration and no Slurm: Python runs, fails, still exits 0
    env_file = tmp_path / "hooks.env"
    env_file.write_text("DENPEX_URL=http://127.0.0.1:9\nDENPEX_WEBHOOK_SECRET=x\nDENPEX_TIMEOUT=soon\n")
    env = {
        "PATH": os.environ["PATH"],
        "DENPEX_HOOKS_ENV": str(env_file),
        "SLURM_JOB_ID": "1",
        "SLURM_SCRIPT_CONTEXT": "epilog_slurmd",
        "DENPEX_HOOK_LOG": str(tmp_path / "log"),
    }
    assert subprocess.run([str(HOOK)], env=env, check=False, timeout=60).returncode == 0
    # not configured at all
    assert (
        subprocess.run(
            [str(HOOK)],
            env={"PATH": os.environ["PATH"], "DENPEX_HOOKS_ENV": "/nonexistent"},
            check=False,
            timeout=30,
        ).returncode
        == 0
    )


def test_jobcomp_variant_uses_jobstate(slurm_cluster: Cluster, sink: Sink) -> None:
    """jobcomp/script runs as `slurm` with JOBSTATE and friends (the environment Slurm 22.05 gives it)."""
    job = slurm_cluster.submit("#!/bin/bash\nexit 2\n", "-o", "jc_%j.out", name="jc")
    slurm_cluster.wait_done(job)
    wait_hooks(sink, job)
    env = {
        "PATH": os.environ["PATH"],
        "JOBID": job,
        "JOBSTATE": "TIMEOUT",
        "EXITCODE": "0:15",
        "DERIVED_EC": "0:0",
        "NODES": slurm_cluster.node,
        "USERNAME": "root",
        "JOBNAME": "jc",
        "WORK_DIR": str(slurm_cluster.workdir),
        "STDOUT": str(slurm_cluster.workdir / "jc_%j.out"),
        "START": "1795979025",
        "END": "1795979085",
        "CLUSTER": "ci",
    }
    # run the hook from where a deployment installs it (`slurm` may not be able to read the checkout)
    installed = Path("/etc/slurm/hooks/denpex-jobcomp")
    subprocess.run(["install", "-D", "-m", "0755", str(HOOK), str(installed)], check=True)
    proc = subprocess.run(["runuser", "-u", "slurm", "--", str(installed)], env=env, check=False, timeout=30)
    assert proc.returncode == 0
    events = wait_until(
        lambda: [e for e in sink.for_job(job, "/hooks/slurm") if e["state"] == "TIMEOUT"],
        10,
        "the jobcomp event",
    )
    assert events[0]["exit_code"] == "0:15"
    assert events[0]["stdout"] == str(slurm_cluster.workdir / f"jc_{job}.out")


def test_hook_masker_mirrors_knowledge_masking() -> None:
    """The node hook carries a copy of knowledge/data/secrets.toml; it must not drift."""
    hook = load_hook()
    rules = tomllib.loads(RULES_PATH.read_text())["rule"]
    expected = [
        (r["id"], r.get("label", r["id"]), r.get("caseless", False), r.get("check", "none"), r["pattern"])
        for r in rules
    ]
    assert list(hook.SECRET_RULES) == expected, "run deploy/slurm/sync-masking-rules"
    samples = [
        f"export HF_TOKEN={PLANTED}",
        "curl https://bob:s3cretpw@example.com/x",
        "password=hunter2 retry",
        "Authorization: Bearer abcdefghijklmnop12345",
        "-----BEGIN RSA PRIVATE KEY-----",
        "MIIEabcdef",
        "-----END RSA PRIVATE KEY-----",
        "wandb login " + "a" * 20 + "B1" * 10,
        "token: ${TOKEN}",
        "Memory cgroup out of memory: Killed process 14481 (python3)",
        "AKIAABCDEFGHIJKLMNOP in a line",
        "NVRM: Xid (PCI:0000:05:00): 79, pid=1234, GPU has fallen off the bus.",
    ]
    assert hook.mask_lines(samples) == Masker.default(use_hyperscan=False).mask_lines(samples)


def test_state_is_derived_from_reason_and_exit_codes() -> None:
    hook = load_hook()
    derive = hook.derive_state
    assert derive({"JobState": "COMPLETING", "Reason": "OutOfMemory"}, {}) == "OUT_OF_MEMORY"
    assert derive({"JobState": "COMPLETING", "Reason": "TimeLimit"}, {}) == "TIMEOUT"
    completing = {"JobState": "COMPLETING"}
    assert derive({**completing, "Reason": "NonZeroExitCode"}, {"SLURM_JOB_EXIT_CODE2": "1:0"}) == "FAILED"
    assert derive({}, {"SLURM_JOB_EXIT_CODE2": "0:125"}) == "OUT_OF_MEMORY"  # scontrol unreachable
    assert derive({**completing, "Reason": "None"}, {"SLURM_JOB_EXIT_CODE2": "0:0"}) == "COMPLETED"
    assert derive({"JobState": "NODE_FAIL"}, {}) == "NODE_FAIL"
    assert (
        hook.expand_pattern("/x/%x-%j_%4a.out", {"job_id": "12", "name": "t", "array_task_id": "3"})
        == "/x/t-12_0003.out"
    )
