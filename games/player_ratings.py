"""The ratings games show beside their players, and that quick pairing compares.

Games know nothing of ratings (STYLE 6): the ratings app registers its reader here when it is
ready (`ratings.apps`), as events learn a game ended from a signal. Without a reader (a test
of games alone) nobody has a rating to show, and every player counts as `DEFAULT` for pairing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from games.rules.timecontrol import TimeControl

DEFAULT = 1500  # RULES 7.1: a new player's rating, when no reader says otherwise

# (player id, variant, cadence)
Key = tuple[int, str, str]


@dataclass(frozen=True)
class RatingReader:
    # The current rating of each key, in one query (a new player's initial rating if none).
    current: Callable[[Iterable[Key]], dict[Key, int]]
    # The rating each finished game was played at, and what it changed on its own: game id ->
    # player id -> (before, after); after None for a game rated with its event as one period.
    game_changes: Callable[[Iterable[int]], dict[int, dict[int, tuple[int, int | None]]]]


_reader: RatingReader | None = None


def register(reader: RatingReader) -> None:
    global _reader
    _reader = reader


def key(player_id: int, variant: str, base_seconds: int, increment_seconds: int) -> Key:
    cadence = TimeControl(base_seconds, increment_seconds).cadence.value
    return (player_id, variant, cadence)


def current(keys: Iterable[Key]) -> dict[Key, int]:
    keys = list(keys)
    if _reader is None:
        return {k: DEFAULT for k in keys}
    return _reader.current(keys)


def game_changes(game_ids: Iterable[int]) -> dict[int, dict[int, tuple[int, int | None]]]:
    game_ids = list(game_ids)
    # None asked (a live game's page: nothing rated yet): no query built at all.
    return {} if _reader is None or not game_ids else _reader.game_changes(game_ids)


@dataclass(frozen=True)
class Shown:
    """A player's rating as a game shows it: before the game, and what the game changed."""

    rating: int
    delta: int | None = None  # None: not rated (yet), or rated with its event


def for_games(games) -> dict[int, dict[int, Shown]]:
    """game id -> player id -> rating shown: the rating each game changed (before, with the
    change), else the player's current one. Two queries whatever the number of games."""
    games = list(games)
    keys = {
        key(pid, g.variant, g.base_seconds, g.increment_seconds)
        for g in games
        for pid in (g.white_id, g.black_id)
    }
    now = current(keys)
    changes = game_changes(g.pk for g in games if not g.is_live and g.rated)
    shown: dict[int, dict[int, Shown]] = {}
    for g in games:
        shown[g.pk] = {}
        for pid in (g.white_id, g.black_id):
            change = changes.get(g.pk, {}).get(pid)
            if change is not None:
                before, after = change
                shown[g.pk][pid] = Shown(before, None if after is None else after - before)
            else:
                value = now.get(key(pid, g.variant, g.base_seconds, g.increment_seconds))
                shown[g.pk][pid] = Shown(DEFAULT if value is None else value)
    return shown
