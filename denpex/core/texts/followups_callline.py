"""Sentences for the line of the script that holds a call the message names ("train.py line with the
FSDP.state_dict_type call")."""

from __future__ import annotations

#: the frame whose source line holds the named call
CALL_LINE = "`{call}` is called at `{file}` line {line}, in `{fn}` ({ref}): `{code}`."

__all__ = ["CALL_LINE"]
