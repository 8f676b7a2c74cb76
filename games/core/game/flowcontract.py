"""What a game's ``flow`` module declares, read and checked once, when its game class is made
(games/core/game/gamedef.py ``FlowGame``): a flow that lacks a function the core calls, or declares
one of the wrong kind, is refused then, with every problem named, not when a match first needs it.

A game reads top-down in three modules, each read here for its own declarations:
``flow.py`` (the phases, the actions, the clocks), ``view.py`` (``view``: the privacy gate, the only
place that decides what a viewer sees) and ``page.py`` (``page``: what the templates draw, derived
from a view alone). The game names them (``FlowGame.flow``, ``view_module``, ``page_module``); a
game that names no view or page module declares ``view`` (and ``page``) in its flow. Each name is
declared in one module only: a flow that also declares the view it was given is refused.

Together they declare:

| name | required | what it is |
| --- | --- | --- |
| ``start(settings, seats, seed, now)`` | yes | the first state (an ``Outcome``) |
| ``act(state, seat, action, now)`` | yes | a seat's action |
| ``timeout(state, key, now, drafts)`` | yes | the clock ``key`` ran out |
| ``clean_draft(state, seat, draft)`` | yes | a draft checked as strictly as its action |
| ``draft_move(state, seat, draft)`` | no | the move a clock would seal a kept draft as (or None) |
| ``adjudicate(state, award, now)`` | yes | a host's award |
| ``view(state, viewer)`` | yes (view.py) | the privacy gate: what ``viewer`` may see |
| ``page(view)`` | no (page.py) | what the templates draw, derived from a view alone |
| ``check_settings(settings)`` | no | settings checked together |
| ``action_cost(state, seat, action)`` | no | what an action costs (garnets) |
| ``refunds_on_abort(state)`` | no | what an abort gives back |
| ``analysis_job``, ``run_analysis``, ``record_analysis`` | all or none | after-the-fact analysis |
| ``SETTINGS`` | no | the match settings (a tuple of ``Setting``) |
| ``UNVERSIONED_ACTIONS`` | no | action types judged without a version |
| ``MIN_SEATS``, ``MAX_SEATS`` | no | seat counts |
| ``END_ROUND`` | no | phase -> the words of the host's "end the round now" |
| ``CLOCK_OF_PHASE`` | no | phase -> its clock's key (every ``END_ROUND`` phase has one) |
| ``SEALED_ACTIONS`` | no | sealed action type -> the event kinds that reveal it (a receipt each) |
| ``SEALED_FOR_GOOD`` | no | sealed action types only their seat and the host ever see |
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

REQUIRED = ("start", "act", "timeout", "clean_draft", "adjudicate", "view")
OPTIONAL = ("page", "check_settings", "action_cost", "refunds_on_abort", "draft_move")
ANALYSIS = ("analysis_job", "run_analysis", "record_analysis")


class FlowContractError(TypeError):
    """A flow module that does not declare what the core calls."""


@dataclass(frozen=True)
class FlowModule:
    """A flow module's declarations, as the core calls them."""

    name: str
    start: Callable[..., Any]
    act: Callable[..., Any]
    timeout: Callable[..., Any]
    clean_draft: Callable[..., Any]
    adjudicate: Callable[..., Any]
    view: Callable[..., Any]
    page: Callable[..., Any] | None = None
    check_settings: Callable[..., Any] | None = None
    action_cost: Callable[..., Any] | None = None
    refunds_on_abort: Callable[..., Any] | None = None
    draft_move: Callable[..., Any] | None = None
    analysis_job: Callable[..., Any] | None = None
    run_analysis: Callable[..., Any] | None = None
    record_analysis: Callable[..., Any] | None = None
    settings: tuple[Any, ...] | None = None
    unversioned_actions: frozenset[str] = frozenset()
    min_seats: int | None = None
    max_seats: int | None = None
    end_round: Mapping[str, str] = field(default_factory=dict)
    clock_of_phase: Mapping[str, str] = field(default_factory=dict)
    sealed_actions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    sealed_for_good: tuple[str, ...] = ()


def read_flow(
    module: ModuleType, *, view: ModuleType | None = None, page: ModuleType | None = None
) -> FlowModule:
    """The declarations of the flow ``module`` and of the game's ``view`` and ``page`` modules
    (each declaring its namesake function), or FlowContractError naming everything wrong."""
    problems: list[str] = []
    declared = dict(vars(module))
    for name, apart in (("view", view), ("page", page)):
        if apart is None:
            continue
        if name in declared:
            problems.append(f"it declares {name}() that {apart.__name__} declares")
        found = vars(apart).get(name)
        if found is None:
            problems.append(f"its {name} module {apart.__name__} declares no {name}()")
        declared[name] = found

    def function(name: str, *, required: bool) -> Callable[..., Any] | None:
        found = declared.get(name)
        if found is None:
            if required:
                problems.append(f"it declares no {name}()")
            return None
        if not callable(found):
            problems.append(f"its {name} is {type(found).__name__}, wanted a function")
            return None
        return found

    def data(name: str, kinds: tuple[type, ...], default: Any) -> Any:
        found = declared.get(name, default)
        if found is not default and not isinstance(found, kinds):
            wanted = " or ".join(kind.__name__ for kind in kinds)
            problems.append(f"its {name} is {type(found).__name__}, wanted {wanted}")
            return default
        return found

    functions = {name: function(name, required=True) for name in REQUIRED}
    functions |= {name: function(name, required=False) for name in (*OPTIONAL, *ANALYSIS)}
    analysis = [name for name in ANALYSIS if functions[name] is not None]
    if analysis and len(analysis) != len(ANALYSIS):
        missing = ", ".join(f"{name}()" for name in ANALYSIS if name not in analysis)
        problems.append(f"it analyses matches but declares no {missing}")
    settings = data("SETTINGS", (tuple, list), None)
    unversioned = data("UNVERSIONED_ACTIONS", (tuple, list, set, frozenset), ())
    seats = {name: data(name.upper(), (int,), None) for name in ("min_seats", "max_seats")}
    end_round = data("END_ROUND", (dict,), {})
    clock_of_phase = data("CLOCK_OF_PHASE", (dict,), {})
    if unclocked := sorted(set(end_round) - set(clock_of_phase)):
        problems.append(f"its END_ROUND phases {unclocked} have no clock in CLOCK_OF_PHASE")
    sealed = data("SEALED_ACTIONS", (dict,), {})
    for kind, kinds in sealed.items():
        if not isinstance(kinds, tuple) or not all(isinstance(k, str) for k in kinds):
            problems.append(f"its SEALED_ACTIONS[{kind!r}] is not a tuple of event kinds")
    for_good = data("SEALED_FOR_GOOD", (tuple,), ())
    if strays := sorted(set(for_good) - set(sealed)):
        problems.append(f"its SEALED_FOR_GOOD {strays} are not among its SEALED_ACTIONS")
    if problems:
        raise FlowContractError(f"the flow {module.__name__}: " + "; ".join(problems))
    return FlowModule(
        name=module.__name__,
        **functions,  # type: ignore[arg-type]
        settings=tuple(settings) if settings is not None else None,
        unversioned_actions=frozenset(unversioned),
        **seats,
        end_round=end_round,
        clock_of_phase=clock_of_phase,
        sealed_actions=dict(sealed),
        sealed_for_good=tuple(for_good),
    )
