"""A small Python client of the Gem Arena websocket protocol (docs/protocol.md).

It logs in over HTTP like a browser (session cookie), then speaks JSON frames over the match's
websocket. Tests, bots and load tools use it; it has no Django import.
"""

from __future__ import annotations

import asyncio
import json
import re
import urllib.parse
import urllib.request
import uuid
from http.cookiejar import CookieJar
from typing import Any

import websockets


class ClientError(Exception):
    pass


class Refused(ClientError):
    """The server refused an action or message; ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ArenaClient:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.cookies = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    # --- HTTP ---------------------------------------------------------------------------------

    def get(self, path: str) -> str:
        with self.opener.open(self.base_url + path, timeout=10) as response:
            return response.read().decode()

    def post_form(self, path: str, fields: dict[str, str]) -> str:
        """POST a form the way a browser does, with the CSRF token from the page itself."""
        page = self.get(path)
        match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        if match is None:
            raise ClientError(f"no CSRF token on {path}")
        data = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": match.group(1)}).encode()
        request = urllib.request.Request(
            self.base_url + path, data=data, headers={"Referer": self.base_url + path}
        )
        with self.opener.open(request, timeout=10) as response:
            return response.read().decode()

    def login(self, username: str, password: str) -> None:
        self.post_form("/accounts/login/", {"username": username, "password": password})
        if not self.session_cookie():
            raise ClientError(f"login as {username!r} failed")

    def session_cookie(self) -> str | None:
        return next((c.value for c in self.cookies if c.name == "sessionid"), None)

    # --- websocket ----------------------------------------------------------------------------

    def match_socket(
        self, public_id: str, *, since: int | None = None, json_only: bool = True
    ) -> MatchSocket:
        query = {"format": "json"} if json_only else {}
        if since is not None:
            query["since"] = str(since)
        ws_base = self.base_url.replace("http://", "ws://").replace("https://", "wss://")
        url = f"{ws_base}/ws/m/{public_id}/?{urllib.parse.urlencode(query)}"
        return MatchSocket(url, origin=self.base_url, cookie=self.session_cookie())


class MatchSocket:
    """One open match channel: ``async with client.match_socket(id) as socket: ...``."""

    def __init__(self, url: str, *, origin: str, cookie: str | None) -> None:
        self.url = url
        self.origin = origin
        self.cookie = cookie
        self.version = 0
        self.frames: list[dict[str, Any]] = []
        self._connection: Any = None

    async def __aenter__(self) -> MatchSocket:
        headers = {"Cookie": f"sessionid={self.cookie}"} if self.cookie else {}
        self._connection = await websockets.connect(
            self.url, origin=self.origin, additional_headers=headers, max_size=2**22
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._connection.close()

    async def send_raw(self, text: str) -> None:
        await self._connection.send(text)

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_raw(json.dumps(message))

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        frame = json.loads(await asyncio.wait_for(self._connection.recv(), timeout))
        self.frames.append(frame)
        if frame.get("type") in {"update", "full"}:
            self.version = max(self.version, frame["version"])
        return frame

    async def recv_until(self, kind: str, timeout: float = 5.0, **fields: Any) -> dict[str, Any]:
        """Read frames until one of type ``kind`` whose fields match; return it."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError(f"no {kind} frame with {fields} in {timeout}s")
            frame = await self.recv(left)
            if frame.get("type") == kind and all(frame.get(k) == v for k, v in fields.items()):
                return frame

    async def wait_version(self, version: int, timeout: float = 5.0) -> dict[str, Any]:
        """Read until the view at ``version`` (or later) has arrived; return the last frame."""
        deadline = asyncio.get_running_loop().time() + timeout
        frame: dict[str, Any] = {}
        while self.version < version:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError(f"still at version {self.version}, waiting for {version}")
            frame = await self.recv(left)
        return frame

    async def act(self, action: dict[str, Any], *, version: int | None = None) -> int:
        """Send an action and wait for its ack; return the new version or raise Refused."""
        action_id = uuid.uuid4().hex
        message = {"type": "action", "id": action_id, "action": action}
        message["version"] = self.version if version is None else version
        await self.send(message)
        while True:
            frame = await self.recv()
            if frame.get("id") != action_id:
                continue
            if frame["type"] == "ack":
                return frame["version"]
            raise Refused(frame["code"], frame["message"])

    async def resync(self, since: int) -> None:
        await self.send({"type": "resync", "since": since})

    def latest_view(self) -> dict[str, Any]:
        for frame in reversed(self.frames):
            if "view" in frame:
                return frame["view"]
        return {}
