"""Fixtures shared by the cross-app and end-to-end tests."""

from __future__ import annotations

import uuid

import pytest

from accounts.tests.factories import UserFactory
from harness import free_port, wait_until
from live import heartbeat, presence
from live.models import Connection
from tests.browser import signed_in
from tests.processes import Processes, process_env


@pytest.fixture(scope="session")
def background(django_db_setup, django_db_blocker, tmp_path_factory, mailbox_server):
    """A real Celery worker and beat on the test database and Redis (session-wide), mailing
    through the suite's SMTP server (tests/mailbox.py)."""
    # No test waits on a wall clock it can set (docs/testing.md): a short pause between tournament
    # rounds (RULES 4.8's 30 s stays tested in tournaments/tests), a live page's resync after
    # 3 s of silence instead of 15.
    env = process_env(
        ROUND_PAUSE_SECONDS="2",
        GAME_RESYNC_SECONDS="3",
        EMAIL_HOST=mailbox_server.host,
        EMAIL_PORT=str(mailbox_server.port),
    )
    with Processes(tmp_path_factory.mktemp("processes"), env) as procs:
        procs.start_worker()
        # The computer analysis's worker (RULES 14.5): its own queue and process.
        procs.start_analysis_worker()
        procs.start_beat()
        procs.wait_for(
            lambda: (
                (heartbeat.age(heartbeat.WORKER) or 99) < 3
                and (heartbeat.age(heartbeat.BEAT) or 99) < 3
            ),
            60,
            "worker and beat heartbeats",
        )
        yield procs


@pytest.fixture(scope="session")
def site(background, tmp_path_factory):
    """The whole site served by daphne on a free port, with worker and beat: base URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with Processes(tmp_path_factory.mktemp("site"), background.env) as procs:
        procs.start_daphne(port)
        procs.wait_healthy(url, 60)
        yield url


@pytest.fixture(scope="module")
def orm_beside_playwright():
    """Playwright's sync API keeps an event loop in this thread, so Django refuses ORM calls
    (including pytest-django's flush at teardown). A browser module's are plain blocking calls
    between browser steps: allow them, for that module only (module scope: set before the
    database fixture, removed after its teardown). Use with `usefixtures`."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "1")
        yield


@pytest.fixture(autouse=True)
def flush_never_the_deadlock_victim(request):
    """A test that drives the real site ends while its server may still be writing (a socket
    of a closed page recording itself closed, a page just opened recording itself open).
    The flush at teardown (one TRUNCATE of every table) and such a transaction can wait on each
    other — the TRUNCATE for the table the server writes, the server's COMMIT for its foreign
    keys' tables, which the TRUNCATE already holds — and PostgreSQL aborts whichever checks
    first: with the default 1 s for both, often the flush, which fails the test. The flush's
    session waits longer before checking, so the server's transaction is the one aborted (a
    presence row of a page that is gone: nothing to keep)."""
    if not {"background", "site"} & set(request.fixturenames):
        yield
        return
    request.getfixturevalue("transactional_db")
    yield
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SET deadlock_timeout = '20s'")


@pytest.fixture
def page(browser):
    context = browser.new_context(locale="en-US")
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the groups into node ids
def pytest_collection_modifyitems(items):
    """Tests that start real processes need the test database to exist, even when no other
    collected test asks for one (pytest-django creates only the databases that marked tests
    use): without this, `pytest tests/test_e2e_accounts.py` alone would point daphne at the
    development database."""
    for item in items:
        uses_processes = PROCESS_FIXTURES & set(getattr(item, "fixturenames", ()))
        if uses_processes and item.get_closest_marker("django_db") is None:
            item.add_marker(pytest.mark.django_db(transaction=True))
        # Under pytest-xdist (`make test`, `--dist loadgroup`), the tests that drive real
        # processes or a browser run in two groups, each on one worker that starts its own
        # daphne, Celery worker, beat and Chromium once; the third worker shares out the rest
        # with them. Measured on this 2-core machine, pytest's time of a full run:
        # every such test on any worker (what the run did while pytest 9.2 lost the groups)
        # 8-10 minutes; one group was alone the tail (305 s of its tests while the rest took
        # under 200 s); these two groups (160 s and 305 s) with three workers 5 min 22 s, all
        # three busy to the end; three groups with four workers 6 min 29 s (one more set of
        # processes, and the two cores could give no more).
        if uses_processes or item.get_closest_marker("e2e") is not None:
            module, test = item.nodeid.split("::")[0], item.nodeid.split("[")[0]
            group = PROCESS_GROUPS.get(test, PROCESS_GROUPS.get(module, "processes"))
            item.add_marker(pytest.mark.xdist_group(group))


# Fixtures that start real processes: `two_installs`, two whole sites (tests/test_installs_apart.py).
PROCESS_FIXTURES = {"background", "site", "two_installs"}

# The events' runs (two whole tournaments and the arena's, about half the process tests'
# time): a group of their own.
PROCESS_GROUPS = {
    "tests/test_e2e_mygame.py": "processes-events",
    "tests/test_e2e_tournament_run.py": "processes-events",
    "tests/test_e2e_arena.py": "processes-events",
    "tests/test_e2e_analysis.py": "processes-events",  # short: it evens the two groups out
    # The accessibility checks (two tests of about 60 s each, on a loaded machine): one beside
    # the events' runs, one in the other group, which evens the two out. A test's own entry
    # (its node id without parameters) comes before its module's.
    "tests/test_e2e_accessibility.py": "processes-events",
    "tests/test_e2e_accessibility.py::"
    "test_the_game_analysis_and_staff_pages_have_no_serious_violation": "processes",
    "tests/test_e2e_keyboard.py": "processes-events",
    # The organizer's controls followed live (about 25 s): beside the events' runs, which evens
    # the groups out once the accessibility check is split between them.
    "tests/test_e2e_event_pages.py": "processes-events",
    # The game page's own checks (about 40 s): the other group had grown to 370 s against
    # 290 s here, with the team matches' and leagues' browser tests.
    "tests/test_e2e_game_page.py": "processes-events",
}


@pytest.fixture
def two_players(monkeypatch, transactional_db, site, browser):
    # The database must exist (transactional_db) and its flush at teardown runs while
    # Playwright's event loop is alive in this thread: allow it.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    contexts = [browser.new_context(locale="it-IT") for _ in range(2)]
    pages = []
    for context in contexts:
        context.set_default_timeout(15_000)
        pages.append(context.new_page())
    names = [f"a_{uuid.uuid4().hex[:8]}", f"b_{uuid.uuid4().hex[:8]}"]
    # Signed in by a session cookie (tests/browser.py): test_e2e_accounts signs up through the
    # pages.
    # The pages stay blank: each test opens the page it needs first (`log_in` for the home).
    for page, name in zip(pages, names, strict=True):
        UserFactory(username=name)
        signed_in(page, site, name)
    yield pages, names
    for context in contexts:
        context.close()
    # The server records each closed socket (a presence row deleted under the game's lock):
    # let it finish before the database is flushed, or the flush's TRUNCATE and that
    # transaction can deadlock on the two tables.
    # (The site topic keeps one lingering row per player for a stale window: not a socket.)
    sockets = Connection.objects.exclude(key__startswith=presence.LINGER_PREFIX)
    wait_until(lambda: not sockets.exists(), timeout=10, what="sockets recorded closed")
