"""Timestamps and rank prefixes, fuzzed near their real formats (the shapes where parsers break):
out-of-range fields, odd widths, Unicode digits, time zones, years outside datetime's range.

`tests/knowledge/test_properties.py` already throws arbitrary text at the line parsers; these
strategies build almost-valid stamps and prefixes so the interesting branches are reached.
"""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from knowledge import lines

digits = st.text(st.characters(categories=["Nd"]), min_size=1, max_size=10)
ascii_num = st.integers(min_value=0, max_value=10**10).map(str)
num = ascii_num | digits
month = st.sampled_from(["Jan", "Feb", "Mar", "Nov", "Dec", "Foo", "jan"])
tz = st.sampled_from(["", "Z", "+00:00", "-07:00", "+9999", "-99:99", "+1", "+05:30"])
sep = st.sampled_from(["T", " ", "_"])


@st.composite
def stamps(draw: st.DrawFn) -> str:
    n = [draw(num) for _ in range(7)]
    form = draw(st.integers(0, 6))
    if form == 0:
        return f"{n[0]}-{n[1]}-{n[2]}{draw(sep)}{n[3]}:{n[4]}:{n[5]}.{n[6]}{draw(tz)} x"
    if form == 1:
        return (
            f"[{draw(st.sampled_from(['Mon', 'Fri']))} {draw(month)} {n[1]} {n[2]}:{n[3]}:{n[4]} {n[0]}] NVRM"
        )
    if form == 2:
        return f"{draw(st.sampled_from('IWEF'))}{n[1]}{n[2]} {n[3]}:{n[4]}:{n[5]}.{n[6]} 123 file.cpp:1]"
    if form == 3:
        return f"{draw(month)} {n[1]} {n[2]}:{n[3]}:{n[4]}.{n[5]} host kernel:"
    if form == 4:
        return f"[{n[0]}.{n[1]}] NVRM: Xid"
    if form == 5:
        return f"{n[0]}/{n[1]}/{n[2]} {n[3]}:{n[4]}:{n[5]},{n[6]} INFO"
    return draw(st.text(max_size=60)) + f"{n[0]}-{n[1]}-{n[2]} {n[3]}:{n[4]}:{n[5]}"


@given(stamps(), st.integers(min_value=-(10**6), max_value=10**6))
def test_timestamps_parse_or_are_none(text: str, year: int) -> None:
    stamp = lines.parse_timestamp(text, year)
    if stamp is not None:
        assert math.isfinite(stamp.value)
        stamp.iso()  # must render, it goes into the diagnosis JSON


@st.composite
def rank_prefixes(draw: st.DrawFn) -> str:
    n = draw(num)
    template = draw(
        st.sampled_from(
            [
                "[rank{n}]: x",
                "[default{n}]:[rank{n}]: x",
                "{n}: x",
                "[Rank {n}] x",
                "rank {n} x",
                "  rank      : {n} (local_rank: {n})",
                "[{n}] NCCL INFO",
                "[rank{n}]:[E1120 04:50:01.1 P.cpp:1] [Rank {n}]",
                "gpu-{n}:{n}:{n} [{n}] NCCL INFO",
                "[RANK {n}/{n}] x",
                "global_rank={n} x",
            ]
        )
    )
    return template.replace("{n}", n) + draw(st.text(max_size=20))


@given(rank_prefixes())
def test_rank_prefixes_parse_to_a_sane_rank_or_none(text: str) -> None:
    info = lines.parse_rank(text)
    rank = getattr(info, "rank", None)
    assert rank is None or (isinstance(rank, int) and rank >= 0)
    lines.reported_rank(text)
    lines.segments(text)
    lines.clean(text)
