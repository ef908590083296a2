"""Texts for a loss answer redone from the whole message (knowledge/answer_series.py)."""

from __future__ import annotations

#: replaces the loss answer's "The last logged losses (" when every logged value is listed
ALL_LOSSES = "Every loss logged ("
