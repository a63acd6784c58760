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
from events.reminders import notices_for, reminders_due
from mail.models import Mail, Reason, Status
from tournaments import services
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
    joined(tournament, just_joined, ahead=timedelta(minutes=20))  # inside their own lead
    joined(tournament, unverified)
    joined(tournament, no_mail)
    reminders_due(now=start - timedelta(minutes=30))
    assert not Mail.objects.exists()
    # A notice on the site still for those who joined early enough.
    assert set(Reminder.objects.values_list("user_id", flat=True)) == {unverified.pk, no_mail.pk}


def test_a_late_joiner_is_reminded_at_their_own_lead(django_capture_on_commit_callbacks):
    """RULES 11.1: joined 45 minutes before a start, with a 30-minute lead: reminded at 30
    (only players joined an hour ahead were, so they got nothing of any kind)."""
    start = timezone.now() + timedelta(hours=3)
    tournament = TournamentFactory(starts_at=start)
    player = verified()
    joined(tournament, player, ahead=timedelta(minutes=45))
    assert reminders_due(now=start - timedelta(minutes=31)) == 0
    assert reminders_due(now=start - timedelta(minutes=30)) == 1
    assert Mail.objects.get().user == player
    assert Reminder.objects.get().user == player


def test_a_moved_start_reminds_everyone_again(django_capture_on_commit_callbacks):
    """RULES 11.2: the reminders of the old start go (notice, unsent mail) and everyone is
    reminded at their lead before the new one."""
    start = timezone.now() + timedelta(hours=3)
    tournament = TournamentFactory(starts_at=start)
    player = verified()
    joined(tournament, player)
    assert reminders_due(now=start - timedelta(minutes=30)) == 1
    later = start + timedelta(hours=2)
    services.tournament_update(
        tournament_id=tournament.pk, by=tournament.opened_by, data=options_of(tournament, later)
    )
    assert not Reminder.objects.exists()
    assert Mail.objects.get().status == Status.DROPPED  # it said the old time
    assert reminders_due(now=later - timedelta(minutes=31)) == 0
    assert reminders_due(now=later - timedelta(minutes=30)) == 1
    assert Reminder.objects.get().starts_at == later
    assert Mail.objects.filter(status=Status.PENDING).count() == 1


def test_a_start_moved_inside_the_lead_reminds_at_once():
    """RULES 11.2: joined before the start was moved closer than their lead, a player is
    reminded at once, though they joined after the new start's moment."""
    now = timezone.now()
    tournament = TournamentFactory(starts_at=now + timedelta(hours=3))
    player = verified()
    joined(tournament, player, ahead=timedelta(hours=3, minutes=5))  # 5 minutes ago
    soon = now + timedelta(minutes=20)
    services.tournament_update(
        tournament_id=tournament.pk, by=tournament.opened_by, data=options_of(tournament, soon)
    )
    assert reminders_due(now=timezone.now()) == 1
    assert Reminder.objects.get(user=player).starts_at == soon


def test_a_cancelled_event_tells_its_players(client, mailbox, django_capture_on_commit_callbacks):
    """RULES 11.3: a notice on their pages for a day, a mail to those who chose reminder
    mails; not the opener who cancelled it; telling twice changes nothing."""
    tournament = TournamentFactory(
        name="Open annullato", starts_at=timezone.now() + timedelta(days=2)
    )
    mailed, on_site = verified(), UserFactory()
    joined(tournament, mailed)
    joined(tournament, on_site)
    joined(tournament, tournament.opened_by)
    with django_capture_on_commit_callbacks(execute=True):
        services.tournament_cancel(tournament_id=tournament.pk, by=tournament.opened_by)
    [received] = mailbox.wait_for(mailed.email)
    assert received.subject == "Open annullato: annullato"
    assert "è stato annullato" in received.text
    mail = Mail.objects.get()
    assert mail.reason == Reason.CANCELLED and mail.user == mailed
    # A tournament's own banner says it, with the reason: no second notice.
    assert not Reminder.objects.exists()
    client.force_login(on_site)
    assert "Open annullato" not in client.get(reverse("events:reminders")).content.decode()
    banner = client.get(reverse("tournaments:banner")).content.decode()
    assert "Open annullato" in banner and "annullato da chi l'ha aperto" in banner
    from events.reminders import event_cancelled

    event_cancelled(tournament, by_id=tournament.opened_by_id)  # twice: nothing new
    assert Mail.objects.count() == 1


def test_a_cancelled_arena_tells_its_players_on_every_page(client):
    """An arena has no banner of its own: the shared notice says it, for a day or until
    closed, beside the mail; telling twice changes nothing."""
    from arena import services as arena_services
    from events.reminders import event_cancelled

    arena = ArenaFactory(name="Arena annullata", starts_at=timezone.now() + timedelta(hours=5))
    player = verified()
    EntryFactory(arena=arena, player=player)
    arena_services.arena_cancel(arena_id=arena.pk, by=arena.opened_by)
    assert Reminder.objects.get().cancelled_at is not None
    assert Mail.objects.get().reason == Reason.CANCELLED
    client.force_login(player)
    page = client.get(reverse("events:reminders")).content.decode()
    assert 'data-testid="cancelled-notice"' in page and "Arena annullata" in page
    assert notices_for(player, now=timezone.now() + timedelta(hours=25)) == []
    event_cancelled(arena, by_id=arena.opened_by_id)
    assert Mail.objects.count() == 1 and Reminder.objects.count() == 1


def options_of(tournament, starts_at):
    from tournaments.services import TournamentOptions

    return TournamentOptions(
        name=tournament.name,
        description=tournament.description,
        variant=tournament.variant,
        base_seconds=tournament.base_seconds,
        increment_seconds=tournament.increment_seconds,
        starts_at=starts_at,
        seats=tournament.seats,
        minimum=tournament.minimum,
        threshold=tournament.threshold,
        extra_round=tournament.extra_round,
        double_games=tournament.double_games,
        opening_mode=tournament.opening_mode,
        thematic_opening=tournament.thematic_opening,
        rated=tournament.rated,
        floor=tournament.floor,
        password=None,
    )


def test_arena_entrants_too():
    arena = ArenaFactory(starts_at=timezone.now() + timedelta(hours=2))
    entry = EntryFactory(arena=arena, player=verified())
    Entry.objects.filter(pk=entry.pk).update(entered_at=arena.starts_at - timedelta(hours=3))
    assert reminders_due(now=arena.starts_at - timedelta(minutes=29)) == 1
    mail = Mail.objects.get()
    assert mail.key == f"arena:{arena.pk}:{int(arena.starts_at.timestamp())}"
    assert mail.useful_until == arena.starts_at


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
