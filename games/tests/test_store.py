"""The hand-built SQL of the move path (`games.services.store`) reads what the ORM reads."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.db import connection

from games.services.store import END_FIELDS
from games.tests.store_check import a_game_in_every_state, differences, move_problems
from tests.processes import ROOT


@pytest.mark.django_db
def test_the_locked_read_equals_the_orm_read_on_postgresql():
    assert connection.vendor == "postgresql"
    for game_id in a_game_in_every_state():
        assert differences(game_id) == []


@pytest.mark.django_db(transaction=True)
def test_moves_are_written_only_over_the_row_they_were_decided_from_on_postgresql():
    assert move_problems() == []


def test_the_locked_read_and_the_moves_on_sqlite(tmp_path):
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


# What a move may change without taking the row out of a heap-only update: the columns it
# writes, but for those that change only when the game ends (they may be indexed).
END_ONLY = END_FIELDS


@pytest.mark.django_db
def test_a_move_changes_no_indexed_column_and_the_table_keeps_room_for_hot_updates():
    """A changed indexed column makes PostgreSQL add an entry to every index of the table on
    each move; with `flag_at_ms` indexed, 7 % of move updates were heap-only (bench/live.py),
    94 % without."""
    from games.models import Game
    from games.services.store import PLAY_FIELDS

    assert set(END_ONLY) <= set(PLAY_FIELDS)
    table = Game._meta.db_table
    columns = {Game._meta.get_field(n).column for n in PLAY_FIELDS if n not in END_ONLY}
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = %s", [table])
        (options,) = cursor.fetchone()
    indexed = {
        column
        for name, info in constraints.items()
        if info["index"] and not info["primary_key"]
        for column in info["columns"]
    }
    assert indexed and not indexed & columns, indexed & columns
    assert "fillfactor=80" in (options or [])
