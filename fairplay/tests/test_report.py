"""Fair play on the database (RULES §15): the report of a fabricated event flags its one
machine-flat player and no other; who may read it and mark; the focus a game page reports,
kept once per own turn and bounded; the mark on the standings."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts import personal
from accounts.tests.factories import UserFactory
from arena.models import Arena
from arena.tests.factories import ArenaFactory
from fairplay import selectors, services
from fairplay.models import FocusLoss, Review
from fairplay.receivers import forget_focus
from fairplay.tests.factories import fabricated_event, finished_game
from games.models import Game
from games.services import game_open
from games.tests.factories import T0, open_game
from tournaments.tests.test_run_views import started

pytestmark = pytest.mark.django_db


def test_the_report_flags_the_machine_flat_player_and_no_other(client):
    arena, people, machine = fabricated_event()
    report = selectors.event_report("arena", arena)
    assert report.compared == len(people)
    assert [row.player_id for row in report.rows if row.report.flagged] == [machine.pk]
    assert report.rows[0].player_id == machine.pk  # flagged first
    # The page says the same to the organizer.
    client.force_login(arena.opened_by)
    page = client.get(reverse("fairplay:report", args=["arena", arena.pk])).content.decode()
    assert page.count('data-flagged="1"') == 1
    assert f'data-player="{machine.username}" data-flagged="1"' in page
    assert page.count('data-testid="flag"') == 1


def test_the_report_is_for_the_organizer_and_the_staff_only(client):
    arena = ArenaFactory()
    player, other = UserFactory(), UserFactory()
    finished_game(arena, player, other, [3000] * 5, [4000] * 5)
    url = reverse("fairplay:report", args=["arena", arena.pk])
    assert client.get(url).status_code == 404  # a guest
    client.force_login(player)
    assert client.get(url).status_code == 404  # a player of the event
    client.force_login(arena.opened_by)
    page = client.get(url)
    assert page.status_code == 200
    assert "Metti in verifica" not in page.content.decode()  # marks are the staff's
    client.force_login(UserFactory(is_staff=True))
    assert "Metti in verifica" in client.get(url).content.decode()
    assert client.get(reverse("fairplay:report", args=["nothing", arena.pk])).status_code == 404
    assert client.get(reverse("fairplay:report", args=["arena", arena.pk + 99])).status_code == 404
    # The event page links to it for those two only.
    assert 'data-testid="fairplay-link"' in client.get(arena.get_absolute_url()).content.decode()
    client.force_login(player)
    assert (
        'data-testid="fairplay-link"' not in client.get(arena.get_absolute_url()).content.decode()
    )


def test_the_staff_mark_a_player_under_review_on_the_standings(client):
    arena = ArenaFactory(status=Arena.Status.RUNNING)
    cheat, other = UserFactory(), UserFactory()
    from arena.tests.factories import EntryFactory

    EntryFactory(arena=arena, player=cheat)
    EntryFactory(arena=arena, player=other)
    finished_game(arena, cheat, other, [2000] * 5, [4000] * 5)
    review = reverse("fairplay:review", args=["arena", arena.pk, cheat.pk])
    # The organizer reads the report but does not mark (RULES 15.4).
    client.force_login(arena.opened_by)
    assert client.post(review, {"under_review": "1"}).status_code == 403
    assert not Review.objects.exists()
    staff = UserFactory(is_staff=True)
    client.force_login(staff)
    response = client.post(review, {"under_review": "1"})
    assert response.status_code == 302
    assert selectors.under_review_ids("arena", arena.pk) == {cheat.pk}
    page = client.get(arena.get_absolute_url()).content.decode()
    assert page.count('data-testid="under-review"') == 1
    # Someone who never played in it cannot be marked: nothing is saved.
    outsider = UserFactory()
    client.post(
        reverse("fairplay:review", args=["arena", arena.pk, outsider.pk]), {"under_review": "1"}
    )
    assert not Review.objects.filter(player=outsider).exists()
    # Taken off.
    client.post(review, {"under_review": "0"})
    assert selectors.under_review_ids("arena", arena.pk) == frozenset()
    assert Review.objects.get(player=cheat).changed_by == staff


def test_the_mark_shows_on_a_tournaments_standings(client):
    tournament = started(8)
    player = tournament.participants.order_by("number").first().player
    Review.objects.create(
        kind="tournament", event_id=tournament.pk, player=player, under_review=True
    )
    page = client.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert page.count('data-testid="under-review"') == 1


def live_event_game():
    arena = ArenaFactory(status=Arena.Status.RUNNING)
    white, black = UserFactory(), UserFactory()
    game = game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code="chess",
        base_seconds=180,
        increment_seconds=2,
        rated=False,
        event=arena,
        at_ms=T0,
    )
    return game, white, black


def test_focus_lost_is_kept_once_per_own_turn(client):
    game, white, black = live_event_game()
    url = reverse("fairplay:focus", args=[game.pk])
    client.force_login(black)  # not their turn: White is to move
    assert client.post(url).status_code == 204
    assert not FocusLoss.objects.exists()
    client.force_login(white)
    for _ in range(3):
        assert client.post(url).status_code == 204
    assert list(FocusLoss.objects.values_list("player_id", "ply")) == [(white.pk, 0)]
    client.force_login(UserFactory())  # a spectator
    client.post(url)
    client.logout()  # a guest
    assert client.post(url).status_code == 204
    assert client.get(url).status_code == 405
    assert FocusLoss.objects.count() == 1


def test_focus_is_not_kept_outside_events_or_after_the_game():
    casual = open_game()
    assert services.focus_lost_record(game_id=casual.pk, user=casual.white) is False
    game, white, _black = live_event_game()
    Game.objects.filter(pk=game.pk).update(status="finished")
    assert services.focus_lost_record(game_id=game.pk, user=white) is False
    assert services.focus_lost_record(game_id=game.pk + 999, user=white) is False
    assert not FocusLoss.objects.exists()


def test_focus_reports_are_bounded_per_player():
    game, white, _black = live_event_game()
    answers = [
        services.focus_lost_record(game_id=game.pk, user=white)
        for _ in range(services.FOCUS_REPORTS + 1)
    ]
    # The window may have begun in an earlier test of the same user id (Redis is not rolled
    # back): never more than the bound, and the one past it refused.
    assert sum(answers) <= services.FOCUS_REPORTS
    assert answers[-1] is False


def test_the_game_page_watches_the_focus_only_for_a_player_of_an_event_game(client):
    game, white, _black = live_event_game()
    url = reverse("games:game", args=[game.pk])
    client.force_login(white)
    assert 'id="focus-watch"' in client.get(url).content.decode()
    client.force_login(UserFactory())
    assert 'id="focus-watch"' not in client.get(url).content.decode()
    casual = open_game()
    client.force_login(casual.white)
    assert (
        'id="focus-watch"'
        not in client.get(reverse("games:game", args=[casual.pk])).content.decode()
    )


def test_a_players_focus_losses_are_in_their_data_and_go_with_the_account():
    game, white, _black = live_event_game()
    services.focus_lost_record(game_id=game.pk, user=white)
    assert personal.sections(white)["focus_lost"][0]["game"] == game.pk
    forget_focus(white)  # the eraser the account's deletion runs (accounts.personal)
    assert not FocusLoss.objects.exists()
