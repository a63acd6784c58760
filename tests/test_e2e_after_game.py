"""End to end in Chromium: after a game, as a lichess player expects — "Nuovo
avversario" beside "Rivincita", the draw offer declined told to the offerer, the capture
notice gone once the capture is played — and a lobby whose grid says who waits and how many
games are played, live.

`SCREENSHOTS=1` also saves these pages at 1280 and 390 px under
docs/screenshots/issue-24/ (test_screenshots)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from accounts.models import User
from games.models import Game, PoolEntry
from games.services import Pool, challenge_create, game_open, game_resign, pool_join
from tests.browser import (
    chess_move,
    draughts_move,
    fresh_lobby_window,
    socket_open,
    to_board,
    wait_plies,
)

pytestmark = pytest.mark.e2e

SHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots" / "issue-24"


def user(name: str) -> User:
    return User.objects.get(username=name)


def game_id(page) -> int:
    return int(re.search(r"/games/(\d+)/$", page.url).group(1))


def open_between(names, variant_code="chess", *, start_fen=None, base=300, increment=0):
    white, black = (user(name) for name in names)
    return game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code=variant_code,
        base_seconds=base,
        increment_seconds=increment,
        rated=False,
        start_fen=start_fen,
    )


def seated(site, game, *pages):
    for page in pages:
        to_board(page, site, game.pk)
        expect(page.locator('.presence[data-side="bottom"]')).to_have_class(re.compile(r"\bon\b"))


def test_new_opponent_after_a_pool_game_pairs_both_players_again(site, two_players):
    (anna, bruno), names = two_players
    for page in (anna, bruno):
        page.goto(site + "/play/")
    anna.get_by_test_id("pool-casual").check()
    anna.get_by_test_id("pool-5+0").click()
    expect(anna.get_by_test_id("pool-waiting")).to_be_visible()
    bruno.get_by_test_id("pool-casual").check()
    bruno.get_by_test_id("pool-5+0").click()
    expect(bruno).to_have_url(re.compile(r"/games/\d+/$"), timeout=20_000)
    expect(anna).to_have_url(bruno.url, timeout=20_000)
    first = Game.objects.get(pk=game_id(bruno))
    assert (first.base_seconds, first.increment_seconds, first.rated) == (300, 0, False)
    # Both boards live (their sockets open) before Anna resigns: a click before the page's
    # script is in does nothing, and the game stayed live (3 runs in 12).
    for page in (anna, bruno):
        expect(page.locator('.presence[data-side="bottom"]')).to_have_class(re.compile(r"\bon\b"))

    anna.on("dialog", lambda dialog: dialog.accept())
    anna.get_by_test_id("resign").click()
    for page in (anna, bruno):
        expect(page.get_by_test_id("result")).to_be_visible()
        expect(page.get_by_test_id("rematch-offer")).to_be_visible()
        expect(page.get_by_test_id("new-opponent")).to_be_visible()
    # Anna looks for someone else: back in the same pool (casual 5+0), waiting in the lobby.
    anna.get_by_test_id("new-opponent").click()
    expect(anna).to_have_url(site + "/play/", timeout=20_000)
    expect(anna.get_by_test_id("pool-waiting")).to_contain_text("Scacchi 5+0")
    expect(anna.get_by_test_id("pool-waiting")).to_contain_text("amichevole")
    expect(anna.get_by_test_id("pool-5+0")).to_have_attribute("aria-pressed", "true")
    # Bruno does the same: she is waiting there, so both are at a new board at once.
    bruno.get_by_test_id("new-opponent").click()
    # A board other than the first: the page is still on the first as the click goes and may
    # pass by /play/ on its way (a check of "not the first" alone was met there once).
    expect(bruno).to_have_url(re.compile(rf"/games/(?!{first.pk}/)\d+/$"), timeout=20_000)
    expect(anna).to_have_url(bruno.url, timeout=20_000)
    second = Game.objects.get(pk=game_id(bruno))
    assert (second.variant, second.base_seconds, second.increment_seconds, second.rated) == (
        "chess",
        300,
        0,
        False,
    )
    assert {second.white.username, second.black.username} == set(names)
    assert not PoolEntry.objects.exists()

    # From a board, "Nuovo avversario" of the old game is refused, and says why.
    to_board(anna, site, first.pk)
    anna.get_by_test_id("new-opponent").click()
    expect(anna.get_by_test_id("new-opponent-error")).to_contain_text("partita in corso")
    assert not PoolEntry.objects.exists()
    game_resign(game_id=second.pk, user_id=second.white_id)


def test_the_offerer_is_told_the_draw_was_declined(site, two_players):
    (anna, bruno), names = two_players
    game = open_between(names)
    seated(site, game, anna, bruno)
    anna.on("dialog", lambda dialog: dialog.accept())
    anna.get_by_test_id("draw-offer").click()
    expect(anna.get_by_test_id("status-line")).to_contain_text("Hai proposto patta")
    expect(bruno.get_by_test_id("draw-accept")).to_be_visible()
    bruno.locator("#draw-decline").click()
    line = anna.get_by_test_id("status-line")
    expect(line).to_have_text("L'avversario ha rifiutato la patta.")
    expect(bruno.get_by_test_id("draw-accept")).to_be_hidden()
    expect(bruno.get_by_test_id("status-line")).to_have_text("")  # the decliner knows
    # Said until the game goes on.
    chess_move(anna, "e2e4", "white")
    wait_plies(anna, 1)
    expect(line).to_have_text("")
    game_resign(game_id=game.pk, user_id=game.white_id)


def test_the_capture_notice_goes_once_the_capture_is_played(site, two_players):
    (anna, bruno), names = two_players
    # Italian draughts, White must take 22x13: the other man may not move.
    game = open_between(names, "italian", start_fen="W:W22,29:B18,3")
    seated(site, game, anna, bruno)
    anna.locator('#board g[data-square="29"]').click()
    notice = anna.get_by_test_id("notice")
    expect(notice).to_contain_text("La presa è obbligatoria")
    draughts_move(anna, 22, 13)
    wait_plies(anna, 1)
    # At once, not when the notice's few seconds are up (it stayed five seconds on screen).
    expect(notice).to_be_hidden(timeout=1500)
    game_resign(game_id=game.pk, user_id=game.white_id)


def test_the_lobby_counts_who_waits_and_the_games_played_live(site, two_players):
    (anna, _bruno), _names = two_players
    anna.goto(site + "/play/")
    socket_open(anna, "/ws/lobby/")  # the pushes below must find the page listening
    cell = anna.get_by_test_id("pool-5+0")
    expect(cell.get_by_test_id("waiting")).not_to_contain_text("attesa")
    expect(cell.get_by_test_id("playing")).not_to_contain_text("gioco")
    carla, dario = (User.objects.create(username=n) for n in ("carla_24", "dario_24"))
    fresh_lobby_window()
    pool_join(player_id=carla.pk, pool=Pool("chess", 300, 0, True))
    expect(cell.get_by_test_id("waiting")).to_have_text("1 in attesa")
    fresh_lobby_window()
    pool_join(player_id=dario.pk, pool=Pool("chess", 300, 0, True))
    # Paired by this join, or by the site worker's tick if it ran between the join's commit and
    # its own pass (pool_join then returns None: seen once in a full run).
    game = Game.objects.get(white_id__in=[carla.pk, dario.pk], black_id__in=[carla.pk, dario.pk])
    expect(cell.get_by_test_id("playing")).to_have_text("1 in gioco")
    expect(cell.get_by_test_id("waiting")).not_to_contain_text("attesa")
    fresh_lobby_window()
    game_resign(game_id=game.pk, user_id=game.white_id)
    expect(cell.get_by_test_id("playing")).not_to_contain_text("gioco")


@pytest.mark.skipif(not os.environ.get("SCREENSHOTS"), reason="SCREENSHOTS=1 to take them")
def test_screenshots(site, browser, two_players):
    """These pages at 1280 and 390 px: a finished game with both buttons, the lobby's
    grid with its counts, a challenge notice."""
    (anna, bruno), names = two_players
    SHOTS.mkdir(parents=True, exist_ok=True)
    others = [User.objects.create(username=f"giocatore_{i}") for i in range(6)]
    for i in range(0, 4, 2):
        game_open(
            white_id=others[i].pk,
            black_id=others[i + 1].pk,
            variant_code="chess",
            base_seconds=300,
            increment_seconds=0,
            rated=True,
        )
    pool_join(player_id=others[4].pk, pool=Pool("chess", 180, 2, True))
    pool_join(player_id=others[5].pk, pool=Pool("chess", 60, 0, True))
    game = open_between(names, base=180, increment=2)
    seated(site, game, anna, bruno)
    anna.on("dialog", lambda dialog: dialog.accept())
    anna.get_by_test_id("resign").click()
    challenge_create(
        challenger_id=user(names[1]).pk,
        opponent_id=user(names[0]).pk,
        variant_code="italian",
        base_seconds=600,
        increment_seconds=5,
        color="white",
        rated=True,
    )
    for width, name in ((1280, "desk"), (390, "phone")):
        context = browser.new_context(
            locale="it-IT",
            viewport={"width": width, "height": 900 if width > 400 else 844},
            is_mobile=width < 400,
            has_touch=width < 400,
        )
        try:
            page = context.new_page()
            context.add_cookies(anna.context.cookies())
            to_board(page, site, game.pk)
            expect(page.get_by_test_id("new-opponent")).to_be_visible()
            expect(page.get_by_test_id("challenge-notice")).to_be_visible()
            page.screenshot(path=str(SHOTS / f"finished-game-{name}.png"), full_page=True)
            page.goto(f"{site}/play/")
            expect(page.get_by_test_id("pool-5+0")).to_contain_text("2 in gioco")
            page.get_by_test_id("quick-pairing").screenshot(
                path=str(SHOTS / f"lobby-grid-{name}.png")
            )
            page.get_by_test_id("challenge-notice").screenshot(
                path=str(SHOTS / f"challenge-notice-{name}.png")
            )
            page.screenshot(path=str(SHOTS / f"lobby-{name}.png"), full_page=True)
        finally:
            context.close()
