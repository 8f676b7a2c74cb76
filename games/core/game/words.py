"""Words for events, pure: seats named as players know them, kinds in plain words, the simple facts
of any event, the host's operations in sentences, clock spans and the marks a replay jumps
between. Every game's ``describe_event`` and the core's replay, export and host log use them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

State = dict[str, Any]
Mark = tuple[int, str]

# Keys whose value is a seat index, said as the seat's name.
SEAT_KEYS = frozenset({"seat", "winner", "prover", "first", "chooser", "next", "turn", "skipped"})
# Facts too long or too inner to say in a sentence (boards, animation steps, logs).
SKIPPED_KEYS = frozenset({"board", "steps", "start_board", "end_board", "deadline", "private"})
MAX_LIST = 8


ROLE_NAMES = {"EC": "Elimination Candidate", "DMO": "Death Match Opponent"}
"""The two roles of a death match (rulings: Everywhere), said in full wherever their short names
appear."""


def seat_name(state: State, seat: Any) -> str:
    """A seat as players know it: its player's name, else "Seat 2" (seats count from 1)."""
    if isinstance(seat, str) and seat.isdigit():
        seat = int(seat)
    if not isinstance(seat, int) or isinstance(seat, bool):
        return str(seat)
    seats = state.get("seats")
    for entry in seats if isinstance(seats, list) else []:  # a game may keep only a count
        if isinstance(entry, dict) and entry.get("index") == seat and entry.get("name"):
            return str(entry["name"])
    return f"Seat {seat + 1}"


def humanize(kind: str) -> str:
    """``round_over`` -> ``Round over``."""
    words = kind.replace("_", " ").replace("-", " ").strip()
    return words[:1].upper() + words[1:] if words else "Event"


def _fact(key: str, value: Any, state: State) -> str | None:
    """One simple fact as "key value", or None for what a sentence cannot hold."""
    label = key.replace("_", " ")
    if value is None or key in SKIPPED_KEYS:
        return None
    if isinstance(value, bool):
        return label if value else None
    if key in SEAT_KEYS and isinstance(value, int):
        return f"{label} {seat_name(state, value)}"
    if isinstance(value, int | float | str):
        text = str(value)
        return f"{label} {text}" if "\n" not in text and len(text) <= 40 else None
    if isinstance(value, list) and all(isinstance(v, int | float | str) for v in value):
        if not value or len(value) > MAX_LIST:
            return None
        return f"{label} {', '.join(str(v) for v in value)}"
    return None


def event_parts(event: dict[str, Any], state: State) -> tuple[str, dict[str, Any], str]:
    """What a game's ``describe_event`` starts from: the event's kind, its data (as its viewer
    may see it) and who did it, named as players know them."""
    data = event.get("data") or {}
    return str(event.get("kind", "")), data, seat_name(state, data.get("seat", event.get("seat")))


def generic_description(event: dict[str, Any], state: State) -> str:
    """ "Ada: claimed (count 37)." from any event: who, what kind, the simple facts."""
    data = event.get("data") or {}
    seat = event.get("seat")
    if seat is None and isinstance(data.get("seat"), int):
        seat = data["seat"]
    kind = humanize(str(event.get("kind", "event")))
    facts = [
        fact
        for key, value in data.items()
        if key != "seat" and (fact := _fact(key, value, state)) is not None
    ]
    head = f"{seat_name(state, seat)}: {kind.lower()}" if seat is not None else kind
    return f"{head} ({'; '.join(facts)})." if facts else f"{head}."


def listed(names: Iterable[str]) -> str:
    """["A", "B", "C"] -> "A, B and C"; ["A", "B"] -> "A and B"; ["A"] -> "A"."""
    named = list(names)
    if len(named) <= 2:
        return " and ".join(named)
    return f"{', '.join(named[:-1])} and {named[-1]}"


def counted(count: int, word: str) -> str:
    """3, "move" -> "3 moves"; 1, "move" -> "1 move" (words whose plural adds an s)."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def span_words(seconds: int) -> str:
    """90 -> "1 minute 30 seconds", 3600 -> "1 hour": a clock change as a host says it."""
    seconds = abs(int(seconds))
    parts = []
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute"), (1, "second")):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(counted(count, unit))
    return " ".join(parts[:2]) or "0 seconds"


def clock_left(seconds: int) -> str:
    """150 -> "2:30", 3725 -> "1:02:05"."""
    hours, rest = divmod(max(0, int(seconds)), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def host_words(event: dict[str, Any], state: State) -> str | None:
    """The sentence for a host operation's own event, or None for any other event."""
    data = event.get("data") or {}
    kind = event.get("kind")
    if kind == "paused":
        said = "The host paused the match; every clock stops"
    elif kind == "resumed":
        said = f"The host resumed the match after {span_words(data.get('paused_seconds', 0))}"
    elif kind == "clock_changed":
        named = data.get("clock_name") or f"{str(data.get('clock', '')).replace('_', ' ')} clock"
        clock = named if "'s " in named else f"the {named}"  # "Ada's bar", "the round clock"
        seconds = int(data.get("seconds") or 0)
        change = (
            f"gave {clock} {span_words(seconds)} more"
            if seconds > 0
            else f"took {span_words(seconds)} off {clock}"
        )
        left = clock_left(data.get("left", 0))
        when = " when the match resumes" if data.get("paused") else ""
        said = f"The host {change} ({left} left{when})"
    elif kind == "aborted":
        said = "The host aborted the match"
    elif kind == "seat_replaced":
        seat = f"Seat {int(data.get('seat', 0)) + 1}"
        taker = data.get("by")
        then = (
            "a new invite link is out for a substitute"
            if taker == "invite"
            else f"{taker} takes it"
        )
        said = f"The host freed {seat} ({data.get('left', 'its player')} left): {then}"
    elif kind == "seat_taken" and data.get("substitute"):
        said = f"{data.get('name', 'A substitute')} takes Seat {int(data.get('seat', 0)) + 1}"
    elif kind == "result_corrected":
        said = f"The host corrected the result: {data.get('summary') or 'see the result'}"
    else:
        return None
    reason = str(data.get("host_reason") or "").strip().rstrip(".")
    if said.endswith("."):  # a game's summary, in sentences of its own
        return f"{said} The host's reason: {reason}." if reason else said
    return f"{said}: {reason}." if reason else f"{said}."


def round_marks(
    events: list[dict[str, Any]],
    kinds: set[str],
    *,
    label: str,
    key: str = "round",
    following_key: str = "",
) -> list[Mark]:
    """A mark at each event of ``kinds``, labelled "Round 2" from the event's ``key`` (or the
    count so far), and at an event whose data names the round that begins with it
    (``following_key``, by default ``next_<key>``: a number, or a dict holding ``key``)."""
    marks: list[Mark] = []
    for event in events:
        data = event.get("data") or {}
        number = None
        if event["kind"] in kinds:
            number = data.get(key, len(marks) + 1)
        else:
            following = data.get(following_key or f"next_{key}")
            if isinstance(following, dict):
                following = following.get(key)
            if isinstance(following, int) and not isinstance(following, bool):
                number = following
        if number is not None and (not marks or marks[-1][0] != event["version"]):
            marks.append((event["version"], f"{label} {number}"))
    if events and (not marks or marks[0][0] > events[0]["version"]):
        marks.insert(0, (events[0]["version"], "Start"))
    return marks


def marks_where(
    events: list[dict[str, Any]], label: Callable[[str, dict[str, Any]], str | None]
) -> list[Mark]:
    """A mark at each event that ``label(kind, data)`` names ("Level 3"), in order."""
    return [
        (event["version"], said)
        for event in events
        if (said := label(event["kind"], event.get("data") or {})) is not None
    ]
