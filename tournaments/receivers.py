"""Everything the tournaments app hooks into, in one place (imported by its `ready`)."""

from __future__ import annotations

from accounts import personal as account_data
from events.kinds import EventKind, register
from games import commitments
from live import messages
from tournaments import broadcast, personal
from tournaments.models import Tournament
from tournaments.selectors import commitments_of


def annul(*, event_id: int, player_id: int) -> None:
    from tournaments.services import participant_annul

    participant_annul(tournament_id=event_id, player_id=player_id)


def game_finished(*, game_id: int) -> bool:
    from tournaments.running import tournament_game_finished

    return tournament_game_finished(game_id=game_id)


# One kind of event (events.kinds): its games' ends come through the events router, and its
# entrants are reminded before the start (events.reminders).
register(
    EventKind(
        model=Tournament,
        game_finished=game_finished,
        entrants=personal.entrants,
        busy=personal.busy,  # RULES 16.6: a team match's line-up asks
        tells_cancellation=True,  # its banner, with the reason (tournaments/_banner.html)
        annul=annul,  # RULES 15.5
    )
)

# Its news on a player's site socket: one of their tournaments changed (the banner re-fetches).
messages.register_what(broadcast.PLAYER_WHAT)

# What is personal to a player (accounts.personal).
account_data.register_section("tournaments", personal.tournaments_section)
account_data.register_blocker(personal.live_tournament_blocker)
account_data.register_eraser(personal.pages_renamed)

# RULES 4.7: a player between rounds is warned before taking on another game.
commitments.register(commitments_of)
