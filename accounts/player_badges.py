"""What the site shows beside a player's name wherever it appears (their club's short name,
linked: RULES 12.9), through one reader.

Accounts sit below the apps that know such things (STYLE 6): the clubs app registers its reader
here when it is ready (`clubs.receivers`), as ratings register theirs with the games
(`games.player_ratings`). Pages ask through the template tags of `accounts.templatetags.badges`:
`{% player_badge player %}` for one name (one query), and for a list `{% player_badges players
as badges %}` once, then `{% player_badge player badges %}` per row (one query for all).
Without a reader nobody has a badge.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Badge:
    text: str  # what is shown: the club's short name
    title: str  # its full name (the link's title)
    url: str


Reader = Callable[[list[int]], dict[int, Badge]]
_reader: Reader | None = None


def register(reader: Reader) -> None:
    global _reader
    _reader = reader


def badges(user_ids: Iterable[int | None]) -> dict[int, Badge]:
    """user id -> badge, for those who have one; one query whatever the number of ids."""
    ids = sorted({pk for pk in user_ids if pk is not None})
    if _reader is None or not ids:
        return {}
    return _reader(ids)
