"""Analysis per process group, on real gloo dumps and on dumps built from the NCCL format."""

from __future__ import annotations

from pathlib import Path

import pytest

from denpex.core.models import LogSource
from knowledge.flightrec import analyse_sources
from knowledge.sources import discover
from tests.flightrec.dumps import FIXTURES, dump, entry, write
from tests.flightrec.generate_fixtures import SCENARIOS

EXPECTED_REASON = {
    "skip_collective": "missing",
    "two_ranks_hang": "missing",
    "wrong_collective": "desync_op",
    "size_mismatch": "desync_size",
    "send_without_recv": "missing",  # gloo records no send/recv: rank 0 is stuck in its send
}


def _analyse(folder: Path):  # type: ignore[no-untyped-def]
    result, missing = analyse_sources([s for s in discover([folder]) if s.kind == "flight_recorder"])
    return result, missing


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_real_dumps_name_the_faulty_ranks(name: str) -> None:
    result, missing = _analyse(FIXTURES / name)
    expected = list(SCENARIOS[name][4])
    assert result.suspect_ranks == expected
    assert missing == []
    assert {s.reason for s in result.collectives.suspects} == {EXPECTED_REASON[name]}
    assert result.initiating is not None and result.initiating.suspect.rank == expected[0]
    for s in result.collectives.suspects:
        assert s.group_id == "0" and s.group_desc == "default_pg" and s.seq_id and s.op and s.source


def test_desync_names_both_ops_and_sizes() -> None:
    result, _ = _analyse(FIXTURES / "wrong_collective")
    (s,) = result.collectives.suspects
    assert "all_gather" in s.why and "all_reduce" in s.why and "[[4, 4]]" in s.why
    result, _ = _analyse(FIXTURES / "size_mismatch")
    (s,) = result.collectives.suspects
    assert "[[8]]" in s.why and "[[4]]" in s.why


def test_activity_answers_what_each_rank_was_doing() -> None:
    result, _ = _analyse(FIXTURES / "two_ranks_hang")
    rows = {tuple(a.ranks): (a.op, a.seq_id) for a in result.collectives.activity}
    assert rows == {(0, 1, 2, 4, 6, 7): ("all_reduce", 5), (3, 5): ("all_reduce", 4)}
    (g,) = result.collectives.groups
    assert g.missing == [3, 5] and g.entered == 6 and g.size == 8


def _tp_dp(tmp_path: Path, hung: tuple[int, ...]) -> list[LogSource]:
    """16 ranks, TP groups of 4, DP groups across them; `hung` stop before the last TP all_gather."""
    groups = {"0": ("default_pg", list(range(16)))}
    groups |= {str(1 + i): ("TENSOR_MODEL_PARALLEL_GROUP", list(range(4 * i, 4 * i + 4))) for i in range(4)}
    groups |= {str(5 + j): ("DATA_PARALLEL_GROUP", list(range(j, 16, 4))) for j in range(4)}
    out = []
    for r in range(16):
        tp, dp = str(1 + r // 4), str(5 + r % 4)
        plan = []
        for step in range(1, 6):
            plan += [
                ((tp, "TENSOR_MODEL_PARALLEL_GROUP"), 2 * step - 1, "all_reduce"),
                ((tp, "TENSOR_MODEL_PARALLEL_GROUP"), 2 * step, "all_gather"),
                ((dp, "DATA_PARALLEL_GROUP"), step, "all_reduce"),
            ]
        plan += [
            ((tp, "TENSOR_MODEL_PARALLEL_GROUP"), 11, "all_reduce"),
            ((tp, "TENSOR_MODEL_PARALLEL_GROUP"), 12, "all_gather"),
        ]
        if r in hung:
            plan = plan[:-1]
        if not any(h // 4 == r // 4 for h in hung):  # TP groups that finished go on to the next DP op
            plan.append(((dp, "DATA_PARALLEL_GROUP"), 6, "all_reduce"))
        es = [
            entry(k, g, s, op, state="completed", time_created_ns=1000 + k)
            for k, (g, s, op) in enumerate(plan)
        ]
        es[-1]["state"] = "started"  # everyone's last op is still in flight
        out.append(
            LogSource(
                name=f"nccl_trace_rank_{r}", path=write(tmp_path / f"nccl_trace_rank_{r}", dump(es, groups))
            )
        )
    return out


@pytest.mark.parametrize("hung", [(12, 14), (0, 5), (3, 15), (6, 7), (1, 2)])
def test_two_hung_ranks_are_named_and_their_blocked_peers_are_not(
    tmp_path: Path, hung: tuple[int, int]
) -> None:
    # NVIDIA's analyser on its own 16-rank fixtures with two faulty ranks names both 3 runs in 4
    result, _ = analyse_sources(_tp_dp(tmp_path, hung=hung))
    assert result.suspect_ranks == list(hung)
    for s in result.collectives.suspects:
        assert s.reason == "missing" and s.group_desc == "TENSOR_MODEL_PARALLEL_GROUP" and s.seq_id == 12
        assert s.op == "all_gather"
    assert result.initiating is not None and result.initiating.suspect.rank == hung[0]
    groups = {g.group_id: g for g in result.collectives.groups}
    tp = str(1 + hung[0] // 4)
    assert set(groups[tp].missing) <= set(hung) and groups[tp].front_op == "all_gather"


def test_not_completed_where_the_others_completed(tmp_path: Path) -> None:
    groups = {"0": ("default_pg", [0, 1, 2, 3])}
    srcs = []
    for r in range(4):
        es = [entry(0, ("0", "default_pg"), 1, "all_reduce"), entry(1, ("0", "default_pg"), 2, "all_reduce")]
        if r == 2:
            es[-1]["state"] = "started"  # its kernel never finished (a stuck GPU)
        srcs.append(LogSource(name=f"t{r}", path=write(tmp_path / f"t{r}", dump(es, groups))))
    result, _ = analyse_sources(srcs)
    assert result.suspect_ranks == [2]
    (s,) = result.collectives.suspects
    assert s.reason == "not_completed" and s.state == "started" and s.seq_id == 2


def test_p2p_send_without_recv_names_the_rank_that_never_received(tmp_path: Path) -> None:
    groups = {"0": ("default_pg", [0, 1, 2, 3])}
    pg = ("0", "default_pg")
    srcs = []
    for r in range(4):
        es = [entry(0, pg, 1, "all_reduce")]
        if r == 0:
            es += [
                entry(1, pg, 1, "send 0->1", p2p_seq=1),
                entry(2, pg, 1, "send 0->1", p2p_seq=2, state="started"),
            ]
        if r == 1:
            es += [entry(1, pg, 1, "recv 1<-0", p2p_seq=1)]
        srcs.append(
            LogSource(
                name=f"nccl_trace_rank_{r}", path=write(tmp_path / f"nccl_trace_rank_{r}", dump(es, groups))
            )
        )
    result, _ = analyse_sources(srcs)
    assert result.suspect_ranks == [1]
    (s,) = result.collectives.suspects
    assert s.reason == "p2p_unmatched" and s.op == "recv" and "rank 0" in s.why and s.seq_id == 2


def test_missing_and_bad_dumps_are_missing_evidence(tmp_path: Path) -> None:
    for r in (0, 1, 3):  # rank 2 wrote none
        src = FIXTURES / "skip_collective" / f"nccl_trace_rank_{r}"
        (tmp_path / src.name).write_bytes(src.read_bytes())
    (tmp_path / "nccl_trace_rank_1").write_bytes((tmp_path / "nccl_trace_rank_1").read_bytes()[:300])
    _result, missing = _analyse(tmp_path)
    whats = " | ".join(m.what for m in missing)
    assert "nccl_trace_rank_1" in whats and "truncated" in whats
    assert "dumps of ranks 1,2" in whats
