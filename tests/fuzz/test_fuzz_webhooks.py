"""Webhook bodies (bot/payloads.py, bot/webhooks.py, integrations/hostlist.py) fuzzed: random JSON
and near-valid bodies for every route raise only `PayloadError` / `HookError` / `HostlistError`,
and what validates turns into a `JobEvent` whose key is safe for Redis keys and paths.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot import payloads
from bot.webhooks import HookError, decode_json
from integrations.hostlist import HostlistError, expand

json_leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30)
json_value = st.recursive(
    json_leaf,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=10), kids, max_size=4),
    max_leaves=12,
)
ident = st.one_of(
    st.text(max_size=20),
    st.integers(),
    st.sampled_from(["hpc", "4242", "gpu-01", "a b", "../x", "", "x" * 300, "ü", "1.2_3+4"]),
)
hostlist = st.one_of(
    st.text(alphabet="gpu-[]0123456789,", max_size=40),
    st.sampled_from(["gpu-[01-08]", "r[1-2]n[01-02]", "(null)", "a[9-1]", "a[[1]]", "a[0-99999999]"]),
)
when = st.one_of(
    st.none(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.text(max_size=30),
    st.sampled_from(["2026-11-20T03:14:02Z", "2026-13-40T99:99:99", "1763600000"]),
)


def near(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """A body with each known field either present (fuzzed) or absent, plus junk fields."""
    return st.fixed_dictionaries({}, optional=fields).flatmap(
        lambda d: st.dictionaries(st.text(max_size=8), json_value, max_size=3).map(
            lambda extra: {**extra, **d}
        )
    )


SLURM = near(
    {
        "cluster": ident,
        "job_id": ident,
        "state": ident,
        "exit_code": ident,
        "node_list": hostlist,
        "nodes": st.lists(ident, max_size=4),
        "start": when,
        "end": when,
        "restart_count": json_value,
        "array_job_id": ident,
        "array_task_id": ident,
        "het_job_id": ident,
        "user": ident,
    }
)
NODE = near(
    {
        "cluster": ident,
        "job_id": ident,
        "node": ident,
        "kernel_log": st.text(max_size=200),
        "since": when,
        "truncated": json_value,
    }
)
POD = near({"name": ident, "node": ident, "rank": json_value, "phase": ident, "exit_code": json_value})
KUBE = near(
    {
        "cluster": ident,
        "namespace": ident,
        "kind": st.sampled_from(["Job", "PyTorchJob", "JobSet", "Pod"]),
        "name": ident,
        "state": ident,
        "pods": st.lists(POD, max_size=3),
        "start": when,
    }
)
FILES = near({"cluster": ident, "job_id": ident, "state": ident, "exit_code": ident, "name": ident})
ALERT = near(
    {
        "status": st.sampled_from(["firing", "resolved", 3]),
        "startsAt": when,
        "labels": st.dictionaries(
            st.sampled_from(["alertname", "namespace", "job_name", "cluster", "x"]),
            st.one_of(ident.map(str), st.just("KubeJobFailed")),
            max_size=5,
        ),
        "annotations": st.dictionaries(st.text(max_size=8), st.text(max_size=20), max_size=2),
    }
)
ALERTS = near({"version": st.sampled_from(["4", "3", None, 4]), "alerts": st.lists(ALERT, max_size=3)})


def check_event(event: payloads.JobEvent) -> None:
    assert event.dedupe_key and "\n" not in event.dedupe_key
    assert ".." not in event.job.cluster.split("/") and "/" not in event.job.cluster


@given(SLURM)
def test_slurm_bodies(data: dict[str, Any]) -> None:
    try:
        check_event(payloads.slurm_event(payloads.parse(payloads.SlurmJobBody, data)))
    except payloads.PayloadError as exc:
        assert exc.field


@given(NODE)
def test_slurm_node_bodies(data: dict[str, Any]) -> None:
    try:
        payloads.parse(payloads.SlurmNodeBody, data)
    except payloads.PayloadError as exc:
        assert exc.field


@given(KUBE)
def test_kubernetes_bodies(data: dict[str, Any]) -> None:
    try:
        check_event(payloads.kubernetes_event(payloads.parse(payloads.KubernetesBody, data)))
    except payloads.PayloadError as exc:
        assert exc.field


@given(FILES)
def test_files_bodies(data: dict[str, Any]) -> None:
    try:
        check_event(payloads.files_event(payloads.parse(payloads.FilesJobBody, data)))
    except payloads.PayloadError as exc:
        assert exc.field


@given(ALERTS)
def test_alertmanager_bodies(data: dict[str, Any]) -> None:
    try:
        body = payloads.parse(payloads.AlertmanagerBody, data)
        for event in payloads.alert_events(body, frozenset({"KubeJobFailed"}), "default"):
            check_event(event)
    except payloads.PayloadError as exc:
        assert exc.field


@given(st.binary(max_size=200) | json_value.map(lambda v: json.dumps(v).encode()))
def test_decode_json_raises_only_hook_errors(body: bytes) -> None:
    try:
        assert isinstance(decode_json(body), dict)
    except HookError as exc:
        assert exc.status == 400 and exc.field == "body"


@given(hostlist)
def test_hostlists_expand_or_raise_hostlist_error(expr: str) -> None:
    try:
        names = expand(expr)
    except HostlistError:
        return
    assert len(names) == len(set(names))


@pytest.mark.parametrize(
    "expr",
    [
        ",".join(["a[0-65534]"] * 2000),
        "a[" + ",".join(["0-65534"] * 5000) + "]",
        ",".join(f"n[0-65534]x{i}" for i in range(100)),
    ],
)
def test_regression_huge_hostlists_are_refused_quickly(expr: str) -> None:
    """Found while fuzzing: repeated ranges expanded without bound (minutes of CPU inside the
    server's event loop, or gigabytes for `[0-65534,0-65534,...]`), from one 64 KiB `node_list`."""
    t0 = time.monotonic()
    with pytest.raises(HostlistError):
        expand(expr)
    assert time.monotonic() - t0 < 5
