"""Everything the events app hooks into (imported by `EventsConfig.ready`).

The one `game_finished` router (STYLE 6): a game of an event goes to its kind's handler. It
runs in a worker, off the move that ended the game (`games.services.state.settle_on_commit`);
if it fails, the game stays unsettled and the tick sends it again, so handlers are idempotent.
And what is personal to a player (accounts.personal): an opener of a live event cannot leave
it behind (RULES 1); their reminders go with them.
"""

from __future__ import annotations

from django.dispatch import receiver
from django.utils.translation import gettext as _

from accounts import personal
from clubs import registry as clubs
from events import calendar, club_events
from events.kinds import kind_of_game, open_live_event
from events.models import Reminder
from games.signals import game_finished


@receiver(game_finished, dispatch_uid="events.route_finished_game")
def route_finished_game(sender, game, **kwargs):
    kind = kind_of_game(game)
    if kind is None:
        return None
    return kind.game_finished(game_id=game.pk)


def opened_event_blocker(user) -> list[str]:
    event = open_live_event(user.pk)
    if event is None:
        return []
    return [
        _("Hai aperto «%(name)s», che non è ancora finito: annullalo o aspetta che finisca.")
        % {"name": event.name}
    ]


def forget_reminders(user) -> None:
    Reminder.objects.filter(user=user).delete()


personal.register_blocker(opened_event_blocker)
personal.register_eraser(forget_reminders)


# A club's events, who is in one, and its calendar file (RULES 12.5, 12.6; clubs.registry).
clubs.register_events(club_events.events_of)
clubs.register_commitments(club_events.commitments_of)
clubs.register_calendar(calendar.events_ics)
