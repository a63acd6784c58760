"""Who sits at a game (RULES 3 "sitting down"; abandonment counts from the last goodbye).

Each open socket of a player is a `live.models.Connection` on the game's topic (`game:<id>`),
written here under the game row lock together with what it means for the game: the first
connection while the game is live makes the player *sat*; when the last one closes,
`<colour>_away_since_ms` is set; `<colour>_connections` counts the rows. Spectators are not
recorded.
"""

from __future__ import annotations

from games.models import Game
from games.services.acting import flag_if_due, save_and_push
from games.services.errors import GameNotFound
from games.services.state import now_ms, topic
from games.services.store import lock_game
from live import locks, presence


def game_presence(
    *, game_id: int, user_id: int | None, connected: bool, key: str, at_ms: int | None = None
) -> Game | None:
    """Record the socket `key` of a player opening or closing. Returns the game, or None for a
    spectator (nothing recorded). Locks the game row; safe to repeat."""
    at = now_ms() if at_ms is None else at_ms
    with locks.atomic():
        game = lock_game(game_id)
        color = game.player_color(user_id)
        if color is None:
            return None
        prefix = color.value
        if connected:
            presence.opened(key=key, topic=topic(game.pk), user_id=user_id, at_ms=at)
            setattr(game, f"{prefix}_away_since_ms", None)
            if game.is_live:
                setattr(game, f"{prefix}_sat", True)
        else:
            presence.closed(key=key)
        count = presence.count(topic=topic(game.pk), user_id=user_id)
        setattr(game, f"{prefix}_connections", count)
        if not connected and count == 0 and getattr(game, f"{prefix}_away_since_ms") is None:
            setattr(game, f"{prefix}_away_since_ms", at)
        if game.is_live:
            flag_if_due(game, at)
        return save_and_push(game, at)


def presence_sweep(*, at_ms: int | None = None) -> list[int]:
    """Drop the connections whose process stopped refreshing them (it died: no goodbye came).

    A player left with no connection is away from the last instant the dead process vouched
    for them, so abandonment (RULES 3) counts from then. Each game is swept under its lock;
    safe to run twice. Returns the ids of the games whose presence changed."""
    at = now_ms() if at_ms is None else at_ms
    stale_before = at - presence.STALE_MS
    changed: list[int] = []
    for name in sorted(presence.stale_topics(prefix="game:", before_ms=stale_before)):
        game_id = int(name.split(":", 1)[1])
        with locks.atomic():
            try:
                game = lock_game(game_id)
            except GameNotFound:
                presence.drop_stale(topic=name, before_ms=stale_before)
                continue
            last_seen = presence.drop_stale(topic=name, before_ms=stale_before)
            if not last_seen:
                continue
            for user_id, seen in last_seen.items():
                color = game.player_color(user_id)
                if color is None:
                    continue
                count = presence.count(topic=name, user_id=user_id)
                setattr(game, f"{color.value}_connections", count)
                if count == 0 and getattr(game, f"{color.value}_away_since_ms") is None:
                    setattr(game, f"{color.value}_away_since_ms", seen)
            save_and_push(game, at)
            changed.append(game_id)
    return changed
