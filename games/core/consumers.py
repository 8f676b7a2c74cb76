"""The live channel of one match. Thin: it authenticates, rate-limits, parses frames and hands
everything to services and rendering. The seat always comes from the session, never the frame."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from games.core import protocol, services
from games.core.broadcast import group_name
from games.core.gamedef import Viewer
from games.core.models import Match
from games.core.rendering import full_frame, update_frame


class TokenBucket:
    """Per-connection rate limit: ``burst`` frames at once, ``rate`` per second on average."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.capacity = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class MatchConsumer(AsyncWebsocketConsumer):
    match: Match
    viewer: Viewer
    group: str | None = None

    async def connect(self) -> None:
        public_id = self.scope["url_route"]["kwargs"]["public_id"]
        query = parse_qs(self.scope.get("query_string", b"").decode())
        self.with_html = query.get("format", ["html"])[0] != "json"
        self.bucket = TokenBucket(settings.WS_RATE_PER_SECOND, settings.WS_RATE_BURST)
        self.strikes = 0
        found = await database_sync_to_async(self._load)(public_id)
        if not found:
            await self.accept()
            await self._send_error("unknown_match", f"there is no match {public_id!r}")
            await self.close(code=protocol.CLOSE_UNKNOWN_MATCH)
            return
        self.group = group_name(self.match.pk, self.viewer)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        since = query.get("since", [None])[0]
        await self._catch_up(int(since) if since and since.isdigit() else None)

    def _load(self, public_id: str) -> bool:
        match = Match.objects.filter(public_id=public_id).prefetch_related("seats").first()
        if match is None:
            return False
        self.match = match
        self.viewer = match.viewer_for(self.scope.get("user"))
        return True

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        size = len(text_data.encode()) if text_data is not None else len(bytes_data or b"")
        if not self.bucket.take():
            self.strikes += 1
            await self._send_error("rate_limited", "too many messages; slow down")
            if self.strikes >= protocol.MAX_RATE_STRIKES:
                await self.close(code=protocol.CLOSE_RATE_LIMITED)
            return
        if size > settings.WS_MAX_FRAME_BYTES:
            await self._send_error(
                "frame_too_large",
                f"a message may hold at most {settings.WS_MAX_FRAME_BYTES} bytes",
            )
            return
        try:
            message = protocol.parse_client_message(text_data, bytes_data)
        except protocol.ProtocolError as error:
            await self._send_error(error.code, error.message, message_id=error.message_id)
            return
        if message["type"] == "ping":
            await self._send({"type": "pong", "server_time": int(time.time() * 1000)})
        elif message["type"] == "resync":
            await self._catch_up(message["since"])
        elif message["type"] == "action":
            await self._act(message)

    async def _act(self, message: dict[str, Any]) -> None:
        try:
            accepted = await database_sync_to_async(services.submit_action)(
                self.match,
                self.scope.get("user"),
                message["action"],
                client_action_id=message["id"],
                expected_version=message.get("version"),
            )
        except services.ActionRefused as refusal:
            await self._send_error(refusal.code, refusal.message, message_id=message["id"])
            return
        await self._send(
            {
                "type": "ack",
                "id": message["id"],
                "version": accepted.version,
                "duplicate": accepted.duplicate,
            }
        )

    async def _catch_up(self, since: int | None) -> None:
        frames = await database_sync_to_async(self._frames_since)(since)
        for frame in frames:
            await self._send(frame)

    def _frames_since(self, since: int | None) -> list[dict[str, Any]]:
        match = Match.objects.prefetch_related("seats").get(pk=self.match.pk)
        self.match = match
        missed = match.version - since if since is not None else None
        if missed is None or missed < 0 or missed > settings.RESYNC_MAX_EVENTS:
            return [full_frame(match, self.viewer, with_html=self.with_html)]
        events = match.events.filter(version__gt=since).order_by("version")
        return [update_frame(match, self.viewer, e, with_html=self.with_html) for e in events]

    async def match_frame(self, message: dict[str, Any]) -> None:
        frame = message["frame"]
        if not self.with_html:
            frame = {key: value for key, value in frame.items() if key != "html"}
        await self._send(frame)

    async def _send(self, frame: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(frame, separators=(",", ":")))

    async def _send_error(self, code: str, message: str, message_id: str | None = None) -> None:
        frame: dict[str, Any] = {"type": "error", "code": code, "message": message}
        if message_id is not None:
            frame["id"] = message_id
        await self._send(frame)
