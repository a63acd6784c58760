"""What a player has already promised to play (RULES 4.7): a tournament between two
rounds, or about to start, pairs them again soon, and a player who is then busy in another
game loses that round by forfeit. The lobby and the challenge notices warn before a challenge
or a quick game is accepted.

Games know nothing of events (STYLE 6): each kind of event that can forfeit a busy player
registers a reader here when its app is ready (`tournaments.apps`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Commitment:
    event: str  # its name
    url: str  # its page
    due_at: datetime | None  # when the player's next game of it is due, if known (its start)
    warning: str  # what the player is told, in their language


Reader = Callable[[int], list[Commitment]]
_readers: list[Reader] = []


def register(reader: Reader) -> None:
    if reader not in _readers:
        _readers.append(reader)


def of(user_id: int) -> list[Commitment]:
    """Every commitment of the player, from every registered kind (one query or two each)."""
    found: list[Commitment] = []
    for reader in _readers:
        found.extend(reader(user_id))
    return found
