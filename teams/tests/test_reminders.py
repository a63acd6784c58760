"""A team match's players are reminded before its start and told when it is cancelled, as an
event's entrants (RULES 11, 16.2): those named in a line-up, boards and reserves, and the
members who said they are available; at a clock the test sets."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from events.models import Reminder
from events.reminders import notices_for, reminders_due
from teams import services
from teams.models import Availability, Lineup
from teams.tests.factories import open_match, side

pytestmark = pytest.mark.django_db


def a_match(start):
    first, second = side([1900, 1800, 1700]), side([1850, 1750])
    match = open_match(first, second, boards=2, start=start)
    earlier = start - timedelta(hours=2)
    services.lineup_set(
        match_id=match.pk, by=first.captain, player_ids=[p.pk for p in first.players], now=earlier
    )
    services.availability_set(
        match_id=match.pk, user=second.players[0], available=True, now=earlier
    )
    return match, first, second


def test_the_line_up_and_the_available_are_reminded_once(django_capture_on_commit_callbacks):
    start = timezone.now() + timedelta(hours=3)
    match, first, second = a_match(start)
    assert Lineup.objects.get(match=match).entries.count() == 3  # two boards and a reserve
    assert Availability.objects.filter(match=match).count() == 1
    assert reminders_due(now=start - timedelta(minutes=31)) == 0
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders_due(now=start - timedelta(minutes=30)) == 4
        assert reminders_due(now=start - timedelta(minutes=20)) == 0  # once
    reminded = set(Reminder.objects.values_list("user_id", flat=True))
    assert reminded == {*(p.pk for p in first.players), second.players[0].pk}
    # Neither the captain, who named nobody, nor a member who said nothing.
    assert first.captain.pk not in reminded and second.players[1].pk not in reminded


def test_a_cancelled_match_tells_its_players(django_capture_on_commit_callbacks):
    start = timezone.now() + timedelta(hours=3)
    match, first, second = a_match(start)
    with django_capture_on_commit_callbacks(execute=True):
        services.match_cancel(match_id=match.pk, by=first.captain)
    for player in (*first.players, second.players[0]):
        (notice,) = notices_for(player)
        assert notice.cancelled_at is not None
    assert notices_for(second.players[1]) == []
