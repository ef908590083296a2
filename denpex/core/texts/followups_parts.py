"""Sentences for the parts of a multi-part ask the first answer left out (`knowledge.answer_parts`)."""

from __future__ import annotations

RAN_FOR = (
    "The timeout was {timeout} ms ({secs} s); the {op} (SeqNum {seq}) ran for {ran} ms before the "
    "watchdog gave up ({ref})."
)
LAUNCHER_ROOT = "torchrun's summary lists rank {rank} as the root cause (first observed failure) ({ref})."
LAUNCHER_SAME = "That is also the rank that failed first: look at rank {rank}."
LAUNCHER_OTHER = "The rank to look at is rank {ini}, which failed first; rank {rank} only exited first."
DESYNC_GREP = (
    "Unlike a plain hang, the ranks were in different collectives; grep each rank's traceback for "
    "the collective it stopped in."
)
COMPARE_OTHER = "Rank {rank} was {what}: {why}."
