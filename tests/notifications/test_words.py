"""Long words are cut at a word with an ellipsis, never mid-word: the in-site notification,
the mail (body and subject), the webhook post and the season's log (issue 35 item 2)."""

from __future__ import annotations

import pytest

from games.core.models import Season
from games.notifications import delivery, kinds
from games.notifications.models import Delivery, Notification, SeasonWebhook
from games.notifications.services import notify
from games.notifications.words import shortened

pytestmark = pytest.mark.django_db

# 60 words, 447 characters: the 70th and the 300th are each inside a word.
LONG = " ".join(
    ("Elimination", "Candidate", "Seven", "Gem", "Swap", "settling", "tying")[i % 7]
    for i in range(60)
)


def cut_at_a_word(cut: str, whole: str, limit: int) -> None:
    assert len(cut) <= limit
    assert cut.endswith("…"), cut
    kept = cut[:-1]
    assert whole.startswith(kept)
    assert whole[len(kept)] == " ", f"cut mid-word: {cut[-20:]!r}"


def test_short_words_are_kept_whole():
    assert shortened("  Ada   won. ", 300) == "Ada won."


def test_long_words_end_at_a_word_with_an_ellipsis():
    for limit in (20, 70, 300):
        cut_at_a_word(shortened(LONG, limit), LONG, limit)


def test_one_endless_word_is_cut_where_it_must_be():
    assert shortened("x" * 50, 10) == "x" * 9 + "…"


def test_a_long_notification_is_cut_at_a_word_everywhere(make_user, clock):
    season = Season.objects.create(name="Season 1")
    SeasonWebhook.objects.create(
        season=season, url="http://chat.example/hook", kinds=[kinds.ROUND_RESULT]
    )
    ada = make_user("ada", email="ada@example.org")
    assert " " not in LONG[298:301] + LONG[68:71]

    notify(
        users=[ada],
        kind=kinds.ROUND_RESULT,
        text=LONG,
        url="/m/7/",
        season=season,
        public_text=LONG,
    )

    note = Notification.objects.get()
    cut_at_a_word(note.text, LONG, 300)
    post = Delivery.objects.get(channel=Delivery.Channel.WEBHOOK)
    cut_at_a_word(post.public_text, LONG, 300)
    assert "/m/7/" in delivery.webhook_body(post)["text"]  # the rest is a click away
    message = delivery.mail_of(Delivery.objects.get(channel=Delivery.Channel.EMAIL))
    assert message.subject.startswith("Gem Arena: ")
    cut_at_a_word(message.subject.removeprefix("Gem Arena: "), LONG, 70)
    assert note.text in message.body and "/m/7/" in message.body
