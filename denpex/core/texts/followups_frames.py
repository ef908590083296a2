"""Texts of the answer that walks the ranks' own traceback frames (`knowledge.answer_frames_asked`)."""

from __future__ import annotations


def chain(frames: list[str]) -> str:
    """`train.py` line 177, in `save_checkpoint` → `barrier` (`distributed_c10d.py` line 5356)."""
    return " → ".join(frames)


def frame(file: str, number: int, func: str, code: str) -> str:
    said = f"`{file}` line {number}, in `{func}`"
    return f"{said}: `{code}`" if code else said


def ranks_frames(ranks: str, plural: bool, walk: str, error: str) -> str:
    who = f"Ranks {ranks}" if plural else f"Rank {ranks}"
    said = f"{who} (the same traceback): {walk}" if plural else f"{who}'s traceback: {walk}"
    return f"{said}; it ended in `{error}`." if error else f"{said}; no exception message follows it."


def no_traceback(ranks: str, plural: bool, ending: str) -> str:
    who = f"Ranks {ranks} printed" if plural else f"Rank {ranks} printed"
    return (
        f"{who} no traceback: the launcher's summary says `{ending}` — it was stopped from outside"
        " before its own collective failed."
    )


GLOO_PEER = (
    "`pair.cc:553 Connection closed by peer` and `pair.cc:537 Read error … Connection reset by peer` are"
    " gloo's TCP transport seeing the socket to another rank close: that rank's process had exited (it"
    " failed or was killed), so the collective waiting on it failed at once, not after the timeout."
)

LAUNCHER = "The launcher's own traceback (no rank had started): {walk}; it ended in `{error}`."
