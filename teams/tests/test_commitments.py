"""RULES 16.6, one board at a time (§1), the other way round: a player named in a line-up, or
among its reserves, joins no tournament and enters no arena whose time overlaps the match's
(events.commitments, filled by teams, asked by the tournaments' join and the arena's entry)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from django.utils import timezone

from arena import services as arena
from arena.models import Arena, Entry
from arena.tests.factories import ArenaFactory
from events.services import EventError
from teams import services
from teams.models import TeamMatch, expected_end
from teams.tests.factories import match_data, open_match, side
from tournaments import services as tournaments
from tournaments.models import Registration
from tournaments.tests.factories import TournamentFactory

pytestmark = pytest.mark.django_db


def ids(users):
    return [u.pk for u in users]


@pytest.fixture
def named():
    """A match of 2 boards (3+2, single games: 10 minutes expected) with one reserve named."""
    milano, torino = side([1900, 1800, 1700]), side([])
    match = open_match(milano, torino, boards=2, name="Milano – Torino")
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    assert match.calendar_end() == match.starts_at + timedelta(minutes=10)
    return match, milano.players


def test_a_player_in_a_line_up_cannot_join_a_tournament_at_the_same_time(named):
    match, (first, _second, reserve) = named
    during = TournamentFactory(name="Lampo", starts_at=match.starts_at + timedelta(minutes=5))
    for player in (first, reserve):
        with pytest.raises(EventError) as refused:
            tournaments.registration_join(tournament_id=during.pk, player=player)
        assert refused.value.code == "committed"
        assert "Milano – Torino" in refused.value.message
    assert not Registration.objects.exists()
    # A tournament starting as the match is expected to end is no overlap (the window's end
    # is the start plus twice the estimate, computed in SQL).
    after = TournamentFactory(starts_at=match.calendar_end())
    tournaments.registration_join(tournament_id=after.pk, player=first)
    # Once the match is cancelled the player is free.
    services.match_cancel(match_id=match.pk, by=match.opened_by)
    tournaments.registration_join(tournament_id=during.pk, player=reserve)
    assert Registration.objects.filter(player=reserve, tournament=during).exists()


def test_a_player_in_a_line_up_cannot_enter_an_arena_at_the_same_time(named):
    match, (first, _second, reserve) = named
    now = timezone.now()
    scheduled = ArenaFactory(starts_at=match.starts_at - timedelta(minutes=30), duration_minutes=60)
    running = ArenaFactory(
        starts_at=now - timedelta(minutes=10), duration_minutes=180, status=Arena.Status.RUNNING
    )
    for where in (scheduled, running):
        for player in (first, reserve):
            with pytest.raises(EventError) as refused:
                arena.entry_enter(arena_id=where.pk, player=player, now=now)
            assert refused.value.code == "committed"
            assert "Milano – Torino" in refused.value.message
    assert not Entry.objects.exists()
    # A running arena over before the match starts lets them in.
    short = ArenaFactory(
        starts_at=now - timedelta(minutes=10), duration_minutes=60, status=Arena.Status.RUNNING
    )
    arena.entry_enter(arena_id=short.pk, player=first, now=now)
    assert Entry.objects.filter(arena=short, player=first).exists()


def test_a_line_up_finds_the_players_busy_in_an_arena_or_a_tournament_by_the_window():
    """RULES 16.6, each kind's `busy` from the players' side: an arena overlapping the match
    names it; an arena ending as the match starts, or a tournament announced to end then, does
    not (the windows' bounds, the arena's in SQL)."""
    milano, torino = side([1900, 1800]), side([])
    match = open_match(milano, torino, boards=2)
    a, b = milano.players
    overlapping = ArenaFactory(
        name="Arena del giovedì",
        starts_at=match.starts_at - timedelta(minutes=30),
        duration_minutes=31,
    )
    Entry.objects.create(arena=overlapping, player=a, waiting_since=timezone.now())
    before = ArenaFactory(starts_at=match.starts_at - timedelta(minutes=60), duration_minutes=60)
    Entry.objects.create(arena=before, player=b, waiting_since=timezone.now())
    announced = TournamentFactory(
        starts_at=match.starts_at - timedelta(hours=1), announced_end=match.starts_at
    )
    Registration.objects.create(tournament=announced, player=b)
    with pytest.raises(services.TeamError) as refused:
        services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([a, b]))
    assert refused.value.code == "committed"
    assert a.username in refused.value.message and "Arena del giovedì" in refused.value.message
    assert b.username not in refused.value.message
    overlapping.status = Arena.Status.FINISHED
    overlapping.save()
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([a, b]))


def test_the_expected_end_in_sql_is_the_match_calendar_end():
    """RULES 16.6: the window queries' end (teams.models.expected_end) is `calendar_end`, for
    single and double games and another time control."""
    milano, torino = side([]), side([])
    single = open_match(milano, torino, boards=2)
    other, against = side([]), side([])
    double = services.match_create(
        by=other.captain,
        first_club_id=other.club.pk,
        data=replace(
            match_data(against, boards=2),
            double_games=True,
            base_seconds=600,
            increment_seconds=5,
        ),
    )
    rows = dict(
        TeamMatch.objects.filter(pk__in=[single.pk, double.pk])
        .annotate(end=expected_end())
        .values_list("pk", "end")
    )
    assert rows == {m.pk: m.calendar_end() for m in (single, double)}
    assert double.calendar_end() - double.starts_at == timedelta(seconds=2 * 2 * (600 + 60 * 5))
