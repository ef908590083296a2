"""Texts of the answer about the peer address in a rank's backend error (`knowledge.answer_frames_more`)."""

from __future__ import annotations


def peer(ranks: str, plural: bool, error: str, host: str, port: str) -> str:
    """ "Ranks 0,2 each got `… [127.0.0.1]:1931: Connection reset by peer`: the peer socket was …"."""
    who = f"Ranks {ranks} each got" if plural else f"Rank {ranks} got"
    return (
        f"{who} `{error}`: the peer socket was {host}, port {port} (the other end of gloo's TCP"
        " connection to another rank)."
    )
