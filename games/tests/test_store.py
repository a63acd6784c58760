"""The hand-built SQL of the move path (`games.services.store`) reads what the ORM reads."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.db import connection

from games.tests.store_check import a_game_in_every_state, differences
from tests.processes import ROOT


@pytest.mark.django_db
def test_the_locked_read_equals_the_orm_read_on_postgresql():
    assert connection.vendor == "postgresql"
    for game_id in a_game_in_every_state():
        assert differences(game_id) == []


def test_the_locked_read_equals_the_orm_read_on_sqlite(tmp_path):
    env = dict(
        os.environ, DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", VAR_DIR=str(tmp_path)
    )
    done = subprocess.run(
        [sys.executable, "-m", "games.tests.store_check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.strip() == "same", done.stdout + done.stderr
