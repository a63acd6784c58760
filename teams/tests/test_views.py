"""The match page's forms (RULES 16.2): the captain's line-up, refused with the reason and
nothing saved; a member's availability; who sees which line-up before and after the
deadline."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.tests.factories import UserFactory
from clubs.tests.factories import club_with
from teams import services
from teams.models import Availability, LineupEntry, TeamMatch
from teams.tests.factories import open_match, side
from teams.tests.test_services import boards_of, finish, ids

pytestmark = pytest.mark.django_db


def board_points(page: str) -> list[str]:
    """The points column of the match page's boards as a sighted reader sees it."""
    cells = re.findall(r'data-testid="team-board-points">(.*?)</td>', page)
    hidden = r'<span class="visually-hidden">.*?</span>'
    return [re.sub(r"<[^>]+>", "", re.sub(hidden, "", cell)) for cell in cells]


def places(*players) -> dict:
    return {f"place_{n}": str(p.pk) for n, p in enumerate(players, start=1)}


def test_the_captain_saves_the_line_up_through_the_form(client):
    milano, torino = side([1900, 1800, 1700]), side([])
    match = open_match(milano, torino, boards=2)
    a, b, c = milano.players
    client.force_login(milano.captain)
    page = client.get(f"/incontri/{match.pk}/formazione/")
    assert page.status_code == 200
    text = page.content.decode()
    assert f"{a.username} (1900)" in text and "Riserva 2" in text
    response = client.post(f"/incontri/{match.pk}/formazione/", places(b, a, c))
    assert response.status_code == 302
    saved = LineupEntry.objects.filter(lineup__match=match).order_by("place")
    assert [e.player_id for e in saved] == [b.pk, a.pk, c.pk]
    # Out of order: the form again, with the reason, and the saved one untouched.
    response = client.post(f"/incontri/{match.pk}/formazione/", places(c, a, b))
    assert response.status_code == 400
    assert "fuori ordine" in response.content.decode()
    assert [e.player_id for e in saved.all()] == [b.pk, a.pk, c.pk]


def test_a_member_who_is_no_captain_is_sent_back_with_the_reason(client):
    milano, torino = side([1900]), side([])
    match = open_match(milano, torino, boards=2)
    client.force_login(milano.players[0])
    response = client.get(f"/incontri/{match.pk}/formazione/", follow=True)
    assert "Solo i consiglieri" in response.content.decode()


def test_a_member_says_available_and_takes_it_back(client):
    milano, torino = side([1900]), side([1800])
    match = open_match(milano, torino, boards=2)
    player = torino.players[0]
    client.force_login(player)
    assert 'data-testid="team-available"' in client.get(match.get_absolute_url()).content.decode()
    client.post(f"/incontri/{match.pk}/disponibile/", {"available": "1"})
    assert Availability.objects.filter(match=match, player=player).exists()
    page = client.get(match.get_absolute_url()).content.decode()
    assert 'data-testid="team-unavailable"' in page
    client.post(f"/incontri/{match.pk}/disponibile/", {"available": "0"})
    assert not Availability.objects.exists()


def test_each_club_sees_its_own_line_up_before_the_deadline_and_everyone_both_after(client):
    milano, torino = side([1900, 1800]), side([2000])
    match = open_match(milano, torino, boards=2)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=[milano.players[0].pk])
    services.lineup_set(match_id=match.pk, by=torino.captain, player_ids=[torino.players[0].pk])
    mine, theirs = milano.players[0].username, torino.players[0].username
    client.force_login(milano.players[1])
    page = client.get(match.get_absolute_url()).content.decode()
    assert mine in page and theirs not in page
    # Past the deadline (moved there: the start an hour and a quarter ahead is the rule).
    TeamMatch.objects.filter(pk=match.pk).update(starts_at=timezone.now())
    client.logout()
    page = client.get(match.get_absolute_url()).content.decode()
    assert mine in page and theirs in page


def test_each_club_page_lists_its_matches_and_a_club_in_one_is_not_dissolved(client):
    from clubs import services as clubs
    from clubs.services import ClubError

    milano, torino = side([1900, 1800]), side([2000])
    match = open_match(milano, torino, boards=2)
    for club in (milano.club, torino.club):
        page = client.get(club.get_absolute_url()).content.decode()
        assert match.name in page and match.get_absolute_url() in page
    with pytest.raises(ClubError):  # RULES 12.6: a club with an event not over
        clubs.club_dissolve(club_id=torino.club.pk, by=torino.captain)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=[milano.players[0].pk])
    services.match_start(match_id=match.pk, now=match.starts_at)
    page = client.get(torino.club.get_absolute_url()).content.decode()
    assert f"0 – 1 contro «{milano.club.name}»" in page  # board 1 Milano's by forfeit, 2 empty


def form_data(second, **fields) -> dict:
    start = timezone.localtime(timezone.now() + timedelta(hours=3))
    return {
        "name": "Milano – Torino",
        "description": "",
        "variant": "chess",
        "time_control": "3+2",
        "starts_at": start.strftime("%Y-%m-%dT%H:%M"),
        "timezone": "Europe/Rome",
        "opening_mode": "free",
        "rated": "on",
        "second_club": second.club.short_name.lower(),
        "boards": "4",
        **fields,
    }


def test_an_officer_opens_a_match_through_the_form(client):
    milano, torino = side([]), side([])
    client.force_login(milano.captain)
    assert client.get("/incontri/nuovo/").status_code == 200
    response = client.post("/incontri/nuovo/", form_data(torino, double_games="on"))
    assert response.status_code == 302
    match = TeamMatch.objects.get()
    assert (match.first_club, match.second_club) == (milano.club, torino.club)
    assert (match.boards, match.legs, match.base_seconds, match.increment_seconds) == (
        4,
        2,
        180,
        2,
    )
    assert response.url == match.get_absolute_url()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"second_club": "ZZZ"}, "Nessun circolo con questa sigla."),
        ({"boards": "13"}, "13 non è tra quelle disponibili"),
        ({"starts_at": "soon"}, "tra un'ora e trenta giorni"),
        ({"second_club": "self"}, "contro sé stesso"),
    ],
)
def test_a_wrong_match_is_refused_with_the_reason_and_nothing_saved(client, change, message):
    milano, torino = side([]), side([])
    client.force_login(milano.captain)
    data = form_data(torino)
    if change.get("starts_at") == "soon":
        change["starts_at"] = timezone.localtime(timezone.now() + timedelta(minutes=30)).strftime(
            "%Y-%m-%dT%H:%M"
        )
    if change.get("second_club") == "self":
        change["second_club"] = milano.club.short_name
    data.update(change)
    response = client.post("/incontri/nuovo/", data)
    assert response.status_code == 400
    assert message in html.unescape(response.content.decode())
    assert not TeamMatch.objects.exists()


def test_a_match_form_names_every_wrong_field_at_once(client):
    """The other club being one's own and a start too soon, in one submit: both said, each by
    its field (the service alone would say the first it met)."""
    milano, torino = side([]), side([])
    client.force_login(milano.captain)
    data = form_data(torino)
    data["second_club"] = milano.club.short_name
    data["starts_at"] = timezone.localtime(timezone.now() + timedelta(minutes=30)).strftime(
        "%Y-%m-%dT%H:%M"
    )
    page = html.unescape(client.post("/incontri/nuovo/", data).content.decode())
    assert "contro sé stesso" in page and "tra un'ora e trenta giorni" in page
    assert not TeamMatch.objects.exists()


def test_a_member_who_is_no_officer_opens_no_match(client):
    milano = side([1500])
    client.force_login(milano.players[0])
    response = client.get("/incontri/nuovo/", follow=True)
    assert "Solo i consiglieri di un circolo" in response.content.decode()


def test_the_clubs_page_leads_its_officers_to_the_match_form():
    """RULES 16.1: an officer finds the form on their club's page (clubs.registry's opener);
    a member does not, and the form is the officer's club's."""
    president, member = UserFactory(), UserFactory()
    club = club_with(president=president, members=[member])
    page = reverse("clubs:detail", args=[club.pk])
    officer_client, member_client = Client(), Client()
    officer_client.force_login(president)
    member_client.force_login(member)
    html = officer_client.get(page).content.decode()
    assert f'href="{reverse("teams:new")}" data-testid="club-open-match"' in html
    assert 'data-testid="club-open-match"' not in member_client.get(page).content.decode()
    form = officer_client.get(reverse("teams:new"))
    assert form.status_code == 200 and club.name in form.content.decode()


def test_the_match_and_club_pages_show_board_points_as_the_league_does(client):
    """RULES 16.5, 16.8: board points are counted 2 a win inside and shown 1, ½, 0, as the
    league's tables show them: a draw and a forfeit win read 1½ – ½, not 3 – 1."""
    milano, torino = side([1900, 1800]), side([2000])
    match = open_match(milano, torino, boards=3)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    services.lineup_set(match_id=match.pk, by=torino.captain, player_ids=ids(torino.players))
    services.match_start(match_id=match.pk, now=match.starts_at)
    one = boards_of(match)[0]
    finish(one.game1, "1/2-1/2")
    services.match_game_finished(game_id=one.game1_id)
    page = html.unescape(client.get(match.get_absolute_url()).content.decode())
    assert f"{milano.club.short_name} 1½ – ½ {torino.club.short_name}</strong>" in page
    assert board_points(page) == ["½–½", "1–0", "0–0"]
    club_page = html.unescape(client.get(torino.club.get_absolute_url()).content.decode())
    assert f"½ – 1½ contro «{milano.club.name}»" in club_page


def test_each_board_game_link_says_its_board_game_and_players(client):
    """The boards' game links once all read "partita 1": each is now its result (or "in
    corso"), named for a screen reader by its board, its game and its two players."""
    milano, torino = side([1900, 1800]), side([2000, 1900])
    match = open_match(milano, torino, boards=2, double_games=True)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    services.lineup_set(match_id=match.pk, by=torino.captain, player_ids=ids(torino.players))
    services.match_start(match_id=match.pk, now=match.starts_at)
    one, two = boards_of(match)
    finish(one.game1, "1-0")
    services.match_game_finished(game_id=one.game1_id)
    page = html.unescape(client.get(match.get_absolute_url()).content.decode())
    links = re.findall(r'data-testid="team-board-game">(.*?)</a>', page)
    names = [re.sub(r"<[^>]+>", "", link) for link in links]
    (a, b), (x, y) = [p.username for p in milano.players], [p.username for p in torino.players]
    assert names == [
        f"1–0: scacchiera 1, partita 1, {a} – {x}",
        f"in corso: scacchiera 1, partita 2, {a} – {x}",
        f"in corso: scacchiera 2, partita 1, {b} – {y}",
    ]
    assert board_points(page) == ["1–0 · in corso", "in corso"]
    assert "partita 1</a>" not in page


def test_the_match_page_shows_its_description_escaped_with_its_line_breaks(client):
    """The description was saved and never shown: now under the head, as plain text."""
    milano, torino = side([]), side([])
    match = open_match(milano, torino, boards=2, description="Sala grande\n<b>Arbitro</b>: Rossi")
    page = client.get(match.get_absolute_url()).content.decode()
    assert (
        '<p class="event-description" data-testid="team-match-description">'
        "Sala grande<br>&lt;b&gt;Arbitro&lt;/b&gt;: Rossi</p>"
    ) in page
    bare = open_match(torino, milano, boards=2, name="Senza descrizione")
    assert "team-match-description" not in client.get(bare.get_absolute_url()).content.decode()


def test_the_captains_see_who_said_they_are_available_and_no_one_else_does(client):
    """RULES 16.2: the members who said "Sono disponibile" are listed on the match page for
    their club's officers and marked in the line-up form's choices; a member, the other
    club's captain and a visitor do not see the list."""
    milano, torino = side([1900, 1800]), side([2000])
    match = open_match(milano, torino, boards=2)
    a, b = milano.players
    services.availability_set(match_id=match.pk, user=b, available=True)
    client.force_login(milano.captain)
    page = client.get(match.get_absolute_url()).content.decode()
    listed = re.search(r'data-testid="team-available-list">(.*?)</p>', page)
    assert listed and b.username in listed.group(1) and a.username not in listed.group(1)
    form = client.get(f"/incontri/{match.pk}/formazione/").content.decode()
    assert f"{b.username} (1800) · disponibile</option>" in form
    assert f"{a.username} (1900)</option>" in form
    assert re.search(
        r'data-testid="team-lineup-available">Si sono detti disponibili: ' + b.username, form
    )
    for viewer in (a, None):
        client.logout()
        if viewer is not None:
            client.force_login(viewer)
        assert "team-available-list" not in client.get(match.get_absolute_url()).content.decode()
    client.force_login(torino.captain)  # their own club's list only: nobody yet
    page = client.get(match.get_absolute_url()).content.decode()
    assert re.findall(r'data-testid="team-available-list">(.*?)</p>', page) == [
        '<span class="muted">Disponibili (lo vedono solo i consiglieri):</span> nessuno per ora.'
    ]


def test_a_friendly_match_is_cancelled_by_a_captain_of_either_club_asked_first(client):
    """RULES 16.1 Decision: before the start, its organizer or an officer of either club; a
    member who is no officer sees no button and is refused; the match is gone from the
    calendar, its page says so."""
    milano, torino = side([1900]), side([1800])
    match = open_match(milano, torino, boards=2)
    url = reverse("teams:cancel", args=[match.pk])
    client.force_login(torino.players[0])  # a member, no officer
    assert 'data-testid="team-cancel"' not in client.get(match.get_absolute_url()).content.decode()
    refused = client.post(url, follow=True).content.decode()
    assert "Solo i consiglieri" in refused
    match.refresh_from_db()
    assert match.status == TeamMatch.Status.SCHEDULED

    client.force_login(torino.captain)  # the other club's president
    assert 'data-testid="team-cancel"' in client.get(match.get_absolute_url()).content.decode()
    confirm = client.get(url).content.decode()
    assert 'data-testid="team-cancel-confirm"' in confirm and "Annullare" in confirm
    match.refresh_from_db()
    assert match.status == TeamMatch.Status.SCHEDULED  # asking changes nothing
    done = client.post(url, follow=True).content.decode()
    assert "Incontro annullato." in done
    match.refresh_from_db()
    assert match.status == TeamMatch.Status.CANCELLED
    # Twice: refused with the reason, nothing more.
    assert "non ancora iniziato" in client.post(url, follow=True).content.decode()


def test_a_league_match_is_not_cancelled_by_its_captains():
    """RULES 16.8: a league's match is the league's; its captains see no button and are
    refused."""
    from teams.tests.league_world import played_league

    world = played_league("annulla")
    match = (
        TeamMatch.objects.filter(league_round__league=world.league, status="scheduled")
        .order_by("pk")
        .first()
    )
    assert match is not None
    captain = world.sides[0].captain if match.first_club_id == world.sides[0].club.pk else None
    captain = captain or next(s.captain for s in world.sides if s.club.pk == match.first_club_id)
    client = Client()
    client.force_login(captain)
    assert 'data-testid="team-cancel"' not in client.get(match.get_absolute_url()).content.decode()
    refused = client.post(reverse("teams:cancel", args=[match.pk]), follow=True).content.decode()
    assert "campionato" in refused
    match.refresh_from_db()
    assert match.status == TeamMatch.Status.SCHEDULED
