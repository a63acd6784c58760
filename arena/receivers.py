"""Everything the arena app hooks into, in one place (imported by its `ready`)."""

from __future__ import annotations

from accounts import personal as account_data
from arena import battles, personal, tasks  # noqa: F401  (tasks: registered in every process, sent by name)
from arena.models import Arena
from arena.running.common import PLAYER_WHAT
from clubs import registry as clubs
from events.kinds import EventKind, register
from live import messages
from live.consumers import news_on_connect


def game_finished(*, game_id: int) -> bool:
    from arena.running import arena_game_finished

    return arena_game_finished(game_id=game_id)


# One kind of event (events.kinds): its games' ends come through the events router, and its
# entrants are reminded before the start (events.reminders).
register(
    EventKind(
        model=Arena,
        game_finished=game_finished,
        entrants=personal.entrants,
        busy=personal.busy,  # RULES 16.6: a team match's line-up asks
    )
)


def arena_started_news(user_id: int) -> list[dict]:
    """`eventcall` for each arena that started within ARENA_CALL_SECONDS in which the player
    is active and not in a game (a game's own `mygame` comes first)."""
    from arena.selectors import arenas_just_started, in_live_game

    # Every site socket that opens asks this: the one query that is nearly always empty first.
    arena_ids = arenas_just_started(user_id)
    if not arena_ids or in_live_game(user_id):
        return []
    return [
        messages.user_changed(messages.What.EVENT_CALL, url=Arena(pk=pk).get_absolute_url())
        for pk in sorted(arena_ids)
    ]


# Its news on a player's site socket: one of their arenas started, ended or was cancelled.
messages.register_what(PLAYER_WHAT)


# A page opened in an arena's first minute is taken to it, as the start's push would have
# (RULES 8.1: a push sent a second before the page's socket opened must not cost the pairing).
news_on_connect(arena_started_news)

# What is personal to a player (accounts.personal).
account_data.register_section("arenas", personal.arenas_section)
account_data.register_blocker(personal.live_arena_blocker)
account_data.register_eraser(personal.pages_renamed)

# A club's battles on its page, and the players in one not over for it (clubs.registry).
clubs.register_events(battles.club_events)
clubs.register_commitments(battles.commitments)
