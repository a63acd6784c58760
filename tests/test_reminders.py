"""Reminders before the events a player joined (events/reminders.py) and the events' calendar
files (events/calendar.py), at a clock the test sets."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.tests.factories import UserFactory
from arena.models import Entry
from arena.tests.factories import ArenaFactory, EntryFactory
from events import calendar
from events.models import Reminder
from events.reminders import reminders_due
from mail.models import Mail
from tournaments.models import Registration
from tournaments.tests.factories import RegistrationFactory, TournamentFactory

pytestmark = pytest.mark.django_db


def verified(**extra):
    return UserFactory(email_verified_at=timezone.now(), **extra)


def joined(tournament, player, ahead=timedelta(hours=2)):
    RegistrationFactory(tournament=tournament, player=player)
    Registration.objects.filter(tournament=tournament, player=player).update(
        joined_at=tournament.starts_at - ahead
    )


def test_reminded_at_their_own_lead_once(mailbox, django_capture_on_commit_callbacks):
    start = timezone.now() + timedelta(hours=3)
    tournament = TournamentFactory(name="Open d'inverno", starts_at=start)
    early, late = verified(), verified(remind_minutes=10)
    for player in (early, late):
        joined(tournament, player)
    assert reminders_due(now=start - timedelta(minutes=31)) == 0
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders_due(now=start - timedelta(minutes=30)) == 1
        assert reminders_due(now=start - timedelta(minutes=20)) == 0  # once
        assert reminders_due(now=start - timedelta(minutes=10)) == 1  # the 10-minute one
    [received] = mailbox.wait_for(early.email)
    assert received.subject.startswith("Open d'inverno: si comincia")
    assert str(received.message["List-Unsubscribe"]).strip().startswith("<http")
    assert f"/tournaments/{tournament.pk}/" in received.text
    assert "calendar.ics" in received.text
    assert Mail.objects.count() == 2
    assert set(Reminder.objects.values_list("user_id", flat=True)) == {early.pk, late.pk}


def test_who_is_not_mailed(django_capture_on_commit_callbacks):
    start = timezone.now() + timedelta(hours=3)
    tournament = TournamentFactory(starts_at=start)
    just_joined = verified()
    unverified = UserFactory()
    no_mail = verified(remind_by_email=False)
    joined(tournament, just_joined, ahead=timedelta(minutes=50))
    joined(tournament, unverified)
    joined(tournament, no_mail)
    reminders_due(now=start - timedelta(minutes=30))
    assert not Mail.objects.exists()
    # A notice on the site still for those who joined early enough.
    assert set(Reminder.objects.values_list("user_id", flat=True)) == {unverified.pk, no_mail.pk}


def test_arena_entrants_too():
    arena = ArenaFactory(starts_at=timezone.now() + timedelta(hours=2))
    entry = EntryFactory(arena=arena, player=verified())
    Entry.objects.filter(pk=entry.pk).update(entered_at=arena.starts_at - timedelta(hours=3))
    assert reminders_due(now=arena.starts_at - timedelta(minutes=29)) == 1
    mail = Mail.objects.get()
    assert mail.key == f"arena:{arena.pk}" and mail.useful_until == arena.starts_at


def test_a_started_or_cancelled_event_is_not_reminded():
    start = timezone.now() + timedelta(hours=1)
    tournament = TournamentFactory(starts_at=start, status="cancelled")
    joined(tournament, verified())
    assert reminders_due(now=start - timedelta(minutes=20)) == 0


def test_the_notice_on_the_pages(client):
    start = timezone.now() + timedelta(minutes=25)
    tournament = TournamentFactory(name="Lampo del venerdì", starts_at=start)
    player = verified()
    joined(tournament, player)
    reminders_due(now=timezone.now())
    client.force_login(player)
    page = client.get(reverse("events:reminders")).content.decode()
    assert 'data-testid="reminder-notice"' in page and "Lampo del venerdì" in page
    reminder = Reminder.objects.get()
    client.post(reverse("events:reminder_dismiss", args=[reminder.pk]))
    assert "Lampo" not in client.get(reverse("events:reminders")).content.decode()


def test_the_calendar_file(client):
    tournament = TournamentFactory(name="Semilampo, sera; fine", starts_at=timezone.now())
    response = client.get(reverse("events:calendar", args=["tournament", tournament.pk]))
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    text = response.content.decode()
    assert text.startswith("BEGIN:VCALENDAR\r\n") and text.endswith("END:VCALENDAR\r\n")
    assert f"DTSTART:{calendar.stamp(tournament.starts_at)}" in text
    assert "SUMMARY:Semilampo\\, sera\\; fine" in text
    assert f"URL:http://testserver/tournaments/{tournament.pk}/" in text
    arena = ArenaFactory(duration_minutes=90)
    text = client.get(reverse("events:calendar", args=["arena", arena.pk])).content.decode()
    assert f"DTEND:{calendar.stamp(arena.starts_at + timedelta(minutes=90))}" in text
    assert client.get("/events/nothing/1/calendar.ics").status_code == 404
    page = client.get(tournament.get_absolute_url()).content.decode()
    assert reverse("events:calendar", args=["tournament", tournament.pk]) in page


def test_long_lines_are_folded_without_cutting_a_letter():
    line = "SUMMARY:" + "è" * 60
    folded = calendar.fold(line)
    assert all(len(part.encode()) <= 75 for part in folded.split("\r\n"))
    assert folded.replace("\r\n ", "") == line
