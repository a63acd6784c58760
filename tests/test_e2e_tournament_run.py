"""End to end with real processes: PostgreSQL, Redis, daphne, Celery worker and beat, four
players and a spectator in Chromium. The tournament starts by itself shortly after they join;
the players' open pages go to their boards by themselves (docs/features.md, "Your game opens
by itself") and the spectator's shows the pairings without a reload; they play every game (one
of the two resigns) until the final standings, which appear on the spectator's page live too.

Four players play a double round robin (RULES 4.4): 3 rounds × 2 games, with the pause of
RULES 4.8 between rounds (ROUND_PAUSE_SECONDS, 2 s for the suite's processes). The
Celery worker, beat and daphne are killed (SIGKILL) and restarted in the middle of the run,
daphne on the same port: the watcher's (the spectator's) open page reconnects its sockets by
itself and still sees the final standings arrive live, and every game is scored exactly once.
"""

from __future__ import annotations

import re
import signal
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.tests.factories import UserFactory
from games.models import Game
from games.models import Status as GameStatus
from harness import free_port
from tests.browser import log_in
from tests.processes import Processes
from tournaments import services
from tournaments.models import Pairing, Tournament
from tournaments.tests.factories import TournamentFactory

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("orm_beside_playwright"),
]

START_IN = timedelta(minutes=10)  # moved to "now" once every page is open (docs/testing.md)
RUN_TIMEOUT = 600  # seconds, only against a hang: 6 games each, two pauses (130 s on a slow day)


class OwnSite:
    """This test's own daphne (the session `site` fixture cannot be killed): same port on
    every restart, so the pages already open find it again."""

    def __init__(self, procs: Processes, port: int) -> None:
        self.procs = procs
        self.port = port
        self.url = f"http://127.0.0.1:{port}"

    def start(self) -> None:
        self.procs.start_daphne(self.port)
        self.procs.wait_healthy(self.url, 60)


@pytest.fixture
def own_site(background, tmp_path):
    with Processes(tmp_path, background.env) as procs:
        site = OwnSite(procs, free_port())
        site.start()
        yield site


def kill_and_restart(background: Processes, site: OwnSite) -> None:
    """SIGKILL the Celery worker, beat and daphne mid-run (no clean shutdown), then start them
    again; daphne on the same port."""
    for name in ("worker", "beat"):
        background.stop(name, signal.SIGKILL)
    site.procs.stop("daphne", signal.SIGKILL)
    background.start_worker()
    background.start_beat()
    site.start()


class Socket:
    """A WebSocket the page opened, with the frames it received."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.frames: list = []
        ws.on("framereceived", lambda payload: self.frames.append(payload))


def wait_reconnected(page, sockets: list[Socket], before: int, tournament_id: int) -> Socket:
    """After the restart the page opens its one socket again by itself (the tournament's, its
    chat and the site's news: docs/protocol.md, "Page sockets"; live/socket.js back-off);
    returns it."""
    path = f"/ws/page/tournament/{tournament_id}/"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        new = [s for s in sockets[before:] if not s.ws.is_closed()]
        found = [s for s in new if s.ws.url.endswith(path)]
        if found:
            return found[-1]
        page.wait_for_timeout(250)  # lets Playwright deliver the page's events
    raise AssertionError("the watcher's page did not reconnect its sockets")


def test_four_players_play_a_tournament_to_the_final_standings(background, own_site, browser):
    site = own_site.url
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
    # A spectator keeps the tournament page open throughout: a player's page goes to their
    # board whenever their game opens (docs/architecture.md, Walk 2).
    spectator = UserFactory(username="spettatore")
    contexts = [browser.new_context(locale="it-IT") for _ in range(len(players) + 1)]
    try:
        pages = {}
        for player, context in zip([*players, spectator], contexts, strict=True):
            page = context.new_page()
            page.set_default_timeout(20_000)
            page.on("dialog", lambda dialog: dialog.accept())  # "Vuoi davvero abbandonare?"
            log_in(page, site, player.username)
            pages[player.pk] = page
        watcher = pages.pop(spectator.pk)  # stays on the tournament page from here on
        # The watcher's sockets, to see them come back after daphne is killed.
        sockets: list[Socket] = []
        watcher.on("websocket", lambda ws: sockets.append(Socket(ws)))
        for page in [*pages.values(), watcher]:
            page.goto(detail)
            expect(page.get_by_test_id("user-menu")).to_be_visible()
        # Due now: no test waits on a wall clock it can set (docs/testing.md).
        now = timezone.now()
        Tournament.objects.filter(pk=tournament.pk).update(starts_at=now, next_due_at=now)
        # The tick starts the tournament: the pairings come to the watcher without a reload,
        # and each player's page goes to their board by itself (the site socket's `mygame`).
        expect(watcher.get_by_test_id("pairings-1")).to_be_visible(timeout=90_000)
        for page in pages.values():
            expect(page).to_have_url(re.compile(r"/games/\d+/$"), timeout=30_000)

        deadline = time.monotonic() + RUN_TIMEOUT
        played = 0
        restarted = False
        reconnected = None
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
                # Whoever is not the first player resigns (their opponent, or Black).
                loser = game.black_id if game.black_id != players[0].pk else game.white_id
                page = pages[loser]
                # No link clicked: the page is taken to the board (`mygame`), after the restart
                # too (the site socket says so as it reconnects, within its back-off).
                page.wait_for_url(f"**/games/{game.pk}/", timeout=60_000)
                page.get_by_test_id("resign").click()
                expect(page.get_by_test_id("result")).to_contain_text("-")
                played += 1
                if played == 3 and not restarted:
                    # Mid-round, with a result just in: nothing is lost, nothing done twice.
                    before = len(sockets)
                    kill_and_restart(background, own_site)
                    restarted = True
                    reconnected = wait_reconnected(watcher, sockets, before, tournament.pk)
            # The next round comes after the pause (RULES 4.8): wait for its games to open.
            watcher.wait_for_timeout(1000)
        tournament.refresh_from_db()
        assert tournament.status == Tournament.Status.FINISHED, "the tournament did not finish"
        assert played == 12  # 3 rounds × 2 boards × 2 games (RULES 4.4, 4.5)
        # Every game scored once: 12 games in 6 pairings, each leg's points once, 2 per game.
        pairings = list(Pairing.objects.filter(round__tournament=tournament))
        game_ids = [g for p in pairings for g in (p.game1_id, p.game2_id)]
        assert len(pairings) == 6 and len(set(game_ids)) == 12 and None not in game_ids
        assert all(p.done for p in pairings)
        opened = Game.objects.filter(event_type__model="tournament", event_id=tournament.pk)
        assert opened.count() == 12  # none opened twice
        legs = [
            (p.white_points1, p.black_points1, p.white_points2, p.black_points2) for p in pairings
        ]
        assert None not in {x for leg in legs for x in leg} and sum(map(sum, legs)) == 24
        assert sum(tournament.participants.values_list("points", flat=True)) == 24
        # The watcher's page, open through the restart, got pushes on its new socket ...
        assert reconnected is not None and reconnected.frames, "no push after the reconnect"
        # ... and the final standings arrive on it without a reload.
        expect(watcher.get_by_test_id("finished")).to_be_visible(timeout=30_000)
        # The outcome in one sentence, each double pairing with its two results, the cross
        # table with both games.
        expect(watcher.get_by_test_id("finished")).to_contain_text(
            "Torneo concluso: si sono giocati tutti i turni."
        )
        last_round = watcher.get_by_test_id("pairings-3").locator("tbody tr")
        expect(last_round).to_have_count(2)
        expect(last_round.first.locator(".leg")).to_have_count(2)
        expect(last_round.first.locator(".leg").first).to_have_text(re.compile(r"^[0-2]–[0-2]$"))
        cross = watcher.get_by_test_id("cross-table")
        expect(cross).to_be_visible()
        expect(
            cross.locator("tbody tr").first.locator("td.cell").nth(1).locator(".mark")
        ).to_have_count(2)
        # The first player never resigned: first with 6 wins × 2 points.
        expect(watcher.get_by_test_id("standings").locator("tbody tr").first).to_contain_text(
            players[0].username
        )
        assert tournament.participants.get(player=players[0]).points == 12
    finally:
        for context in contexts:
            context.close()
