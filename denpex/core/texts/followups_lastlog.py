"""Texts of the answer about the last lines a rank logged (`knowledge.answer_lastlog`)."""

from __future__ import annotations


def last_line(who: str, text: str, ref: str, when: str) -> str:
    """ "Rank 2's last logged line (rank2.log:1, 2026-11-20 03:00:02 UTC): `step 40/100 loss=1.2`."."""
    place = f"{ref}, {when}" if when else ref
    return f"{who}'s last logged line ({place}): `{text}`."


def last_step(who: str, text: str, ref: str, when: str) -> str:
    """The rank's last step line, when its last line is not one."""
    place = f"{ref}, {when}" if when else ref
    return f"{who}'s last step line ({place}): `{text}`."


def same_step(ranks: str, text: str, ref: str, when: str) -> str:
    """Several ranks whose last step lines say the same step: one quoted for all."""
    place = f"{ref}, {when}" if when else ref
    return f"Ranks {ranks} logged the same last step; one of their lines ({place}): `{text}`."


NONE = "No rank's own lines before its failure are kept for {who}; read the end of its log for them."
