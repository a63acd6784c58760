"""Fixtures for the whole suite."""

from __future__ import annotations

import os

import pytest


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
    with pytest-xdist (`make test`) the order of tests in a process is not the file's (issue 27;
    seen as "3 random moves" where "3 mosse a caso" was expected)."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()


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


# One Playwright for the whole session, whichever packages its end-to-end tests are in: its
# sync API runs an event loop in the main thread, and a second one started beside it fails.
@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    from tests.processes import CHROMIUM, CHROMIUM_ARGS

    # Playwright's sync API keeps an event loop in the main thread, which makes Django refuse
    # ORM calls from tests that run after the browser started; the tests are synchronous code,
    # so the check does not apply here.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import expect

    # An assertion waits for its condition up to 15 s rather than Playwright's 5: on this
    # 2-core machine, with two other workers busy, a page's navigation or a push has taken
    # more than 5 s (a rematch's new board, in a full `make test`). A condition met sooner
    # returns at once, so this costs a passing test nothing.
    expect.set_options(timeout=15_000)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
