"""What an event tells whom: pure, no database."""

from __future__ import annotations

from games.notifications import kinds
from games.notifications.decide import EventFacts, awaited, messages_for, reminder

SLOW = 600.0


def facts(**changes) -> EventFacts:
    base = dict(
        kind="added",
        title="Final",
        words="Ada added 2.",
        before={"turn": 0},
        after={"turn": 1},
        players={0: "Ada", 1: "Bob"},
        seat_count=2,
        live=True,
        finished=False,
        clock_ran_out=False,
        ran_out_seconds=None,
        seconds_to_act=3600.0,
    )
    return EventFacts(**{**base, **changes})


def told(messages) -> list[tuple[str, tuple[int, ...], bool]]:
    return [(m.kind, m.seats, m.host) for m in messages]


def test_the_seat_now_to_move_is_told_it_is_their_move():
    assert told(messages_for(facts(), slow_seconds=SLOW)) == [(kinds.YOUR_TURN, (1,), False)]


def test_a_quick_clock_tells_no_one_whose_move_it_is():
    assert messages_for(facts(seconds_to_act=30.0), slow_seconds=SLOW) == []


def test_a_player_alone_has_no_turn_to_be_told():
    alone = facts(players={0: "Ada"}, seat_count=1, before={"turn": 1}, after={"turn": 0})
    assert messages_for(alone, slow_seconds=SLOW) == []


def test_a_bot_seat_is_never_told():
    assert messages_for(facts(players={0: "Ada"}), slow_seconds=SLOW) == []


def test_the_start_tells_every_player_and_the_webhook_once():
    start = facts(kind="started", before={}, after={"turn": 0}, words="Started.")
    (message,) = messages_for(start, slow_seconds=SLOW)
    assert (message.kind, message.seats) == (kinds.MATCH_STARTED, (0, 1))
    assert message.public_text == "Final has started."


def test_the_finish_tells_everyone_the_result_in_public_words():
    end = facts(finished=True, live=False, words="Ada reached the count.", seconds_to_act=None)
    (message,) = messages_for(end, slow_seconds=SLOW)
    assert (message.kind, message.seats) == (kinds.ROUND_RESULT, (0, 1))
    assert message.public_text == "Final is over. Ada reached the count."


def test_a_new_round_tells_the_last_rounds_result():
    event = facts(
        before={"round": 1, "phase": "round", "submitted": [0, 1]},
        after={"round": 2, "phase": "round", "submitted": []},
        words="Round 1 resolved.",
    )
    (message,) = messages_for(event, slow_seconds=SLOW)
    assert message.kind == kinds.ROUND_RESULT
    assert message.public_text == "Final: Round 1 resolved. Round 2 has started."


def test_a_clock_that_ran_out_tells_who_sent_nothing_and_the_host_who_they_are():
    event = facts(
        kind="round_time_up",
        clock_ran_out=True,
        before={"phase": "round", "round": 3, "submitted": [1]},
        after={"phase": "round", "round": 3, "submitted": [1]},
        players={0: "Ada", 1: "Bob", 2: "Cy"},
        seat_count=3,
    )
    messages = messages_for(event, slow_seconds=SLOW)
    assert told(messages) == [
        (kinds.SUBMISSION_MISSING, (0, 2), False),
        (kinds.SUBMISSIONS_MISSED, (), True),
    ]
    assert "Ada, Cy" in messages[1].text
    assert all(m.public_text is None for m in messages)


def test_a_finish_with_a_tie_left_asks_the_host_to_settle_it():
    end = facts(finished=True, live=False, to_settle=("Ada is the EC", "Bob is the EC"))
    messages = messages_for(end, slow_seconds=SLOW)
    assert told(messages)[-1] == (kinds.TIE_TO_SETTLE, (), True)
    assert "Ada is the EC; Bob is the EC" in messages[-1].text
    assert messages[-1].public_text is None


def test_sealed_phases_wait_for_the_seats_that_have_not_sent():
    assert awaited({"phase": "bidding", "bids_in": [2]}, [0, 1, 2]) == {0, 1}
    assert awaited({"phase": "round", "submitted": [0]}, [0, 1]) == {1}
    assert awaited({"to_move": [1], "turn": 0}, [0, 1]) == {1}
    assert awaited({"phase": "over"}, [0, 1]) == set()


def test_a_reminder_goes_only_to_who_is_still_missing():
    message = reminder("Final", {"phase": "round", "submitted": [0]}, {0: "Ada", 1: "Bob"}, 60)
    assert message is not None and message.seats == (1,)
    assert "60 minutes left" in message.text
    assert reminder("Final", {"phase": "round", "submitted": [0, 1]}, {0: "a", 1: "b"}, 60) is None


def test_an_abort_or_a_corrected_result_is_told_like_a_result():
    for kind in ("aborted", "result_corrected"):
        event = facts(kind=kind, live=False, words="The host corrected the result: Bob wins.")
        (message,) = messages_for(event, slow_seconds=SLOW)
        assert (message.kind, message.seats) == (kinds.ROUND_RESULT, (0, 1))
        assert message.public_text == "Final: The host corrected the result: Bob wins."


def test_a_quick_clock_that_ran_out_tells_no_one():
    event = facts(
        kind="round_time_up",
        clock_ran_out=True,
        ran_out_seconds=60.0,
        before={"phase": "round", "round": 3, "submitted": [1]},
        after={"phase": "round", "round": 3, "submitted": [1]},
    )
    assert messages_for(event, slow_seconds=SLOW) == []
