"""A refused or failed request gets a page in the site's own look that says what happened in a
player's words and links back to the lobby, never the framework's bare, unstyled page."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client, RequestFactory
from django.urls import reverse
from django.views import defaults

pytestmark = pytest.mark.django_db

STYLED = "css/arena.css"


def test_a_form_posted_with_a_tampered_token_gets_the_sites_page(make_user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("ada"))
    client.get(reverse("lobby"))  # the page that sets the token's cookie
    response = client.post(reverse("logout"), {"csrfmiddlewaretoken": "x" * 64})
    html = response.content.decode()
    assert response.status_code == 403
    assert STYLED in html and "That form was not accepted" in html
    assert reverse("lobby") in html


def test_a_missing_page_gets_the_sites_page(client):
    response = client.get("/no/such/page/")
    html = response.content.decode()
    assert response.status_code == 404
    assert STYLED in html and "Nothing here" in html


@pytest.mark.parametrize(
    ("view", "words"),
    [
        (lambda r: defaults.bad_request(r, Exception("x")), "could not be read"),
        (lambda r: defaults.permission_denied(r, Exception("x")), "You may not do that"),
        (defaults.server_error, "Something went wrong on our side"),
    ],
    ids=["400", "403", "500"],
)
def test_every_error_gets_the_sites_page(view, words):
    request = RequestFactory().get("/somewhere/")
    request.user = AnonymousUser()
    html = view(request).content.decode()
    assert STYLED in html and words in html
