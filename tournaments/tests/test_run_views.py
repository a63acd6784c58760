"""The live pages of a running and a finished tournament (RULES 4.3-4.10)."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tournaments import running
from tournaments.models import Tournament
from tournaments.tests.factories import tick
from tournaments.tests.test_run import T0, live_games, make, play, run

pytestmark = pytest.mark.django_db


def started(n: int, **options) -> Tournament:
    tournament = make(n, **options)
    tick(T0)
    tournament.refresh_from_db()
    return tournament


def test_running_swiss_page_shows_pairings_standings_and_your_game(client):
    tournament = started(8)
    game = live_games(tournament)[0]
    client.force_login(game.white)
    page = client.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert 'data-testid="pairings-1"' in page and 'data-testid="standings"' in page
    # A Swiss has its table round by round (opponent, colour, points), not a cross table.
    assert "BH" in page and 'data-testid="cross-table"' in page and ">T1<" in page
    assert reverse("games:game", args=[game.pk]) in page  # "your game" and the board link
    assert 'data-testid="your-game"' in page
    assert 'data-testid="time-to-end"' in page
    banner = client.get(reverse("tournaments:banner")).content.decode()
    assert reverse("games:game", args=[game.pk]) in banner
    # The htmx refresh gets the fragment only.
    fragment = client.get(
        reverse("tournaments:detail", args=[tournament.pk]), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert fragment.lstrip().startswith('<section id="live"')


def test_banner_is_empty_without_a_tournament_game(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("nessuno", password="x"))
    assert "tournament-banner" not in client.get(reverse("tournaments:banner")).content.decode()


def test_finished_round_robin_has_cross_table_player_pages_and_exports(client):
    tournament = make(5, variant="italian", opening_mode="table1")
    run(tournament)
    page = client.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert 'data-testid="cross-table"' in page and 'data-testid="finished"' in page
    assert page.count("riposo") >= 1
    # Five players: each sits out one round, marked in a column of its own (RULES 4.6), so
    # each row's marks add up to its points.
    assert 'data-testid="bye-column"' in page
    assert page.count('class="mark bye ') == 5
    player = client.get(reverse("tournaments:player", args=[tournament.pk, 1])).content.decode()
    assert player.count("<tr>") == 1 + 5  # header + five rounds (one a bye)
    assert "<!DOCTYPE html>" in player and 'class="table pairings"' in player
    # Each round has a page of its own; the list of rounds asks for its table alone.
    round_page = client.get(reverse("tournaments:round", args=[tournament.pk, 2]))
    text = round_page.content.decode()
    assert "<!DOCTYPE html>" in text and 'data-testid="pairings-2"' in text
    assert 'data-testid="previous-round"' in text and 'data-testid="next-round"' in text
    fragment = client.get(
        reverse("tournaments:round", args=[tournament.pk, 2]), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "<!DOCTYPE html>" not in fragment and 'data-testid="pairings-2"' in fragment
    assert client.get(reverse("tournaments:round", args=[tournament.pk, 9])).status_code == 404
    trf = client.get(reverse("tournaments:trf", args=[tournament.pk])).content.decode()
    assert trf.startswith("012 ") and trf.count("\n001 ") + trf.startswith("001") == 5
    # The colours are the Berger table's, #1 White in round 1, whatever a Swiss's lot says.
    assert "\n152 W\n" in trf and "\nXXC white1" in trf
    pdn = client.get(reverse("tournaments:games", args=[tournament.pk])).content.decode()
    assert pdn.count("[Event") == 10 or pdn.count("[White") == 10


def test_double_games_have_no_trf(client):
    tournament = make(4)
    run(tournament)
    assert client.get(reverse("tournaments:trf", args=[tournament.pk])).status_code == 404


def _standings_queries(client, n: int) -> int:
    tournament = started(n)
    rng = random.Random(n)
    for game in live_games(tournament):
        play(game, T0, rng)
    tick(T0 + timedelta(seconds=1))
    with CaptureQueriesContext(connection) as queries:
        response = client.get(
            reverse("tournaments:detail", args=[tournament.pk]), HTTP_HX_REQUEST="true"
        )
    assert response.status_code == 200
    return len(queries)


def test_standings_query_count_does_not_grow_with_players(client):
    assert _standings_queries(client, 8) == _standings_queries(client, 24)


def test_players_of_a_tournament_cancelled_below_the_minimum_are_told(client):
    tournament = make(4, minimum=5, starts_at=timezone.now())
    player = tournament.registrations.first().player
    assert running.tournament_start(tournament_id=tournament.pk)
    client.force_login(player)
    banner = client.get(reverse("tournaments:banner")).content.decode()
    assert 'data-testid="tournament-cancelled-banner"' in banner and tournament.name in banner
    page = client.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert "gli iscritti erano meno del minimo" in page


def test_players_of_a_tournament_cancelled_by_staff_or_opener_are_told(client):
    from accounts.tests.factories import UserFactory
    from tournaments import services

    def banner_of(player) -> str:
        client.force_login(player)
        return client.get(reverse("tournaments:banner")).content.decode()

    # Staff cancel a running tournament: its players are told why on every page.
    started = make(4, starts_at=timezone.now())
    assert running.tournament_start(tournament_id=started.pk)
    services.tournament_cancel(tournament_id=started.pk, by=UserFactory(is_staff=True), staff=True)
    player = started.registrations.first().player
    assert "annullato dallo staff" in banner_of(player) and started.name in banner_of(player)
    # The opener cancels before the start: the entrants are told, the opener is not.
    scheduled = make(4)
    services.tournament_cancel(tournament_id=scheduled.pk, by=scheduled.opened_by)
    entrant = scheduled.registrations.exclude(player=scheduled.opened_by).first().player
    assert "annullato da chi l" in banner_of(entrant)
    assert "tournament-cancelled-banner" not in banner_of(scheduled.opened_by)


def test_pgn_of_all_games_names_the_tournament(client):
    tournament = make(4)
    run(tournament)
    pgn = client.get(reverse("tournaments:games", args=[tournament.pk])).content.decode()
    assert pgn.count(f'[Event "{tournament.name}"]') == 12


def test_a_hostile_tournament_name_cannot_break_the_pgn(client):
    """A name with a newline, quotes and a trailing backslash stays one header."""
    import io

    import chess.pgn

    tournament = make(4, name='Cup"\n[Result "0-1"]\\')
    run(tournament)
    pgn = client.get(reverse("tournaments:games", args=[tournament.pk])).content.decode()
    stream, events = io.StringIO(pgn), []
    while (game := chess.pgn.read_game(stream)) is not None:
        assert not game.errors
        events.append(game.headers["Event"])
        assert game.headers["Result"] in ("1-0", "0-1", "1/2-1/2", "*")
    # Twelve games, each with one Event header holding the whole (escaped) name.
    assert len(events) == 12 and len(set(events)) == 1
    assert events[0].startswith("Cup") and "Result" in events[0] and "\n" not in events[0]


def test_admin_shows_the_run_read_only(client, django_user_model):
    tournament = started(4)
    staff = django_user_model.objects.create_superuser("capo", "capo@example.org", "x")
    client.force_login(staff)
    page = client.get(reverse("admin:tournaments_tournament_change", args=[tournament.pk]))
    assert page.status_code == 200
    rnd = tournament.rounds.get(number=1)
    page = client.get(reverse("admin:tournaments_round_change", args=[rnd.pk]))
    assert page.status_code == 200
    assert tournament.participants.first().player.username in page.content.decode()


def _page_queries(client, url: str, **headers) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, **headers)
    assert response.status_code == 200
    return len(queries)


def test_round_robin_page_query_count_does_not_grow_with_players(client):
    """The whole round-robin page (pairings, standings, cross table): a fixed number of queries
    for 4 and for 6 players, each after one round played."""

    def queries(n: int) -> int:
        tournament = started(n)
        assert tournament.format == "round_robin"
        rng = random.Random(n)
        for game in live_games(tournament):
            play(game, T0, rng)
        tick(T0 + timedelta(seconds=1))
        return _page_queries(client, reverse("tournaments:detail", args=[tournament.pk]))

    assert queries(4) == queries(6)


def test_tournament_list_query_count_does_not_grow_with_tournaments(client):
    from tournaments.tests.factories import RegistrationFactory, TournamentFactory

    def queries(n: int) -> int:
        for i in range(n):
            tournament = TournamentFactory(name=f"Lista {n}-{i}")
            RegistrationFactory(tournament=tournament)
        return _page_queries(client, reverse("tournaments:list"))

    assert queries(2) == queries(12)


@pytest.mark.parametrize(
    ("points", "score", "shown"),
    [
        ((2, 0), "GAME_SCORE", "1–0"),
        ((1, 1), "GAME_SCORE", "½–½"),
        ((0, 2), "GAME_SCORE", "0–1"),
        ((1, 1), "GAME_SCORE_IN_POINTS", "1–1"),  # International draughts writes points
        ((2, 0), "GAME_SCORE_IN_POINTS", "2–0"),
    ],
)
def test_a_pairing_shows_the_games_result_not_the_tournament_points(points, score, shown):
    """A chess game won read "2–0" in the round's table, a draw "1–1": the tournament points
    (RULES 4.6), which the standings give; the table shows the game as the variant writes it."""
    from tournaments import selectors

    leg = selectors._leg(points, True, 7, getattr(selectors, score))
    assert (leg.result, leg.outcome) == (shown, "played")


def test_the_round_table_of_a_chess_tournament_reads_one_nil(client):
    tournament = make(5, variant="chess")
    run(tournament, seed=3)
    page = client.get(reverse("tournaments:round", args=[tournament.pk, 1])).content.decode()
    tables = page[page.index('data-testid="pairings-1"') :]
    assert "1–0" in tables or "0–1" in tables
    assert "2–0" not in tables and "0–2" not in tables
