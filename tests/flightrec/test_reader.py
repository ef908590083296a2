"""Reading dumps: real pickle and JSON dumps, detection by content, and hostile input refused."""

from __future__ import annotations

import contextlib
import os
import pickle
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from denpex.core.models import LogSource
from knowledge.flightrec import DumpError, load, read_source, sniff, sniff_path
from knowledge.flightrec.merge import read_all
from knowledge.sources import discover
from tests.flightrec.dumps import FIXTURES


def _src(path: Path) -> LogSource:
    return LogSource(name=path.name, path=path)


def test_real_pickle_dump_reads_to_a_trace() -> None:
    t = read_source(_src(FIXTURES / "skip_collective" / "nccl_trace_rank_3"))
    assert t.rank == 3 and t.version.startswith("2.")
    g = t.groups["0"]
    assert g.desc == "default_pg" and g.last_entered == 5
    assert [o.op for o in g.window[5]] == ["all_reduce"]
    assert t.last_group == "0" and t.last_op is not None and t.last_op.seq == 5


def test_real_json_dump_reads_to_a_trace() -> None:
    path = FIXTURES / "wrong_collective" / "trace-1.json"
    assert sniff_path(path) == "json"
    t = read_source(_src(path))
    assert t.rank == 1
    assert t.groups["0"].window[4][0].op == "all_gather"


def test_dumps_are_found_by_content_whatever_their_name(tmp_path: Path) -> None:
    data = (FIXTURES / "skip_collective" / "nccl_trace_rank_1").read_bytes()
    (tmp_path / "weird_name_1.log").write_bytes(data)
    (tmp_path / "rank0.log").write_text("step 1 loss 2.5\n")
    kinds = {s.name: s.kind for s in discover([tmp_path])}
    assert kinds == {"weird_name_1.log": "flight_recorder", "rank0.log": "rank"}


def test_rank_from_name_is_checked_against_the_dump(tmp_path: Path) -> None:
    from tests.flightrec.dumps import dump, entry, write

    groups = {"0": ("default_pg", [0, 1, 2, 3]), "1": ("TP", [2, 3]), "2": ("DP", [1, 3])}
    d = dump([entry(0, ("1", "TP"), 1, "all_reduce"), entry(1, ("2", "DP"), 1, "all_reduce")], groups)
    wrong = write(tmp_path / "nccl_trace_rank_2", d)  # only rank 3 is in both TP and DP
    nameless = write(tmp_path / "trace_dump", d)
    traces, missing = read_all([_src(wrong), _src(nameless)])
    assert [t.rank for t in traces] == [3]
    assert any("nccl_trace_rank_2" in m.what and "says 2" in m.what for m in missing)


@pytest.mark.parametrize("cut", [0.5, 0.9, 0.02])
def test_truncated_dump_is_a_dump_error_naming_the_file(tmp_path: Path, cut: float) -> None:
    data = (FIXTURES / "two_ranks_hang" / "nccl_trace_rank_4").read_bytes()
    path = tmp_path / "nccl_trace_rank_4"
    path.write_bytes(data[: int(len(data) * cut)])
    with pytest.raises(DumpError) as err:
        read_source(_src(path))
    assert "nccl_trace_rank_4" in str(err.value)


def test_truncated_json_dump_is_a_dump_error(tmp_path: Path) -> None:
    data = (FIXTURES / "wrong_collective" / "trace-2.json").read_bytes()
    path = tmp_path / "trace-2.json"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(DumpError, match=r"trace-2\.json"):
        read_source(_src(path))


def test_unsupported_version_is_refused() -> None:
    data = pickle.dumps({"version": "3.0", "pg_config": {}, "entries": []}, protocol=2)
    with pytest.raises(DumpError, match="version"):
        load(data, "x")


class _Exploit:
    """What an attacker puts in a dump: unpickling it would run a shell command."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.system, (f"touch {self.marker}",))


def malicious_dump(path: Path, marker: Path) -> Path:
    """A pickle that looks like a dump (version, pg_config first) and carries the exploit."""
    payload = {"version": "2.10", "pg_config": {}, "comm_lib_version": "", "entries": [_Exploit(marker)]}
    path.write_bytes(pickle.dumps(payload, protocol=2))
    return path


def test_malicious_pickle_is_refused_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = malicious_dump(tmp_path / "nccl_trace_rank_0", marker)
    assert sniff_path(path) == "pickle"  # it is detected as a dump, and then refused
    with pytest.raises(DumpError) as err:
        read_source(_src(path))
    assert "nccl_trace_rank_0" in str(err.value) and "posix.system" in str(err.value)
    assert not marker.exists()


@pytest.mark.parametrize("proto", [2, 3, 4, 5])
def test_any_global_is_refused(proto: int) -> None:
    from collections import OrderedDict

    data = pickle.dumps({"version": "2.10", "pg_config": OrderedDict(), "entries": []}, protocol=proto)
    with pytest.raises(DumpError, match="refused"):
        load(data, "dump")


_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
_data = st.recursive(
    _scalars | st.binary(max_size=20),
    lambda kids: (
        st.lists(kids, max_size=5)
        | st.dictionaries(st.text(max_size=8), kids, max_size=5)
        | st.tuples(kids, kids)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_data, proto=st.integers(2, 5))
def test_fuzz_builtin_data_round_trips_or_is_not_a_dump(value: object, proto: int) -> None:
    from knowledge.flightrec import SafeUnpickler

    data = pickle.dumps(value, protocol=proto)
    assert SafeUnpickler(data, "f").load() == value
    try:
        load(data, "f")
    except DumpError as exc:
        assert str(exc).startswith("f: ")


@settings(max_examples=400, deadline=None)
@given(body=st.binary(max_size=300), proto=st.integers(2, 5))
def test_fuzz_random_bytes_only_ever_raise_dump_error(body: bytes, proto: int) -> None:
    head = (
        bytes([0x80, proto])
        + b"}q\x00(X\x07\x00\x00\x00versionq\x01X\x04\x00\x00\x002.10X\t\x00\x00\x00pg_config"
    )
    for data in (head + body, body, b"{" + body):
        try:
            raw = load(data, "fuzz")
        except DumpError:
            continue
        assert isinstance(raw, dict)


@settings(max_examples=200, deadline=None)
@given(flips=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=8))
def test_fuzz_corrupted_real_dump_never_crashes(flips: list[tuple[int, int]]) -> None:
    data = bytearray((FIXTURES / "skip_collective" / "nccl_trace_rank_2").read_bytes())
    for pos, byte in flips:
        data[pos % len(data)] = byte
    src = LogSource(name="nccl_trace_rank_2", data=bytes(data))
    with contextlib.suppress(DumpError):
        read_source(src)


def test_sniff_ignores_logs_and_other_pickles() -> None:
    assert sniff(b"[2026-11-20 03:00:00] step 1 loss 2.5\n") is None
    assert sniff(pickle.dumps([1, 2, 3], protocol=2)) is None
    assert sniff(b'{"level": "info", "msg": "step 1"}') is None


def test_memo_index_bomb_allocates_nothing() -> None:
    """`LONG_BINPUT 0x7fffffff` makes C's unpickler size its memo to 2**32 slots (~32 GB)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    head = pickle.dumps({"version": "2.10", "pg_config": {}}, protocol=2)[:-1]
    for payload in (head + b"r\xff\xff\xff\x7f.", b"\x80\x02]r\xff\xff\xff\x7f."):
        with contextlib.suppress(DumpError):
            load(payload, "bomb")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000  # KiB
