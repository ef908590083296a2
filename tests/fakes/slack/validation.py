"""Slack's own checks on a message, as the Web API applies them before it stores anything.

The bot must never rely on Slack to truncate for it, so the fake rejects exactly what Slack rejects:
more than 50 blocks or a block that does not parse (`invalid_blocks`), blocks that are not a JSON
array (`invalid_blocks_format`), text over 40,000 characters (`msg_too_long`), neither text nor
blocks (`no_text`). Block-level limits (3,000 characters a section text, 150 a header, 10 context
elements, ...) are checked with slack_sdk's own block models, the same ones the bot's tests use.
"""

from __future__ import annotations

import json
from typing import Any

from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import Block

MAX_BLOCKS = 50
MAX_TEXT = 40_000
MAX_SECTION_TEXT = 3_000


class SlackError(Exception):
    """An `{"ok": false, "error": ...}` answer; `detail` goes to `response_metadata.messages`."""

    def __init__(self, error: str, detail: list[str] | None = None) -> None:
        super().__init__(error)
        self.error = error
        self.detail = detail or []


def parse_json_field(value: Any, *, error: str) -> Any:
    """Form posts carry arrays/objects as JSON strings; JSON posts carry them as values."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError as exc:
            raise SlackError(error, [f"[ERROR] {exc}"]) from exc
    return value


def _check_block(index: int, raw: Any) -> str | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        return f"[ERROR] block {index} must be an object with a type [json-pointer:/blocks/{index}]"
    try:
        block = Block.parse(raw)
    except (SlackObjectFormationError, TypeError, KeyError, ValueError) as exc:
        return f"[ERROR] {exc} [json-pointer:/blocks/{index}]"
    if block is None or type(block) is Block:
        return f"[ERROR] unsupported type: {raw['type']} [json-pointer:/blocks/{index}/type]"
    try:
        block.validate_json()
    except SlackObjectFormationError as exc:
        return f"[ERROR] {exc} [json-pointer:/blocks/{index}]"
    text = raw.get("text")
    if raw["type"] == "section":
        if isinstance(text, dict) and len(str(text.get("text", ""))) > MAX_SECTION_TEXT:
            limit = MAX_SECTION_TEXT + 1
            return f"[ERROR] must be less than {limit} characters [json-pointer:/blocks/{index}/text]"
        if not text and not raw.get("fields"):
            return f"[ERROR] section needs text or fields [json-pointer:/blocks/{index}]"
    return None


def validate_blocks(value: Any) -> list[dict[str, Any]] | None:
    """Return the parsed blocks, or raise the error Slack would answer with."""
    if value is None or value == "":
        return None
    blocks = parse_json_field(value, error="invalid_blocks_format")
    if not isinstance(blocks, list):
        raise SlackError("invalid_blocks_format", ["[ERROR] blocks must be an array"])
    if len(blocks) > MAX_BLOCKS:
        detail = f"[ERROR] no more than {MAX_BLOCKS} items allowed [json-pointer:/blocks]"
        raise SlackError("invalid_blocks", [detail])
    problems = [p for i, b in enumerate(blocks) if (p := _check_block(i, b))]
    if problems:
        raise SlackError("invalid_blocks", problems)
    return blocks


def validate_message(params: dict[str, Any]) -> tuple[str, list[dict[str, Any]] | None]:
    """Text and blocks of a chat.postMessage/update/postEphemeral call, checked as Slack checks them."""
    text = params.get("text")
    text = "" if text is None else str(text)
    blocks = validate_blocks(params.get("blocks"))
    if len(text) > MAX_TEXT:
        raise SlackError("msg_too_long")
    if not text and not blocks and not params.get("attachments"):
        raise SlackError("no_text")
    return text, blocks


#: Slack's limits on a modal (views.open / views.update)
MAX_VIEW_BLOCKS = 100
MAX_VIEW_TITLE = 24
MAX_PRIVATE_METADATA = 3000
MAX_CALLBACK_ID = 255


def _plain_text(view: dict[str, Any], key: str, *, required: bool) -> str | None:
    value = view.get(key)
    if value is None:
        return f"[ERROR] missing required field: {key} [json-pointer:/view/{key}]" if required else None
    if not isinstance(value, dict) or value.get("type") != "plain_text":
        return f"[ERROR] must be a plain_text object [json-pointer:/view/{key}]"
    if not isinstance(value.get("text"), str):
        return f"[ERROR] must be a plain_text object [json-pointer:/view/{key}]"
    if not value["text"] or len(value["text"]) > MAX_VIEW_TITLE:
        return f"[ERROR] must be less than {MAX_VIEW_TITLE + 1} characters [json-pointer:/view/{key}/text]"
    return None


def validate_view(value: Any) -> dict[str, Any]:
    """A modal as views.open / views.update check it; the parsed view, or the `invalid_arguments`
    Slack answers (its messages name the JSON pointer of each problem)."""
    view = parse_json_field(value, error="invalid_arguments")
    if not isinstance(view, dict):
        raise SlackError("invalid_arguments", ["[ERROR] view must be an object [json-pointer:/view]"])
    problems: list[str] = []
    if view.get("type") != "modal":
        problems.append("[ERROR] must be 'modal' [json-pointer:/view/type]")
    blocks = view.get("blocks")
    if not isinstance(blocks, list):
        problems.append("[ERROR] missing required field: blocks [json-pointer:/view/blocks]")
        blocks = []
    elif len(blocks) > MAX_VIEW_BLOCKS:
        problems.append(f"[ERROR] no more than {MAX_VIEW_BLOCKS} items allowed [json-pointer:/view/blocks]")
    has_input = any(isinstance(b, dict) and b.get("type") == "input" for b in blocks)
    for key, required in (("title", True), ("submit", has_input), ("close", False)):
        if (problem := _plain_text(view, key, required=required)) is not None:
            problems.append(problem)
    for index, block in enumerate(blocks):
        if (problem := _check_block(index, block)) is not None:
            problems.append(problem.replace("/blocks/", "/view/blocks/"))
    if len(str(view.get("private_metadata") or "")) > MAX_PRIVATE_METADATA:
        problems.append("[ERROR] must be less than 3001 characters [json-pointer:/view/private_metadata]")
    if len(str(view.get("callback_id") or "")) > MAX_CALLBACK_ID:
        problems.append("[ERROR] must be less than 256 characters [json-pointer:/view/callback_id]")
    if problems:
        raise SlackError("invalid_arguments", problems)
    return view
