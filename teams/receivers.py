"""Everything the teams app hooks into, in one place (imported by its `ready`)."""

from __future__ import annotations

from clubs import registry as clubs
from events.kinds import EventKind, register
from games import commitments
from teams import selectors, tasks  # noqa: F401  (tasks: registered in every process, sent by name)
from teams.models import TeamMatch


def game_finished(*, game_id: int) -> bool:
    from teams.services import match_game_finished

    return match_game_finished(game_id=game_id)


# One kind of event (events.kinds): its games' ends come through the events router.
register(EventKind(model=TeamMatch, game_finished=game_finished))

# A player named in a line-up of a match not over stays in the club (RULES 16.6, 12.3).
clubs.register_commitments(selectors.commitments_of)

# The lobby's warning before a game that would cost a player their board (RULES 16.4).
commitments.register(selectors.soon_commitments_of)
