"""Safe mrkdwn building blocks: escaping, clipping, rank ranges.

Slack parses `<...>` as links and mentions and `&` as entities in every mrkdwn text, including code
blocks, so any text that came from logs (or from a user) goes through `escape` before it is put into
a block: `<!channel>` then renders as the literal text and pings nobody. Clipping keeps each text
within Slack's per-field limits without leaving a code fence open.
"""

from __future__ import annotations

from collections.abc import Iterable

from knowledge.wording import ranges

SECTION_LIMIT = 3000
HEADER_LIMIT = 150
CONTEXT_LIMIT = 2000
ZWSP = "\u200b"


def escape(text: str) -> str:
    """Escape the three characters Slack gives control meaning to (its documented rule)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def code_safe(text: str) -> str:
    """Escaped text for inside a ``` block: a log line cannot close the fence early."""
    return escape(text).replace("```", f"`{ZWSP}`{ZWSP}`")


def inline_code(text: str) -> str:
    """Escaped text inside `single backticks` (backticks in it become quotes)."""
    return "`" + escape(text).replace("`", "'") + "`"


def clip(text: str, limit: int) -> str:
    """Cut `text` to at most `limit` characters, closing a code fence cut in half."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 5].rstrip()
    amp = cut.rfind("&")
    if amp != -1 and ";" not in cut[amp:]:
        cut = cut[:amp]  # never leave half an entity such as "&am"
    if cut.count("```") % 2:
        cut = cut[: max(limit - 8, 0)].rstrip()
        return cut + "…\n```"
    return cut + "…"


def rank_ranges(ranks: Iterable[int]) -> str:
    """`[0,1,2,3,4,6,7]` → `0-4,6,7`: the engine's own grouping, so Slack and the CLI agree."""
    return ranges(ranks)


def section(text: str) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": clip(text, SECTION_LIMIT)}}


def header(text: str) -> dict:
    return {"type": "header", "text": {"type": "plain_text", "text": clip(text, HEADER_LIMIT), "emoji": True}}


def context(*texts: str) -> dict:
    elements = [{"type": "mrkdwn", "text": clip(t, CONTEXT_LIMIT)} for t in texts[:10] if t]
    return {"type": "context", "elements": elements}


def divider() -> dict:
    return {"type": "divider"}
