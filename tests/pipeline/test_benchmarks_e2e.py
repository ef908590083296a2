"""Smoke test of issue 15's end-to-end benchmarks (targets 5 and 6) at a tiny scale.

The benchmark code starts its own redis-server, `denpex serve`, `denpex worker` and fake Slack (and,
for target 5, the stand-in `scontrol` and the fake Kubernetes API server); this runs that code path
with a few small ranks so it cannot rot between benchmark runs. It asserts that a result row comes
out with numbers, never how fast: timing belongs to `benchmarks/run.py`, not to a test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks import e2e, e2e_scale, issue15


def numeric(stats: dict[str, Any]) -> bool:
    return all(isinstance(stats[k], float | int) and stats[k] >= 0 for k in ("p50", "p99", "max", "min"))


@pytest.mark.slow
def test_webhook_to_post_latency_row(tmp_path: Path):
    """Target 6's path: 4 ranks × 64 KB, 2 failures, 1 worker."""
    out = e2e.pipeline_latency(
        tmp_path, failures=2, ranks=4, mb_per_rank=1 / 16, processes=1, interval=0.1, seed=3
    )
    assert out["n"] == 2 and out["ranks"] == 4
    for key in ("root", "thread", "engine", "queued", "work", "other"):
        assert numeric(out[key]), (key, out[key])
    target, measured, met, _ = issue15._latency_row(out)
    assert target.startswith("6.") and f"p50 {out['root']['p50']} s" in measured
    assert met in ("met", "not met")


@pytest.mark.slow
def test_thousand_rank_path_slurm_and_kubernetes_rows(tmp_path: Path):
    """Target 5's path, both schedulers, at 8 ranks × 64 KB, 1 job, 1 worker."""
    out = e2e_scale.measure(tmp_path, ranks=8, mb_total=0.5, failures=1, processes=1, seed=2)
    slurm, k8s = out["slurm"], out["k8s"]
    assert numeric(slurm["root"]) and numeric(k8s["root"])
    # the real collectors did the work: the Slurm one found every task file, the K8s one every pod log
    assert slurm["steps"]["sources"] >= 8 and slurm["steps"]["category"] == "gpu_oom"
    assert k8s["collect_only"]["warm"]["bytes"] > 8 * 50_000
    assert k8s["requests_per_job"] >= 8
    # one more Slurm job, run by a profiled child as `denpex worker` would: it posted
    assert slurm["job"]["outcome"].endswith("posted") and slurm["job"]["cumulative"]
    target, measured, met, _ = issue15._scale_row(out)
    assert target.startswith("5.") and f"Slurm {slurm['root']['p50']} s" in measured
    assert met in ("met", "not met")


def _stats(p50: float) -> dict[str, float]:
    return {"p50": p50, "p99": p50 * 2, "max": p50 * 2, "min": p50 / 2}


def _run(p50: float) -> dict[str, Any]:
    return {k: _stats(p50) for k in ("root", "thread", "engine", "queued", "work", "other")}


def test_e2e_only_run_rewrites_rows_5_and_6_and_keeps_1_to_4(tmp_path: Path):
    """`--only e2e --write-docs`: the rows of targets 1–4 measured by an earlier run stay as they are."""
    doc = tmp_path / "benchmarks.md"
    rows = [f"| {n}. target {n} | measured {n} | met | |" for n in range(1, 7)]
    doc.write_text("intro\n\n" + "\n".join([issue15.BEGIN, "| target |", *rows, issue15.END]) + "\n\nafter\n")
    e2e_run = {**_run(1.5), "n": 50, "interval": 1.0, "gb_per_job": 0.54, "processes": 4}
    scale = {
        "ranks": 1000,
        "bytes": 105_000_000,
        "failures": 5,
        "processes": 4,
        "load": [1.0, 1.0, 1.0],
        "slurm": {**_run(12.0), "steps": {"collect": 0.2, "diagnose": 9.0, "mask": 1.0, "profile": ["a b"]}},
        "k8s": {
            **_run(8.0),
            "requests_per_job": 1129,
            "collect_only": {
                "cold": {"collect": 3.0, "stream": 6.0, "throttled": 1.0},
                "warm": {"collect": 0.3, "stream": 5.0, "throttled": 0.0},
            },
        },
    }
    for _ in range(2):  # a second rewrite replaces, it does not add
        assert issue15.write_e2e_rows(doc, e2e_run, scale, full=True)
    text = doc.read_text()
    assert all(row in text for row in rows[:4])
    assert "| 6. webhook → post p50 < 2 s, p99 < 5 s" in text and "| met |" in text
    assert "| 5. 1,000-rank job end to end" in text and "Slurm 12.0 s" in text and "| not met |" in text
    assert text.count(issue15.SCALE_HEADING) == 1 and "a b" in text
    assert text.startswith("intro\n\n") and text.endswith(issue15.END + "\n\nafter\n")
