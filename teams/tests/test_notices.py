"""What a team match tells people (RULES 16.2, teams/notices.py), through the site's event
notices (events.models.Reminder, the notices' fragment, the "reminder" push) and the outbox:
a player named in a line-up, once per time they come into it; each club's captains when the
line-ups close, once, from the tick."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.tests.factories import UserFactory
from clubs.models import Membership, Role
from events import reminders
from events.models import Reminder
from events.reminders import notices_for
from live.pushes import user_group
from mail.models import Mail, Reason, Status
from teams import notices, services, tasks
from teams.models import TeamMatch
from teams.tests.factories import open_match, side
from tests.listening import GroupListener

pytestmark = pytest.mark.django_db


def ids(users):
    return [u.pk for u in users]


def named_notices(match):
    return Reminder.objects.filter(kind="teammatch", event_id=match.pk, topic=notices.NAMED)


def a_match(ratings=(1900, 1800, 1700), boards=2, **fields):
    milano, torino = side(list(ratings)), side([1850, 1750])
    match = open_match(milano, torino, boards=boards, name="Milano – Torino", **fields)
    return match, milano, torino


# --- a player named in a line-up ----------------------------------------------------------------


def test_each_player_named_is_told_their_place_once(client, django_capture_on_commit_callbacks):
    match, milano, torino = a_match()
    first, second, reserve = milano.players
    with django_capture_on_commit_callbacks(execute=True):
        services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    places = {r.user_id: r.detail for r in named_notices(match)}
    clubs = {"first": milano.club.name, "second": torino.club.name}
    assert places == {
        first.pk: {**clubs, "board": 1},
        second.pk: {**clubs, "board": 2},
        reserve.pk: {**clubs, "reserve": 1},
    }
    # The site's notices (the fragment every page fetches) name the match, the clubs, the
    # start, the place, and link to the match's page.
    client.force_login(reserve)
    page = client.get(reverse("events:reminders")).content.decode()
    assert 'data-testid="team-notice"' in page and 'data-topic="named"' in page
    assert "«Milano – Torino»" in page and f"({milano.club.name} – {torino.club.name})" in page
    assert "riserva 1" in page and f'href="{match.get_absolute_url()}"' in page
    when = timezone.localtime(match.starts_at)
    assert f"{when:%H:%M}" in page
    # Saved again unchanged, and by another captain: nobody is told again, even one who
    # closed the notice.
    named_notices(match).filter(user=first).update(dismissed=True)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    assert named_notices(match).count() == 3
    assert named_notices(match).get(user=first).dismissed
    # The other club's players are not told anything of this line-up.
    assert not named_notices(match).filter(user__in=torino.players).exists()


def test_a_new_place_is_said_without_telling_again():
    match, milano, _torino = a_match(ratings=(1900, 1890, 1700))
    first, second, reserve = milano.players
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    before = {r.user_id: r.pk for r in named_notices(match)}
    # RULES 16.2: neighbours in rating order may swap boards.
    services.lineup_set(
        match_id=match.pk, by=milano.captain, player_ids=[second.pk, first.pk, reserve.pk]
    )
    after = {r.user_id: (r.pk, r.detail.get("board")) for r in named_notices(match)}
    assert after[first.pk] == (before[first.pk], 2) and after[second.pk] == (before[second.pk], 1)


def test_taken_out_the_notice_goes_and_named_again_they_are_told_again():
    match, milano, _torino = a_match()
    first, second, reserve = milano.players
    type(reserve).objects.filter(pk=reserve.pk).update(email_verified_at=timezone.now())
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    mailed = Mail.objects.get(user=reserve)
    assert mailed.reason == Reason.CLUB and mailed.status == Status.PENDING
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=[first.pk, second.pk])
    assert not named_notices(match).filter(user=reserve).exists()
    mailed.refresh_from_db()
    assert mailed.status == Status.DROPPED  # not sent yet: no longer true, not sent
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    assert named_notices(match).get(user=reserve).detail["reserve"] == 1
    assert Mail.objects.filter(user=reserve, status=Status.PENDING).count() == 1


def test_the_captain_who_names_themselves_is_not_told():
    match, milano, _torino = a_match()
    Membership.objects.filter(club=milano.club, user=milano.players[0]).update(role=Role.OFFICER)
    services.lineup_set(match_id=match.pk, by=milano.players[0], player_ids=ids(milano.players))
    told = set(named_notices(match).values_list("user_id", flat=True))
    assert told == {milano.players[1].pk, milano.players[2].pk}


def test_a_refused_line_up_tells_nobody():
    match, milano, _torino = a_match()
    first, second, reserve = milano.players
    with pytest.raises(services.TeamError):  # out of order: the reserve on board 1
        services.lineup_set(
            match_id=match.pk, by=milano.captain, player_ids=[reserve.pk, first.pk, second.pk]
        )
    assert not Reminder.objects.exists() and not Mail.objects.exists()


def test_mailed_as_the_player_chose(mailbox, django_capture_on_commit_callbacks):
    match, milano, _torino = a_match()
    first, second, reserve = milano.players
    User = type(first)
    User.objects.filter(pk__in=[first.pk, second.pk]).update(email_verified_at=timezone.now())
    User.objects.filter(pk=second.pk).update(remind_by_email=False)
    # reserve: an address not confirmed
    with django_capture_on_commit_callbacks(execute=True):
        services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    assert list(Mail.objects.values_list("user_id", flat=True)) == [first.pk]
    [received] = mailbox.wait_for(first.email)
    assert received.subject == "Milano – Torino: sei in formazione"
    assert "scacchiera 1" in received.text and match.get_absolute_url() in received.text
    assert milano.club.name in received.text
    assert str(received.message["List-Unsubscribe"]).strip().startswith("<http")
    # Saved again: no second mail.
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    assert Mail.objects.count() == 1


def test_shown_as_the_player_chose(client):
    match, milano, _torino = a_match()
    first, second, _reserve = milano.players
    User = type(first)
    User.objects.filter(pk=first.pk).update(remind_on_site=False, remind_in_browser=False)
    User.objects.filter(pk=second.pk).update(remind_on_site=False)  # a browser notification
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    first.refresh_from_db()
    assert notices_for(first) == []
    client.force_login(second)
    page = client.get(reverse("events:reminders")).content.decode()
    assert 'data-notify="1"' in page and "hidden>" in page
    assert 'data-title="In formazione: Milano – Torino"' in page


def test_the_named_player_s_open_pages_hear_of_it(django_capture_on_commit_callbacks):
    """The push goes through Redis after commit, to the player's site sockets."""
    match, milano, _torino = a_match()
    reserve = milano.players[2]
    with GroupListener(user_group(reserve.pk)) as listener:
        with django_capture_on_commit_callbacks(execute=True):
            services.lineup_set(
                match_id=match.pk, by=milano.captain, player_ids=ids(milano.players)
            )
        [(_at, message)] = listener.wait()
    assert message == {"type": "user.changed", "what": "reminder"}


def test_a_cancelled_match_takes_its_line_up_notices_with_it():
    match, milano, _torino = a_match()
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    services.match_cancel(match_id=match.pk, by=milano.captain)
    assert not named_notices(match).exists()
    for player in milano.players:
        (notice,) = notices_for(player)
        assert notice.cancelled_at is not None and notice.template is None


def test_a_moved_start_keeps_the_line_up_notices_with_the_new_start():
    match, milano, _torino = a_match()
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    later = match.starts_at + timedelta(hours=1)
    TeamMatch.objects.filter(pk=match.pk).update(starts_at=later)
    match.refresh_from_db()
    reminders.start_moved(match)
    assert set(named_notices(match).values_list("starts_at", flat=True)) == {later}


def test_the_named_notice_does_not_stop_the_reminder_before_the_start(
    django_capture_on_commit_callbacks,
):
    start = timezone.now() + timedelta(hours=3)
    match, milano, _torino = a_match(start=start)
    services.lineup_set(
        match_id=match.pk,
        by=milano.captain,
        player_ids=ids(milano.players),
        now=start - timedelta(hours=2),
    )
    assert reminders.reminders_due(now=start - timedelta(minutes=30)) == 3
    topics = set(Reminder.objects.values_list("user_id", "topic"))
    assert {(p.pk, "start") for p in milano.players} <= topics
    assert {(p.pk, "named") for p in milano.players} <= topics


# --- the line-ups closed, to the captains -------------------------------------------------------


@pytest.fixture
def closing():
    """A match whose deadline passed a minute ago (the tick is told the time it is), each club
    with a line-up; Milano has a second officer, and an officer whose account is closed."""
    match, milano, torino = a_match()
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    services.lineup_set(match_id=match.pk, by=torino.captain, player_ids=ids(torino.players))
    officer, gone = UserFactory(), UserFactory(is_active=False)
    now = timezone.now()
    for user in (officer, gone):
        Membership.objects.create(club=milano.club, user=user, role=Role.OFFICER, joined_at=now)
    starts_at = now + timedelta(minutes=14)
    TeamMatch.objects.filter(pk=match.pk).update(starts_at=starts_at, next_due_at=starts_at)
    match.refresh_from_db()
    captains = {milano.captain.pk, officer.pk, torino.captain.pk}
    return match, captains, milano, torino


def closed_notices(match):
    return Reminder.objects.filter(kind="teammatch", event_id=match.pk, topic=notices.CLOSED)


def test_the_captains_are_told_once_when_the_line_ups_close(client, closing):
    match, captains, milano, torino = closing
    deadline = match.lineup_deadline
    assert notices.lineups_closed_due(now=deadline - timedelta(seconds=1)) == []
    assert not closed_notices(match).exists()
    version = match.version
    assert notices.lineups_closed_due(now=deadline) == [match.pk]
    assert set(closed_notices(match).values_list("user_id", flat=True)) == captains
    match.refresh_from_db()
    assert match.lineups_closed_told_at == deadline and match.version == version + 1
    # The tick again, or later: nothing more.
    assert notices.lineups_closed_due(now=deadline) == []
    assert notices.lineups_closed_tell(match_id=match.pk, now=deadline) is False
    assert closed_notices(match).count() == 3
    assert not Mail.objects.filter(reason=Reason.CLUB, user_id__in=captains).exists()
    # The notice names the match and the clubs, links to it, where both line-ups now show.
    client.force_login(torino.captain)
    notice = client.get(reverse("events:reminders")).content.decode()
    assert 'data-topic="closed"' in notice and "«Milano – Torino»" in notice
    assert f"({milano.club.name} – {torino.club.name})" in notice
    assert f'href="{match.get_absolute_url()}"' in notice
    page = client.get(match.get_absolute_url()).content.decode()
    assert milano.players[2].username in page and torino.players[0].username in page


def test_the_tick_tells_them(closing, django_capture_on_commit_callbacks):
    """Beat's `teams.due` task (run eagerly here) tells the captains once the deadline has come,
    before any start."""
    match, captains, _milano, _torino = closing
    with django_capture_on_commit_callbacks(execute=True):
        tasks.due_process.apply().get()
        tasks.due_process.apply().get()
    assert set(closed_notices(match).values_list("user_id", flat=True)) == captains
    match.refresh_from_db()
    assert match.status == TeamMatch.Status.SCHEDULED and match.lineups_closed_told_at


def test_a_crash_before_the_commit_tells_nothing_and_the_next_tick_tells(closing, monkeypatch):
    match, captains, _milano, _torino = closing
    deadline = match.lineup_deadline

    def crash(_match):
        raise RuntimeError("the worker died")

    monkeypatch.setattr(notices.broadcast, "changed_on_commit", crash)
    with pytest.raises(RuntimeError):
        notices.lineups_closed_due(now=deadline)
    match.refresh_from_db()
    assert match.lineups_closed_told_at is None and not closed_notices(match).exists()
    monkeypatch.undo()
    assert notices.lineups_closed_due(now=deadline + timedelta(seconds=10)) == [match.pk]
    assert closed_notices(match).count() == len(captains)


def test_told_and_committed_the_notices_are_there_without_the_push(closing):
    """The notices are rows written with the flag: a push lost after the commit (the worker
    died, Redis away) loses nothing; the notices' fragment polls and finds them."""
    match, captains, _milano, _torino = closing
    notices.lineups_closed_due(now=match.lineup_deadline)  # on_commit never runs here
    for user_id in captains:
        user = type(match.opened_by).objects.get(pk=user_id)
        assert [n.topic for n in notices_for(user)] == [notices.CLOSED]


def test_no_closing_notice_for_a_match_cancelled_or_started(closing):
    match, _captains, milano, _torino = closing
    services.match_cancel(match_id=match.pk, by=milano.captain)
    assert notices.lineups_closed_due(now=match.lineup_deadline) == []
    assert not closed_notices(match).exists()
    late = open_match(side([1500]), side([1500]), boards=2)
    TeamMatch.objects.filter(pk=late.pk).update(status=TeamMatch.Status.RUNNING)
    assert notices.lineups_closed_tell(match_id=late.pk, now=late.lineup_deadline) is False
