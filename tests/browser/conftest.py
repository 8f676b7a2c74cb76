"""Headless Debian chromium driven by Playwright against a live worker."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from django.db import connections

from tests.browser.pages import PATIENCE_MS
from tests.following import next_asks_for

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Several pages animate at once in a test (players and spectators): none is throttled as a
    # background or hidden window, so each page's animation clock keeps ticking.
    "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
]


class SharedBrowser:
    """Chromium under Playwright's sync API, started when a test asks for it and kept for the
    tests right after it that ask for it too (a start costs over a second of a core). It stops
    before any other test: Playwright's sync API holds an event loop in this thread while it
    runs, which would break the asyncio tests that come after it."""

    def __init__(self) -> None:
        self.playwright: Any = None
        self.browser: Any = None

    def open(self) -> Any:
        if self.browser is None:
            from playwright.sync_api import expect, sync_playwright

            # The live worker, the browsers and the test share two cores with three other test
            # processes, each perhaps driving its own browser: wait for the page as a patient
            # player would (assertions still fail when the page never gets there; a CI run saw
            # loads of over 10 s).
            expect.set_options(timeout=PATIENCE_MS)
            # Playwright's sync API keeps an event loop in the test thread; the ORM calls the
            # tests make between browser steps are still plain synchronous calls.
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
            self.playwright = sync_playwright().start()
            self.browser = self.playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
            )
        return self.browser

    def close(self) -> None:
        if self.browser is not None:
            try:
                self.browser.close()
                self.playwright.stop()
            finally:
                self.browser = self.playwright = None
                os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture(scope="session")
def shared_browser():
    shared = SharedBrowser()
    yield shared
    shared.close()


@pytest.fixture
def browser(request, shared_browser):
    """Chromium for this test, with no contexts of an earlier test left open."""
    if not Path(CHROMIUM).exists():
        pytest.skip(
            f"browser: no chromium at {CHROMIUM}; apt-get install chromium (or set CHROMIUM_PATH)"
        )
    browser = shared_browser.open()
    try:
        yield browser
    finally:
        for context in browser.contexts:
            context.close()
        if not next_asks_for(request.node, "browser"):
            shared_browser.close()


@pytest.fixture
def login_context(browser, live_worker):
    """A fresh browser context logged in as ``username`` (or a guest when None)."""
    contexts = []

    def make(username: str | None, password: str = "pw-for-tests-1", **options):
        """``options``: the browser context's own (a ``locale``, a ``timezone_id``...)."""
        context = browser.new_context(base_url=live_worker.url, **options)
        context.set_default_timeout(PATIENCE_MS)
        contexts.append(context)
        page = context.new_page()
        if username:
            page.goto("/accounts/login/")
            page.fill("input[name=username]", username)
            page.fill("input[name=password]", password)
            page.click("form.settings button[type=submit]")
            page.wait_for_url("**/")
        return page

    yield make
    for context in contexts:
        context.close()
    # ORM calls made while Playwright's loop runs get their own connection; close it here.
    connections.close_all()
