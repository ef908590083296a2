"""Safe mrkdwn building blocks: escaping, clipping, rank ranges.

Slack parses `<...>` as links and mentions and `&` as entities in every mrkdwn text, including code
blocks, so any text that came from logs (or from a user) goes through `escape` before it is put into
a block: `<!channel>` then renders as the literal text and pings nobody. Clipping keeps each text
within Slack's per-field limits without leaving a code fence open.

Names that must show exactly as their owner typed them (a job named `*prod* run`, a state with a URL
in it) also need mrkdwn's formatting and Slack's automatic linking switched off: `verbatim` puts them in
inline code (no bold, italics or strike inside code), and a section built with `verbatim=True` asks
Slack not to auto-link URLs or channel names in it (the text object's documented `verbatim` flag).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

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


def verbatim(text: str) -> str:
    """`text` as its owner typed it: inline code (no formatting inside), escaped; `` ` `` becomes ˋ."""
    return "`" + escape(text).replace("`", "\u02cb") + "`" if text else ""


_SENTENCE_END = re.compile(r"(?<=[.;!?]) +(?=[A-Z(])")


def shorten(text: str, limit: int) -> str:
    """Cut `text` to `limit` characters at sentence or word boundaries, never inside a word or figure.

    A long error line keeps its first sentence (what failed) and its last (often the figure the fix
    refers to, as the allocator's "reserved but unallocated"); sentences in between are kept while they
    fit, the rest become "…". One long sentence is cut at the last space before the limit.
    """
    if len(text) <= limit:
        return text
    parts = _SENTENCE_END.split(text)
    if len(parts) > 1 and len(parts[0]) + len(parts[-1]) + 3 <= limit:
        keep = {0, len(parts) - 1}
        room = limit - len(parts[0]) - len(parts[-1]) - 3
        for i in range(1, len(parts) - 1):
            if len(parts[i]) + 3 <= room:
                keep.add(i)
                room -= len(parts[i]) + 3
        out: list[str] = []
        for i, part in enumerate(parts):
            if i in keep:
                out.append(part)
            elif out and out[-1] != "…":
                out.append("…")
        return " ".join(out)
    if len(parts) > 1 and len(parts[0]) + 2 <= limit:  # whole sentences from the start
        kept = [parts[0]]
        for part in parts[1:]:
            if len(" ".join(kept)) + len(part) + 3 > limit:
                break
            kept.append(part)
        return " ".join(kept) + " …"
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + "…"


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


def section(text: str, *, verbatim: bool = False) -> dict[str, Any]:
    """A mrkdwn section; `verbatim=True`: Slack does not auto-link URLs or channel names in it."""
    obj: dict[str, Any] = {"type": "mrkdwn", "text": clip(text, SECTION_LIMIT)}
    if verbatim:
        obj["verbatim"] = True
    return {"type": "section", "text": obj}


def button(text: str, action_id: str, value: str) -> dict[str, Any]:
    return {
        "type": "button",
        "text": {"type": "plain_text", "text": clip(text, 75), "emoji": True},
        "action_id": action_id,
        "value": value[:2000],
    }


def actions(block_id: str, *elements: dict[str, Any]) -> dict[str, Any]:
    return {"type": "actions", "block_id": block_id, "elements": list(elements[:25])}


def header(text: str) -> dict[str, Any]:
    return {"type": "header", "text": {"type": "plain_text", "text": clip(text, HEADER_LIMIT), "emoji": True}}


def context(*texts: str) -> dict[str, Any]:
    elements = [{"type": "mrkdwn", "text": clip(t, CONTEXT_LIMIT)} for t in texts[:10] if t]
    return {"type": "context", "elements": elements}


def divider() -> dict[str, Any]:
    return {"type": "divider"}
