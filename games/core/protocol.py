"""The websocket protocol's messages and codes (documented in docs/protocol.md)."""

from __future__ import annotations

import json
from typing import Any

from games.core.gamedef import ActionError

CLOSE_UNKNOWN_MATCH = 4404
CLOSE_RATE_LIMITED = 4429
CLOSE_SESSION_ENDED = 4401
CLOSE_UNAVAILABLE = 4503
MAX_RATE_STRIKES = 20

CLIENT_TYPES = {"action", "draft", "resync", "ping", "chat"}
CHAT_OPS = {"post", "mute", "unmute", "history"}


class ProtocolError(ActionError):
    """A frame the protocol refuses (its shape, not the rules); remembers the message's id."""

    def __init__(self, message: str, code: str, message_id: str | None = None) -> None:
        super().__init__(message, code)
        self.message_id = message_id


def parse_client_message(text: str | None, data: bytes | None) -> dict[str, Any]:
    """Check a client frame's shape; the rules are not checked here."""
    if text is None:
        raise ProtocolError("send JSON text frames, not binary", "bad_frame")
    try:
        message = json.loads(text)
    except json.JSONDecodeError as error:
        raise ProtocolError(f"the message is not valid JSON ({error.msg})", "bad_json") from None
    except RecursionError:
        raise ProtocolError("the message is nested too deeply", "bad_json") from None
    if not isinstance(message, dict):
        raise ProtocolError("a message is a JSON object", "bad_message")
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_TYPES:
        shown = repr(kind)[:40] if isinstance(kind, str) else type(kind).__name__
        raise ProtocolError(f"unknown message type {shown}", "unknown_type")
    if kind == "resync":
        since = message.get("since")
        if not isinstance(since, int) or isinstance(since, bool) or since < 0:
            raise ProtocolError("resync needs 'since', a version >= 0", "bad_message")
    if kind == "draft" and not isinstance(message.get("draft"), dict):
        raise ProtocolError("a draft message needs 'draft', an object", "bad_message")
    if kind == "chat":
        _check_chat(message)
    if kind == "action":
        message_id = message.get("id")
        action = message.get("action")
        if "seat" in message or (isinstance(action, dict) and "seat" in action):
            raise ProtocolError(
                "the server knows your seat from your session; a message may not name one",
                "forged_seat",
                message_id if isinstance(message_id, str) else None,
            )
        if not isinstance(message_id, str) or not 0 < len(message_id) <= 64:
            raise ProtocolError("an action needs 'id', a string of 1-64 chars", "bad_message")
        version = message.get("version")
        if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
            raise ProtocolError("'version' must be an integer", "bad_message", message_id)
        if not isinstance(message.get("action"), dict):
            raise ProtocolError("'action' must be an object", "bad_message", message_id)
    return message


def _check_chat(message: dict[str, Any]) -> None:
    """A chat message's shape (who may say what is games/core/chat.py's)."""
    message_id = message.get("id")
    if not isinstance(message_id, str) or not 0 < len(message_id) <= 64:
        raise ProtocolError("a chat message needs 'id', a string of 1-64 chars", "bad_message")
    op = message.setdefault("op", "post")
    if not isinstance(op, str) or op not in CHAT_OPS:
        raise ProtocolError(f"unknown chat op {str(op)[:20]!r}", "bad_message", message_id)
    channel = message.get("channel")
    if op == "post" and not (isinstance(channel, str) and isinstance(message.get("text"), str)):
        raise ProtocolError("a chat post needs 'channel' and 'text'", "bad_message", message_id)
    if op in {"mute", "unmute"}:
        user = message.get("user")
        names_user = type(user) is int and 0 < user < 2**53
        if names_user == isinstance(channel, str) or (user is not None and not names_user):
            raise ProtocolError(
                "mute names either 'user' (an id) or 'channel'", "bad_message", message_id
            )


def dumps(frame: dict[str, Any]) -> str:
    return json.dumps(frame, separators=(",", ":"))
