"""End to end with real processes (issue 8): PostgreSQL, Redis, daphne, Celery worker and beat,
four players in Chromium. The tournament starts by itself shortly after they join; its pairings
and "your game" appear on their open pages without a reload; they play every game (one of the
two resigns) until the final standings, which appear on the page live too.

Four players play a double round robin (RULES 4.4): 3 rounds × 2 games, with the pause of
RULES 4.8 between rounds (ROUND_PAUSE_SECONDS, 30 s unless the settings say otherwise). The
Celery worker and beat are killed (SIGKILL) and restarted in the middle of the run.
"""

from __future__ import annotations

import os
import signal
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.tests.factories import PASSWORD, UserFactory
from games.models import Game
from games.models import Status as GameStatus
from tournaments import services
from tournaments.models import Tournament
from tournaments.tests.factories import TournamentFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

START_IN = timedelta(seconds=40)
RUN_TIMEOUT = 300  # seconds: 6 games each, two pauses


@pytest.fixture(autouse=True, scope="module")
def orm_beside_playwright():
    """As in test_e2e_tournaments: plain blocking ORM calls between browser steps."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "1")
        yield


def log_in(page, site: str, username: str) -> None:
    page.goto(site + "/accounts/login/")
    page.get_by_label("Nome utente").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Accedi").last.click()
    expect(page.get_by_test_id("user-menu")).to_have_text(username)


def kill_and_restart(procs) -> None:
    """SIGKILL the Celery worker and beat mid-run (no clean shutdown), then start them again."""
    for name in ("worker", "beat"):
        proc = procs.running.pop(name)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    procs.start_worker()
    procs.start_beat()


def test_four_players_play_a_tournament_to_the_final_standings(background, site, browser):
    players = [UserFactory(username=f"torneista{i}") for i in range(1, 5)]
    tournament = TournamentFactory(
        name="Torneo lampo",
        variant="chess",
        base_seconds=300,
        increment_seconds=0,
        cadence="blitz",
        starts_at=timezone.now() + START_IN,
        seats=4,
    )
    for player in players:
        services.registration_join(tournament_id=tournament.pk, player=player)
    detail = f"{site}/tournaments/{tournament.pk}/"
    contexts = [browser.new_context(locale="it-IT") for _ in players]
    try:
        pages = {}
        for player, context in zip(players, contexts, strict=True):
            page = context.new_page()
            page.set_default_timeout(20_000)
            page.on("dialog", lambda dialog: dialog.accept())  # "Vuoi davvero abbandonare?"
            log_in(page, site, player.username)
            page.goto(detail)
            pages[player.pk] = page
        # The tick starts the tournament; pairings and "your game" come without a reload.
        for page in pages.values():
            expect(page.get_by_test_id("pairings")).to_be_visible(timeout=90_000)
            expect(page.get_by_test_id("your-game")).to_be_visible()
            expect(page.get_by_test_id("tournament-banner")).to_be_visible()
        watcher = pages[players[0].pk]  # stays on the tournament page from here on

        deadline = time.monotonic() + RUN_TIMEOUT
        played = 0
        restarted = False
        while time.monotonic() < deadline:
            tournament.refresh_from_db()
            if tournament.status == Tournament.Status.FINISHED:
                break
            live = list(
                Game.objects.filter(
                    event_type__model="tournament",
                    event_id=tournament.pk,
                    status=GameStatus.LIVE,
                )
            )
            for game in live:
                # Whoever is not the watcher resigns (the watcher's opponent, or Black).
                loser = game.black_id if game.black_id != players[0].pk else game.white_id
                page = pages[loser]
                page.goto(f"{site}/games/{game.pk}/")
                page.get_by_test_id("resign").click()
                expect(page.get_by_test_id("result")).to_contain_text("-")
                played += 1
                if played == 3 and not restarted:
                    # Mid-round, with a result just in: nothing is lost, nothing done twice.
                    kill_and_restart(background)
                    restarted = True
            time.sleep(1)
        tournament.refresh_from_db()
        assert tournament.status == Tournament.Status.FINISHED, "the tournament did not finish"
        assert played == 12  # 3 rounds × 2 boards × 2 games (RULES 4.4, 4.5)
        expect(watcher.get_by_test_id("finished")).to_be_visible()
        expect(watcher.get_by_test_id("cross-table")).to_be_visible()
        # The watcher never resigned: first with 6 wins × 2 points.
        expect(watcher.get_by_test_id("standings").locator("tbody tr").first).to_contain_text(
            players[0].username
        )
        assert tournament.participants.get(player=players[0]).points == 12
    finally:
        for context in contexts:
            context.close()
