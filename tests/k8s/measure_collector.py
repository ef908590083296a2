"""Measure the collector on a 1000-rank job served by the fake API server (run by hand, not by pytest):

    PYTHONPATH=. .venv/bin/python tests/k8s/measure_collector.py [RANKS]

Prints the time to collect (pod list, facts, events) and to stream every rank's log, and how much the
process's peak RSS grew — the fake server runs in the same process, so this bounds both together.
"""

from __future__ import annotations

import resource
import sys
import time

from denpex.core.models import JobRef
from integrations.kubernetes.collector import KubernetesCollector
from integrations.kubernetes.kernel import KernelLogOptions
from tests.fakes.k8s import FakeKube
from tests.fakes.k8s import objects as o


def main(ranks: int = 1000) -> None:
    with FakeKube() as kube:
        job = kube.put("jobs", o.indexed_job("big", ranks, failed="BackoffLimitExceeded"))
        for i in range(ranks):
            pod = kube.put(
                "pods",
                o.job_pod(
                    "big",
                    i,
                    job_uid=job["metadata"]["uid"],
                    node_name=f"n{i // 8}",
                    phase="Failed",
                    state=o.terminated("Error", 1),
                ),
            )
            kube.set_log("default", pod["metadata"]["name"], "pytorch", [f"[rank{i}]: " + "x" * 200] * 500)
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t0 = time.perf_counter()
        ref = JobRef(scheduler="kubernetes", cluster="c", job_id="big", namespace="default")
        evidence = KubernetesCollector(kube.api_client(), kernel=KernelLogOptions(kubelet_path=None)).collect(
            ref
        )
        t1 = time.perf_counter()
        total = sum(len(chunk) for source in evidence.sources for chunk in source.open_bytes())
        t2 = time.perf_counter()
        rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(
            f"ranks={ranks} sources={len(evidence.sources)} collect={t1 - t0:.2f}s stream_all={t2 - t1:.2f}s "
            f"bytes={total / 1e6:.1f}MB peak_rss_growth={(rss1 - rss0) / 1024:.1f}MiB"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
