"""A frame as it travels: its panels (whole, or patches of what the viewer holds), serialised
once, packed for the channel layer and unpacked once a worker.

A frame's panels are the swappable top-level elements of a game's ``_panels.html``; each goes
with a hash of its HTML, so that a connection sends a viewer only the panels that changed since
the last frame it sent (games/core/live/consumers.py), as a patch where that is smaller
(htmlpatch).
"""

from __future__ import annotations

import hashlib
import json
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from games.core.render import htmlpatch
from games.core.render.lru import Lru


def dumps(data: Any) -> str:
    """JSON as a frame says it: without spaces."""
    return _ENCODER.encode(data)


# json.dumps with any option not its default makes an encoder for each call: one made once says
# the same (a frame's drawing says some fifty texts for each audience).
_ENCODER = json.JSONEncoder(separators=(",", ":"))


# Between the panels of a frame's "html": the page keeps each panel's HTML as it was sent, to
# apply the next frame's patches of it (static/js/match.js).
PANEL_SEPARATOR = "<!--panel-->"


@dataclass(frozen=True)
class Panel:
    """One panel of a frame: its element id, a hash of its HTML, the HTML already escaped as
    the inside of a JSON string, and, when the panel changed since the viewer's previous
    version, the hash of that version's HTML and a patch from it (JSON text; htmlpatch)."""

    id: str
    digest: str
    escaped: str  # "" in a frame from the layer where the panel did not travel whole
    base: str = ""
    patch: str = ""
    unchanged: bool = False  # the audience's panel at the version before is the same
    # What the panel is compared with (its patch's base, or the same panel) is what the audience
    # was sent at the version before (kept by the worker that sent it), not drawn again here
    # from the state before: only then may a layer message leave the panel's HTML out.
    sure: bool = False

    def packed(self) -> list[Any]:
        """The panel in a layer message: whole only where a connection that holds its
        audience's version before needs it whole (a new panel, a change with no patch worth
        sending). A connection that lacks one draws the frame itself (``Frame.lacks``)."""
        carried = "" if self.sure and (self.unchanged or self.patch) else self.escaped
        return [self.id, self.digest, carried, self.base, self.patch]


@dataclass(frozen=True)
class Frame:
    """A frame for one audience, serialised once: ``head`` is the JSON text of everything but
    the panels. A connection joins the panels its viewer lacks onto the head (``text``): a
    panel it holds unchanged is left out, one it holds at the version before goes as a patch."""

    version: int
    head: str
    panels: tuple[Panel, ...]
    full: bool = False
    # Whom it is drawn for: the audience, and the user holding each seat as it was drawn
    # (authority.seat_holders); a connection whose viewer they contradict is decided again
    # before it sends anything (games/core/live/consumers.py).
    audience: str = ""
    holders: tuple[int | None, ...] = ()

    def text(self, with_html: bool, sent: dict[str, str] | None) -> str:
        """The frame as sent. ``sent`` maps panel ids to the hashes this connection has sent;
        only panels whose hash differs are included, as a patch where the connection holds
        the patch's base, and ``sent`` is updated. None: every panel whole."""
        if not with_html:
            return self.head
        whole, patches = [], []
        for panel in self.panels:
            if sent is not None:
                held = sent.get(panel.id)
                if held == panel.digest:
                    continue
                sent[panel.id] = panel.digest
                if panel.patch and held == panel.base:
                    patches.append(f'["{panel.id}",{panel.patch}]')
                    continue
            if not panel.escaped:
                raise ValueError(f"v{self.version}: {panel.id} did not travel whole (see lacks)")
            whole.append(panel.escaped)
        text = f'{self.head[:-1]},"html":"{PANEL_SEPARATOR.join(whole)}"'
        if patches:
            text += f',"html_patch":[{",".join(patches)}]'
        return text + "}"

    def lacks(self, sent: dict[str, str]) -> bool:
        """Whether a connection that sent ``sent`` (panel hashes by id) needs a panel whole
        that this frame (from the layer) did not carry."""
        for panel in self.panels:
            if panel.escaped:
                continue
            held = sent.get(panel.id)
            if held != panel.digest and not (panel.patch and held == panel.base):
                return True
        return False

    def as_message(self) -> dict[str, Any]:
        """The frame as a layer message: its JSON text compressed into one string of bytes (a
        connection's message allocates almost no objects, so hundreds of them queued at once
        wake no garbage collection) and its digest, under which a worker unpacks it once for
        all its connections."""
        # The head goes as JSON, not as a string of it (escaped again, it grew by a sixth).
        rest = dumps([[panel.packed() for panel in self.panels], self.audience, self.holders])
        packed = f"[{self.version},{self.head},{rest[1:]}".encode()
        digest = hashlib.blake2b(packed, digest_size=16).hexdigest()
        frame = zlib.compress(packed, LAYER_COMPRESSION)
        # Where the head ends (in characters): the receiving worker takes its text as it is.
        return {"version": self.version, "frame": frame, "digest": digest, "head": len(self.head)}

    @classmethod
    def from_message(cls, message: dict[str, Any]) -> Frame:
        """The frame of a layer message, parsed once a worker (the same message reaches every
        connection of its audience)."""
        parsed = _parsed.get(message["digest"])
        if parsed is None:
            frame = message["frame"]
            text = zlib.decompress(frame).decode() if isinstance(frame, bytes) else frame
            length = message.get("head")
            if length is None:  # a message from a worker before the head's length came
                version, head, panels, audience, holders = json.loads(text)
                head = dumps(head)  # the text it was: the same separators, keys in order
            else:  # the head's text cut out, not parsed and said again
                version = message["version"]
                start = len(str(version)) + 2
                head = text[start : start + length]
                panels, audience, holders = json.loads(f"[{text[start + length + 1 :]}")
            parsed = cls(
                version=version,
                head=head,
                panels=tuple(Panel(*p) for p in panels),
                audience=audience,
                holders=tuple(holders),
            )
            _parsed.put(message["digest"], parsed)
        return parsed


# A frame's JSON through the layer is compressed (zlib's fastest level): 55-60% fewer bytes into
# Redis and out to each worker, for about 0.04 ms of CPU a message of 3 KB (issue 39; a smaller
# window and state, tried, squeezed real frames more slowly).
LAYER_COMPRESSION = 1

# The frames this worker's connections were sent lately, parsed, by their message's digest.
_parsed: Lru[str, Frame] = Lru(64)


@lru_cache(maxsize=256)
def _escaped(html: str) -> str:
    """``html`` as the inside of a JSON string (a panel drawn alike for audiences: once)."""
    return dumps(html)[1:-1]


@lru_cache(maxsize=256)
def digest(html: str) -> str:
    """A panel's hash: what a connection remembers having sent."""
    return hashlib.blake2b(html.encode(), digest_size=8).hexdigest()


def panels_of(
    rendered: dict[str, str],
    before: dict[str, str] | None = None,
    patches: dict[tuple[str, str], list[Any]] | None = None,
    sent: bool = False,
) -> tuple[Panel, ...]:
    """The panels of ``rendered`` (HTML by id, in page order), each changed one since
    ``before`` with its patch."""
    entries = []
    patches = {} if patches is None else patches
    for panel_id, html in rendered.items():
        base, patch = "", ""
        old = (before or {}).get(panel_id)
        if old is not None and old != html:
            if (old, html) not in patches:
                ops = dumps(htmlpatch.diff(old, html))
                worth = htmlpatch.worth_sending(ops, _escaped(html))
                patches[old, html] = [digest(old), ops] if worth else ["", ""]
            base, patch = patches[old, html]
        unchanged = old is not None and old == html
        panel = Panel(panel_id, digest(html), _escaped(html), base, patch, unchanged, sent)
        entries.append(panel)
    return tuple(entries)
