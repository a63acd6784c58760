"""What keeps a player out of an event because they promised that time elsewhere (RULES 16.6,
one board at a time, §1): a player named in a team match's line-up, or among its reserves,
may not join a tournament or enter an arena whose time overlaps the match's.

events knows no kind of event (STYLE 6): the kind that commits players ahead (teams) registers
a reader here from its `receivers.py`; the kinds that let players in (tournaments' join,
arena's entry) ask through `events.services.check_free`.

`reader(player_id, start, end) -> name | None`: the name of an event not over, of the reader's
kind, that the player is committed to and whose time (its start to its expected end) overlaps
[start, end); None when there is none.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

Reader = Callable[[int, datetime, datetime], "str | None"]
_readers: list[Reader] = []


def register(reader: Reader) -> None:
    if reader not in _readers:
        _readers.append(reader)


def committed_during(player_id: int, start: datetime, end: datetime) -> str | None:
    """The name of the first event a player is committed to during [start, end), else None."""
    for reader in _readers:
        name = reader(player_id, start, end)
        if name is not None:
            return name
    return None
