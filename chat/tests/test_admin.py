"""The staff's side of the chat in the admin (docs/rules.md 9.6): a report's author silenced
for a chosen time, a reported line removed, a silence written by hand for how long or until
when."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.tests.factories import UserFactory
from chat import rooms, services
from chat.models import Message, Report, Silence
from tournaments.tests.factories import TournamentFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    staff = UserFactory(is_staff=True, is_superuser=True)
    client.force_login(staff)
    client.staff = staff
    return client


def reported_line():
    tournament, author, reporter = TournamentFactory(), UserFactory(), UserFactory()
    line = services.say(kind="tournament", pk=tournament.pk, part="event",
                        viewer=rooms.viewer_of(author), text="parolaccia")  # fmt: skip
    services.report(kind="tournament", pk=tournament.pk, line_id=line["line"],
                    viewer=rooms.viewer_of(reporter))  # fmt: skip
    return Report.objects.get(), author


def test_the_reports_list_shows_the_line_its_author_and_room(staff_client):
    report, author = reported_line()
    page = staff_client.get("/admin/chat/report/").content.decode()
    assert "parolaccia" in page and author.username in page and report.message.room in page


@pytest.mark.parametrize(("action", "hours"), [("silence_1h", 1), ("silence_7d", 7 * 24)])
def test_a_reports_author_is_silenced_for_the_chosen_time(staff_client, action, hours):
    report, author = reported_line()
    before = timezone.now()
    answer = staff_client.post(
        "/admin/chat/report/", {"action": action, "_selected_action": [report.pk]}, follow=True
    )
    assert answer.status_code == 200
    silence = Silence.objects.get(user=author)
    assert (
        before + timedelta(hours=hours) <= silence.until <= timezone.now() + timedelta(hours=hours)
    )
    assert silence.by == staff_client.staff
    with pytest.raises(services.ChatError, match="silenced"):
        services.say(kind=report.message.room.split(":")[0], pk=int(report.message.room.split(":")[1]),
                     part="event", viewer=rooms.viewer_of(author), text="ancora")  # fmt: skip


def test_a_reported_line_is_removed_from_every_page(staff_client):
    report, _author = reported_line()
    staff_client.post(
        "/admin/chat/report/", {"action": "remove_lines", "_selected_action": [report.pk]}
    )
    assert Message.objects.get().removed


def test_a_silence_by_hand_for_how_long_or_until_when(staff_client):
    player = UserFactory()
    answer = staff_client.post("/admin/chat/silence/add/", {"user": player.pk, "reason": "insulti"})
    assert answer.status_code == 200  # the form again, with its message
    assert "Scegli per quanto" in answer.content.decode()
    assert not Silence.objects.exists()
    staff_client.post("/admin/chat/silence/add/", {"user": player.pk, "duration": "1d"})
    silence = Silence.objects.get()
    assert timedelta(hours=23) < silence.until - timezone.now() <= timedelta(days=1)
    assert silence.by == staff_client.staff
