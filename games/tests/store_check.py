"""The locked read of `games.services.store` against the ORM's read, field by field.

Used by games/tests/test_store.py in-process on PostgreSQL, and as a script on SQLite (the
`make run` default): `python -m games.tests.store_check` migrates the database DATABASE_URL
names and prints "same" or the fields that differ.
"""

from __future__ import annotations

import os
import sys

from live import locks


def differences(game_id: int) -> list[str]:

    from games.models import Game
    from games.services.store import lock_game

    orm = Game.objects.select_related("white", "black").get(pk=game_id)
    with locks.atomic():
        locked = lock_game(game_id)
    found = [
        f"{f.attname}: {getattr(locked, f.attname)!r} != {getattr(orm, f.attname)!r}"
        for f in Game._meta.concrete_fields
        if getattr(locked, f.attname) != getattr(orm, f.attname)
        or type(getattr(locked, f.attname)) is not type(getattr(orm, f.attname))
    ]
    for side in ("white", "black"):
        if getattr(locked, side).username != getattr(orm, side).username:
            found.append(f"{side}.username")
    return found


def a_game_in_every_state() -> list[int]:
    """A live game with moves, presence and a draw offer; a finished one with its result."""
    from accounts.models import User
    from games import services

    players = [User.objects.create(username=f"store{i}") for i in range(4)]
    live = services.game_open(
        white_id=players[0].pk,
        black_id=players[1].pk,
        variant_code="italian",
        base_seconds=300,
        increment_seconds=2,
        rated=True,
    )
    services.game_presence(game_id=live.pk, user_id=players[0].pk, connected=True, key="s1")
    services.game_move(game_id=live.pk, user_id=players[0].pk, expected_ply=0, move="22-18")
    services.game_draw_offer(game_id=live.pk, user_id=players[1].pk)
    done = services.game_open(
        white_id=players[2].pk,
        black_id=players[3].pk,
        variant_code="chess",
        base_seconds=60,
        increment_seconds=0,
        rated=False,
    )
    services.game_resign(game_id=done.pk, user_id=players[3].pk)
    return [live.pk, done.pk]


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    found = [d for game_id in a_game_in_every_state() for d in differences(game_id)]
    print("same" if not found else "\n".join(found))
    return 0 if not found else 1


if __name__ == "__main__":
    sys.exit(main())
