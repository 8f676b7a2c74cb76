"""The websocket protocol's messages and codes (documented in docs/protocol.md)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from games.core.game.gamedef import ActionError

CLOSE_UNKNOWN_MATCH = 4404
CLOSE_RATE_LIMITED = 4429
CLOSE_SESSION_ENDED = 4401
CLOSE_UNAVAILABLE = 4503
MAX_RATE_STRIKES = 20

CLIENT_TYPES = {"action", "draft", "resync", "ping", "chat", "hint"}
CHAT_OPS = {"post", "mute", "unmute", "history"}


class ProtocolError(ActionError):
    """A frame the protocol refuses (its shape, not the rules); remembers the message's id."""

    def __init__(self, message: str, code: str, message_id: str | None = None) -> None:
        super().__init__(message, code)
        self.message_id = message_id


class _NotANumber(Exception):
    """NaN or an infinity in a message: JSON has no such number, and the database keeps none."""


def _refuse_constant(name: str) -> float:
    raise _NotANumber(name)


def _finite(literal: str) -> float:
    number = float(literal)
    if math.isinf(number):  # 1e400: valid JSON, too large for a float
        raise _NotANumber(literal[:20])
    return number


# A NUL (PostgreSQL keeps none in text or JSON) or half of a surrogate pair (no character at all:
# a JSON escape like \ud800 with no partner; a well-formed pair is read as one character).
_UNKEEPABLE = re.compile("[\x00\ud800-\udfff]")


def _holds_unkeepable(message: Any) -> bool:
    """Does any string (a key or a value) anywhere in ``message`` hold what no store keeps?"""
    stack = [message]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if _UNKEEPABLE.search(value):
                return True
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


def _loads(text: str) -> Any:
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except json.JSONDecodeError as error:
        raise ProtocolError(f"the message is not valid JSON ({error.msg})", "bad_json") from None
    except RecursionError:
        raise ProtocolError("the message is nested too deeply", "bad_json") from None
    except _NotANumber as number:
        raise ProtocolError(
            f"the server cannot keep the number {number} (JSON numbers are finite)",
            "bad_message",
            _message_id(text),
        ) from None
    except ValueError:  # an integer of thousands of digits
        raise ProtocolError("the message holds a number too long to read", "bad_json") from None


def _message_id(text: str) -> str | None:
    """The message's id, read again without its numbers, so the refusal can name it."""
    try:
        message = json.loads(text, parse_constant=lambda name: None, parse_float=lambda f: None)
    except (ValueError, RecursionError):
        return None
    return _echoable_id(message) if isinstance(message, dict) else None


def draft_id(message: dict[str, Any]) -> str | None:
    """The id a draft message may carry (told back with the draft, to every page of the seat)."""
    return _echoable_id(message)


def _echoable_id(message: dict[str, Any]) -> str | None:
    """The message's id, if it is one a refusal can carry back."""
    message_id = message.get("id")
    if isinstance(message_id, str) and len(message_id) <= 64 and not _UNKEEPABLE.search(message_id):
        return message_id
    return None


def parse_client_message(text: str | None, data: bytes | None) -> dict[str, Any]:
    """Check a client frame's shape; the rules are not checked here."""
    if text is None:
        raise ProtocolError("send JSON text frames, not binary", "bad_frame")
    message = _loads(text)
    if not isinstance(message, dict):
        raise ProtocolError("a message is a JSON object", "bad_message")
    if _holds_unkeepable(message):
        raise ProtocolError(
            "the server cannot keep a NUL character or half of a surrogate pair; "
            "send text as it is typed",
            "bad_message",
            _echoable_id(message),
        )
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
    """A chat message's shape (who may say what is games/core/match/chat.py's)."""
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
