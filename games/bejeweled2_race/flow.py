"""The Bejeweled 2 race, as pure functions over JSON state: 2 to 13 seats play the same board at
once, each on their own, and the ranking at the end pays each seat by placing.

No Django and no IO. Every seat's board is a whole Bejeweled 2 game (``games.bejeweled2.flow``'s
state, kept under ``state["boards"][seat]``) started from the one match seed: the same start
board for everyone and, since a refill's seed is the match seed and the move's number
(``derived_seed(seed, "refill", moves)``), the same moves give the same boards. Every move is
played by the Bejeweled 2 flow's own rules (``bejeweled2.flow.ACTIONS``); nothing of its rules is
repeated here.

Race modes (``settings["mode"]``):

- ``action``: Bejeweled 2's Action, each seat with its own bar; a seat is out when its bar runs
  empty. The race ends when every bar is empty, or at the time limit.
- ``classic_time``: Classic, against the clock: the score when ``minutes`` are up (a seat whose
  board has no move left stops there).
- ``classic_moves``: Classic with ``moves`` swaps each: the score after the last one (or when no
  move is left); ``minutes`` is the limit for the slow.
- ``puzzles``: a set of ``puzzle_count`` puzzles from ``puzzle_first``, in order, the same for
  everyone: the first to solve them all wins and ends the race; else the most solved, the
  earlier last solve first, when ``minutes`` are up.

Clocks (``state["deadlines"]``, fired by the core's scheduler): ``race`` (the time limit) and
``bar-<seat>`` (when that seat's Action bar runs empty; recomputed on every move of the seat).

Privacy lives in view.py's ``view``: a seat sees its own board and nothing of another's (not its
moves, which would rebuild its board from the shared seed) until the race is over; the host sees
every board, small, with the live ranking, may show the ranking (places and scores, never boards)
to the players, and chooses what spectators see while the race runs (the public link is open to
anyone, a player too: by default what the players see). An event carries the move, its steps
and the board only in the mover's private part; its public part names the seat and nothing
else.

The ranking (the places, what the end pays and its summary) is in ranking.py, pure.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.bejeweled2 import flow as bj2
from games.bejeweled2 import levels
from games.bejeweled2.puzzles import PUZZLES
from games.bejeweled2_race.ranking import finish, race_score
from games.core.game.contract import Setting, settled
from games.core.game.flowkit import (
    check_clock,
    copy_json,
    dispatcher,
    iso,
    seats_kept,
    set_clock,
)
from games.core.game.gamedef import ActionError, Outcome, SeatInfo, State

GAME = "bejeweled-2-race"
MIN_SEATS = 2
MAX_SEATS = 13

UNVERSIONED_ACTIONS: frozenset[str] = frozenset({"swap", "hint", "undo", "restart"})
"""Every seat plays on its own board: another seat's move never makes a swap stale."""

RACE = "race"
"""The time limit's clock."""
BAR_PREFIX = "bar-"


def bar_clock(seat: int | str) -> str:
    return f"{BAR_PREFIX}{seat}"


MODES: dict[str, dict[str, str]] = {
    "action": {
        "title": "Action race",
        "game": "action",
        "help": "Action: each seat's bar fills with gems and drains with time; the last bar "
        "standing (the highest score) wins",
    },
    "classic_time": {
        "title": "Classic against the clock",
        "game": "classic",
        "help": "Classic against the clock: the highest score when the time is up",
    },
    "classic_moves": {
        "title": "Classic in a set number of moves",
        "game": "classic",
        "help": "Classic in a set number of moves: the highest score after the last one",
    },
    "puzzles": {
        "title": "Puzzle race",
        "game": "puzzle",
        "help": "A set of puzzles: the first to solve them all wins",
    },
}
MODE_TITLES = {key: mode["title"] for key, mode in MODES.items()}

ACTIONS_OFFERED = ("swap", "hint", "undo", "restart", "end")
"""What a seat may do, of Bejeweled 2's actions: no solution shown in a race, and no hint in
the puzzles (there it is the next move of a solution)."""


SETTINGS = (
    Setting(
        "mode",
        "Race",
        "action",
        choices=tuple((key, mode["help"]) for key, mode in MODES.items()),
    ),
    Setting(
        "minutes",
        "Time limit (minutes)",
        5,
        help="Classic against the clock and the puzzles: the time to play. Action and Classic "
        "in moves: the longest the race may last.",
        low=1,
        high=120,
    ),
    Setting(
        "moves",
        "Moves each (Classic in a set number of moves)",
        30,
        low=1,
        high=500,
        shown_when=("mode", ("classic_moves",)),
    ),
    Setting(
        "puzzle_first",
        "First puzzle of the set (puzzle race)",
        0,
        choices=tuple((index, f"{index + 1}. {p.title}") for index, p in enumerate(PUZZLES)),
        shown_when=("mode", ("puzzles",)),
    ),
    Setting(
        "puzzle_count",
        "Puzzles in the set (puzzle race)",
        3,
        low=1,
        high=10,
        shown_when=("mode", ("puzzles",)),
    ),
    Setting(
        "show_ranking",
        "Show the live ranking to the players",
        False,
        help="Places and scores only: a player never sees another's board before the end.",
    ),
    Setting(
        "spectators",
        "What spectators see while the race runs",
        "as_players",
        choices=(
            ("as_players", "What the players see: the live ranking if it is shown to them"),
            ("ranking", "The live ranking (places and scores), no board"),
            ("held_back", "Every board, held back a few moves"),
            ("live", "Every board live, with the live ranking"),
        ),
        help="Anyone may open the public link signed out, a player too: whatever spectators "
        "see, a player can see. Every board the same moves make the same, so a rival's board "
        "shows the moves to copy, even a few moves late; keep boards off for a fair race, "
        "unless no player can watch. Everyone sees every board at the end; the host always "
        "sees them live.",
    ),
    Setting(
        "held_back_moves",
        "Moves a board is held back from spectators",
        3,
        low=1,
        high=20,
        shown_when=("spectators", ("held_back",)),
    ),
)

SPECTATOR_WORDS = {
    "as_players": "spectators see what the players see",
    "ranking": "spectators see the live ranking",
    "held_back": "spectators see every board, held back {n} moves",
    "live": "spectators see every board live",
}
"""The spectators' setting in the words of the race's head line."""


def check_settings(settings: dict[str, Any]) -> dict[str, Any]:
    if settings["mode"] == "puzzles" and settings["puzzle_first"] + settings["puzzle_count"] > len(
        PUZZLES
    ):
        raise ValueError(
            f"the puzzle set runs past the last puzzle ({len(PUZZLES)}): start earlier or "
            "choose fewer"
        )
    return settings


# --- the start -----------------------------------------------------------------------------------


def _board_game(state: State, seat: dict[str, Any], now: datetime, puzzle: int = 0) -> State:
    """A fresh Bejeweled 2 game for ``seat``, from the match seed (the same for every seat)."""
    settings = {"mode": MODES[state["mode"]]["game"], "puzzle": puzzle}
    player = SeatInfo(index=0, role=seat["role"], name=seat["name"], is_bot=seat["is_bot"])
    game = bj2.start(settings, [player], state["seed"], now).state
    game["deadlines"].pop(bj2.IDLE, None)  # the race's clocks end it, never idleness
    return game


def start(settings: dict[str, Any], seats: list[SeatInfo], seed: int, now: datetime) -> Outcome:
    settings = check_settings(settled(SETTINGS, settings))
    if not MIN_SEATS <= len(seats) <= MAX_SEATS:
        raise ValueError(f"a race seats {MIN_SEATS} to {MAX_SEATS} players")
    state: State = {
        "seed": seed,
        "seats": seats_kept(seats),
        "mode": settings["mode"],
        "minutes": settings["minutes"],
        "moves_budget": settings["moves"] if settings["mode"] == "classic_moves" else None,
        "puzzle_first": settings["puzzle_first"],
        "puzzle_count": settings["puzzle_count"] if settings["mode"] == "puzzles" else None,
        "show_ranking": settings["show_ranking"],
        "spectators": settings["spectators"],
        "held_back": settings["held_back_moves"] if settings["spectators"] == "held_back" else 0,
        "phase": "racing",
        "started_at": iso(now),
        "boards": {},
        "runners": {},
        "deadlines": {},
        "result": None,
    }
    for seat in state["seats"]:
        key = str(seat["index"])
        state["boards"][key] = _board_game(state, seat, now, settings["puzzle_first"])
        state["runners"][key] = {
            "done": False,
            "reason": None,
            "solved": 0,
            "solved_ms": None,
            "points": 0,
            "moves": 0,
        }
        if state["held_back"]:
            state["runners"][key]["trail"] = []
        _mirror_bar(state, key)
    set_clock(state, RACE, now, 60 * settings["minutes"])
    public = {"mode": state["mode"], "seats": len(seats)}
    if state["mode"] == "puzzles":
        public["puzzles"] = [state["puzzle_first"], state["puzzle_count"]]
    return Outcome(state=state, kind="started", public=public)


# --- helpers -------------------------------------------------------------------------------------


def _mirror_bar(state: State, key: str) -> None:
    """The race's clock of seat ``key``'s Action bar is its game's (none once the seat is out)."""
    when = state["boards"][key]["deadlines"].get(levels.CLOCK)
    if when and not state["runners"][key]["done"]:
        state["deadlines"][bar_clock(key)] = when
    else:
        state["deadlines"].pop(bar_clock(key), None)


def _check_racing(state: State, key: str, now: datetime) -> None:
    check_clock(state, RACE, now, "the race's time is up")
    if state["runners"][key]["done"]:
        raise ActionError(
            "your race is over: watch the ranking until everyone is done", code="seat_done"
        )


def _seat_key(state: State, seat: int) -> str:
    key = str(seat)
    if isinstance(seat, bool) or key not in state["runners"]:
        raise ActionError("only the race's players play", code="not_your_game")
    return key


def _seat_out(state: State, key: str, reason: str) -> None:
    runner = state["runners"][key]
    runner["done"] = True
    runner["reason"] = reason
    state["deadlines"].pop(bar_clock(key), None)


def _everyone_done(state: State) -> bool:
    return all(runner["done"] for runner in state["runners"].values())


def _elapsed_ms(state: State, now: datetime) -> int:
    return max(0, int((now - datetime.fromisoformat(state["started_at"])).total_seconds() * 1000))


# --- actions -------------------------------------------------------------------------------------


def _play(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """A seat's own move on its own board, by Bejeweled 2's rules."""
    key = _seat_key(state, seat)
    _check_racing(state, key, now)
    kind = action["type"]
    puzzles = state["mode"] == "puzzles"
    if kind not in ACTIONS_OFFERED or (kind == "hint" and puzzles):
        raise ActionError(f"a race does not offer '{kind}'", code="not_offered")
    game = state["boards"][key]
    played = bj2.ACTIONS[kind](game, 0, action, now)
    new = copy_json(state)
    new["boards"][key] = played.state
    played.state["deadlines"].pop(bj2.IDLE, None)
    runner = new["runners"][key]
    if new.get("held_back"):
        runner["trail"] = [*runner["trail"], _trail_entry(state, key)][-new["held_back"] :]
    private = dict(played.public)
    public: dict[str, Any] = {"seat": seat}
    if played.kind == "puzzle_solved":
        runner["solved"] += 1
        runner["solved_ms"] = _elapsed_ms(new, now)
        runner["points"] += played.state["score"]
        runner["moves"] += played.state["moves"]
        private.pop("result", None)
        private["solved"] = runner["solved"]
        if runner["solved"] >= new["puzzle_count"]:
            _seat_out(new, key, "solved")
            return finish(new, now, played.kind, public, {seat: private})
        following = new["puzzle_first"] + runner["solved"]
        new["boards"][key] = _board_game(new, new["seats"][seat], now, following)
        private["next_puzzle"] = following
    elif played.kind == "game_over":
        private.pop("result", None)
        _seat_out(new, key, played.state["reason"])
    elif (
        kind == "swap"
        and new["moves_budget"] is not None
        and played.state["moves"] >= new["moves_budget"]
    ):
        _seat_out(new, key, "moves_used")
        private["moves_used"] = True
    _mirror_bar(new, key)
    if runner["done"]:
        public["out"] = True
        if _everyone_done(new):
            return finish(new, now, played.kind, public, {seat: private})
    return Outcome(state=new, kind=played.kind, public=public, private={seat: private})


def end(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """A seat stops racing: its score so far stands."""
    key = _seat_key(state, seat)
    _check_racing(state, key, now)
    new = copy_json(state)
    _seat_out(new, key, "ended")
    public = {"seat": seat, "out": True}
    if _everyone_done(new):
        return finish(new, now, "stopped", public, {})
    return Outcome(state=new, kind="stopped", public=public)


ACTIONS = {
    "swap": _play,
    "hint": _play,
    "undo": _play,
    "restart": _play,
    "end": end,
    "resign": end,
}

act = dispatcher(ACTIONS)


def available_actions(state: State, key: str) -> list[str]:
    """What the seat may do now: Bejeweled 2's own offer, less what a race leaves out."""
    if state["phase"] == "over" or state["runners"][key]["done"]:
        return []
    offered = bj2.available_actions(state["boards"][key])
    keep = [a for a in offered if a in ACTIONS_OFFERED]
    if state["mode"] == "puzzles" and "hint" in keep:
        keep.remove("hint")
    return keep


def _trail_entry(state: State, key: str) -> dict[str, Any]:
    """Seat ``key``'s board as it stands before its next move: what spectators are shown of it
    once ``held_back`` more moves are made (a small board's own part)."""
    game = state["boards"][key]
    runner = state["runners"][key]
    return {
        "rows": game["board"].split("\n"),
        "score": race_score(state, key),
        "points": game["score"] if state["mode"] != "puzzles" else runner["points"],
        "moves": runner["moves"] + game["moves"],
        "level": game["level"],
        "stuck": game["phase"] == "failed",
        "puzzle": game["puzzle"] + 1 if game["puzzle"] is not None else None,
    }


# --- clocks --------------------------------------------------------------------------------------

END_ROUND = {"racing": "the race now"}
CLOCK_OF_PHASE = {"racing": RACE}


def timeout(
    state: State, key: str, now: datetime, drafts: dict[int, dict[str, Any]] | None = None
) -> Outcome:
    """``race``: the time is up (or the host ends the race now): every board stops and the
    ranking stands. ``bar-<seat>``: that seat's Action bar, if it is really empty now (its
    deadline moves with every move), puts the seat out."""
    if state["phase"] == "over":
        new = copy_json(state)
        new["deadlines"].pop(key, None)
        return Outcome(state=new, kind="clock_ignored", public={"clock": key})
    if key == RACE:
        return finish(copy_json(state), now, "race_over", {"reason": "time_up"}, {})
    seat = key.removeprefix(BAR_PREFIX)
    if not key.startswith(BAR_PREFIX) or seat not in state["runners"]:
        new = copy_json(state)
        new["deadlines"].pop(key, None)
        return Outcome(state=new, kind="clock_ignored", public={"clock": key})
    if state["runners"][seat]["done"]:
        new = copy_json(state)
        new["deadlines"].pop(key, None)
        return Outcome(state=new, kind="clock_ignored", public={"clock": key})
    emptied = bj2.timeout(state["boards"][seat], levels.CLOCK, now)
    if emptied.kind != "game_over":
        return Outcome(state=copy_json(state), kind="clock_not_due", public={"clock": key})
    new = copy_json(state)
    new["boards"][seat] = emptied.state
    _seat_out(new, seat, "time_up")
    public = {"seat": int(seat), "out": True, "reason": "time_up"}
    if _everyone_done(new):
        return finish(new, now, "bar_empty", public, {})
    return Outcome(state=new, kind="bar_empty", public=public)


def clean_draft(state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any]:
    raise ActionError("a race keeps no drafts: every swap is played at once", code="no_drafts")


def adjudicate(state: State, award: dict[str, Any], now: datetime) -> Outcome:
    """The host settles: ``{"winner": seat}`` ends the race now with that seat first (the others
    by their scores), ``{"winner": None}`` ends it as it stands, and once it is over with the
    last place shared ``{"elimination_candidate": seat}`` names one of them."""
    if "elimination_candidate" in award:
        seat = award["elimination_candidate"]
        if state["phase"] != "over":
            raise ActionError(
                "the Elimination Candidate is named once the race is over", code="not_over"
            )
        tied = state["result"]["ec_tied"]
        if not tied:
            raise ActionError("the last place is not shared; nothing to settle", code="no_tie")
        if isinstance(seat, bool) or seat not in tied:
            raise ActionError(f"choose one of the tied seats: {tied}", code="bad_award")
        new = copy_json(state)
        name = new["seats"][seat]["name"]
        new["result"]["elimination_candidate"] = seat
        new["result"]["ec_tied"] = []
        new["result"]["summary"] += f" The host named {name}."
        return Outcome(
            state=new,
            kind="ec_named",
            public={"elimination_candidate": seat},
            result=new["result"],
        )
    if state["phase"] == "over":
        raise ActionError("the race is already over", code="match_over")
    winner = award.get("winner")
    if winner is not None and (isinstance(winner, bool) or str(winner) not in state["runners"]):
        raise ActionError("the winner is one of the seats, or no one (None)", code="bad_award")
    new = copy_json(state)
    by_host = None if winner is None else str(winner)
    public = {"winner": winner}
    return finish(new, now, "adjudicated", public, {}, winner_by_host=by_host)
