"""Frames as a client holds them: an update frame carries a patch of the view, never the whole
view, so a test that reads the view after an update applies the patches as a page does."""

from __future__ import annotations

import copy
from typing import Any

from games.core.render import jsondiff


def with_views(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``frames`` (from a full frame on) with each full or update frame's ``view`` the view a
    client holds after it; other frames as they are. As a client does, an update is applied
    only on the version it follows (one out of order leaves the view as it was)."""
    view: Any = None
    version = -1
    held = []
    for frame in frames:
        if frame.get("type") == "full":
            view, version = frame["view"], frame["version"]
        elif frame.get("type") == "update":
            if frame["version"] == version + 1:
                view = jsondiff.apply(copy.deepcopy(view), frame["patch"], frame.get("event"))
                version = frame["version"]
            frame = {**frame, "view": view}
        held.append(frame)
    return held
