"""Two ticks at once tell the captains once that the line-ups closed (RULES 11.4), on real
PostgreSQL with threads: the step between reading "not told yet" and writing the notices is
slowed down, so that without the match's row lock both ticks would read it and both tell (this
test fails if the lock is removed from `teams.notices.lineups_closed_tell`)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from events.models import Reminder
from teams import notices
from teams.models import TeamMatch
from teams.tests.factories import open_match, side
from tests.concurrency import run_at_once

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL"),
]


def test_two_ticks_at_once_tell_once(monkeypatch):
    milano, torino = side([1900]), side([1800])
    match = open_match(milano, torino, boards=2)
    TeamMatch.objects.filter(pk=match.pk).update(starts_at=timezone.now() + timedelta(minutes=14))
    match.refresh_from_db()
    real = Reminder.objects.bulk_create

    def slow(*args, **kwargs):
        time.sleep(0.3)
        return real(*args, **kwargs)

    monkeypatch.setattr(Reminder.objects, "bulk_create", slow)
    now = match.lineup_deadline + timedelta(seconds=5)

    def tick():
        return notices.lineups_closed_tell(match_id=match.pk, now=now)

    assert sorted(run_at_once(tick, tick)) == [False, True]
    told = TeamMatch.objects.get(pk=match.pk)
    assert told.version == match.version + 1 and told.lineups_closed_told_at == now
    assert Reminder.objects.filter(topic=notices.CLOSED).count() == 2  # the two presidents
