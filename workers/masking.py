"""Masking of structured values before they are stored: every string inside goes through the Masker.

The engine masks the log lines it keeps; this is the second line of defence for everything else the
pipeline writes to Redis or Slack (job names, paths, scheduler messages, a diagnosis as a whole).
"""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

from pydantic import BaseModel

from knowledge.masking import TextMasker

M = TypeVar("M", bound=BaseModel)
#: masking above this size runs in a thread so the server's event loop (and /healthz) stays responsive
INLINE_MASK_BYTES = 64 << 10

__all__ = ["INLINE_MASK_BYTES", "TextMasker", "mask_async", "mask_model", "mask_value"]


def mask_value(masker: TextMasker, value: Any) -> Any:
    """Mask every string in a JSON-like value (dict keys too), leaving numbers and booleans alone."""
    if isinstance(value, str):
        return masker.mask(value)
    if isinstance(value, list | tuple):
        return [mask_value(masker, v) for v in value]
    if isinstance(value, dict):
        return {mask_value(masker, k): mask_value(masker, v) for k, v in value.items()}
    return value


def mask_model(masker: TextMasker, model: M) -> M:
    """A copy of `model` with every string field masked (validated again, so the type still holds)."""
    return type(model).model_validate(mask_value(masker, model.model_dump(mode="json")))


async def mask_async(masker: TextMasker, text: str) -> str:
    """`masker.mask(text)` from asyncio code: inline when small, in a thread when large."""
    if len(text) <= INLINE_MASK_BYTES:
        return masker.mask(text)
    return await asyncio.to_thread(masker.mask, text)
