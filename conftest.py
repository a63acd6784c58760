"""Fixtures for the whole suite."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, request):
    """Each test process's PostgreSQL database is cloned from one migrated template instead of
    migrated by every process (tests/template_db.py; docs/testing.md, "How it runs")."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"].endswith("postgresql") and not request.config.getvalue("nomigrations"):
        from tests.template_db import ensure_template

        database.setdefault("TEST", {})["TEMPLATE"] = ensure_template(database)


@pytest.fixture(autouse=True, scope="session")
def _tasks_run_inline():
    """Tasks sent by the code under test (a finished game's settle task) run inline in the test
    process, as they would run in a worker; the real worker of the end-to-end tests (another
    process, started with the environment) still gets them through Redis."""
    from config.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture(autouse=True)
def _default_language():
    """Every test starts in the site's language (Italian). A test that switches to English and
    forgets to switch back would otherwise change what the next test in the same process reads:
    with pytest-xdist (`make test`) the order of tests in a process is not the file's (seen as
    "3 random moves" where "3 mosse a caso" was expected)."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _event_parts_per_request():
    """An event page's shared part is rendered for every request in the test process: it is
    kept until the next push, and most tests here change things without pushing (the tests of
    events/shared_part.py turn it back on; the end-to-end servers keep it on). Not through
    pytest-django's `settings` fixture: taken here by every test, it would outlive the tests'
    own fixtures, and one that points the cache at a dead Redis would still be in force when
    their clean-up clears the cache."""
    from django.test import override_settings

    with override_settings(EVENT_PART_SECONDS=0):
        yield


@pytest.fixture(autouse=True)
def _fresh_channel_layer():
    """A new channel layer for every test.

    channels keeps one layer object per process, and channels_redis binds its internal asyncio
    locks to the event loop that first used them; pytest-asyncio gives each test its own loop,
    so a layer reused across tests fails with "bound to a different event loop". Production has
    one loop per process and never sees this.
    """
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


class _Chromium:
    """One Playwright and Chromium per test process, whichever packages its browser tests are
    in (a second sync Playwright beside the first fails), started by the first test that needs
    a browser and stopped before the first one after it that does not: Playwright's sync API
    keeps an event loop running in the main thread, and an asyncio test run after it fails
    ("Runner.run() cannot be called from a running event loop"). Under `make test` a worker's
    browser tests run one after the other (tests/conftest.py's xdist groups), so Chromium
    starts once per group and stops when the worker goes on to other tests."""

    def __init__(self) -> None:
        self.playwright = None
        self.chromium = None
        self.async_unsafe = None

    def get(self):
        if self.chromium is None:
            from playwright.sync_api import expect, sync_playwright

            from tests.processes import CHROMIUM, CHROMIUM_ARGS

            # The sync API's event loop in the main thread makes Django refuse ORM calls from
            # the tests that run beside the browser; they are synchronous code, so the check
            # does not apply there. Put back as it was when the browser stops.
            self.async_unsafe = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
            # An assertion waits for its condition up to 15 s rather than Playwright's 5: on
            # this 2-core machine, with other workers busy, a page's navigation or a push has
            # taken more than 5 s (a rematch's new board, in a full `make test`). A condition
            # met sooner returns at once, so this costs a passing test nothing.
            expect.set_options(timeout=15_000)
            self.playwright = sync_playwright().start()
            self.chromium = self.playwright.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS
            )
        return self.chromium

    def stop(self) -> None:
        if self.playwright is None:
            return
        try:
            self.chromium.close()
        finally:
            self.playwright.stop()
            self.playwright = self.chromium = None
            if self.async_unsafe is None:
                os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
            else:
                os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = self.async_unsafe


_CHROMIUM = _Chromium()


@pytest.fixture
def browser():
    """The session's Chromium, its pages watched for Content-Security-Policy violations: a
    test on whose pages the policy refused anything (an inline handler, an injected style)
    fails, whatever else it checks (tests/browser.py `CspWatchedBrowser`)."""
    from tests.browser import CspWatchedBrowser

    watched = CspWatchedBrowser(_CHROMIUM.get())
    yield watched
    assert watched.csp_violations == [], (
        f"Content-Security-Policy violations: {watched.csp_violations}"
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # Before any fixture of the test, as a session fixture would be: the database fixtures
    # of a test after the browser's must find the event loop gone, and a browser module's
    # fixtures the environment the browser set.
    if "browser" in getattr(item, "fixturenames", ()):
        _CHROMIUM.get()
    else:
        _CHROMIUM.stop()


@pytest.fixture(autouse=True, scope="session")
def _browser_stops_at_the_end():
    yield
    _CHROMIUM.stop()


@pytest.fixture(scope="session")
def mailbox_server():
    """The suite's SMTP server (tests/mailbox.py), one per test process."""
    from tests.mailbox import Mailbox

    box = Mailbox()
    box.start()
    yield box
    box.stop()


@pytest.fixture
def mailbox(mailbox_server, settings):
    """Mail sent by this test's process goes to the real SMTP server, emptied first."""
    for name, value in mailbox_server.settings().items():
        setattr(settings, name, value)
    mailbox_server.clear()
    mailbox_server.ensure_started()  # a test that stopped it may have failed before restarting
    yield mailbox_server
