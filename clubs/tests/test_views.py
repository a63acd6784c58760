"""The clubs' pages (RULES 12.5, 12.9): the list, founding one through its form (refusals on
the form, nothing saved), the club's page with its sortable rating list, its events and
calendar, the officers' page, the badge beside a member's name wherever they appear, and the
staff's admin."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.tests.factories import UserFactory
from arena.tests.factories import ArenaFactory, EntryFactory
from clubs.models import Club, Membership
from clubs.tests.factories import club_with
from games.tests.factories import open_game
from ratings.models import Rating
from tournaments.tests.factories import TournamentFactory

pytestmark = pytest.mark.django_db


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


FORM = {
    "name": "Circolo della Torre",
    "short_name": "torre",
    "city": "Pavia",
    "province": "PV",
    "description": "Il giovedì sera.",
    "fsi_code": "",
    "fid_code": "",
}


def test_founding_through_the_form():
    founder = UserFactory()
    answer = client_of(founder).post(reverse("clubs:new"), FORM)
    club = Club.objects.get()
    assert answer.status_code == 302 and answer.url == club.get_absolute_url()
    assert club.short_name == "TORRE"
    assert Membership.objects.get(user=founder).role == "president"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", "circolo della torre", "Esiste già un circolo"),
        ("name", "Circolo della Тorre", "Esiste già un circolo"),  # a Cyrillic Т
        ("short_name", "csm", "sigla è già"),
        ("short_name", "T", "da 2 a 8"),
        ("province", "XX", "Scegli"),
        ("fsi_code", "12-34", "lettere e cifre"),
        ("name", "Circolo\u202eTorre", "Caratteri non ammessi"),
    ],
)
def test_a_bad_form_says_why_and_saves_nothing(field, value, message):
    club_with(name="Circolo della Torre", short_name="CSM")
    founder = UserFactory()
    data = {**FORM, "name": "Altro", "short_name": "ALT", field: value}
    answer = client_of(founder).post(reverse("clubs:new"), data)
    assert answer.status_code == 400 and message in answer.content.decode()
    assert Club.objects.count() == 1
    assert not Membership.objects.filter(user=founder).exists()


def test_the_list_finds_by_name_or_town_and_hides_hidden_clubs():
    club_with(name="Circolo Scacchi Pavia", city="Pavia", province="PV")
    club_with(name="Dama Bari", city="Bari", province="BA")
    club_with(name="Nascosto", hidden=True)
    page = Client().get(reverse("clubs:list")).content.decode()
    assert "Circolo Scacchi Pavia" in page and "Dama Bari" in page and "Nascosto" not in page
    found = Client().get(reverse("clubs:list"), {"q": "bari"}, HTTP_HX_REQUEST="true")
    body = found.content.decode()
    assert "Dama Bari" in body and "Pavia" not in body and "<html" not in body


def test_the_rating_list_sorts_by_a_column_as_a_fragment(django_assert_max_num_queries):
    players = [UserFactory(username=name) for name in ("anna", "bruno", "carla")]
    club = club_with(president=players[0], members=players[1:])
    for player, value in zip(players, (1500, 1700, 1600), strict=True):
        Rating.objects.create(player=player, variant="chess", cadence="blitz", value=value, games=5)
    url = club.get_absolute_url()
    with django_assert_max_num_queries(12):
        answer = Client().get(
            url, {"sort": "chess:blitz"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="club-members"
        )
    body = answer.content.decode()
    assert "<html" not in body
    assert body.index("bruno") < body.index("carla") < body.index("anna")
    by_name = Client().get(url).content.decode()
    assert by_name.index('data-player="anna"') < by_name.index('data-player="bruno"')


def test_the_page_lists_the_clubs_events_and_its_calendar_has_the_coming_ones():
    officer = UserFactory()
    club = club_with(officers=[officer])
    soon = timezone.now() + timedelta(days=2)
    TournamentFactory(name="Sociale di dicembre", club=club, starts_at=soon, opened_by=officer)
    done = ArenaFactory(name="Lampo di novembre", club=club, status="finished")
    EntryFactory(arena=done, player=officer, rank=1)
    page = Client().get(club.get_absolute_url()).content.decode()
    assert "Sociale di dicembre" in page and "Lampo di novembre" in page
    assert f"Primo posto: {officer.username}" in page
    ics = Client().get(reverse("clubs:calendar", args=[club.pk]))
    assert ics["Content-Type"].startswith("text/calendar")
    text = ics.content.decode()
    assert "SUMMARY:Sociale di dicembre" in text and "Lampo di novembre" not in text
    assert text.count("BEGIN:VEVENT") == 1


def test_the_management_page_is_the_officers():
    president, member = UserFactory(), UserFactory()
    club = club_with(president=president, members=[member])
    url = reverse("clubs:manage", args=[club.pk])
    assert client_of(member).get(url).status_code == 302
    page = client_of(president).get(url).content.decode()
    assert "Richieste di iscrizione" in page and member.username in page


def test_an_officer_removing_the_president_through_the_page_is_refused():
    president, officer = UserFactory(), UserFactory()
    club = club_with(president=president, officers=[officer])
    client = client_of(officer)
    answer = client.post(
        reverse("clubs:member_action", args=[club.pk, "remove"]), {"user": president.pk}
    )
    assert answer.status_code == 302
    page = client.get(answer.url).content.decode()
    assert "Il presidente non può essere tolto" in page
    assert Membership.objects.get(user=president).left_at is None


def test_a_hidden_club_is_shown_to_its_members_only():
    member = UserFactory()
    club = club_with(members=[member], hidden=True)
    assert Client().get(club.get_absolute_url()).status_code == 404
    assert client_of(member).get(club.get_absolute_url()).status_code == 200


def test_the_short_name_follows_a_members_name_on_their_pages():
    white, black = UserFactory(username="bianca"), UserFactory(username="nero")
    club = club_with(members=[white], short_name="TORRE")
    badge = f'href="{club.get_absolute_url()}"'
    assert badge in Client().get(reverse("player", args=["bianca"])).content.decode()
    assert badge not in Client().get(reverse("player", args=["nero"])).content.decode()
    game = open_game(white=white, black=black)
    page = Client().get(reverse("games:game", args=[game.pk])).content.decode()
    assert 'data-testid="club-line"' in page and badge in page
    arena = ArenaFactory(status="running", starts_at=timezone.now())
    EntryFactory(arena=arena, player=white)
    EntryFactory(arena=arena, player=black)
    page = Client().get(reverse("arena:detail", args=[arena.pk])).content.decode()
    assert page.count('data-testid="club-badge"') == 1


def test_the_staff_see_hide_and_dissolve_clubs_in_the_admin():
    staff = UserFactory(is_staff=True, is_superuser=True)
    club = club_with(name="Circolo da sciogliere")
    client = client_of(staff)
    assert "Circolo da sciogliere" in client.get("/admin/clubs/club/").content.decode()
    assert client.get(f"/admin/clubs/club/{club.pk}/change/").status_code == 200
    client.post("/admin/clubs/club/", {"action": "hide_clubs", "_selected_action": [club.pk]})
    club.refresh_from_db()
    assert club.hidden
    client.post("/admin/clubs/club/", {"action": "dissolve_clubs", "_selected_action": [club.pk]})
    club.refresh_from_db()
    assert club.dissolved_at is not None
    assert not Membership.objects.filter(club=club, left_at=None).exists()


def test_a_tournament_for_the_club_lets_in_its_members_only():
    from tournaments import services as tournaments
    from tournaments.services import TournamentError

    officer, member, stranger = UserFactory(), UserFactory(), UserFactory()
    club = club_with(officers=[officer], members=[member])
    tournament = TournamentFactory(club=club, opened_by=officer)
    tournaments.registration_join(tournament_id=tournament.pk, player=member)
    with pytest.raises(TournamentError, match="Solo i soci"):
        tournaments.registration_join(tournament_id=tournament.pk, player=stranger)
