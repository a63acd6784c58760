"""What a round start asks of the pages (bench/round_start.py): the game page in one request,
its notices in it, its shells (live/templatetags/shell.py) holding nothing of a game or a
viewer; an event page's re-fetch reading little beyond the session."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.tests.factories import UserFactory
from arena.models import Arena, Entry
from arena.running import arena_advance
from games.models import Game
from games.services import challenge_create, game_resign
from games.tests.factories import T0, open_game
from live.templatetags import shell
from tournaments import running
from tournaments.models import Registration, Tournament

pytestmark = pytest.mark.django_db

LOADS = re.compile(r'hx-trigger="(?:[^"]*[,\s])?load(?=[,"\s])')


def started_tournament(players: int = 4) -> Tournament:
    users = [UserFactory() for _ in range(players)]
    t = Tournament.objects.create(
        name="Torneo del giro",
        opened_by=users[0],
        variant="chess",
        base_seconds=300,
        increment_seconds=0,
        cadence="blitz",
        starts_at=timezone.now() - timedelta(seconds=1),
    )
    for user in users:
        Registration.objects.create(tournament=t, player=user)
    assert running.tournament_start(tournament_id=t.pk)
    return t


def tournament_games(t: Tournament) -> list[Game]:
    return list(Game.objects.filter(event_type__model="tournament", event_id=t.pk).order_by("pk"))


def page(client, game: Game) -> str:
    response = client.get(reverse("games:game", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_game_page_is_one_request_with_its_notices_in_it(client):
    t = started_tournament()
    game, other = tournament_games(t)[:2]
    client.force_login(game.white)
    html = page(client, game)
    # Nothing is fetched as the page loads: the notices' fragments re-fetch only when the site
    # socket says something changed (or at their slow polls).
    assert LOADS.findall(html) == []
    assert 'id="challenge-notices"' in html and 'id="tournament-notices"' in html
    # On its own game's page the banner points to nothing; a challenge to the player shows.
    assert 'data-testid="tournament-banner"' not in html
    assert 'data-testid="challenge-notice"' not in html
    challenger = UserFactory(username="sfidante_del_giro")
    challenge_create(
        challenger_id=challenger.pk,
        opponent_id=game.white_id,
        variant_code="chess",
        base_seconds=300,
        increment_seconds=0,
        color="random",
        rated=False,
    )
    html = page(client, game)
    assert 'data-testid="challenge-notice"' in html and "sfidante_del_giro" in html
    # On another game's page (watching), the player's own tournament game is pointed to.
    html = page(client, other)
    banner = re.search(r'data-testid="tournament-banner".*?</p>', html, re.S)
    assert banner and reverse("games:game", args=[game.pk]) in banner.group(0)
    # The fragments answer as before, for the pages that fetch them and for every re-fetch.
    fragment = client.get(
        reverse("tournaments:banner"),
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL=f"http://testserver/games/{other.pk}/",
    )
    assert reverse("games:game", args=[game.pk]) in fragment.content.decode()
    # Other pages still fetch theirs as they load.
    assert len(LOADS.findall(client.get(reverse("players")).content.decode())) >= 3


def test_a_finished_games_page_leaves_its_rematch_to_the_box(client):
    anna, bruno = UserFactory(), UserFactory()
    game = open_game(white=anna, black=bruno, rated=False)
    game_resign(game_id=game.pk, user_id=anna.pk, at_ms=T0 + 1)
    from games.services import rematch_offer

    rematch_offer(game_id=game.pk, user_id=bruno.pk)
    client.force_login(anna)
    assert 'data-testid="challenge-notice"' not in page(client, game)


CSRF = re.compile(r'(csrfmiddlewaretoken" value=|"X-CSRFToken": )"[^"]+"')
STATE = re.compile(r'<script id="game-state" type="application/json">.*?</script>', re.S)


def normalised(html: str) -> str:
    """The page less what differs between two renders of it: the CSRF token (masked anew each
    time) and the clocks of the state (read at the render's instant)."""
    return STATE.sub("", CSRF.sub("", html))


@pytest.mark.parametrize("language", ["it", "en"])
def test_shells_hold_nothing_of_a_game_or_a_viewer(client, settings, language):
    """Each page rendered after pages of other games and viewers filled the shells is the page
    rendered with none kept: whatever a shell holds is the same for every viewer."""
    t = started_tournament()
    event_game = tournament_games(t)[0]
    casual = open_game(variant_code="chess", rated=False)
    draughts = open_game(variant_code="italian")
    finished = open_game(variant_code="chess", rated=False)
    game_resign(game_id=finished.pk, user_id=finished.white_id, at_ms=T0 + 1)
    viewers = {
        "player": lambda g: g.white,
        "opponent": lambda g: g.black,
        "guest": lambda g: None,
        "watcher": lambda g: UserFactory(),
    }

    def as_viewer(user) -> None:
        client.logout()  # which drops the cookies: the language's set again
        if user is not None:
            client.force_login(user)
        client.cookies["django_language"] = language

    renders = []
    for game in (event_game, casual, draughts, finished):
        for who in viewers.values():
            user = who(game)
            as_viewer(user)
            shell.forget()
            settings.SHELLS = False
            fresh = page(client, game)
            settings.SHELLS = True
            renders.append((game, user, fresh))
    shell.forget()
    for game, user, _fresh in reversed(renders):  # the shells filled by the others first
        as_viewer(user)
        page(client, game)
    for game, user, fresh in renders:
        as_viewer(user)
        assert normalised(page(client, game)) == normalised(fresh), (game.pk, user)
    assert shell.kept_count() > 0
    assert f'<html lang="{language}">' in renders[0][2]


def test_an_event_pages_refetch_reads_little_beyond_the_session(
    client, settings, django_assert_max_num_queries
):
    """A push's re-fetch of a running event's live part (static/js/events.js) by one of its
    players: its shared part kept (events/shared_part.py), the rest the viewer's own."""
    from events import shared_part

    settings.EVENT_PART_SECONDS = 60  # the suite renders them anew otherwise (conftest.py)
    shared_part.forget()
    t = started_tournament(8)
    game = tournament_games(t)[0]
    client.force_login(game.white)
    url = reverse("tournaments:detail", args=[t.pk])
    push = {"HTTP_HX_REQUEST": "true", "HTTP_X_EVENT_REFRESH": "push"}
    first = client.get(url, **push).content.decode()
    assert 'data-testid="your-game"' in first
    # The session and its user, the tournament: the player's game comes with the shared part.
    with django_assert_max_num_queries(3):
        again = client.get(url, **push).content.decode()
    assert 'data-testid="your-game"' in again

    opener = UserFactory()
    arena = Arena.objects.create(
        name="Arena del giro",
        opened_by=opener,
        variant="chess",
        base_seconds=180,
        increment_seconds=0,
        cadence="blitz",
        starts_at=timezone.now() - timedelta(seconds=1),
        duration_minutes=60,
        rated=False,
    )
    players = [UserFactory() for _ in range(3)]
    for player in players:
        Entry.objects.create(arena=arena, player=player, waiting_since=timezone.now())
    arena_advance(arena_id=arena.pk)
    client.force_login(players[0])
    url = reverse("arena:detail", args=[arena.pk])
    client.get(url, **push)
    # The session and its user, the arena, the player's entry, their game if any, the
    # cooldown's last opponent: nothing of the leaderboard or the games.
    with django_assert_max_num_queries(7):
        assert client.get(url, **push).status_code == 200


def test_a_round_start_game_page_reads_what_only_it_can(client, django_assert_num_queries):
    """A tournament game's page as its player loads it at the round's start (bench/round_start.py):
    the game, the session and its user, the tournament and the pairing's board, the players'
    ratings, the challenges to tell, the clubs' badges. Not their live tournament game: it is
    this one (RULES 1, one board at a time); nor a tournament of theirs cancelled lately, which
    their next page says (`tournament_banner`); nor the game's rating changes (none yet)."""
    t = started_tournament(8)
    game = tournament_games(t)[0]
    client.force_login(game.white)
    url = reverse("games:game", args=[game.pk])
    client.get(url)
    with django_assert_num_queries(8):
        assert client.get(url).status_code == 200


def test_a_tournament_cancelled_lately_is_told_on_a_game_page_but_its_players_live_one(client):
    """The banner of a tournament of theirs cancelled in the last hour: on their finished
    game's page, not on the page of the live game they play (`tournament_banner`)."""
    t = started_tournament(4)
    game = tournament_games(t)[0]
    cancelled = Tournament.objects.create(
        name="Torneo annullato",
        opened_by=UserFactory(),
        variant="chess",
        base_seconds=300,
        increment_seconds=0,
        cadence="blitz",
        starts_at=timezone.now() - timedelta(minutes=5),
        minimum=5,
    )
    Registration.objects.create(tournament=cancelled, player=game.white)
    running.tournament_start(tournament_id=cancelled.pk)  # below its minimum: cancelled
    cancelled.refresh_from_db()
    assert cancelled.status == Tournament.Status.CANCELLED
    client.force_login(game.white)
    url = reverse("games:game", args=[game.pk])
    assert "tournament-cancelled-banner" not in client.get(url).content.decode()
    game_resign(game_id=game.pk, user_id=game.black_id)
    # Its return leg, if one opened, over too: no live game of hers left to point to.
    for leg in Game.objects.filter(status="live", event_id=t.pk, white=game.black):
        game_resign(game_id=leg.pk, user_id=leg.white_id)
    assert "tournament-cancelled-banner" in client.get(url).content.decode()


def test_a_start_positions_moves_are_worked_out_once_and_each_state_has_its_own():
    from games.services import game_state
    from games.services.state import _to_move

    first, second = open_game(), open_game()
    _to_move.cache_clear()
    one = game_state(first)
    one["legal_moves"].append("e2e5")  # a reader's change stays its own
    two = game_state(second)
    assert "e2e5" not in two["legal_moves"] and len(two["legal_moves"]) == 20
    assert _to_move.cache_info().hits == 1
