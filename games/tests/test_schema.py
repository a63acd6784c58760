"""The game table still refuses what it always refused (games 0010: one CHECK for nine), and a
move's UPDATE meets no other CHECK; the presence table is rewritten in place (live 0002)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from games.models import Game
from games.tests.factories import open_game

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "change",
    [
        {"ply": -1},
        {"version": -1},
        {"base_seconds": -1},
        {"increment_seconds": -1},
        {"white_connections": -1},
        {"black_connections": -1},
        {"opening_number": -1},
        {"event_id": -1},
    ],
)
def test_negative_counts_are_refused(change):
    game = open_game()
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.filter(pk=game.pk).update(**change)


def test_a_game_against_oneself_is_refused():
    game = open_game()
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.filter(pk=game.pk).update(black_id=game.white_id)


def test_postgresql_checks_the_game_row_with_one_constraint_and_presence_in_place():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's catalogue")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conname FROM pg_constraint WHERE conrelid = 'games_game'::regclass"
            " AND contype = 'c'"
        )
        assert [name for (name,) in cursor.fetchall()] == ["games_game_sound"]
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'live_connection'")
        assert cursor.fetchone()[0] == ["fillfactor=50"]
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = 'live_connection'"
            " AND indexdef LIKE '%seen_ms%'"
        )
        assert cursor.fetchall() == []
