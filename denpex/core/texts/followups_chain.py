"""Texts of the answer about the first exception of a chained traceback (`knowledge.answer_chain`)."""

from __future__ import annotations


def chain(rank: int, frame: str, first: str, then: str, link: str) -> str:
    """ "The first exception in rank 0's chain: `x.py` line 1312, in `_save`: `…` raised `…`; …"."""
    out = f"The first exception in rank {rank}'s chain: {frame} raised `{first}`"
    return f"{out}; {link}, `{then}` followed." if then else f"{out}."
