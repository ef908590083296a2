"""Texts of the answer that orders the ranks by when each logged a named line
(`knowledge.answer_rank_order`)."""

from __future__ import annotations


def order(ranks: str, which: str, what: str, clock: str, ref: str, others: str) -> str:
    """ "Rank 3 was the last to log `Starting training`, at 21:38:22,323 (…/3/stdout.log:2); the
    others: rank 0 at 21:38:21,958, …."."""
    return f"{ranks} was the {which} to log `{what}`, at {clock} ({ref}); the others: {others}."


def other(rank: int, clock: str) -> str:
    """ "rank 0 at 21:38:21,958"."""
    return f"rank {rank} at {clock}"


def figure(ranks: str, which: str, key: str, step: str, what: str, ref: str, others: str) -> str:
    """ "Rank 4 had the lowest tokens/s at step 2000: `tokens/s=3060` (rank4.log:206); the others:
    rank 3 3069, …."."""
    return f"{ranks} had the {which} {key} at step {step}: `{what}` ({ref}); the others: {others}."


def other_value(rank: int, value: str) -> str:
    """ "rank 3 3069"."""
    return f"rank {rank} {value}"


def same(n: int, key: str, step: str, what: str, ref: str) -> str:
    """ "All 8 ranks printed the same lr at step 2000: `lr=1.9e-05` (rank0.log:206)."."""
    return f"All {n} ranks printed the same {key} at step {step}: `{what}` ({ref})."


def printed_by(span: str, ranks: str, ref: str, text: str) -> str:
    """ "`Connection closed by peer [127.0.0.1]:41668` was printed by rank 0, in its own log
    (…/0/stderr.log:68): `…`."."""
    return f"`{span}` was printed by {ranks}, in its own log ({ref}): `{text}`."
