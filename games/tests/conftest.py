"""Fixtures of the games end-to-end tests.

The session fixtures of `tests/conftest.py` are not visible here, and importing them would make
a second, session-long worker and beat that outlive this package (and keep the heartbeat the
health tests stop fresh). So this package starts its own daphne, for one module only, with the
same helpers (`tests.processes`); no worker is needed by the flows tested here. The browser is
the session's one (`browser`, root `conftest.py`): two Playwrights cannot run side by side.
"""

from __future__ import annotations

import pytest

from tests.processes import (
    Processes,
    free_port,
    http_status,
    process_env,
    test_database_url,
    wait_until,
)


def _test_database_url() -> str:
    """The URL of the test database django_db_setup created. Outside a db-marked test the
    connection settings may still name the development database, so the name is derived."""
    from django.db import connection

    url = test_database_url()
    name = connection.settings_dict["NAME"]
    if name.startswith("test_"):
        return url
    return url.rsplit("/", 1)[0] + "/" + connection.creation._get_test_db_name()


@pytest.fixture(scope="module")
def game_site(django_db_setup, django_db_blocker, tmp_path_factory):
    port = free_port()
    procs = Processes(
        tmp_path_factory.mktemp("game_site"), process_env(DATABASE_URL=_test_database_url())
    )
    procs.start_daphne(port)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: http_status(url + "/healthz") in (200, 503), timeout=60, what="daphne")
    except TimeoutError:
        procs.stop_all()
        raise AssertionError("daphne did not start:\n" + procs.log("daphne")) from None
    yield url
    procs.stop_all()
