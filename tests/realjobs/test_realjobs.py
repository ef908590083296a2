"""Real failing PyTorch jobs (torchrun / srun, gloo, CPU): the engine must name the injected fault.

Every fixture under fixtures/<job>/ was made by `tests/realjobs/regenerate` from jobs.toml: real
torch output, one fault in one rank. Its meta.json says what was injected and the answer a careful
engineer gives (category from TAXONOMY.md, initiating global rank), written from the fault, not from
the engine. Each way the logs can be handed over (`views`: the one console stream, torchrun's
per-rank --log-dir files) is a separate case.

The live test runs the `live = true` jobs for real, so that a torch release that changes what these
failures print is caught here, not by a user.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest

from denpex.core.models import Diagnosis
from knowledge.engine import Engine
from knowledge.sources import discover
from tests.realjobs.runner import FIXTURES, NPROC, Job, load_jobs

#: an inconclusive answer (no category can be proven) must not claim more than this
MAX_INCONCLUSIVE_CONFIDENCE = 0.5


def fixture_cases() -> list[Any]:
    cases = []
    for meta_path in sorted(FIXTURES.glob("*/meta.json")):
        meta = json.loads(meta_path.read_text())
        for view, paths in meta["views"].items():
            cases.append(pytest.param(meta_path.parent, view, paths, id=f"{meta['job']}-{view}"))
    return cases


def diagnose(engine: Engine, logs: Path, paths: list[str]) -> Diagnosis:
    return engine.diagnose(discover([logs / p for p in paths]))


def problems(diag: Diagnosis, expected: dict[str, Any]) -> list[str]:
    """What is wrong with the engine's answer, in words (empty when it is right)."""
    found = []
    category, rank = expected["category"], expected["initiating_rank"]
    if category is None:
        if diag.confidence > MAX_INCONCLUSIVE_CONFIDENCE:
            found.append(f"no category is provable, yet {diag.category} at confidence {diag.confidence:.2f}")
        asks = " ".join(f"{m.what} {m.next_action}" for m in diag.missing_evidence)
        deciding = expected.get("missing_evidence")
        if not diag.missing_evidence:
            found.append("no missing_evidence says what would settle it")
        elif deciding and not re.search(deciding, asks, re.I):
            found.append(f"missing_evidence does not ask for /{deciding}/ (asks: {asks[:160]})")
    elif diag.category != category:
        found.append(f"category {diag.category}, expected {category}")
    if diag.initiating.rank != rank:
        found.append(f"initiating rank {diag.initiating.rank}, expected {rank}")
    return found


def explain(diag: Diagnosis, expected: dict[str, Any], found: list[str]) -> str:
    evidence = "; ".join(f"{e.source}:{e.line}: {e.text[:120]}" for e in diag.initiating.evidence[:3])
    return (
        f"{', '.join(found)}\n  why expected: {expected['why']}\n"
        f"  engine: {diag.category} ({diag.entry.id if diag.entry else '-'}), conf {diag.confidence:.2f}, "
        f"rank {diag.initiating.rank}; evidence: {evidence or '-'}"
    )


@pytest.mark.parametrize(("folder", "view", "paths"), fixture_cases())
def test_fixture(engine: Engine, folder: Path, view: str, paths: list[str]) -> None:
    meta = json.loads((folder / "meta.json").read_text())
    diag = diagnose(engine, folder / "logs", paths)
    expected = meta["expected_per_view"][view]
    found = problems(diag, expected)
    assert not found, explain(diag, expected, found)


def test_every_job_has_a_fixture() -> None:
    """A job added to jobs.toml without running `regenerate` would silently test nothing."""
    made = {p.parent.name for p in FIXTURES.glob("*/meta.json")}
    missing = sorted(j.name for j in load_jobs() if j.name not in made)
    assert not missing, f"run tests/realjobs/regenerate {' '.join(missing)}"


def test_fixtures_match_their_job() -> None:
    """meta.json's expected answer is the one jobs.toml gives now (labels are edited in one place)."""
    jobs = {j.name: j for j in load_jobs()}
    for meta_path in FIXTURES.glob("*/meta.json"):
        meta = json.loads(meta_path.read_text())
        job = jobs.get(meta["job"])
        assert job is not None, f"{meta_path.parent.name}: not in jobs.toml (delete the folder)"
        want = {view: job.expected(view) for view in meta["views"]}
        assert meta["expected_per_view"] == want, f"run tests/realjobs/regenerate --relabel {job.name}"


def all_text(logs: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(logs.rglob("*")) if p.is_file())


def torch_missing() -> str | None:
    if importlib.util.find_spec("torch") is None:
        return "torch is not installed in this venv (pip install torch==2.13.0, the CPU build on disk)"
    return None


LIVE_JOBS = [pytest.param(j, id=j.name) for j in load_jobs() if j.live]


@pytest.mark.realjobs_live
@pytest.mark.timeout(150)
@pytest.mark.skipif(torch_missing() is not None, reason=torch_missing() or "")
@pytest.mark.parametrize("job", LIVE_JOBS)
def test_live(engine: Engine, job: Job, tmp_path: Path) -> None:
    """Run the job now under real torchrun and hold the engine to the same answer."""
    from tests.realjobs.runner import run_job

    meta = run_job(job, tmp_path / job.name)
    assert meta["exit_code"] != 0, f"{job.name} did not fail: the fault was not injected"
    live_text, fixture_text = all_text(tmp_path / job.name / "logs"), all_text(FIXTURES / job.name / "logs")
    for anchor in job.anchors:
        assert anchor in live_text, f"torch {meta['torch_version']} no longer prints {anchor!r}"
        assert anchor in fixture_text, (
            f"fixtures/{job.name} is stale: run tests/realjobs/regenerate {job.name}"
        )
    cut_off = waiters_cut_off(job, live_text)
    for view, paths in meta["views"].items():
        diag = diagnose(engine, tmp_path / job.name / "logs", paths)
        expected = meta["expected_per_view"][view]
        if cut_off:
            expected = expected | {"initiating_rank": None, "why": f"{expected['why']}; {cut_off}"}
            assert re.search(r"ranks [\d, ]*and \d+ never reported a timeout", diag.root_cause), (
                f"[{view}] the candidates are not named: {diag.root_cause[:300]}"
            )
        found = problems(diag, expected)
        assert not found, f"[{view}] " + explain(diag, expected, found)


#: the wait a hang's waiters each time out of, with the rank that printed it
_WAIT_TIMED_OUT = re.compile(r"\[rank(\d+)\]: RuntimeError: .*Timed out waiting")


def waiters_cut_off(job: Job, text: str) -> str:
    """Why no rank can be named, when the run left a waiter without its timeout (else "").

    Each waiter of a hang times out on its own clock; torchrun stops every child as soon as the first
    one exits, so on a loaded machine a waiter that entered the collective a little later is stopped
    before its own timeout fires. That log shows two silent ranks, and a careful engineer (and the
    engine) names neither: the expectation follows what this run printed, not the timing of the run.
    """
    if job.fault != "hang":
        return ""
    waited = {int(m.group(1)) for m in _WAIT_TIMED_OUT.finditer(text)}
    silent = set(range(NPROC)) - waited
    if silent == {job.rank}:
        return ""
    return f"this run's torchrun stopped rank(s) {sorted(silent - {job.rank})} before their own timeout"
