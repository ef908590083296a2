"""Jobs the Kubernetes tests put into the fake API server (and a real cluster has by other means)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.fakes.k8s import FakeKube
from tests.fakes.k8s import objects as o

T0 = datetime(2026, 11, 29, 19, 0, 0, tzinfo=UTC)


def nccl_timeout(rank: int, seq: int = 4242) -> str:
    return (
        f"[rank{rank}]:[E1129 19:10:02.123456 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught "
        f"collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=1048576, "
        f"NumelOut=1048576, Timeout(ms)=600000) ran for 600031 milliseconds before timing out."
    )


def training_lines(rank: int, steps: int = 20) -> list[str]:
    return [f"[rank{rank}]: step {s} loss {2.5 - s * 0.01:.3f} lr 1e-4" for s in range(steps)]


def indexed_oom_job(
    kube: FakeKube,
    name: str = "train",
    n: int = 8,
    oom: int = 6,
    namespace: str = "default",
    failed: bool = True,
) -> dict:
    """An Indexed Job of `n` pods: pod `oom` OOMKilled (exit 137), the rest NCCL watchdog timeouts."""
    for i in range(n):
        kube.put("nodes", o.node(f"gpu-{i:02d}"))
    # as the job controller does it: the Job runs, its pods end, and only then is it marked Failed (a
    # Failed Job put before its pods would race the watcher's pod listing on a busy machine)
    job = kube.put("jobs", o.indexed_job(name, n, namespace=namespace, start=T0))
    uid = job["metadata"]["uid"]
    for i in range(n):
        if i == oom:
            state = o.terminated("OOMKilled", 137, T0 + timedelta(minutes=1))
            lines = training_lines(i)
        else:
            state = o.terminated("Error", 1, T0 + timedelta(minutes=11))
            lines = [*training_lines(i), nccl_timeout(i)]
        pod = kube.put(
            "pods",
            o.job_pod(
                name,
                i,
                job_uid=uid,
                node_name=f"gpu-{i:02d}",
                namespace=namespace,
                phase="Failed",
                state=state,
            ),
        )
        kube.set_log(namespace, pod["metadata"]["name"], "pytorch", lines, start=T0)
        if i == oom:
            kube.put(
                "events",
                o.event(
                    namespace,
                    "Pod",
                    pod["metadata"]["name"],
                    pod["metadata"]["uid"],
                    "OOMKilling",
                    "Memory cgroup out of memory: Killed process 4242 (python3)",
                ),
            )
    kube.set_node_file(
        f"gpu-{oom:02d}",
        "logs/kern.log",
        "Nov 29 18:59:00 gpu-06 kernel: eth0: link up\n"
        "Nov 29 19:01:00 gpu-06 kernel: Memory cgroup out of memory: Killed process 4242 (python3) "
        "total-vm:98765432kB, anon-rss:81234567kB\n",
    )
    if failed:
        job = kube.put(
            "jobs",
            o.indexed_job(name, n, namespace=namespace, uid=uid, failed="BackoffLimitExceeded", start=T0),
        )
    return job
