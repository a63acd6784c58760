"""The statements of `games.services.store` against the ORM: the locked read field by field,
and a game's moves through the one move path (`move_problems`).

Used by games/tests/test_store.py in-process on PostgreSQL, and as a script on SQLite (the
`make run` default): `python -m games.tests.store_check` migrates the database DATABASE_URL
names and prints "same" or what differs.
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


def move_problems() -> list[str]:
    """A short chess game to mate through `game_move`, a stale ply refused, and a move whose
    row was written between its read and its write, which writes nothing: what differs from
    what should be, as text. Every write gives the row a stamp never seen before."""
    from accounts.models import User
    from games import services
    from games.models import Game
    from games.services import store

    white, black = (User.objects.create(username=f"moves{i}") for i in range(2))
    game = services.game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code="chess",
        base_seconds=300,
        increment_seconds=2,
        rated=False,
    )
    problems, stamps = [], [Game.objects.get(pk=game.pk).row_stamp]
    for ply, (mover, move) in enumerate(
        [(white, "f2f3"), (black, "e7e5"), (white, "g2g4"), (black, "d8h4")]
    ):
        if ply == 1:
            try:
                services.game_move(game_id=game.pk, user_id=mover.pk, expected_ply=0, move=move)
                problems.append("a stale ply was played")
            except services.StalePly:
                pass
        if ply == 2:  # staff change a clock between the move's read and its write
            known = store.read_game(game.pk)
            Game.objects.filter(pk=game.pk).update(white_ms=1_000)
            stamps.append(Game.objects.get(pk=game.pk).row_stamp)
            if store.write_move_if_unchanged(
                known, store.MOVE_COLUMNS, {}, stamp=known.row_stamp, ply=known.ply
            ):
                problems.append("a move was written over a row changed since its read")
        services.game_move(game_id=game.pk, user_id=mover.pk, expected_ply=ply, move=move)
        stamps.append(Game.objects.get(pk=game.pk).row_stamp)
    done = Game.objects.get(pk=game.pk)
    got = (done.status, done.reason, done.moves, len(done.positions), len(done.notation))
    want = ("finished", "checkmate", ["f2f3", "e7e5", "g2g4", "d8h4"], 4, 4)
    if got != want:
        problems.append(f"the game: {got} != {want}")
    if done.white_ms > 1_000 + 2_000 or len(done.clocks) != 4:
        problems.append(f"the clock written by staff was lost: {done.white_ms}, {done.clocks}")
    if sorted(set(stamps)) != stamps:
        problems.append(f"stamps not new with every write: {stamps}")
    return problems


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    found = [d for game_id in a_game_in_every_state() for d in differences(game_id)]
    found += move_problems()
    print("same" if not found else "\n".join(found))
    return 0 if not found else 1


if __name__ == "__main__":
    sys.exit(main())
