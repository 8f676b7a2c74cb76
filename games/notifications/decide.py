"""Which notifications a match event causes: pure, from the event in public words and the
spectators' view before and after it.

Every fact read here is one a spectator may see (who is to move, who has sent a sealed
submission, the round, the result), so no notification, mail or webhook post made from these
decisions can carry anything sealed or private to someone else. Times are given, never read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.notifications import kinds

# The host's decisions that end or change a match's result after the fact, told like a result.
HOST_ENDINGS = frozenset({"aborted", "result_corrected"})


@dataclass(frozen=True)
class EventFacts:
    """One appended event as notifications see it."""

    kind: str
    title: str
    words: str  # the event in a sentence, as a spectator reads it
    before: Mapping[str, Any]  # the spectators' view of the game before the event
    after: Mapping[str, Any]  # and after it
    players: Mapping[int, str]  # the seats held by people (not bots): index -> name
    seat_count: int  # every seat, bots' too: a player alone has no turn to wait for
    live: bool  # the match is live after the event
    finished: bool  # this event finished the match
    clock_ran_out: bool  # a clock of the state before was due: the event is its timeout
    ran_out_seconds: float | None  # how long that clock gave (None: unknown)
    seconds_to_act: float | None  # the shortest running clock after the event (None: none)
    to_settle: tuple[str, ...] = ()  # what the host may still decide on the finished match
    ended_by_host: bool = False  # the host ended the round (ran_out_seconds: what its clock gave)


@dataclass(frozen=True)
class Message:
    """What to tell whom: the seats (their players) or the host, with the words anyone may read
    (for the season's webhook) when there are any."""

    kind: str
    text: str
    seats: tuple[int, ...] = ()
    host: bool = False
    public_text: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # A second kind the words tell of, and its words alone: whoever turned ``kind`` off but
    # keeps this one is told these (a round's result that also starts the next round).
    also: tuple[str, str] | None = None


def awaited(view: Mapping[str, Any], seats: Any) -> set[int]:
    """The seats the game waits for, as every page shows it: ``to_move`` (a list of seats),
    else ``turn`` (one seat), else a sealed phase's seats that have not sent theirs
    (``bids_in`` while bidding, ``submitted`` in a round)."""
    seats = set(seats)
    to_move = view.get("to_move")
    if isinstance(to_move, list):
        return seats & {s for s in to_move if isinstance(s, int)}
    turn = view.get("turn")
    if isinstance(turn, int) and not isinstance(turn, bool):
        return seats & {turn}
    phase = view.get("phase")
    if phase == "bidding" and isinstance(view.get("bids_in"), list):
        return seats - set(view["bids_in"])
    if phase == "round" and isinstance(view.get("submitted"), list):
        return seats - set(view["submitted"])
    return set()


def _round(view: Mapping[str, Any]) -> int | None:
    value = view.get("round")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _names(players: Mapping[int, str], seats: set[int]) -> str:
    return ", ".join(players[s] for s in sorted(seats))


def messages_for(facts: EventFacts, *, slow_seconds: float) -> list[Message]:
    """The notifications ``facts`` cause. Turns, rounds and clocks that ran out are told only
    when the clock gives (or gave) at least ``slow_seconds`` to act (or there is none): in a
    quick match players are on the page. A match's start and result are always told."""
    everyone = tuple(sorted(facts.players))
    slow = facts.seconds_to_act is None or facts.seconds_to_act >= slow_seconds
    title = facts.title
    told: list[Message] = []
    started = set()

    if facts.kind == "started" and everyone:
        text = f"{title} has started."
        told.append(Message(kinds.MATCH_STARTED, text, everyone, public_text=text))
        started = set(everyone)
    round_before, round_after = _round(facts.before), _round(facts.after)
    new_round = round_before is not None and round_after is not None and round_after > round_before
    if facts.finished and everyone:
        text = f"{title} is over. {facts.words}"
        told.append(Message(kinds.ROUND_RESULT, text, everyone, public_text=text))
    elif new_round and slow and facts.live and everyone:
        begins = f"Round {round_after} has started."
        words = facts.words
        if f"Round {round_after} begins" not in words:
            words = f"{words} {begins}"
        text = f"{title}: {words}"
        if round_before == 0:  # the first round: nothing was played yet, nothing to result
            told.append(Message(kinds.ROUND_STARTED, text, everyone, public_text=text))
        else:
            start = (kinds.ROUND_STARTED, f"{title}: {begins}")
            told.append(Message(kinds.ROUND_RESULT, text, everyone, public_text=text, also=start))
        started = set(everyone)

    if facts.kind in HOST_ENDINGS and everyone:
        text = f"{title}: {facts.words}"
        told.append(Message(kinds.ROUND_RESULT, text, everyone, public_text=text))

    long_clock = facts.ran_out_seconds is None or facts.ran_out_seconds >= slow_seconds
    if (facts.clock_ran_out or facts.ended_by_host) and long_clock:
        missed = awaited(facts.before, facts.players)
        if missed:
            ended = "the host ended the round" if facts.ended_by_host else "the clock ran out"
            text = f"{title}: {ended} before your move or submission. {facts.words}"
            told.append(Message(kinds.SUBMISSION_MISSING, text, tuple(sorted(missed))))
            told.append(
                Message(
                    kinds.SUBMISSIONS_MISSED,
                    f"{title}: {ended} with nothing from {_names(facts.players, missed)}.",
                    host=True,
                )
            )

    if facts.live and slow and facts.seat_count >= 2:
        waiting_before = awaited(facts.before, facts.players)
        newly = awaited(facts.after, facts.players) - waiting_before - started
        if newly and facts.kind != "started":
            told.append(
                Message(kinds.YOUR_TURN, f"{title}: it is your move.", tuple(sorted(newly)))
            )

    if facts.finished and facts.to_settle:
        choices = "; ".join(facts.to_settle)
        told.append(
            Message(
                kinds.TIE_TO_SETTLE,
                f"{title} ended in a tie for you to settle: {choices}.",
                host=True,
            )
        )
    return told


def reminder(
    title: str, view: Mapping[str, Any], players: Mapping[int, str], minutes_left: int
) -> Message | None:
    """The "still missing" reminder before a deadline, for the seats the game still waits for
    (as the spectators' ``view`` shows them)."""
    missing = awaited(view, players)
    if not missing:
        return None
    text = f"{title}: {minutes_left} minutes left, and your move or submission is still missing."
    return Message(kinds.SUBMISSION_MISSING, text, tuple(sorted(missing)))
