from __future__ import annotations

from django.urls import reverse

from games.bejeweled_dm import engine

BOARD = engine.format_board(engine.generate_board(3))


def test_the_practice_board_shows_a_random_board_to_anyone(client):
    page = client.get(reverse("bejeweled_dm_practice") + "?seed=3").content.decode()
    assert page.count("data-cell=") == 56
    assert "Best possible" in page


def test_a_tried_proof_shows_its_count_and_steps(client):
    proof = "Plus A7; Bend; Pick A7"
    expected = engine.resolve(BOARD, proof).removed
    response = client.post(
        reverse("bejeweled_dm_practice"),
        {"board": BOARD, "proof": proof},
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert "<html" not in body
    assert f'<b class="practice-count">{expected}</b>' in body
    assert "pick" in body


def test_an_illegal_proof_gets_the_engines_reason(client):
    response = client.post(
        reverse("bejeweled_dm_practice"), {"board": BOARD, "proof": "Plus A7; Bend; Swap A7 C7"}
    )
    assert "not adjacent" in response.content.decode()


def test_a_powerup_outside_the_chosen_offer_is_refused(client):
    response = client.post(
        reverse("bejeweled_dm_practice"),
        {"board": BOARD, "proof": "Plus A7; Bend; Pick A7", "starter": ["Swap"]},
    )
    assert "Pick is not in the offer you chose" in response.content.decode()


def test_best_possible_shows_the_solvers_optimum(client):
    best, _ = engine.best_claim(BOARD, {"Swap"}, {"Bend"}, {"Plus"})
    response = client.post(
        reverse("bejeweled_dm_practice"),
        {"board": BOARD, "optimum": "1", "starter": "Swap", "passive": "Bend", "active": "Plus"},
    )
    assert f'<b class="practice-count">{best}</b>' in response.content.decode()


def test_a_malformed_pasted_board_is_explained(client):
    page = client.get(reverse("bejeweled_dm_practice") + "?board=RRR").content.decode()
    assert "That board:" in page


def test_a_garbage_proof_is_refused_with_its_length_and_never_echoed_in_full(client):
    garbage = "Plus A7 " * 375  # 3,000 characters
    response = client.post(reverse("bejeweled_dm_practice"), {"board": BOARD, "proof": garbage})
    body = response.content.decode()
    assert "That proof is 3,000 characters long; a proof has at most 200" in body
    assert garbage[:201] not in body
    assert len(body) < len(garbage) + 20_000  # the page, not the garbage


def test_the_practice_board_cells_are_buttons_named_for_screen_readers(client):
    page = client.get(reverse("bejeweled_dm_practice") + "?seed=3").content.decode()
    assert page.count('<button type="button" class="cell') == 56
    assert 'aria-label="A1, ' in page
