"""Texts of the answer that quotes the log lines a message names (`knowledge.answer_loglines`)."""

from __future__ import annotations

#: one quoted line: who printed it, where, the line itself
LINE = "{who} at {ref}: `{text}`"
#: the peer or host port a quoted line names
PORT = " (port {port})"
#: the lines asked for, one after another
LINES = "The line{s} asked about, as this job's logs have {them}: {listed}."
#: more lines matched than are quoted
MORE = " ({more} more line(s) like {them} not quoted)"


def who(rank: int | None, source: str) -> str:
    """`Rank 3 (console.log)` or the file's name when no rank wrote it."""
    return f"Rank {rank}" if rank is not None else f"`{source}`"
