"""A game's flow module is read and checked once, as its game class is made
(games/core/game/flowcontract.py): what is missing or of the wrong kind is named then."""

from __future__ import annotations

from types import ModuleType

import pytest

from games.core.game.flowcontract import REQUIRED, FlowContractError, read_flow
from games.core.game.gamedef import FlowGame
from games.core.game.registry import all_games


def flow_with(**declared) -> ModuleType:  # type: ignore[no-untyped-def]
    module = ModuleType("games.planted.flow")
    for name in REQUIRED:
        setattr(module, name, lambda *args: None)
    for name, value in declared.items():
        if value is None:
            delattr(module, name)
        else:
            setattr(module, name, value)
    return module


def test_every_registered_flow_game_declares_what_the_core_calls():
    flows = [game for game in all_games() if isinstance(game, FlowGame)]
    assert len(flows) >= 6
    for game in flows:
        assert game.flow_module.name == game.flow.__name__
        gate = game.view_module or game.flow
        assert game.flow_module.view is gate.view


def test_a_game_with_a_view_and_a_page_module_reads_its_gate_and_page_from_them():
    split = [game for game in all_games() if isinstance(game, FlowGame) and game.view_module]
    assert {game.key for game in split} >= {
        "glittering-paths",
        "pointsweeper",
        "bejeweled-2",
        "bejeweled-2-race",
    }
    for game in split:
        assert game.page_module is not None
        assert game.flow_module.view is game.view_module.view
        assert game.flow_module.page is game.page_module.page
        assert "view" not in vars(game.flow) and "page" not in vars(game.flow)


def test_a_flow_missing_functions_is_refused_as_its_game_is_made_naming_each():
    planted = flow_with(view=None, clean_draft=None)
    with pytest.raises(FlowContractError) as refused:

        class Planted(FlowGame):
            key = "planted"
            flow = planted

    said = str(refused.value)
    assert "games.planted.flow" in said
    assert "declares no clean_draft()" in said and "declares no view()" in said


def test_a_view_module_without_a_view_or_a_gate_declared_twice_is_refused_naming_it():
    gate = ModuleType("games.planted.view")
    with pytest.raises(FlowContractError, match=r"its view module games.planted.view declares no"):
        read_flow(flow_with(view=None), view=gate)
    gate.view = lambda state, viewer: {}  # type: ignore[attr-defined]
    with pytest.raises(FlowContractError, match=r"declares view\(\) that games.planted.view"):
        read_flow(flow_with(), view=gate)
    assert read_flow(flow_with(view=None), view=gate).view is gate.view


def test_a_declaration_of_the_wrong_kind_is_named():
    with pytest.raises(FlowContractError, match="its page is str, wanted a function"):
        read_flow(flow_with(page="the board"))
    with pytest.raises(FlowContractError, match="its MAX_SEATS is str, wanted int"):
        read_flow(flow_with(MAX_SEATS="7"))


def test_analysis_is_declared_whole_and_every_round_the_host_ends_has_a_clock():
    with pytest.raises(FlowContractError, match=r"declares no run_analysis\(\), record_analysis"):
        read_flow(flow_with(analysis_job=lambda state: None))
    with pytest.raises(FlowContractError, match=r"END_ROUND phases \['round'\] have no clock"):
        read_flow(flow_with(END_ROUND={"round": "round {round} now"}))


def test_a_whole_flow_reads_with_its_defaults():
    declared = read_flow(flow_with(UNVERSIONED_ACTIONS=("draft",), MIN_SEATS=2))
    assert declared.unversioned_actions == frozenset({"draft"})
    assert (declared.min_seats, declared.max_seats, declared.page) == (2, None, None)
