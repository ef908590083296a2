"""Texts of the answer about a job whose own code raised its failure (`knowledge.answer_selfstop`)."""

from __future__ import annotations


def raised(rank: int, error: str, frame: str) -> str:
    """ "The script stopped itself: rank 1 raised `ValueError: …` in its own code, `train.py` line 207 …"."""
    return (
        f"The script stopped itself: rank {rank} raised `{error}` in the job's own code, {frame}."
        " That is a check in the training script firing: the first failure is the script's own raise,"
        " not a node, GPU or scheduler line."
    )
