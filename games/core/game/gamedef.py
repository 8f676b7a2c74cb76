"""What a game is, as the match core sees it: a definition with pure functions over JSON state.

A game never touches the database. The core hands it the current state, the acting seat and the
time; the game returns an Outcome (the new state and what happened) or raises ActionError.
Every game keeps its running clocks in ``state["deadlines"]`` ({key: ISO time}); the core mirrors
them into Deadline rows so that a scheduler in any process can fire them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import ModuleType
from typing import Any, ClassVar

from games.core.game import contract
from games.core.game.contract import Setting, with_auto_start
from games.core.game.flowcontract import FlowModule, read_flow
from games.core.game.words import generic_description, round_marks

State = dict[str, Any]


class ActionError(ValueError):
    """The one refusal family: an action, message or request that was not applied, so nothing
    changed. ``code`` is stable for clients; the message is for players. Games raise it from their
    rules, services from their checks, the protocol from a frame's shape; ``as_frame`` is the one
    place it becomes what a client receives."""

    def __init__(self, message: str, code: str = "illegal_action") -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def as_frame(self, message_id: str | None = None) -> dict[str, Any]:
        frame: dict[str, Any] = {"type": "error", "code": self.code, "message": self.message}
        if message_id is not None:
            frame["id"] = message_id
        return frame


def run_rules(rule: Callable[..., Outcome], *args: Any) -> Outcome:
    """Call a game's rule; a plain ValueError from an engine becomes an ``illegal_action``
    refusal with the engine's (player-readable) message."""
    try:
        return rule(*args)
    except ActionError:
        raise
    except ValueError as error:
        raise ActionError(str(error), code="illegal_action") from None


def state_deadlines(state: dict[str, Any]) -> dict[str, datetime]:
    deadlines: dict[str, datetime] = {}
    for key, value in (state.get("deadlines") or {}).items():
        when = _parsed(value)
        if when is not None:
            deadlines[key] = when
    return deadlines


def _parsed(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def shift_clocks(
    state: State,
    shift: timedelta,
    anchors: Mapping[str, Sequence[str]],
    key: str | None = None,
) -> State:
    """A copy of ``state`` with the running clock ``key`` (every running clock when None) and
    the times it is measured from (``anchors[key]``: dotted paths such as ``"turn_started"`` or
    ``"clock.at"``) moved by ``shift``, so that no one's remaining time changes but by ``shift``.
    A resume moves every clock by the pause's length; a host's extension moves one."""
    new = json.loads(json.dumps(state))
    deadlines = new.get("deadlines") or {}
    keys = list(deadlines) if key is None else [key]
    paths = {path for k in (anchors if key is None else keys) for path in anchors.get(k, ())}
    for k in keys:
        if isinstance(deadlines.get(k), str):
            deadlines[k] = (datetime.fromisoformat(deadlines[k]) + shift).isoformat()
    for path in sorted(paths):
        *parents, leaf = path.split(".")
        holder: Any = new
        for part in parents:
            holder = holder.get(part) if isinstance(holder, dict) else None
        if isinstance(holder, dict) and isinstance(holder.get(leaf), str):
            holder[leaf] = (datetime.fromisoformat(holder[leaf]) + shift).isoformat()
    return new


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

    @property
    def is_spectator(self) -> bool:
        return self.seat is None and not self.is_host

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
    # What the event pays or charges each seat, by currency ("garnets", "tokens"): credited to
    # the seat's player in the ledger when the event is recorded (bots hold no ledger).
    prizes: dict[int, dict[str, int]] = field(default_factory=dict)
    # Seats whose drafts this event used up (a deadline sealed them); an accepted action always
    # clears its own seat's draft.
    drafts_sealed: tuple[int, ...] = ()
    # An informational event (e.g. an analysis) changes nothing a player acts on, so an action
    # sent against the version before it is not stale.
    informational: bool = False


@dataclass(frozen=True)
class SeatInfo:
    index: int
    role: str
    name: str
    is_bot: bool = False


def seat_label(seat: SeatInfo) -> str:
    """A seat as every page names it: "Seat 1: Ada (EC)" (seats count from 1 for people)."""
    role = f" ({seat.role})" if seat.role else ""
    return f"Seat {seat.index + 1}: {seat.name}{role}"


def award_value(award: dict[str, Any]) -> str:
    """An award as the value of a dashboard choice: its JSON text, keys sorted."""
    return json.dumps(award, sort_keys=True, separators=(",", ":"))


def seat_awards(
    seats: Sequence[SeatInfo], says: str, *, to: str = "winner", **award: Any
) -> list[tuple[str, str]]:
    """One award per seat for the host's console: ``award`` naming that seat under ``to`` (the
    ``winner``, or a decision of the game's own), labelled ``says`` with ``{seat}`` named as
    every page names it ("{seat} wins the match")."""
    return [
        (award_value({**award, to: seat.index}), says.format(seat=seat_label(seat)))
        for seat in seats
    ]


class GameDefinition:
    """Base class of a game. Subclasses set the class attributes and override the hooks."""

    key: ClassVar[str]
    title: ClassVar[str]
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 2
    roles: ClassVar[tuple[str, ...]] = ()
    # The host's settings (games/core/game/contract.py), declared once.
    settings: ClassVar[tuple[Setting, ...]] = ()
    listed: ClassVar[bool] = True
    # A replay opens at the start of the last round (``replay_marks``), or at the end: a game
    # whose boards are seen only once it is over (a race) opens where they all show.
    replay_opens_at_end: ClassVar[bool] = False
    template_dir: ClassVar[str] = ""
    bot_levels: ClassVar[tuple[str, ...]] = ()
    bot_level_help: ClassVar[dict[str, str]] = {}
    rules_summary: ClassVar[str] = ""
    # The URL name of the game's own start page (e.g. a solo game anyone starts), linked as
    # "Play" from the lobby; empty when a game is only hosted as a match.
    play_url_name: ClassVar[str] = ""
    # The parts of the game's view that only the page's templates draw (the grids its ``page``
    # builds from the board): dotted paths, ``*`` for every item of a list. Frames and the page's
    # JSON view leave them out (the panels carry them drawn); the templates still get them.
    page_only: ClassVar[tuple[str, ...]] = ()
    # Action types judged on the state as it is when they arrive, not against the version the
    # player saw: independent sealed submissions (picks, bids, sequences), a race whose order of
    # arrival decides, or a single player's swaps sent while a cascade is still animating. Every
    # other action sent against a version that has since moved on is refused as stale.
    unversioned_actions: ClassVar[frozenset[str]] = frozenset()
    # Sealed moves (games/core/game/fairness.py): action type -> the event kinds that reveal it
    # (none: the end of the match). Each accepted one gets a receipt every viewer sees; its
    # move and nonce are shown when it is revealed. ``revealed_by`` is the same read backwards.
    sealed_actions: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    # Sealed action types the rules never show but to their seat and the host (the flow's
    # SEALED_FOR_GOOD): their receipts stay sealed, and an export leaves their moves out.
    sealed_for_good: ClassVar[tuple[str, ...]] = ()
    revealed_by: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    # The times in the state each clock is measured from, by clock key (dotted paths such as
    # "turn_started" or "clock.at"): a pause and the host's change to a clock move them with the
    # clock, so that move time, banks and draining bars lose nothing to a pause.
    clock_anchors: ClassVar[dict[str, tuple[str, ...]]] = {}
    # The page's head loads these (paths under static/), once, before any panel is swapped in.
    stylesheets: ClassVar[tuple[str, ...]] = ()
    scripts: ClassVar[tuple[str, ...]] = ()

    def setting_table(self) -> tuple[Setting, ...]:
        """The host's settings, the core's ``auto_start`` included: the new-match form, the
        defaults and the cleaning all come from this one table."""
        return with_auto_start(self.settings)

    def default_settings(self) -> dict[str, Any]:
        return contract.defaults(self.setting_table())

    def clean_settings(self, settings: dict[str, Any]) -> dict[str, Any]:
        """Validate and complete host-chosen settings; raise ValueError with a readable reason."""
        return contract.clean(self.setting_table(), settings, self.check_settings)

    def check_settings(self, settings: dict[str, Any]) -> dict[str, Any]:
        """A rule between settings (each one is already clean); ValueError when broken."""
        return settings

    def start(
        self, settings: dict[str, Any], seats: list[SeatInfo], seed: int | str, now: datetime
    ) -> Outcome:
        """The first state. ``seed``: what every draw comes from, through flowkit.derived_seed
        (a fair match's text, an older match's number: games/core/game/fairness.py)."""
        raise NotImplementedError

    def act(self, state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
        raise NotImplementedError

    def timeout(
        self, state: State, key: str, now: datetime, drafts: dict[int, dict[str, Any]] | None = None
    ) -> Outcome:
        """The clock ``key`` ran out. ``drafts`` holds what each seat was composing, for rules
        that seal a draft at a deadline (list those seats in ``Outcome.drafts_sealed``)."""
        raise NotImplementedError

    def clean_draft(self, state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any]:
        """Check what a seat is composing (a path, a sequence, ticked picks) and return it as it
        is kept: private to the seat and the host, restored on reload, never an event (a draft
        a clock may seal, ``draft_move``, has its receipt told in one). Raise ActionError for a
        draft the page could not have made."""
        raise ActionError("this game keeps no drafts", code="not_supported")

    def draft_move(self, state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any] | None:
        """The move a clock would seal ``seat``'s kept ``draft`` as (listing the seat in
        ``Outcome.drafts_sealed``), were it to run out now; None when it would seal none. Such
        a draft gets a receipt when it is kept (games/core/game/fairness.py)."""
        return None

    def adjudicate(self, state: State, award: dict[str, Any], now: datetime) -> Outcome:
        """The host settles the current round or the match by hand."""
        raise ActionError("this game has no adjudication", code="not_supported")

    def shift_clocks(self, state: State, shift: timedelta, key: str | None = None) -> State:
        """``state`` with the clock ``key`` (every clock when None) and its anchors moved."""
        return shift_clocks(state, shift, self.clock_anchors, key)

    def clock_name(self, state: State, key: str) -> str:
        """A running clock as the host's console and the host's log name it ("round clock"); a
        game whose clock keys are not words (a seat's bar) names them itself."""
        return f"{key.replace('_', ' ')} clock"

    def end_round_label(self, state: State) -> str | None:
        """What the host's "End the round" ends now ("round 3", "the bidding"), or None when the
        game has no round to end (then the console does not offer it)."""
        return None

    def end_round(self, state: State, now: datetime) -> Outcome:
        """The host ends the current round or phase as it stands."""
        raise ActionError("this game has no round for the host to end", code="not_supported")

    def award_choices(self, state: State, seats: list[SeatInfo]) -> list[tuple[str, str]]:
        """What the host may award now, as (value, label) pairs for the console. Each value is
        the JSON text of an award ``adjudicate`` accepts, in the one award format of every game:
        ``{"scope": "match" | "round", "winner": seat}`` (scope "match" when left out), or a
        decision of the game's own (``{"elimination_candidate": seat}``); each label names seats
        as every page does ("Seat 2: Bob (DMO) wins the match"), never by index. The default
        awards the match to any seat; a game with rounds or other decisions overrides this."""
        return seat_awards(seats, "{seat} wins the match", scope="match")

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """Everything ``viewer`` may see of ``state``, as JSON-ready data. The only gate."""
        raise NotImplementedError

    def seen(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """The facts of ``view`` without what a page draws from them (notifications read whose
        move it is and the round from it); a game whose view has no such part: its view."""
        return self.view(state, viewer)

    def paged(self, shown: dict[str, Any]) -> dict[str, Any]:
        """``view`` made from ``seen``'s answer: what a page draws from it added (none here)."""
        return shown

    def idle_hint(self, state: State, viewer: Viewer) -> Any:
        """The move ``viewer``'s page hints after a few idle seconds, from what the gate lets
        that viewer see, or None (none here). The page asks for it when it has been idle
        (docs/protocol.md, ``hint``), so no move's frames pay for the search."""
        return None

    def warm_up(self) -> None:
        """Load anything slow (compiled kernels, tables) before the first bot move or analysis."""

    def action_cost(self, state: State, seat: int, action: dict[str, Any]) -> dict[str, int]:
        """What ``action`` will charge the seat's season ledger ({"garnets": n}), so the core
        refuses it when the player cannot pay. The charge itself is the prize of the action's
        own Outcome, written in the same transaction with the player's ledger locked."""
        return {}

    def refunds_on_abort(self, state: State) -> dict[int, dict[str, Any]]:
        """What an abort gives back to each seat (garnets paid for something that will now
        never happen, such as a premove of an unresolved round), as Outcome prizes."""
        return {}

    def bot_action(
        self, view: dict[str, Any], seat: int, level: str, now: datetime
    ) -> dict[str, Any] | None:
        """The action a bot in ``seat`` takes now, or None to wait. ``view`` is
        ``view(state, Viewer(seat))``: a bot knows only what its seat may see."""
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

    # --- replay and help -------------------------------------------------------------------------
    # The controls of the game's page in a few short steps, shown once as a walkthrough.
    controls_help: ClassVar[tuple[str, ...]] = ()

    def describe_event(self, event: dict[str, Any], state: State) -> str:
        """What ``event`` did, in one sentence a player reads in the replay and the export.
        ``event`` is the event as its viewer may see it (``Event.seen_by``: version, kind, seat,
        data); ``state`` is the match's state at or after it, read only for what every viewer
        knows (the seats' names). The default names the event and its simple facts; each game
        says it in its players' words."""
        return generic_description(event, state)

    def replay_marks(self, events: list[dict[str, Any]]) -> list[tuple[int, str]]:
        """Where a replay may jump: (version, label) at the start of each round, board or level,
        in order (events as ``Event.seen_by``). The replay opens at the last one. The default
        marks the start and every ``round_started`` event."""
        return round_marks(events, {"started", "round_started"}, label="Round")

    def rules_examples(self) -> list[dict[str, Any]]:
        """Small example boards for the rules page, made by the engine: each ``{"title", "text",
        "grids": [grid for templates/core/_grid.html, with a caption]}``."""
        return []


class FlowGame(GameDefinition):
    """A game whose rules are a pure phase machine, the module ``flow``, whose privacy gate is
    the module ``view_module`` (its ``view``) and whose page is the module ``page_module`` (its
    ``page``): what they declare (games/core/game/flowcontract.py) is read and checked once, as the
    class is made (``flow_module``). A game naming no view or page module declares them in its
    flow. Its practice bot is the module ``bot`` (``decide``). The hooks are wired to them here,
    once; a game overrides only the hooks it adds to (its settings, its view's drawing, host
    awards the flow reads otherwise)."""

    flow: ClassVar[ModuleType]
    view_module: ClassVar[ModuleType | None] = None
    page_module: ClassVar[ModuleType | None] = None
    flow_module: ClassVar[FlowModule]
    bot: ClassVar[ModuleType | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """What a game's modules already declare is not declared again: the action types its
        flow judges unversioned (``UNVERSIONED_ACTIONS``), its seat counts (``MIN_SEATS``,
        ``MAX_SEATS``) and its bot's levels with their help (``BOT_LEVELS``, level -> help). A
        game in ``games/<app>/`` finds its templates in ``<app>/``, its stylesheet at
        ``css/<app>.css`` and its script at ``js/<app>.js``, after the shared grid and step
        player, unless it says otherwise."""
        super().__init_subclass__(**kwargs)
        flow, bot = cls.__dict__.get("flow"), cls.__dict__.get("bot")
        if flow is not None:
            cls.flow_module = declared = read_flow(flow, view=cls.view_module, page=cls.page_module)
            if "unversioned_actions" not in cls.__dict__:
                cls.unversioned_actions = declared.unversioned_actions
            if "sealed_actions" not in cls.__dict__:
                cls.sealed_actions = declared.sealed_actions
            if "sealed_for_good" not in cls.__dict__:
                cls.sealed_for_good = declared.sealed_for_good
        if "sealed_actions" in cls.__dict__ or flow is not None:
            revealed: dict[str, list[str]] = {}
            for action_type, kinds in cls.sealed_actions.items():
                for kind in kinds:
                    revealed.setdefault(kind, []).append(action_type)
            cls.revealed_by = {kind: tuple(types) for kind, types in revealed.items()}
            for attribute, seats in (
                ("min_seats", declared.min_seats),
                ("max_seats", declared.max_seats),
            ):
                if seats is not None and attribute not in cls.__dict__:
                    setattr(cls, attribute, seats)
        package = flow.__name__.rpartition(".")[0] if flow is not None else ""
        if package.startswith("games."):
            app = package.rpartition(".")[2]
            shared = {
                "template_dir": app,
                "stylesheets": (f"css/{app}.css",),
                "scripts": ("js/grid.js", "js/steps.js", f"js/{app}.js"),
            }
            for attribute, value in shared.items():
                if attribute not in cls.__dict__:
                    setattr(cls, attribute, value)
        if bot is not None and "bot_levels" not in cls.__dict__:
            levels = dict(getattr(bot, "BOT_LEVELS", {}))
            cls.bot_levels = tuple(levels)
            cls.bot_level_help = levels

    def setting_table(self) -> tuple[Setting, ...]:
        declared = self.flow_module.settings
        return with_auto_start(declared if declared is not None else self.settings)

    def check_settings(self, settings: dict[str, Any]) -> dict[str, Any]:
        check = self.flow_module.check_settings
        return check(settings) if check is not None else settings

    def start(
        self, settings: dict[str, Any], seats: list[SeatInfo], seed: int | str, now: datetime
    ) -> Outcome:
        return self.flow_module.start(self.clean_settings(settings), seats, seed, now)

    def act(self, state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
        return self.flow_module.act(state, seat, action, now)

    def timeout(
        self, state: State, key: str, now: datetime, drafts: dict[int, dict[str, Any]] | None = None
    ) -> Outcome:
        return self.flow_module.timeout(state, key, now, drafts)

    def clean_draft(self, state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any]:
        return self.flow_module.clean_draft(state, seat, draft)

    def draft_move(self, state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any] | None:
        sealed_as = self.flow_module.draft_move
        return sealed_as(state, seat, draft) if sealed_as is not None else None

    def adjudicate(self, state: State, award: dict[str, Any], now: datetime) -> Outcome:
        return self.flow_module.adjudicate(state, award, now)

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """The flow's ``view`` is the gate; the flow's ``page``, when it has one, adds what the
        page draws from that answer alone (grids, labels, the prompt), never from the state.
        A match not started shows nothing."""
        if not state or "phase" not in state:
            return {}
        return self.paged(self.flow_module.view(state, viewer))

    def paged(self, shown: dict[str, Any]) -> dict[str, Any]:
        """``shown`` (the gate's answer) with what the flow's ``page`` draws from it alone."""
        page = self.flow_module.page
        return page(shown) if shown and page is not None else shown

    def seen(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """The flow's ``view`` alone, without what its ``page`` draws from it."""
        if not state or "phase" not in state:
            return {}
        return self.flow_module.view(state, viewer)

    def idle_hint(self, state: State, viewer: Viewer) -> Any:
        """The page module's ``idle_hint_of`` the gate's answer to ``viewer``, if it has one."""
        hint = getattr(self.page_module, "idle_hint_of", None)
        if hint is None:
            return None
        shown = self.seen(state, viewer)
        return hint(shown) if shown else None

    def bot_action(
        self, view: dict[str, Any], seat: int, level: str, now: datetime
    ) -> dict[str, Any] | None:
        return self.bot.decide(view, seat, level, now) if self.bot is not None else None

    def end_round_label(self, state: State) -> str | None:
        """The flow's ``END_ROUND`` words for the phase ({phase: "round {round} now"}): a flow
        that lists a phase there lets the host run its clock out now."""
        says = self.flow_module.end_round.get(state.get("phase", "")) if state else None
        return says.format(round=state.get("round")) if says else None

    def end_round(self, state: State, now: datetime) -> Outcome:
        """The running phase's clock runs out now, as when its time is up."""
        clock = self.flow_module.clock_of_phase.get(state.get("phase", ""))
        running = state.get("deadlines", {})
        if clock is None or clock not in running or self.end_round_label(state) is None:
            raise ActionError("there is no round to end now", code="no_round")
        return self.timeout(state, clock, now, None)

    def action_cost(self, state: State, seat: int, action: dict[str, Any]) -> dict[str, int]:
        cost = self.flow_module.action_cost
        return cost(state, seat, action) if cost is not None else {}

    def refunds_on_abort(self, state: State) -> dict[int, dict[str, Any]]:
        refunds = self.flow_module.refunds_on_abort
        return refunds(state) if refunds is not None else {}

    def analysis_job(self, state: State) -> dict[str, Any] | None:
        find = self.flow_module.analysis_job
        return find(state) if find is not None else None

    def run_analysis(self, job: dict[str, Any]) -> dict[str, Any]:
        assert self.flow_module.run_analysis is not None, "a job came from analysis_job"
        return self.flow_module.run_analysis(job)

    def record_analysis(self, state: State, job: dict[str, Any], result: dict[str, Any]) -> Outcome:
        assert self.flow_module.record_analysis is not None, "a job came from analysis_job"
        return self.flow_module.record_analysis(state, job, result)
