"""Arbitrary bytes never crash a parser or the engine: logs are untrusted input."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from denpex.core.models import Diagnosis, LogSource
from knowledge import facts, lines
from knowledge.engine import Engine
from knowledge.sources import infer_kind, infer_node, infer_rank

LOGGY = st.lists(
    st.sampled_from(
        [
            b"[rank3]: torch.OutOfMemoryError: CUDA out of memory.",
            b"[default1]:[rank9]:[E1120 03:14:02.1 ProcessGroupNCCL.cpp:1] [Rank 9] Watchdog caught "
            b"collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, Timeout(ms)=600000)",
            b"[Fri Nov 20 03:14:02 2026] NVRM: Xid (PCI:0000:05:00): 79, pid=1, GPU has fallen off the bus.",
            b"  rank      : 3 (local_rank: 3)",
            b"  exitcode  : -9 (pid: 1234)",
            b"\x1b[31m\r\r\n",
            b"\xff\xfe\x00\x80",
            b"3: ",
            b"[12345.6789] Out of memory: Killed process 1234 (python)",
        ]
    )
    | st.binary(max_size=200),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_line_parsers_accept_any_text(text: str) -> None:
    lines.clean(text)
    lines.segments(text)
    lines.parse_rank(text)
    stamp = lines.parse_timestamp(text, 2026)
    if stamp is not None:
        stamp.iso()
    lines.parse_step(text)
    lines.reported_rank(text)
    facts.parse_xid(text)
    facts.parse_device(text)
    facts.parse_seq(text)
    facts.parse_world(text)
    kind = infer_kind(text)
    infer_rank(text)
    infer_node(text, kind)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(LOGGY, min_size=1, max_size=4),
    st.lists(
        st.sampled_from(["rank0.log", "combined.log", "node-a.dmesg", "slurm.log", "job_1_2.out", "x"]),
        min_size=4,
        max_size=4,
    ),
)
def test_engine_accepts_any_bytes(engine: Engine, files: list[list[bytes]], names: list[str]) -> None:
    sources = [
        LogSource(name=f"{i}-{names[i]}" if i else names[i], data=b"\n".join(parts))
        for i, parts in enumerate(files)
    ]
    diag = engine.diagnose(sources)
    assert isinstance(diag, Diagnosis)
    assert 0.0 <= diag.confidence <= 1.0
    Diagnosis.model_validate_json(diag.model_dump_json())
