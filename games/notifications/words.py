"""Words that must fit a length (a notification, a mail's subject, a post, a log line): cut
at a word with an ellipsis, never mid-word. Pure (standard library only)."""

from __future__ import annotations

ELLIPSIS = "…"
# What a cut leaves dangling before the ellipsis.
DANGLING = " ,;:-–(" + ELLIPSIS


def shortened(text: str | None, limit: int) -> str:
    """``text`` with its runs of spaces made one, and if longer than ``limit`` characters, cut
    after its last whole word that fits, with an ellipsis (one endless word is cut where it
    must be). The words cut off are on the page the notification links to."""
    words = " ".join(str(text or "").split())
    if len(words) <= limit:
        return words
    room = limit - len(ELLIPSIS)
    head = words[:room]
    if words[room] != " " and " " in head:
        head = head[: head.rindex(" ")]
    return head.rstrip(DANGLING) + ELLIPSIS
