"""The websocket protocol's messages and codes (documented in docs/protocol.md)."""

from __future__ import annotations

import json
from typing import Any

CLOSE_UNKNOWN_MATCH = 4404
CLOSE_RATE_LIMITED = 4429
MAX_RATE_STRIKES = 20

CLIENT_TYPES = {"action", "resync", "ping"}


class ProtocolError(ValueError):
    def __init__(self, code: str, message: str, message_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.message_id = message_id


def parse_client_message(text: str | None, data: bytes | None) -> dict[str, Any]:
    """Check a client frame's shape; the rules are not checked here."""
    if text is None:
        raise ProtocolError("bad_frame", "send JSON text frames, not binary")
    try:
        message = json.loads(text)
    except json.JSONDecodeError as error:
        raise ProtocolError("bad_json", f"the message is not valid JSON ({error.msg})") from None
    if not isinstance(message, dict):
        raise ProtocolError("bad_message", "a message is a JSON object")
    kind = message.get("type")
    if kind not in CLIENT_TYPES:
        raise ProtocolError("unknown_type", f"unknown message type {kind!r}")
    if kind == "resync":
        since = message.get("since")
        if not isinstance(since, int) or isinstance(since, bool) or since < 0:
            raise ProtocolError("bad_message", "resync needs 'since', a version >= 0")
    if kind == "action":
        message_id = message.get("id")
        action = message.get("action")
        if "seat" in message or (isinstance(action, dict) and "seat" in action):
            raise ProtocolError(
                "forged_seat",
                "the server knows your seat from your session; a message may not name one",
                message_id if isinstance(message_id, str) else None,
            )
        if not isinstance(message_id, str) or not 0 < len(message_id) <= 64:
            raise ProtocolError("bad_message", "an action needs 'id', a string of 1-64 chars")
        version = message.get("version")
        if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
            raise ProtocolError("bad_message", "'version' must be an integer", message_id)
        if not isinstance(message.get("action"), dict):
            raise ProtocolError("bad_message", "'action' must be an object", message_id)
    return message
