"""Texts of the answer to "what exactly failed to bind, with what error code?" (knowledge/answer_bind.py)."""

from __future__ import annotations

#: the call that tried to listen, the frame it was made in, and the line of the traceback
BIND_CALL = "What failed to bind: `{call}`, called in `{func}` ({file} line {line}, {ref})."
#: the OS error the failing line names
BIND_CODE = "The error code: {code}{name}."
