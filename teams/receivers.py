"""Everything the teams app hooks into, in one place (imported by its `ready`)."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from accounts import personal as account_data
from clubs import registry as clubs
from events import commitments as event_commitments
from events.kinds import EventKind, register
from games import commitments
from teams import league_pages, personal, selectors, tasks  # noqa: F401  (tasks: registered in every process, sent by name)
from teams.models import TeamMatch


def _open_match_url(club_id: int) -> str:
    # The form opens a match of the officer's own club: a player is in one club at a time.
    return reverse("teams:new")


def game_finished(*, game_id: int) -> bool:
    from teams.services import match_game_finished

    return match_game_finished(game_id=game_id)


# One kind of event (events.kinds): its games' ends come through the events router.
# Its players (named in a line-up, or available) are reminded before the start and told if it
# is cancelled (events.reminders); its own notices (a player named, the line-ups closed:
# teams.notices) are said by its template among the site's notices.
register(
    EventKind(
        model=TeamMatch,
        game_finished=game_finished,
        entrants=personal.entrants,
        notice_template="teams/_notice.html",
    )
)

# A club's matches on its page and in its calendar, and the players named in one not over
# (they stay in the club until it ends, RULES 16.6, 12.3).
clubs.register_events(selectors.club_matches)
clubs.register_commitments(selectors.commitments_of)

# On the club's page, for its officers: a match against another club (RULES 16.1).
clubs.register_opener(
    clubs.ClubOpener(
        label=lambda: _("Sfida un altro circolo"), url=_open_match_url, testid="club-open-match"
    )
)

# RULES 16.8: the leagues a club has a team in, on its page and in its calendar; for its
# officers, a league to open between clubs.
clubs.register_events(league_pages.club_leagues)
clubs.register_opener(
    clubs.ClubOpener(
        label=lambda: _("Apri un campionato a squadre"),
        url=lambda club_id: reverse("teams:league_new"),
        testid="club-open-league",
    )
)

# One board at a time (RULES 16.6): a player named in a line-up joins no tournament and enters
# no arena whose time overlaps the match's.
event_commitments.register(selectors.match_named_during)

# The lobby's warning before a game that would cost a player their board (RULES 16.4).
commitments.register(selectors.soon_commitments_of)

# What is personal to a player (accounts.personal).
account_data.register_section("team_matches", personal.matches_section)
account_data.register_blocker(personal.named_in_a_match_blocker)
account_data.register_eraser(personal.forget_availability)
account_data.register_section("league_rosters", personal.rosters_section)
account_data.register_eraser(personal.leave_rosters)
