"""Kubernetes facts as plain log lines, so the engine's knowledge signatures match them like any log.

Each line starts with an ISO timestamp when the API gave one, then `k8s:`, then `[rankN]:` when the
pod's rank is known (the engine's rank-prefix syntax), e.g.::

    2026-11-29T19:00:02Z k8s: [rank6]: pod train-6-x8k2p node gpu-07 container pytorch terminated
    reason=OOMKilled exitCode=137 signal=9 (SIGKILL) restarts=0          (one line)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from kubernetes.client import CoreV1Event, V1ContainerStateTerminated, V1ContainerStatus, V1Pod

from denpex.core.facts import rank_tag
from integrations.kubernetes.api import pod_name, pod_node

_SIGNALS = {1: "SIGHUP", 2: "SIGINT", 6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM"}


def _iso(ts: datetime | str | None) -> str:
    if ts is None:
        return ""
    if isinstance(ts, str):
        return ts + " "
    return ts.strftime("%Y-%m-%dT%H:%M:%SZ") + " "


def _one_line(text: str | None, limit: int = 500) -> str:
    return " ".join((text or "").split())[:limit]


def _terminated(term: V1ContainerStateTerminated) -> str:
    parts = [f"reason={term.reason or 'Unknown'}", f"exitCode={term.exit_code}"]
    signal = term.signal or (term.exit_code - 128 if term.exit_code and 128 < term.exit_code < 160 else None)
    if signal:
        parts.append(f"signal={signal}" + (f" ({_SIGNALS[signal]})" if signal in _SIGNALS else ""))
    if term.message:
        parts.append(f"message={_one_line(term.message, 300)}")
    return " ".join(parts)


def _who(pod: V1Pod, rank: int | None) -> str:
    return f"k8s: {rank_tag(rank)}pod {pod_name(pod)} node {pod_node(pod) or '?'}"


def _container_lines(pod: V1Pod, rank: int | None, status: V1ContainerStatus) -> Iterator[str]:
    who = _who(pod, rank)
    state, last = status.state, status.last_state
    if state is not None and state.terminated is not None:
        t = state.terminated
        yield (
            f"{_iso(t.finished_at)}{who} container {status.name} terminated {_terminated(t)} "
            f"restarts={status.restart_count}"
        )
    elif (
        state is not None
        and state.waiting is not None
        and state.waiting.reason not in (None, "ContainerCreating")
    ):
        w = state.waiting
        yield (
            f"{who} container {status.name} waiting reason={w.reason} restarts={status.restart_count}"
            + (f" message={_one_line(w.message, 300)}" if w.message else "")
        )
    if last is not None and last.terminated is not None:
        t = last.terminated
        yield (
            f"{_iso(t.finished_at)}{who} container {status.name} previous instance terminated "
            f"{_terminated(t)}"
        )


def pod_lines(pod: V1Pod, rank: int | None) -> Iterator[str]:
    """Termination states, waiting reasons and the pod's own failure reason (Evicted, …)."""
    status = pod.status
    if status is None:
        return
    if status.phase == "Failed" or status.reason:
        yield (
            f"{_who(pod, rank)} phase={status.phase} reason={status.reason or '-'}"
            + (f" message={_one_line(status.message)}" if status.message else "")
        )
    for cs in list(status.init_container_statuses or []) + list(status.container_statuses or []):
        yield from _container_lines(pod, rank, cs)


def event_lines(events: Iterable[CoreV1Event], ranks: Mapping[str, int | None]) -> Iterator[str]:
    """`k8s: [rankN]: event Pod train-6 Warning OOMKilling count=1: message` for each event, oldest first."""

    def when(ev: CoreV1Event) -> Any:
        return ev.last_timestamp or ev.event_time or ev.first_timestamp or ev.metadata.creation_timestamp

    for ev in sorted(events, key=lambda e: _iso(when(e))):
        obj = ev.involved_object
        rank = ranks.get(obj.name or "") if obj.kind == "Pod" else None
        yield (
            f"{_iso(when(ev))}k8s: {rank_tag(rank)}event {obj.kind} {obj.name} {ev.type or ''} "
            f"{ev.reason or ''} count={ev.count or 1}: {_one_line(ev.message)}"
        )


def condition_lines(
    kind: str, namespace: str, name: str, conditions: Iterable[Mapping[str, Any]]
) -> Iterator[str]:
    """Owner conditions (`Failed`, `Suspended`, …) of a Job, PyTorchJob or JobSet, as dicts."""
    for c in conditions:
        if str(c.get("status")) != "True" or c.get("type") in ("Created", "Running", "Complete", "Succeeded"):
            continue
        ts = c.get("lastTransitionTime") or c.get("last_transition_time")
        yield (
            f"{_iso(ts)}k8s: {kind} {namespace}/{name} condition {c.get('type')} "
            f"reason={c.get('reason') or '-'} message={_one_line(c.get('message'))}"
        )
