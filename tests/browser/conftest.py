"""Headless Debian chromium driven by Playwright against a live worker."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.db import connections

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
PATIENCE_MS = 30_000  # how long a page, a click or an expectation may take before it fails
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


@pytest.fixture
def browser():
    """Per test: Playwright's sync API holds an event loop in this thread while it runs, which
    would break the asyncio tests that come after it."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no chromium at {CHROMIUM} (.ci/run installs Debian's chromium)")
    from playwright.sync_api import expect, sync_playwright

    # The live worker, the browsers and the test share two cores with three other test processes,
    # each perhaps driving its own browser: wait for the page as a patient player would
    # (assertions still fail when the page never gets there; a CI run saw loads of over 10 s).
    expect.set_options(timeout=PATIENCE_MS)

    # Playwright's sync API keeps an event loop in the test thread; the ORM calls the tests make
    # between browser steps are still plain synchronous calls.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        yield from _launch(sync_playwright)
    finally:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


def _launch(sync_playwright):
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        yield browser
        browser.close()


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
