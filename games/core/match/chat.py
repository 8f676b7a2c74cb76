"""The match chat: who may read and write each channel, posting, muting and history.

Two channels per match, decided as a fair host would:

- ``players``: the seated players and the host. Never shown to spectators: table talk may touch
  what only the players know.
- ``spectators``: the spectators and the host. The seated players neither read nor write it while
  the match is played (no coaching from the rail); once it is over, it is everyone's.

Anyone may read what their role may read; writing needs an account. The host (or staff) writes in
both channels, is never muted, and may mute a user (in every channel of the match) or a whole
channel, and lift it. Everyone may send ``RATE_COUNT`` messages per ``RATE_SECONDS`` (counted in
the database, so every worker agrees). Every check of the chat lives here: the consumer parses a
frame, calls :func:`handle` and sends what it returns.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q

from games.core.game.gamedef import ActionError, Viewer
from games.core.live import broadcast
from games.core.match import clock
from games.core.models import ChatMessage, ChatMute, Match, display_name

PLAYERS = ChatMessage.Channel.PLAYERS.value
SPECTATORS = ChatMessage.Channel.SPECTATORS.value
CHANNELS = (PLAYERS, SPECTATORS)
LABELS = {PLAYERS: "Players", SPECTATORS: "Spectators"}
HISTORY_SIZE = 50
MAX_LENGTH = ChatMessage.MAX_LENGTH
RATE_COUNT = 5
RATE_SECONDS = 10


@dataclass(frozen=True)
class Reply:
    """What a chat message answers its sender (what it tells the groups leaves on commit)."""

    frame: dict[str, Any]


# --- who reads and writes what ---------------------------------------------------------------


def may_read(viewer: Viewer, channel: str, *, over: bool) -> bool:
    if viewer.is_host:
        return True
    if channel == PLAYERS:
        return viewer.seat is not None
    return viewer.seat is None or over


def readable_channels(viewer: Viewer, *, over: bool) -> list[str]:
    return [channel for channel in CHANNELS if may_read(viewer, channel, over=over)]


def write_refusal(
    match: Match, user: Any, viewer: Viewer, channel: str, mutes: list[ChatMute]
) -> ActionError | None:
    """Why ``user`` may not write in ``channel`` now (None: they may), the rate apart."""
    if channel not in CHANNELS:
        return ActionError(f"there is no chat channel {channel[:20]!r}", "chat_unknown_channel")
    if not getattr(user, "is_authenticated", False):
        return ActionError("Sign in to chat; you can read without an account.", "chat_sign_in")
    if not may_read(viewer, channel, over=match.is_over):
        if channel == PLAYERS:
            return ActionError(
                "Only the seated players and the host write in the players' chat.",
                "chat_not_allowed",
            )
        return ActionError(
            "Players join the spectators' chat when the match is over.", "chat_not_allowed"
        )
    if viewer.is_host:
        return None
    if any(mute.user_id == user.pk for mute in mutes):
        return ActionError("The host muted you in this match's chat.", "chat_muted")
    if any(mute.channel == channel for mute in mutes):
        return ActionError(
            f"The host muted the {LABELS[channel].lower()}' chat.", "chat_channel_muted"
        )
    return None


def group_name(match_pk: int, channel: str) -> str:
    return f"match.{match_pk}.chat.{channel}"


def groups_for(match_pk: int, viewer: Viewer) -> list[str]:
    """The chat groups a socket joins: each channel the viewer may ever read. A seat joins the
    spectators' channel too (it opens when the match is over); :func:`may_receive` drops its
    frames until then."""
    channels = CHANNELS if viewer.is_host or viewer.seat is not None else (SPECTATORS,)
    return [group_name(match_pk, channel) for channel in channels]


def may_receive(viewer: Viewer, message: dict[str, Any]) -> bool:
    """Whether a socket of ``viewer`` forwards a ``chat.message`` from the channel layer."""
    channel = message.get("channel")
    return channel is None or may_read(viewer, channel, over=message.get("over", False))


# --- what viewers are sent --------------------------------------------------------------------


def as_dict(message: ChatMessage, match: Match) -> dict[str, Any]:
    author = message.author
    viewer = match.viewer_for(author)
    if viewer.seat is not None:
        badge = f"Seat {viewer.seat + 1}"
    else:
        badge = "Host" if viewer.is_host else ""
    return {
        "id": message.pk,
        "channel": message.channel,
        "author": display_name(author),
        "author_id": author.pk,
        "badge": badge,
        "text": message.text,
        "at": message.created_at.isoformat(),
    }


def mutes_of(mutes: list[ChatMute]) -> dict[str, Any]:
    return {
        "users": [
            {"id": mute.user_id, "name": display_name(mute.user)} for mute in mutes if mute.user_id
        ],
        "channels": [mute.channel for mute in mutes if mute.channel],
    }


def _mutes(match: Match) -> list[ChatMute]:
    return list(ChatMute.objects.filter(match=match).select_related("user"))


def history(match: Match, viewer: Viewer) -> dict[str, list[dict[str, Any]]]:
    """The last ``HISTORY_SIZE`` messages of each channel ``viewer`` may read, oldest first."""
    found = {}
    for channel in readable_channels(viewer, over=match.is_over):
        latest = (
            ChatMessage.objects.filter(match=match, channel=channel)
            .select_related("author")
            .order_by("-id")[:HISTORY_SIZE]
        )
        found[channel] = [as_dict(message, match) for message in reversed(latest)]
    return found


def _readers(channel: str, *, over: bool) -> str:
    if channel == PLAYERS:
        return "Read by the seated players and the host."
    if over:
        return "Read by everyone."
    return "Read by the spectators and the host; the players join when the match is over."


def panel(match: Match, user: Any) -> dict[str, Any]:
    """What the page's chat panel shows ``user`` (templates/core/_chat.html)."""
    viewer = match.viewer_for(user)
    mutes = _mutes(match)
    channels = []
    for channel, messages in history(match, viewer).items():
        refusal = write_refusal(match, user, viewer, channel, mutes)
        channels.append(
            {
                "key": channel,
                "label": LABELS[channel],
                "messages": messages,
                "readers": _readers(channel, over=match.is_over),
                "refusal": refusal.message if refusal else "",
                "refusal_code": refusal.code if refusal else "",
                "muted": any(mute.channel == channel for mute in mutes),
            }
        )
    return {
        "channels": channels,
        "muted_ids": {mute.user_id for mute in mutes if mute.user_id},
        "mutes": mutes_of(mutes),
        "is_host": viewer.is_host,
        "max_length": MAX_LENGTH,
    }


# --- changes ----------------------------------------------------------------------------------


def clean_text(text: str) -> str:
    """The text as stored: control characters and runs of spaces become one space."""
    kept = "".join(" " if unicodedata.category(ch) in {"Cc", "Cs"} else ch for ch in text)
    return " ".join(kept.split())


def post(
    match: Match, user: Any, channel: str, text: str, *, now: datetime | None = None
) -> ChatMessage:
    """Store a message after every check; raises ActionError (nothing stored) otherwise."""
    now = now or clock.now()
    viewer = match.viewer_for(user)
    refusal = write_refusal(match, user, viewer, channel, _mutes(match))
    if refusal is not None:
        raise refusal
    text = clean_text(text)
    if not text:
        raise ActionError("Type a message first.", "chat_empty")
    if len(text) > MAX_LENGTH:
        raise ActionError(
            f"A message holds at most {MAX_LENGTH} characters (this one has {len(text)}).",
            "chat_too_long",
        )
    with transaction.atomic():
        # One writer per user at a time, so two sockets cannot both slip under the rate.
        list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))
        _check_rate(user, now)
        posted = ChatMessage.objects.create(
            match=match, channel=channel, author=user, text=text, created_at=now
        )
        layer = {
            "type": "chat.message",
            "channel": posted.channel,
            "over": match.is_over,
            "frame": {"type": "chat", "message": as_dict(posted, match)},
        }
        broadcast.publish([(group_name(match.pk, posted.channel), layer)])
        return posted


def _check_rate(user: Any, now: datetime) -> None:
    since = now - timedelta(seconds=RATE_SECONDS)
    recent = list(
        ChatMessage.objects.filter(author=user, created_at__gt=since)
        .order_by("-created_at")
        .values_list("created_at", flat=True)[:RATE_COUNT]
    )
    if len(recent) >= RATE_COUNT:
        wait = max(1, round((recent[-1] - since).total_seconds()))
        raise ActionError(
            f"You can send {RATE_COUNT} messages every {RATE_SECONDS} seconds; wait {wait} s.",
            "chat_rate_limited",
        )


def set_mute(
    match: Match,
    host: Any,
    *,
    muted: bool,
    user_id: int | None = None,
    channel: str | None = None,
    now: datetime | None = None,
) -> list[ChatMute]:
    """Mute (or unmute) one user or one channel; only the host may. Returns the match's mutes."""
    if not match.viewer_for(host).is_host:
        raise ActionError("Only the host can mute the chat.", "chat_host_only")
    if (user_id is None) == (channel is None):
        raise ActionError("Mute either a user or a channel.", "bad_message")
    target = None
    if user_id is not None:
        target = get_user_model().objects.filter(pk=user_id).first()
        if target is None:
            raise ActionError("There is no such user.", "chat_unknown_user")
        if match.viewer_for(target).is_host:
            raise ActionError("The host cannot be muted.", "chat_cannot_mute_host")
    elif channel is not None and channel not in CHANNELS:
        raise ActionError(f"there is no chat channel {channel[:20]!r}", "chat_unknown_channel")
    which = Q(user=target) if target is not None else Q(user__isnull=True, channel=channel)
    with transaction.atomic():
        if muted:
            if not ChatMute.objects.filter(which, match=match).exists():
                ChatMute.objects.create(
                    match=match,
                    user=target,
                    channel=channel or "",
                    muted_by=host,
                    created_at=now or clock.now(),
                )
        else:
            ChatMute.objects.filter(which, match=match).delete()
        mutes = _mutes(match)
        # Every socket of the match is in the spectators' group: everyone learns who is muted.
        layer = {"type": "chat.message", "frame": {"type": "chat", "mutes": mutes_of(mutes)}}
        broadcast.publish([(group_name(match.pk, SPECTATORS), layer)])
    return mutes


# --- the websocket's chat messages ------------------------------------------------------------


def handle(match_pk: int, user: Any, message: dict[str, Any]) -> Reply:
    """Run one ``chat`` message (shape checked by games.core.live.protocol) for ``user``: raises
    ActionError when refused, else returns the sender's frame (what the channels are told is
    published on commit)."""
    match = Match.objects.with_seats().get(pk=match_pk)
    op = message.get("op", "post")
    if op == "history":
        viewer = match.viewer_for(user)
        return Reply(
            {
                "type": "chat",
                "id": message["id"],
                "history": history(match, viewer),
                "mutes": mutes_of(_mutes(match)),
            }
        )
    if op == "post":
        post(match, user, message["channel"], message["text"])
    else:
        set_mute(
            match,
            user,
            muted=op == "mute",
            user_id=message.get("user"),
            channel=message.get("channel"),
        )
    return Reply({"type": "chat", "id": message["id"], "ok": True})
