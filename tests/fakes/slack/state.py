"""The fake workspace: channels, messages, files, and the Web API methods that act on them.

Each method takes the request's parameters (already merged from query string, form or JSON body) and
returns the response dict Slack would send, or raises `SlackError`. It is plain synchronous code
guarded by one lock, so tests can read the state from any thread while the server runs in its own.
"""

from __future__ import annotations

import base64
import copy
import json
import threading
import time
import uuid
from typing import Any

from tests.fakes.slack.validation import SlackError, parse_json_field, validate_message, validate_view

#: seconds a trigger_id can open a modal after the interaction that carried it (Slack: 3 s)
TRIGGER_TTL = 3.0


def _truthy(value: Any) -> bool:
    return str(value).lower() in ("1", "true", "yes")


def _window(messages: list[dict[str, Any]], p: dict[str, Any]) -> list[dict[str, Any]]:
    """Slack's `oldest` / `latest` bounds (exclusive unless `inclusive`)."""
    inclusive = _truthy(p.get("inclusive", False))
    oldest = float(p.get("oldest") or 0)
    latest = float(p["latest"]) if p.get("latest") else None

    def inside(ts: float) -> bool:
        low = ts >= oldest if inclusive else ts > oldest
        high = latest is None or (ts <= latest if inclusive else ts < latest)
        return low and high

    return [m for m in messages if inside(float(m["ts"]))]


def _page(messages: list[dict[str, Any]], p: dict[str, Any], *, default_limit: int) -> dict[str, Any]:
    """Cursor pagination: the cursor is opaque to clients (here: base64 of the next offset)."""
    try:
        start = int(base64.b64decode(str(p.get("cursor") or "")).decode() or 0)
        limit = max(1, min(int(p.get("limit") or default_limit), 1000))
    except ValueError as exc:
        raise SlackError("invalid_cursor") from exc
    chunk = messages[start : start + limit]
    more = start + limit < len(messages)
    cursor = base64.b64encode(str(start + limit).encode()).decode() if more else ""
    return {"messages": chunk, "has_more": more, "response_metadata": {"next_cursor": cursor}}


class Workspace:
    """One Slack workspace as the fake knows it."""

    def __init__(self, *, team_id: str, team_domain: str, bot_user_id: str, bot_id: str, app_id: str) -> None:
        self.team_id, self.team_domain = team_id, team_domain
        self.bot_user_id, self.bot_id, self.app_id = bot_user_id, bot_id, app_id
        self.lock = threading.RLock()
        self.channels: dict[str, dict[str, Any]] = {}
        self.messages: dict[str, list[dict[str, Any]]] = {}
        self.ephemerals: list[dict[str, Any]] = []
        self.files: dict[str, dict[str, Any]] = {}
        #: open modals by view id (views.open / views.update)
        self.views: dict[str, dict[str, Any]] = {}
        #: trigger_id → (issued at, used): what `issue_trigger` handed out, for views.open
        self.triggers: dict[str, tuple[float, bool]] = {}
        self.trigger_ttl = TRIGGER_TTL
        self._last_ts = 0.0

    # ----------------------------------------------------------------- helpers
    def add_channel(self, channel_id: str, name: str, *, private: bool = False) -> None:
        with self.lock:
            self.channels[channel_id] = {"id": channel_id, "name": name, "is_private": private}
            self.messages.setdefault(channel_id, [])

    def _next_ts(self) -> str:
        with self.lock:
            self._last_ts = max(time.time(), self._last_ts + 0.000001)
            return f"{self._last_ts:.6f}"

    def resolve_channel(self, value: Any) -> str:
        name = str(value or "").lstrip("#")
        with self.lock:
            if name in self.channels:
                return name
            for cid, info in self.channels.items():
                if info["name"] == name:
                    return cid
        raise SlackError("channel_not_found")

    def find(self, channel: str, ts: str) -> dict[str, Any] | None:
        with self.lock:
            return next((m for m in self.messages.get(channel, []) if m["ts"] == ts), None)

    def _thread_parent(self, channel: str, thread_ts: Any) -> str | None:
        if thread_ts in (None, ""):
            return None
        parent = self.find(channel, str(thread_ts))
        if parent is None:
            raise SlackError("thread_not_found")
        return str(parent.get("thread_ts") or parent["ts"])

    def _store(self, channel: str, message: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            thread_ts = message.get("thread_ts")
            if thread_ts:
                parent = self.find(channel, thread_ts)
                if parent is not None:
                    parent["thread_ts"] = thread_ts
                    parent["reply_count"] = parent.get("reply_count", 0) + 1
                    parent["latest_reply"] = message["ts"]
            self.messages[channel].append(message)
        return message

    @staticmethod
    def _public(message: dict[str, Any], *, with_metadata: bool = True) -> dict[str, Any]:
        out = copy.deepcopy(message)
        if not with_metadata:
            out.pop("metadata", None)
        return out

    # ----------------------------------------------------------------- methods
    def auth_test(self, p: dict[str, Any]) -> dict[str, Any]:
        return {
            "url": f"https://{self.team_domain}.slack.com/",
            "team": "Denpex Test",
            "user": "denpex",
            "team_id": self.team_id,
            "user_id": self.bot_user_id,
            "bot_id": self.bot_id,
            "is_enterprise_install": False,
        }

    def chat_post_message(self, p: dict[str, Any]) -> dict[str, Any]:
        channel = self.resolve_channel(p.get("channel"))
        text, blocks = validate_message(p)
        thread_ts = self._thread_parent(channel, p.get("thread_ts"))
        message: dict[str, Any] = {
            "type": "message",
            "user": self.bot_user_id,
            "bot_id": self.bot_id,
            "app_id": self.app_id,
            "team": self.team_id,
            "text": text,
            "ts": self._next_ts(),
        }
        if blocks is not None:
            message["blocks"] = blocks
        if thread_ts:
            message["thread_ts"] = thread_ts
        if p.get("metadata"):
            message["metadata"] = parse_json_field(p["metadata"], error="invalid_metadata_format")
        self._store(channel, message)
        return {
            "channel": channel,
            "ts": message["ts"],
            "message": self._public(message, with_metadata=False),
        }

    def chat_update(self, p: dict[str, Any]) -> dict[str, Any]:
        channel = self.resolve_channel(p.get("channel"))
        message = self.find(channel, str(p.get("ts") or ""))
        if message is None:
            raise SlackError("message_not_found")
        text, blocks = validate_message(p)
        with self.lock:
            message["text"] = text
            if blocks is not None:
                message["blocks"] = blocks
            message["edited"] = {"user": self.bot_user_id, "ts": self._next_ts()}
        return {"channel": channel, "ts": message["ts"], "text": text, "message": self._public(message)}

    def chat_post_ephemeral(self, p: dict[str, Any]) -> dict[str, Any]:
        channel = self.resolve_channel(p.get("channel"))
        if not p.get("user"):
            raise SlackError("user_not_in_channel")
        text, blocks = validate_message(p)
        ts = self._next_ts()
        with self.lock:
            self.ephemerals.append(
                {
                    "channel": channel,
                    "user": p["user"],
                    "text": text,
                    "blocks": blocks,
                    "thread_ts": p.get("thread_ts"),
                    "ts": ts,
                }
            )
        return {"message_ts": ts}

    def conversations_replies(self, p: dict[str, Any]) -> dict[str, Any]:
        channel = self.resolve_channel(p.get("channel"))
        parent = self.find(channel, str(p.get("ts") or ""))
        if parent is None:
            raise SlackError("thread_not_found")
        root = str(parent.get("thread_ts") or parent["ts"])
        meta = _truthy(p.get("include_all_metadata", False))
        with self.lock:
            msgs = [
                self._public(m, with_metadata=meta)
                for m in self.messages[channel]
                if m["ts"] == root or m.get("thread_ts") == root
            ]
        return _page(_window(msgs, p), p, default_limit=1000)

    def conversations_history(self, p: dict[str, Any]) -> dict[str, Any]:
        channel = self.resolve_channel(p.get("channel"))
        meta = _truthy(p.get("include_all_metadata", False))
        with self.lock:
            top = [m for m in self.messages[channel] if m.get("thread_ts") in (None, m["ts"])]
        top = [self._public(m, with_metadata=meta) for m in reversed(top)]  # newest first, as Slack
        return {**_page(_window(top, p), p, default_limit=100), "pin_count": 0}

    def files_get_upload_url(self, p: dict[str, Any], *, root_url: str) -> dict[str, Any]:
        if not p.get("filename") or p.get("length") in (None, ""):
            raise SlackError("invalid_arguments", ["[ERROR] filename and length are required"])
        file_id = "F" + uuid.uuid4().hex[:10].upper()
        with self.lock:
            self.files[file_id] = {
                "id": file_id,
                "name": str(p["filename"]),
                "length": int(p["length"]),
                "content": None,
                "title": None,
                "shared": False,
            }
        return {"upload_url": f"{root_url}/upload/v1/{file_id}", "file_id": file_id}

    def upload(self, file_id: str, body: bytes) -> int:
        """The raw POST to the upload URL; Slack answers `200 OK - <length>`."""
        with self.lock:
            info = self.files.get(file_id)
            if info is None:
                return 404
            info["content"] = body
        return 200

    def files_complete_upload(self, p: dict[str, Any]) -> dict[str, Any]:
        entries = parse_json_field(p.get("files"), error="invalid_arguments")
        if not isinstance(entries, list) or not entries:
            raise SlackError("invalid_arguments")
        channel = self.resolve_channel(p["channel_id"]) if p.get("channel_id") else None
        thread_ts = self._thread_parent(channel, p.get("thread_ts")) if channel else None
        done = []
        with self.lock:
            for entry in entries:
                info = self.files.get(str(entry.get("id")))
                if info is None or info["content"] is None:
                    raise SlackError("file_not_found")
                info["title"] = entry.get("title") or info["name"]
                info.update(shared=channel is not None, channel=channel, thread_ts=thread_ts)
                done.append(
                    {
                        "id": info["id"],
                        "name": info["name"],
                        "title": info["title"],
                        "size": len(info["content"]),
                    }
                )
        if channel:
            message = {
                "type": "message",
                "subtype": "file_share" if not thread_ts else None,
                "user": self.bot_user_id,
                "bot_id": self.bot_id,
                "text": str(p.get("initial_comment") or ""),
                "ts": self._next_ts(),
                "files": done,
            }
            if thread_ts:
                message["thread_ts"] = thread_ts
            self._store(channel, {k: v for k, v in message.items() if v is not None})
        return {"files": done}

    def issue_trigger(self) -> str:
        """A trigger_id as Slack puts in an interaction payload (`<ts>.<n>.<hex>`), valid once, for
        `trigger_ttl` seconds."""
        trigger = f"{int(time.time())}.{uuid.uuid4().int % 10**12}.{uuid.uuid4().hex}"
        with self.lock:
            self.triggers[trigger] = (time.monotonic(), False)
        return trigger

    def _take_trigger(self, value: Any) -> None:
        trigger = str(value or "")
        if not trigger:
            raise SlackError("invalid_arguments", ["[ERROR] missing required field: trigger_id"])
        with self.lock:
            issued = self.triggers.get(trigger)
            if issued is None:
                raise SlackError("invalid_trigger_id")
            if issued[1]:
                raise SlackError("exchanged_trigger_id")
            if time.monotonic() - issued[0] > self.trigger_ttl:
                raise SlackError("expired_trigger_id")
            self.triggers[trigger] = (issued[0], True)

    def _view(self, view: dict[str, Any], view_id: str, previous: dict[str, Any] | None) -> dict[str, Any]:
        keep = ("type", "title", "submit", "close", "blocks")
        return {
            "id": view_id,
            "team_id": self.team_id,
            **{k: copy.deepcopy(view.get(k)) for k in keep if view.get(k) is not None},
            "private_metadata": str(view.get("private_metadata") or ""),
            "callback_id": str(view.get("callback_id") or ""),
            "external_id": str(view.get("external_id") or ""),
            "state": {"values": {}},
            "hash": f"{int(time.time())}.{uuid.uuid4().hex[:8]}",
            "clear_on_close": bool(view.get("clear_on_close", False)),
            "notify_on_close": bool(view.get("notify_on_close", False)),
            "root_view_id": (previous or {}).get("root_view_id") or view_id,
            "previous_view_id": None,
            "app_id": self.app_id,
            "bot_id": self.bot_id,
        }

    def views_open(self, p: dict[str, Any]) -> dict[str, Any]:
        view = validate_view(p.get("view"))  # Slack checks the view before it spends the trigger
        self._take_trigger(p.get("trigger_id"))
        view_id = "V" + uuid.uuid4().hex[:10].upper()
        stored = self._view(view, view_id, None)
        with self.lock:
            self.views[view_id] = stored
        return {"view": copy.deepcopy(stored)}

    def views_update(self, p: dict[str, Any]) -> dict[str, Any]:
        view = validate_view(p.get("view"))
        with self.lock:
            view_id = str(p.get("view_id") or "")
            if not view_id and p.get("external_id"):
                view_id = next((v for v, o in self.views.items() if o["external_id"] == p["external_id"]), "")
            old = self.views.get(view_id)
            if old is None:
                raise SlackError("not_found")
            if p.get("hash") and p["hash"] != old["hash"]:
                raise SlackError("hash_conflict")
            self.views[view_id] = self._view(view, view_id, old)
            return {"view": copy.deepcopy(self.views[view_id])}

    def file_text(self, file_id: str) -> str:
        with self.lock:
            return (self.files[file_id]["content"] or b"").decode()

    def channel_messages(self, channel: str) -> list[dict[str, Any]]:
        with self.lock:
            return copy.deepcopy(self.messages.get(channel, []))

    def dumps(self) -> str:
        with self.lock:
            return json.dumps(self.messages, default=str)
