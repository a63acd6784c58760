"""The league's pages (RULES 16.8) through the Django client on PostgreSQL: the page, its print
version, the open form and the team form for a guest, a member, an officer and the organizer;
each form's way through and its refusals (shown with the reason, nothing saved); the clubs'
search of the open form, whole page and htmx fragment; the club page's link and list."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.tests.factories import UserFactory
from clubs.tests.factories import club_with
from teams import leagues
from teams.models import League, LeagueMember, LeagueTeam, TeamMatch
from teams.tests.factories import side
from teams.tests.league_world import league_data, league_sides, played_league

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return html.unescape(response.content.decode())


def open_league(sides, **fields) -> League:
    return leagues.league_create(by=sides[0].captain, data=league_data(sides, **fields))


@pytest.fixture
def played():
    return played_league()


def viewers(world) -> dict:
    milano = world.sides[0]
    return {
        "guest": None,
        "member": milano.players[0],
        "officer": world.sides[1].captain,
        "organizer": milano.captain,
        "stranger": UserFactory(),
    }


@pytest.mark.parametrize("who", ["guest", "member", "officer", "organizer", "stranger"])
def test_the_league_page_and_its_print_render_for_everyone(client, played, who):
    user = viewers(played)[who]
    if user is not None:
        client.force_login(user)
    league = played.league
    page = client.get(f"/incontri/campionati/{league.pk}/")
    assert page.status_code == 200
    body = text(page)
    assert "Girone all'italiana" in body
    for club_side in played.sides:
        assert f"{club_side.club.city} A" in body and club_side.club.name in body
    assert body.count('data-testid="league-standing-row"') == 4
    assert body.count('data-testid="league-cross-row"') == 4
    assert body.count('data-testid="league-round"') == 3
    assert "da giocare" in body
    # Every match links to its page.
    for match in TeamMatch.objects.filter(league_round__league=league):
        assert f'href="/incontri/{match.pk}/"' in body
    # Only the officer of a team's club manages it; the running league has no organizer's box.
    manages = 'data-testid="league-team-edit"' in body
    assert manages == (who in ("officer", "organizer"))
    assert 'data-testid="league-start"' not in body
    sheet = client.get(f"/incontri/campionati/{league.pk}/stampa/")
    assert sheet.status_code == 200
    printed = text(sheet)
    assert 'data-testid="print-sheet"' in printed and "Classifica provvisoria" in printed
    assert printed.count('data-testid="league-standing-row"') == 4


def test_the_standings_show_board_points_as_halves_and_the_prizes(client, played):
    body = text(client.get(f"/incontri/campionati/{played.league.pk}/"))
    # Round 1's first match 1-0 and a draw: 1½ – ½; the second 0-1 twice, board 2's first
    # team having Black: 1 – 1.
    assert "1½ – ½" in body and "1 – 1" in body
    # Milano: lost ½ against Genova (2 match points), won 1½ against Bologna (1): SB 2½.
    assert '<td class="num">2½</td>' in body
    assert body.count('data-testid="league-prize"') == 3  # board 1 shared, board 2
    assert "servono almeno 2 partite giocate" in body


def test_a_league_match_names_its_league_and_round_with_a_link_back(client, played):
    match = TeamMatch.objects.filter(league_round__league=played.league).order_by("pk").first()
    body = text(client.get(f"/incontri/{match.pk}/"))
    assert f'href="/incontri/campionati/{played.league.pk}/"' in body
    assert "Campionato del Nord 2026/27" in body and "turno 1" in body


def test_the_organizer_starts_the_league_from_its_page_and_only_they(client):
    sides = league_sides("avvio")
    league = open_league(sides)
    url = f"/incontri/campionati/{league.pk}/"
    client.force_login(sides[1].captain)
    body = text(client.get(url))
    assert 'data-testid="league-start"' not in body
    response = client.post(f"{url}avvia/", follow=True)
    assert "Solo l'organizzatore avvia il campionato." in text(response)
    league.refresh_from_db()
    assert league.status == League.Status.ENTRY
    client.force_login(sides[0].captain)
    body = text(client.get(url))
    assert 'data-testid="league-start"' in body and "La classifica c'è dall'inizio" in body
    response = client.post(f"{url}avvia/", follow=True)
    assert "il calendario è fatto" in text(response)
    league.refresh_from_db()
    assert league.status == League.Status.RUNNING
    # Twice: refused with the reason.
    response = client.post(f"{url}avvia/", follow=True)
    assert "già iniziato" in text(response)


def test_the_organizer_is_told_when_the_league_starts_by_itself(client):
    """RULES 16.8: a day before its first round, or two hours before it for a league opened
    less than a day ahead: the organizer's page says the moment, not always "the day before"."""
    from django.utils import formats
    from django.utils import timezone as tz

    sides = league_sides("da-solo")
    first = timezone.now() + timedelta(hours=3)
    league = leagues.league_create(
        by=sides[0].captain, data=league_data(sides, first_round_at=first)
    )
    client.force_login(sides[0].captain)
    body = text(client.get(f"/incontri/campionati/{league.pk}/"))
    when = formats.date_format(tz.localtime(first - timedelta(hours=2)), "DATETIME_FORMAT")
    assert f"inizia da solo il {when}, prima del primo turno" in body


def test_the_standings_mark_no_podium_before_a_match_is_played(client):
    """Started, before any match is over, the order is the lot's: no team has a podium's
    bar."""
    sides = league_sides("podio")
    league = open_league(sides)
    leagues.league_start(league_id=league.pk, by=sides[0].captain)
    body = text(client.get(f"/incontri/campionati/{league.pk}/"))
    assert 'data-testid="league-standing-row"' in body and 'class="rank-' not in body


def test_the_standings_mark_the_podium_once_played(client, played):
    assert 'class="rank-1"' in text(client.get(played.league.get_absolute_url()))


def test_the_organizer_cancels_after_a_confirm_step(client):
    sides = league_sides("annulla")
    league = open_league(sides)
    url = f"/incontri/campionati/{league.pk}/annulla/"
    client.force_login(sides[1].captain)
    response = client.post(url, follow=True)
    assert "Solo l'organizzatore annulla" in text(response)
    client.force_login(sides[0].captain)
    page = client.get(url)
    assert page.status_code == 200 and 'data-testid="league-cancel-confirm"' in text(page)
    league.refresh_from_db()
    assert league.status == League.Status.ENTRY  # asking is not cancelling
    client.post(url)
    league.refresh_from_db()
    assert league.status == League.Status.CANCELLED


def test_an_officer_withdraws_their_team_after_a_confirm_step_and_only_once(client, played):
    league, torino = played.league, played.sides[1]
    team = league.teams.get(club=torino.club)
    url = f"/incontri/campionati/{league.pk}/squadre/{team.pk}/ritira/"
    # A member of the club is no officer: refused, nothing changed.
    client.force_login(torino.players[0])
    response = client.post(url, follow=True)
    assert "Solo i consiglieri" in text(response)
    team.refresh_from_db()
    assert team.withdrawn_at is None
    client.force_login(torino.captain)
    page = client.get(url)
    assert page.status_code == 200 and "perde a forfait" in text(page)
    response = client.post(url, follow=True)
    assert "si è ritirata" in text(response)
    team.refresh_from_db()
    assert team.withdrawn_at is not None
    body = text(client.get(f"/incontri/campionati/{league.pk}/"))
    assert 'data-testid="league-withdrawn"' in body
    assert 'data-testid="league-team-withdraw"' not in body
    response = client.post(url, follow=True)
    assert "La squadra si è già ritirata." in text(response)


def test_the_team_form_saves_the_name_and_roster_best_rated_first(client):
    sides = league_sides("rosa")
    league = open_league(sides)
    milano = sides[0]
    team = league.teams.get(club=milano.club)
    url = f"/incontri/campionati/{league.pk}/squadre/{team.pk}/"
    client.force_login(milano.captain)
    page = client.get(url)
    assert page.status_code == 200
    body = text(page)
    best, second, third = milano.players
    # Best first, with the rating in the league's pool (chess blitz).
    assert body.index(best.username) < body.index(second.username) < body.index(third.username)
    assert "2000" in body
    response = client.post(url, {"name": "Milano Alfa", "players": [best.pk, third.pk]})
    assert response.status_code == 302
    team.refresh_from_db()
    assert team.name == "Milano Alfa"
    assert set(team.roster.values_list("player_id", flat=True)) == {best.pk, third.pk}
    # Saved again: ticked as saved.
    body = text(client.get(url))
    assert f'value="{best.pk}" checked' in body and f'value="{second.pk}" checked' not in body


def test_the_team_form_refuses_a_non_member_a_blank_name_and_a_non_officer(client):
    sides = league_sides("rifiuti")
    league = open_league(sides)
    milano, torino = sides[0], sides[1]
    team = league.teams.get(club=milano.club)
    url = f"/incontri/campionati/{league.pk}/squadre/{team.pk}/"
    client.force_login(milano.captain)
    stranger = torino.players[0]
    response = client.post(url, {"name": "Milano", "players": [milano.players[0].pk, stranger.pk]})
    assert response.status_code == 400
    assert f"{stranger.username} non è socio" in text(response)
    assert not LeagueMember.objects.filter(team=team).exists()  # nothing saved
    response = client.post(url, {"name": "  ", "players": []})
    assert response.status_code == 400 and "has-error" in text(response)
    response = client.post(url, {"name": "Milano", "players": ["x"]})
    assert response.status_code == 400 and "Uno dei giocatori non esiste" in text(response)
    # A player on another team of the season: refused with the other team named.
    other = open_league(sides[1:] + [side([1500])], name="Coppa", season="2026/27")
    torino_team = other.teams.get(club=torino.club)
    leagues.team_set(
        league_id=other.pk,
        team_id=torino_team.pk,
        by=torino.captain,
        name="Torino Coppa",
        player_ids=[torino.players[1].pk],
    )
    # A member of Torino's club joins Milan's too? No: one club at a time; use Torino's form.
    torino_league_team = league.teams.get(club=torino.club)
    client.force_login(torino.captain)
    response = client.post(
        f"/incontri/campionati/{league.pk}/squadre/{torino_league_team.pk}/",
        {"name": "Torino", "players": [torino.players[1].pk]},
    )
    assert response.status_code == 400 and "Torino Coppa" in text(response)
    # Another club's officer: sent back to the league's page with the reason.
    response = client.post(url, {"name": "Presa", "players": []}, follow=True)
    assert "Solo i consiglieri di «" in text(response)
    team.refresh_from_db()
    assert team.name == milano.club.name
    # A team of another league: not found.
    assert (
        client.get(f"/incontri/campionati/{league.pk}/squadre/{torino_team.pk}/").status_code == 404
    )


def form_data(sides, **fields) -> dict:
    start = timezone.localtime(timezone.now() + timedelta(days=5)).strftime("%Y-%m-%dT%H:%M")
    data = {
        "name": "Campionato Lombardo",
        "description": "",
        "variant": "chess",
        "time_control": "5+3",
        "starts_at": start,
        "timezone": "Europe/Rome",
        "season": "2027/28",
        "round_gap_days": "7",
        "boards": "4",
        "opening_mode": "free",
        "rated": "on",
        "league_clubs": [str(s.club.pk) for s in sides],
    }
    data.update(fields)
    return data


def test_the_open_form_opens_a_league_of_the_clubs_ticked(client):
    sides = league_sides("apri")
    client.force_login(sides[0].captain)
    page = client.get("/incontri/campionati/nuovo/")
    assert page.status_code == 200
    body = text(page)
    # The officer's own club comes ticked.
    assert f'name="league_clubs" value="{sides[0].club.pk}" checked' in body
    response = client.post("/incontri/campionati/nuovo/", form_data(sides, double_round_robin="on"))
    assert response.status_code == 302
    league = League.objects.get(name="Campionato Lombardo")
    assert response["Location"] == f"/incontri/campionati/{league.pk}/"
    assert (league.season, league.boards, league.double_round_robin) == ("2027/28", 4, True)
    assert league.round_gap == timedelta(days=7)
    assert sorted(league.teams.values_list("club_id", flat=True)) == sorted(
        s.club.pk for s in sides
    )


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"starts_at": "2020-01-01T10:00"}, "Il primo turno è tra due ore e novanta giorni"),
        ({"starts_at": "domani"}, "has-error"),
        ({"round_gap_days": "40"}, "has-error"),
        ({"season": ""}, "has-error"),
        ({"boards": "1"}, "has-error"),
    ],
)
def test_the_open_form_refuses_bad_input_and_saves_nothing(client, change, said):
    sides = league_sides("male")
    client.force_login(sides[0].captain)
    response = client.post("/incontri/campionati/nuovo/", form_data(sides, **change))
    assert response.status_code == 400
    assert said in text(response)
    assert not League.objects.exists()


def test_the_open_form_refuses_too_few_clubs_and_a_league_without_the_officers_club(client):
    sides = league_sides("pochi")
    client.force_login(sides[0].captain)
    response = client.post("/incontri/campionati/nuovo/", form_data(sides[:2]))
    assert response.status_code == 400 and "ora ne hai scelti 2" in text(response)
    response = client.post("/incontri/campionati/nuovo/", form_data(sides[1:]))
    assert response.status_code == 400
    assert "Solo un consigliere di uno dei circoli" in text(response)
    response = client.post(
        "/incontri/campionati/nuovo/", {**form_data(sides), "league_clubs": ["1x", "-2"]}
    )
    assert response.status_code == 400 and "non esiste" in text(response)
    assert not League.objects.exists()


def test_a_member_who_is_no_officer_is_sent_away_from_the_open_form(client):
    sides = league_sides("socio")
    client.force_login(sides[0].players[0])
    response = client.get("/incontri/campionati/nuovo/", follow=True)
    assert "Solo i consiglieri di un circolo aprono un campionato." in text(response)
    response = client.post("/incontri/campionati/nuovo/", form_data(sides))
    assert response.status_code == 302 and not League.objects.exists()
    client.logout()
    assert client.get("/incontri/campionati/nuovo/").status_code == 302  # to the log-in


def test_the_clubs_search_whole_page_and_htmx_fragment_save_nothing(client):
    sides = league_sides("cerca")
    far = club_with(name="Circolo Scacchi Palermo", short_name="CSP", city="Palermo")
    client.force_login(sides[0].captain)
    data = form_data(sides[:1], league_club_q="Palermo", league_search="1")
    response = client.post("/incontri/campionati/nuovo/", data)
    assert response.status_code == 200
    body = text(response)
    assert "Circolo Scacchi Palermo" in body and f'value="{far.pk}">' in body
    assert f'value="{sides[0].club.pk}" checked' in body  # the chosen kept
    assert "has-error" not in body  # an echo: nothing checked
    fragment = client.post(
        "/incontri/campionati/nuovo/",
        form_data(sides[:1], league_club_q="Palermo"),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="league-found-list",
    )
    assert fragment.status_code == 200
    part = text(fragment)
    assert "<html" not in part and 'id="league-found-list"' in part and "Palermo" in part
    assert not League.objects.exists()


def test_the_club_page_links_the_open_form_for_officers_and_lists_its_leagues(client, played):
    milano = played.sides[0]
    url = milano.club.get_absolute_url()
    client.force_login(milano.captain)
    body = text(client.get(url))
    assert 'data-testid="club-open-league"' in body
    assert 'data-kind="league"' in body and "Campionato del Nord 2026/27" in body
    client.force_login(milano.players[0])
    body = text(client.get(url))
    assert 'data-testid="club-open-league"' not in body
    assert 'data-kind="league"' in body


def test_a_missing_league_or_team_is_not_found(client, played):
    assert client.get("/incontri/campionati/999999/").status_code == 404
    assert client.get("/incontri/campionati/999999/stampa/").status_code == 404
    client.force_login(played.sides[0].captain)
    league = played.league
    assert client.get(f"/incontri/campionati/{league.pk}/squadre/999999/").status_code == 404
    assert (
        client.post(f"/incontri/campionati/{league.pk}/squadre/999999/ritira/").status_code == 404
    )
    assert client.get(f"/incontri/campionati/{league.pk}/avvia/").status_code == 405


def test_the_team_form_is_closed_once_the_league_is_over(client):
    sides = league_sides("chiuso")
    league = open_league(sides)
    leagues.league_cancel(league_id=league.pk, by=sides[0].captain)
    team = LeagueTeam.objects.get(league=league, club=sides[0].club)
    client.force_login(sides[0].captain)
    response = client.post(
        f"/incontri/campionati/{league.pk}/squadre/{team.pk}/", {"name": "X", "players": []}
    )
    assert response.status_code == 400 and "concluso o annullato" in text(response)
    body = text(client.get(f"/incontri/campionati/{league.pk}/"))
    assert "Annullato" in body and 'data-testid="league-team-edit"' not in body


@pytest.mark.parametrize(
    ("who", "team_form", "open_form"),
    [
        ("guest", 302, 302),  # to the log-in
        ("member", 302, 302),  # back, with the reason
        ("officer", 200, 200),  # Torino's president: Torino's team
        ("organizer", 302, 200),  # Milano's president: not Torino's team
        ("stranger", 302, 302),
    ],
)
def test_the_forms_answer_each_role(client, played, who, team_form, open_form):
    user = viewers(played)[who]
    if who == "member":
        user = played.sides[1].players[0]  # a member of Torino's club, no officer
    if user is not None:
        client.force_login(user)
    team = played.league.teams.get(club=played.sides[1].club)
    url = f"/incontri/campionati/{played.league.pk}/squadre/{team.pk}/"
    assert client.get(url).status_code == team_form
    assert client.get("/incontri/campionati/nuovo/").status_code == open_form
    if who == "guest":
        assert client.get(url)["Location"].startswith("/accounts/login/")


def test_a_club_is_not_dissolved_while_its_team_plays_a_league_and_is_once_withdrawn(played):
    from clubs import services as club_services
    from clubs.services import ClubError

    torino = played.sides[1]
    with pytest.raises(ClubError) as refused:
        club_services.club_dissolve(club_id=torino.club.pk, by=torino.captain)
    assert "Campionato del Nord" in refused.value.message
    team = played.league.teams.get(club=torino.club)
    leagues.team_withdraw(league_id=played.league.pk, team_id=team.pk, by=torino.captain)
    club_services.club_dissolve(club_id=torino.club.pk, by=torino.captain)


def test_a_double_round_robin_shows_both_legs_in_a_cell(client):
    sides = league_sides("doppio")
    league = open_league(sides[:3], double_round_robin=True)
    leagues.league_start(league_id=league.pk, by=sides[0].captain)
    # Every match finished 3-1 for the first-named team (written straight: the tables read
    # the matches' points; their play is the services' tests').
    TeamMatch.objects.filter(league_round__league=league).update(
        status=TeamMatch.Status.FINISHED,
        first_points=3,
        second_points=1,
        first_match_points=2,
        second_match_points=0,
    )
    body = text(client.get(f"/incontri/campionati/{league.pk}/"))
    assert "Girone all'italiana, andata e ritorno" in body
    # Each pair met twice, once first-named each: 1½ and ½ in one cell, both ways.
    assert "1½ · ½" in body or "½ · 1½" in body
    assert "andata · ritorno" in body


def test_a_swiss_league_shows_its_bye_and_the_rounds_still_to_pair(client):
    sides = [side([1900 - 10 * k, 1800 - 10 * k]) for k in range(11)]
    league = leagues.league_create(by=sides[0].captain, data=league_data(sides))
    leagues.league_start(league_id=league.pk, by=sides[0].captain)
    body = text(client.get(f"/incontri/campionati/{league.pk}/"))
    assert "Sistema svizzero" in body
    assert body.count('data-testid="league-bye"') == 1  # 11 teams: one rests in round 1
    assert "Abbinato quando il turno prima è finito" in body
    assert body.count('data-testid="league-standing-row"') == 11


def test_the_league_page_reads_in_a_bounded_number_of_queries(
    client, played, django_assert_max_num_queries
):
    """STYLE 8: the tables in a handful of queries, not one a match or a team (9 today: the
    session and user, the viewer's club, the league, its teams, rounds, matches, boards, the
    rosters' sizes)."""
    client.force_login(played.sides[1].captain)
    url = f"/incontri/campionati/{played.league.pk}/"
    with django_assert_max_num_queries(11):
        assert client.get(url).status_code == 200


def test_no_league_form_answers_500_to_hostile_input(client):
    """Random input on the open form and the team form, as an officer: a form with messages,
    never a 500 (tests/test_fuzz_forms.py signs in a player of no club, who is sent away)."""
    from django.core.cache import cache
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from tests.test_fuzz_forms import hostile

    sides = league_sides("fuzz")
    league = open_league(sides)
    team = league.teams.get(club=sides[0].club)
    client.force_login(sides[0].captain)
    forms = {
        "/incontri/campionati/nuovo/": [
            "name", "description", "variant", "time_control", "base_minutes", "increment",
            "starts_at", "timezone", "season", "round_gap_days", "boards", "double_games",
            "double_round_robin", "opening_mode", "thematic_opening", "rated", "league_clubs",
            "league_club_q", "league_search",
        ],
        f"/incontri/campionati/{league.pk}/squadre/{team.pk}/": ["name", "players"],
    }  # fmt: skip

    def fuzz(url: str, fields: list[str]) -> None:
        @settings(
            max_examples=30,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        )
        @given(st.fixed_dictionaries({}, optional={f: hostile for f in fields}))
        def post(data):
            cache.clear()
            response = client.post(url, data)
            assert response.status_code < 500, (url, data, response.status_code)

        post()

    for url, fields in forms.items():
        fuzz(url, fields)
    assert League.objects.count() == 1  # the one opened here; nothing random was saved
