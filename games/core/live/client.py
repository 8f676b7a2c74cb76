"""A small Python client of the Gem Arena websocket protocol (docs/protocol.md).

It logs in over HTTP like a browser (session cookie), then speaks JSON frames over the match's
websocket. Tests, bots and load tools use it; it has no Django import (games.core.render.jsondiff is
pure).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import urllib.parse
import urllib.request
import uuid
from collections import deque
from http.cookiejar import CookieJar
from typing import Any

import websockets
from websockets.typing import Origin

from games.core.render import jsondiff


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

    def post_form(self, path: str, fields: dict[str, str], *, on: str | None = None) -> str:
        """POST a form to ``path`` the way a browser does, with the CSRF token of the page the
        form is on: ``on`` (a match page's host console posting to its operation's address),
        or ``path`` itself."""
        page_path = on or path
        page = self.get(page_path)
        match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        if match is None:
            raise ClientError(f"no CSRF token on {page_path}")
        data = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": match.group(1)}).encode()
        request = urllib.request.Request(
            self.base_url + path, data=data, headers={"Referer": self.base_url + page_path}
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
        self,
        public_id: str,
        *,
        since: int | None = None,
        json_only: bool = True,
        reconnect: bool = True,
    ) -> MatchSocket:
        query = {"format": "json"} if json_only else {}
        query["together"] = "1"  # several frames may come in one message (MatchSocket.recv)
        if since is not None:
            query["since"] = str(since)
        ws_base = self.base_url.replace("http://", "ws://").replace("https://", "wss://")
        url = f"{ws_base}/ws/m/{public_id}/?{urllib.parse.urlencode(query)}"
        return MatchSocket(
            url, origin=self.base_url, cookie=self.session_cookie(), reconnect=reconnect
        )


# How long the update of an acknowledged action may take before the client asks for it (it
# follows the ack at once unless something went wrong; asking at once would double the messages
# of a fast player, who would meet the rate limit).
ACK_GRACE_SECONDS = 1.0

# Closes after which reconnecting cannot help: no such match (4404), the session ended (4401).
FINAL_CLOSE_CODES = frozenset({4401, 4404})


class MatchSocket:
    """One match channel: ``async with client.match_socket(id) as socket: ...``.

    Like the page (static/js/match.js) it keeps itself current: when the connection drops it
    reconnects with backoff, asking for what it missed after ``version``; when an update skips
    a version, or a pong names a version it does not hold, it asks for a resync at once, and
    when an ack's version has not arrived a second after the ack, then. ``version`` only ever
    moves through versions it has seen in order, so a client that reads on holds every event
    gap-free. ``act`` resends its action after a reconnect (action ids are idempotent: an action
    that had been applied is acknowledged as a duplicate). The first connect is not retried: a
    wrong URL or a refused origin fails at once.
    """

    def __init__(
        self,
        url: str,
        *,
        origin: str,
        cookie: str | None,
        reconnect: bool = True,
        backoff: float = 0.25,
        max_backoff: float = 8.0,
    ) -> None:
        parts = urllib.parse.urlsplit(url)
        query = dict(urllib.parse.parse_qsl(parts.query))
        since = query.pop("since", None)
        self._base = parts._replace(query="")
        self._query = query
        self.url = url
        self.origin = origin
        self.cookie = cookie
        self.reconnect = reconnect
        self.backoff = backoff
        self.max_backoff = max_backoff
        # The newest version held with nothing missing before it (at first the `since` given).
        self.version = int(since) if since is not None and since.isdigit() else 0
        self._resume = since is not None
        self.frames: list[dict[str, Any]] = []
        self._came_together: deque[dict[str, Any]] = deque()  # the rest of a message's frames
        # The view at ``version``, patched by each update; None until a full frame brings one
        # (a socket resumed with ``since`` and no view follows the versions only).
        self.view: dict[str, Any] | None = None
        self.reconnects = 0
        self._resync_asked_at: int | None = None
        self._awaited = (0, 0.0)  # an acknowledged version not held yet, and when to ask for it
        self._connection: Any = None
        self._unanswered: dict[str, str] = {}  # action id -> the message, until answered
        self._lock = asyncio.Lock()
        self._closing = False

    # --- connection ---------------------------------------------------------------------------

    def _url(self) -> str:
        query = dict(self._query)
        if self._resume or self.version > 0:
            query["since"] = str(self.version)
        return self._base._replace(query=urllib.parse.urlencode(query)).geturl()

    async def _connect(self) -> None:
        headers = {"Cookie": f"sessionid={self.cookie}"} if self.cookie else {}
        self._connection = await websockets.connect(
            self._url(), origin=Origin(self.origin), additional_headers=headers, max_size=2**22
        )

    async def __aenter__(self) -> MatchSocket:
        await self._connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._closing = True
        if self._connection is not None:
            await self._connection.close()

    async def _reconnected(self, broken: Any, closed: Exception | None) -> Any:
        """A live connection in place of ``broken``: the one another task already opened, or a
        new one, retried with growing, jittered delays while the server is unreachable. The
        actions still awaiting an answer are sent again on it."""
        async with self._lock:
            if self._connection is not broken and self._connection is not None:
                return self._connection
            if self._closing or not self.reconnect or _is_final(closed):
                raise closed or ClientError("the connection is closed")
            self._connection = None
            attempt = 0
            while True:
                delay = min(self.max_backoff, self.backoff * 2**attempt)
                await asyncio.sleep(delay * random.uniform(0.5, 1.0))
                attempt += 1
                try:
                    await self._connect()
                    for text in list(self._unanswered.values()):
                        await self._connection.send(text)
                except websockets.InvalidStatus as refused:
                    if refused.response.status_code < 500:
                        raise
                except (OSError, TimeoutError, websockets.InvalidHandshake):
                    pass
                except websockets.ConnectionClosed:
                    self._connection = None
                else:
                    self.reconnects += 1
                    self._resync_asked_at = None
                    return self._connection

    async def _receive_text(self) -> str:
        connection = self._connection
        while True:
            if connection is None:
                connection = await self._reconnected(None, None)
            try:
                return await connection.recv()
            except websockets.ConnectionClosed as closed:
                connection = await self._reconnected(connection, closed)

    # --- frames ---------------------------------------------------------------------------------

    async def send_raw(self, text: str) -> None:
        connection = self._connection
        if connection is not None:
            try:
                await connection.send(text)
                return
            except websockets.ConnectionClosed as closed:
                connection = await self._reconnected(connection, closed)
        else:
            connection = await self._reconnected(None, None)
        if text not in self._unanswered.values():  # those went again on reconnecting
            await connection.send(text)

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_raw(json.dumps(message))

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        """The next frame from the server (reconnecting on the way if the connection dropped).
        Frames that came together in one message (a JSON array) are returned one by one."""
        if self._came_together:
            frame = self._came_together.popleft()
        else:
            frame = json.loads(await self._next_text(timeout))
            if isinstance(frame, list):
                self._came_together.extend(frame[1:])
                frame = frame[0]
        self.frames.append(frame)
        kind = frame.get("type")
        if kind == "full":
            self.version = frame["version"]
            self.view = frame["view"]
        elif kind == "update":
            if frame["version"] == self.version + 1:
                try:
                    if self.view is not None:
                        self.view = jsondiff.applied(self.view, frame["patch"], frame.get("event"))
                except jsondiff.PatchError:
                    await self.resync(0)  # the view no longer fits: ask for it whole
                else:
                    self.version = frame["version"]
            elif frame["version"] > self.version + 1 and self._resync_asked_at != self.version:
                # A frame went missing (a lost broadcast): ask for everything after ours.
                self._resync_asked_at = self.version
                await self.resync(self.version)
        elif kind == "pong" and frame["version"] > self.version:
            await self._behind()
        elif kind == "ack" and frame["version"] > self.version:
            # Its update normally follows at once. If it has not come within ACK_GRACE_SECONDS
            # (its worker died right after the ack, the layer lost it), ask for it.
            due = asyncio.get_running_loop().time() + ACK_GRACE_SECONDS
            self._awaited = (max(frame["version"], self._awaited[0]), due)
        return frame

    async def _next_text(self, timeout: float) -> str:
        """The next frame's text; meanwhile, an acknowledged version still missing at the end of
        its grace is asked for."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            version, due = self._awaited
            if version <= self.version:
                due = deadline
            try:
                return await asyncio.wait_for(
                    self._receive_text(), min(due, deadline) - loop.time()
                )
            except TimeoutError:
                if loop.time() >= deadline:
                    raise
            self._awaited = (0, 0.0)
            await self._behind()

    async def _behind(self) -> None:
        """Ask for what follows the version held, having dropped nothing: the server sends only
        what this connection has not sent already (a version read when that is nothing)."""
        await self.send({"type": "resync", "since": self.version, "behind": True})

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

    async def act(
        self, action: dict[str, Any], *, version: int | None = None, timeout: float = 10.0
    ) -> int:
        """Send an action and wait for its ack; return the new version or raise Refused. If the
        connection drops meanwhile, the same action (same id) is sent again once reconnected."""
        action_id = uuid.uuid4().hex
        message: dict[str, Any] = {"type": "action", "id": action_id, "action": action}
        message["version"] = self.version if version is None else version
        text = json.dumps(message)
        self._unanswered[action_id] = text
        try:
            await self.send_raw(text)
            deadline = asyncio.get_running_loop().time() + timeout
            while True:
                left = deadline - asyncio.get_running_loop().time()
                if left <= 0:
                    raise TimeoutError(f"no answer to action {action_id} in {timeout}s")
                frame = await self.recv(left)
                if frame.get("id") != action_id:
                    continue
                if frame["type"] == "ack":
                    return frame["version"]
                raise Refused(frame["code"], frame["message"])
        finally:
            del self._unanswered[action_id]

    async def resync(self, since: int) -> None:
        await self.send({"type": "resync", "since": since})

    def latest_view(self) -> dict[str, Any]:
        """The view at the newest version held: the last full frame's, patched by every update
        since (an update frame carries a patch, never the whole view)."""
        return self.view or {}


def _is_final(closed: Exception | None) -> bool:
    received = getattr(closed, "rcvd", None)
    return received is not None and received.code in FINAL_CLOSE_CODES
