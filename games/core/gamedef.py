"""What a game is, as the match core sees it: a definition with pure functions over JSON state.

A game never touches the database. The core hands it the current state, the acting seat and the
time; the game returns an Outcome (the new state and what happened) or raises ActionError.
Every game keeps its running clocks in ``state["deadlines"]`` ({key: ISO time}); the core mirrors
them into Deadline rows so that a scheduler in any process can fire them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

State = dict[str, Any]


class ActionError(ValueError):
    """An action the rules refuse. ``code`` is stable for clients; the message is for players."""

    def __init__(self, message: str, code: str = "illegal_action") -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Viewer:
    """Who is looking: a seated player, the host, or a spectator (seat None, not host)."""

    seat: int | None = None
    is_host: bool = False

    @property
    def audience(self) -> str:
        if self.seat is not None:
            return f"seat-{self.seat}"
        return "host" if self.is_host else "spectators"

    @classmethod
    def spectator(cls) -> Viewer:
        return cls()

    @classmethod
    def host(cls) -> Viewer:
        return cls(is_host=True)


@dataclass
class Outcome:
    """The result of an accepted action or timeout.

    ``public`` is what everyone may learn about the event; ``private`` maps a seat to what only
    that seat (and the host) may learn. ``result`` is set when the match is over.
    """

    state: State
    kind: str
    public: dict[str, Any] = field(default_factory=dict)
    private: dict[int, dict[str, Any]] = field(default_factory=dict)
    result: dict[str, Any] | None = None
    # An informational event (e.g. an analysis) changes nothing a player acts on, so an action
    # sent against the version before it is not stale.
    informational: bool = False


@dataclass(frozen=True)
class SeatInfo:
    index: int
    role: str
    name: str
    is_bot: bool = False


class GameDefinition:
    """Base class of a game. Subclasses set the class attributes and override the hooks."""

    key: ClassVar[str]
    title: ClassVar[str]
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 2
    roles: ClassVar[tuple[str, ...]] = ()
    listed: ClassVar[bool] = True
    template_dir: ClassVar[str] = ""
    bot_levels: ClassVar[tuple[str, ...]] = ()
    rules_summary: ClassVar[str] = ""

    def settings_form(self) -> type:
        """The form the host fills in on the new-match page (a MatchSettingsForm subclass)."""
        from games.core.forms import MatchSettingsForm

        return MatchSettingsForm.for_game(self)

    def default_settings(self) -> dict[str, Any]:
        return {}

    def clean_settings(self, settings: dict[str, Any]) -> dict[str, Any]:
        """Validate and complete host-chosen settings; raise ValueError with a readable reason."""
        merged = {"auto_start": True, **self.default_settings()}
        unknown = set(settings) - set(merged)
        if unknown:
            raise ValueError(f"unknown setting(s): {', '.join(sorted(unknown))}")
        merged.update(settings)
        return merged

    def start(
        self, settings: dict[str, Any], seats: list[SeatInfo], seed: int, now: datetime
    ) -> Outcome:
        raise NotImplementedError

    def act(self, state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
        raise NotImplementedError

    def timeout(self, state: State, key: str, now: datetime) -> Outcome:
        raise NotImplementedError

    def adjudicate(self, state: State, award: dict[str, Any], now: datetime) -> Outcome:
        """The host settles the current round or the match by hand."""
        raise ActionError("this game has no adjudication", code="not_supported")

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """Everything ``viewer`` may see of ``state``, as JSON-ready data. The only gate."""
        raise NotImplementedError

    def warm_up(self) -> None:
        """Load anything slow (compiled kernels, tables) before the first bot move or analysis."""

    def bot_action(self, state: State, seat: int, level: str, now: datetime) -> dict | None:
        """The action a bot in ``seat`` takes now, or None to wait."""
        return None

    # Analysis: slow, pure work done after the fact (e.g. a round's true optimum). The core runs
    # it outside any lock and records the result as an event, so it survives restarts.

    def analysis_job(self, state: State) -> dict[str, Any] | None:
        """The next piece of analysis this state is waiting for, or None."""
        return None

    def run_analysis(self, job: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def record_analysis(self, state: State, job: dict[str, Any], result: dict[str, Any]) -> Outcome:
        raise NotImplementedError
