"""The death match's game definition: its settings and the page it draws from ``view.view``
(the board as a grid, labels, the powerups' help, the prompt). The rules and the view's gate are
tested in test_flow.py."""

from __future__ import annotations

import json

import pytest

from games.bejeweled_dm import view
from games.bejeweled_dm.game import DeathMatch
from games.core.game.gamedef import Viewer
from tests.bejeweled_dm.test_flow import (
    DMO,
    EC,
    act,
    on_row_board,
    picking,
    proving,
    started,
)
from tests.flows import T0, at

GAME = DeathMatch()
VIEWERS = (Viewer(seat=EC), Viewer(seat=DMO), Viewer.spectator(), Viewer.host())
DRAWN = {"board", "offer", "clock", "picks"}  # the keys of view.view the page redraws


def states() -> list[dict]:
    claimed = act(on_row_board(), EC, type="claim", count=5)
    refreshed = act(proving(EC, 3), EC, type="proof", proof="Refresh A7; Bend; Pick A7")
    one_pick = act(
        picking(), EC, type="pick", starter="Rotate", passive="Recolor", active="Refresh"
    )
    awarded = GAME.adjudicate(started(), {"winner": EC, "scope": "match"}, T0).state
    return [started(), claimed, proving(EC), refreshed, picking(), one_pick, awarded]


# --- settings ----------------------------------------------------------------------------------


def test_a_chosen_offer_needs_every_type():
    with pytest.raises(ValueError, match="offered_passives"):
        GAME.clean_settings(
            {"first_offer": "chosen", "offered_starters": ["Pick"], "offered_actives": ["Plus"]}
        )


# --- the page drawn from view.view -------------------------------------------------------------


@pytest.mark.parametrize("index", range(7))
def test_the_page_shows_what_flow_view_lets_each_viewer_see_and_nothing_else(index):
    state = states()[index]
    for viewer in VIEWERS:
        gated, page = view.view(state, viewer), GAME.view(state, viewer)
        assert {key: page[key] for key in gated if key not in DRAWN} == {
            key: value for key, value in gated.items() if key not in DRAWN
        }
        assert page["board"]["text"] == gated["board"]
        if gated["picks"] is not None:
            assert {k: v for k, v in page["picks"].items() if k != "options"} == gated["picks"]
        json.dumps(page)  # JSON-ready


def test_a_match_not_started_draws_nothing():
    assert GAME.view({}, Viewer.spectator()) == {}


def test_the_board_is_its_text_with_a_caption_for_the_phase():
    state = picking()
    board = GAME.view(state, Viewer.spectator())["board"]
    assert board["text"] == state["carry"]
    assert board["caption"] == "The board this round left (its rocks refill next round)"
    assert GAME.view(started(), Viewer.spectator())["board"]["caption"] == "Round 1's board"


def test_the_clock_and_the_phase_are_labelled():
    state = act(started(), EC, type="claim", count=5)
    bob = GAME.view(state, Viewer(seat=DMO))
    assert bob["clock"] == {
        "key": "claim_window",
        "label": "Counterclaim window",
        "due": at(30).isoformat(),
    }
    assert bob["phase_label"] == "Counterclaim window"


def test_the_prompt_tells_each_viewer_what_to_do_now():
    state = act(started(), EC, type="claim", count=5)
    assert "Ada claimed 5" in GAME.view(state, Viewer(seat=DMO))["prompt"]
    assert GAME.view(state, Viewer(seat=EC))["prompt"].startswith("You claimed 5.")
    assert GAME.view(state, Viewer.spectator())["prompt"] == (
        "Ada claimed 5. Bob may counterclaim higher."
    )


def test_the_offer_and_the_pick_form_carry_each_powerups_help():
    view = GAME.view(picking(), Viewer(seat=EC))
    actives = view["offer"][2]
    assert actives["type"] == "active" and actives["label"] == "Active"
    assert [option["name"] for option in actives["options"]] == ["Plus", "Refresh"]
    assert actives["options"][0]["help"].startswith("Replaces a gem")
    starters = view["pick_form"][0]["choices"]
    assert [(c["name"], c["allowed"]) for c in starters] == [
        ("Swap", True),
        ("Rotate", True),
        ("Pick", False),  # used in the proof just made
    ]


def test_the_pick_form_ticks_the_viewers_own_pick():
    state = act(picking(), EC, type="pick", starter="Rotate", passive="Recolor", active="Refresh")
    mine = GAME.view(state, Viewer(seat=EC))["pick_form"][0]["choices"]
    assert [c["name"] for c in mine if c["chosen"]] == ["Rotate"]
    theirs = GAME.view(state, Viewer(seat=DMO))["pick_form"][0]["choices"]
    assert not any(c["chosen"] for c in theirs)


def test_a_pending_pick_is_seen_only_by_its_player_and_the_host():
    outcome = GAME.act(
        picking(),
        EC,
        {"type": "pick", "starter": "Rotate", "passive": "Recolor", "active": "Refresh"},
        T0,
    )
    mine = GAME.view(outcome.state, Viewer(seat=EC))
    assert mine["picks"]["mine"] == {"starter": "Rotate", "passive": "Recolor", "active": "Refresh"}
    for viewer in (Viewer(seat=DMO), Viewer.spectator()):
        view = GAME.view(outcome.state, viewer)
        assert view["picks"]["picked"] == [True, False]
        assert view["picks"]["mine"] is None and "all" not in view["picks"]
        assert all(entry["picks"] is None for entry in view["history"])
        # The pick form names every powerup: only a tick in it could tell a pick.
        form = view["pick_form"] or []
        assert not any(choice["chosen"] for group in form for choice in group["choices"])
        shown = {k: v for k, v in view.items() if k not in ("picks", "pick_form")}
        assert '"Recolor"' not in json.dumps(shown)
    assert GAME.view(outcome.state, Viewer.host())["picks"]["all"]["0"]["starter"] == "Rotate"


# --- wording -----------------------------------------------------------------------------------


def test_a_match_the_host_awarded_says_so():
    outcome = GAME.adjudicate(started(), {"winner": EC, "scope": "match"}, T0)
    view = GAME.view(outcome.state, Viewer.spectator())
    assert view["board"]["text"] == outcome.state["board"]
    assert view["prompt"] == (
        "The host awarded the match to Ada (round wins Ada 0, Bob 0); Ada earns 5 garnets."
    )


def test_the_end_of_the_match_states_the_score_winner_first_everywhere():
    state = started()
    for winner in [DMO, DMO, EC, DMO, EC, DMO]:
        state = GAME.adjudicate(state, {"winner": winner, "scope": "round"}, T0).state
        if state["phase"] == "pick":
            pick = {"starter": "Swap", "passive": "Chain", "active": "Column"}
            state = act(state, EC, type="pick", **pick)
            state = act(state, DMO, type="pick", **pick)
    view = GAME.view(state, Viewer.spectator())
    assert view["prompt"] == "Bob wins the match by 4 round wins to 2 and earns 5 garnets."
    assert view["final_score"] == "Bob 4, Ada 2"
