"""Everything the arena app hooks into, in one place (imported by its `ready`)."""

from __future__ import annotations

from accounts import personal as account_data
from arena import personal, tasks  # noqa: F401  (tasks: registered in every process, sent by name)
from arena.models import Arena
from events.kinds import EventKind, register


def game_finished(*, game_id: int) -> bool:
    from arena.running import arena_game_finished

    return arena_game_finished(game_id=game_id)


# One kind of event (events.kinds): its games' ends come through the events router, and its
# entrants are reminded before the start (events.reminders).
register(EventKind(model=Arena, game_finished=game_finished, entrants=personal.entrants))

# What is personal to a player (accounts.personal).
account_data.register_section("arenas", personal.arenas_section)
account_data.register_blocker(personal.live_arena_blocker)
