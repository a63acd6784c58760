"""End to end in Chromium: the lobby. Quick pairing ("Partita veloce"), the
challenge form's custom time only when chosen, the warning before a challenge that would cost a
tournament round (RULES 4.7), and a list of open challenges that stays short."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import User
from games.models import Game, PoolEntry
from games.services import Pool, challenge_create, game_open, game_resign, pool_join
from harness import wait_until
from tests.browser import fresh_lobby_window, socket_open

pytestmark = pytest.mark.e2e


def user(name: str) -> User:
    return User.objects.get(username=name)


def choose_variant(page, code: str) -> None:
    """A tab of the grid, and the grid of that variant swapped in (not a click on the old one)."""
    page.get_by_test_id(f"pool-variant-{code}").click()
    expect(page.get_by_test_id(f"pool-variant-{code}")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#quick-pairing input[name=variant]")).to_have_value(code)


def count_grid_swaps(page) -> None:
    """From now on `window.gridSwaps` counts the answers swapped into the quick-pairing grid."""
    page.evaluate(
        "window.gridSwaps = 0; document.body.addEventListener('htmx:afterSwap', (event) => {"
        " if (event.detail.target.id === 'quick-pairing') window.gridSwaps += 1; })"
    )


def test_two_players_click_the_same_time_and_are_paired(site, two_players):
    (anna, bruno), names = two_players
    for page in (anna, bruno):
        page.goto(site + "/play/")
    choose_variant(anna, "italian")
    anna.get_by_test_id("pool-3+2").click()
    waiting = anna.get_by_test_id("pool-waiting")
    expect(waiting).to_contain_text("Dama italiana 3+2")
    # Bruno's grid shows someone waiting there (his lobby heard it).
    choose_variant(bruno, "italian")
    expect(bruno.get_by_test_id("pool-3+2")).to_contain_text("1 in attesa")
    bruno.get_by_test_id("pool-3+2").click()
    expect(bruno).to_have_url(re.compile(r"/games/\d+/$"))
    expect(anna).to_have_url(bruno.url)  # taken to the board by the site socket
    game = Game.objects.get(pk=int(bruno.url.rstrip("/").rsplit("/", 1)[1]))
    assert (game.variant, game.base_seconds, game.increment_seconds, game.rated) == (
        "italian",
        180,
        2,
        True,
    )
    assert {game.white.username, game.black.username} == set(names)
    assert not PoolEntry.objects.exists()
    # One board at a time: from the board, the lobby refuses another pool.
    anna.goto(site + "/play/")
    anna.get_by_test_id("pool-1+0").click()
    expect(anna.locator("#messages")).to_contain_text("Hai già una partita in corso")
    game_resign(game_id=game.pk, user_id=game.white_id)

    # Casual, and a wait cancelled.
    anna.goto(site + "/play/")
    anna.get_by_test_id("pool-casual").check()
    anna.get_by_test_id("pool-5+0").click()
    expect(anna.get_by_test_id("pool-waiting")).to_contain_text("amichevole")
    assert not PoolEntry.objects.get(player__username=names[0]).rated
    count_grid_swaps(anna)
    anna.get_by_test_id("pool-leave").click()
    expect(anna.get_by_test_id("pool-waiting")).to_have_count(0)
    assert not PoolEntry.objects.exists()
    # The leave's push makes the page fetch the grid again; a click while that answer replaces
    # the grid lands on the grid being removed and sends nothing (seen once in a full run):
    # the leave's answer and the re-fetch's, both in, before the next click.
    anna.wait_for_function("() => window.gridSwaps >= 2")
    # Leaving the lobby page ends the wait as well.
    anna.get_by_test_id("pool-5+0").click()
    expect(anna.get_by_test_id("pool-waiting")).to_be_visible()
    anna.goto(site + "/players/")
    wait_until(lambda: not PoolEntry.objects.exists(), timeout=10, what="the wait ended")
    anna.goto(site + "/play/")
    expect(anna.get_by_test_id("pool-waiting")).to_have_count(0)


def _held(page, pattern: str) -> list:
    """Requests of `page` whose URL matches, held until the test lets each go."""
    held = []
    page.route(re.compile(pattern), lambda route: held.append(route))
    return held


def _until(page, condition, what: str) -> None:
    for _ in range(100):
        if condition():
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_variant_chosen_while_the_grid_refetches_stays_chosen(site, two_players):
    """The CI failure of 2026-12-02: a push re-fetched the grid of the variant shown while the
    player's click on another tab was under way; the re-fetch answered first and replaced the
    grid, the click's answer went into the box it had replaced, and the tab chosen was lost.
    Then the other order: a push heard while the click is under way, whose answer was made
    before the change, is re-fetched once the click has landed."""
    (anna, bruno), _names = two_players
    anna.goto(site + "/play/")
    expect(anna.get_by_test_id("pool-variant-chess")).to_have_attribute("aria-selected", "true")
    refetches = _held(anna, r"/play/\?pool_variant=chess$")
    clicks = _held(anna, r"/play/\?pool_variant=italian$")
    anna.evaluate("document.body.dispatchEvent(new Event('lobby-changed'))")
    _until(anna, lambda: refetches, "the re-fetch sent")
    anna.get_by_test_id("pool-variant-italian").click()
    _until(anna, lambda: clicks, "the click's request sent")
    for route in refetches:  # the re-fetch answers first (or was given up: nothing to answer)
        try:
            route.continue_()
        except Exception:  # noqa: BLE001 - aborted by the click, as it should be
            pass
    anna.wait_for_timeout(300)
    clicks[0].continue_()
    expect(anna.get_by_test_id("pool-variant-italian")).to_have_attribute("aria-selected", "true")
    expect(anna.locator("#quick-pairing input[name=variant]")).to_have_value("italian")
    anna.wait_for_timeout(300)  # and nothing arrives later to undo it
    expect(anna.get_by_test_id("pool-variant-italian")).to_have_attribute("aria-selected", "true")
    anna.unroute_all()

    # The click's answer made before Bruno starts waiting; the push of his wait heard while
    # that answer is still on its way.
    clicks = _held(anna, r"/play/\?pool_variant=english$")
    anna.get_by_test_id("pool-variant-english").click()
    _until(anna, lambda: clicks, "the click's request sent")
    made_before = clicks[0].fetch()
    assert "in attesa" not in made_before.text().split('data-testid="pool-3+2"')[1][:400]
    bruno.goto(site + "/play/")
    choose_variant(bruno, "english")
    bruno.get_by_test_id("pool-3+2").click()
    expect(bruno.get_by_test_id("pool-waiting")).to_be_visible()
    anna.evaluate("document.body.dispatchEvent(new Event('lobby-changed'))")
    clicks[0].fulfill(response=made_before)
    anna.unroute_all()
    expect(anna.get_by_test_id("pool-variant-english")).to_have_attribute("aria-selected", "true")
    expect(anna.get_by_test_id("pool-3+2")).to_contain_text("1 in attesa")


def test_a_tick_on_amichevole_survives_the_grid_being_fetched_again(site, two_players):
    """A fresh-clone failure of 2026-12-04: Bruno ticked "Amichevole" while the re-fetch caused
    by Anna's join was on its way; its answer, made before the tick, replaced the box
    unticked, and his click joined the rated pool, away from Anna. The box is kept as the
    player left it through a re-fetch answered late, a push's re-fetch and a variant's tab,
    and the click that follows joins the casual pool."""
    (anna, _bruno), names = two_players
    anna.goto(site + "/play/")
    socket_open(anna, "/ws/lobby/")  # the push below must find the page listening
    refetches = _held(anna, r"/play/\?pool_variant=chess$")
    anna.evaluate("document.body.dispatchEvent(new Event('lobby-changed'))")
    _until(anna, lambda: refetches, "the re-fetch sent")
    anna.get_by_test_id("pool-casual").check()  # while the re-fetch is on its way
    count_grid_swaps(anna)
    refetches[0].continue_()
    anna.wait_for_function("() => window.gridSwaps >= 1")  # the answer, made before the tick, is in
    anna.unroute_all()
    expect(anna.get_by_test_id("pool-casual")).to_be_checked()

    carla = User.objects.create(username="carla_27")
    fresh_lobby_window()
    pool_join(player_id=carla.pk, pool=Pool("chess", 180, 2, True))
    expect(anna.get_by_test_id("pool-3+2").get_by_test_id("waiting")).to_have_text("1 in attesa")
    expect(anna.get_by_test_id("pool-casual")).to_be_checked()
    choose_variant(anna, "italian")
    expect(anna.get_by_test_id("pool-casual")).to_be_checked()
    anna.get_by_test_id("pool-5+0").click()
    expect(anna.get_by_test_id("pool-waiting")).to_contain_text("amichevole")
    entry = PoolEntry.objects.get(player=user(names[0]))
    assert (entry.variant, entry.rated) == ("italian", False)


def test_a_waiting_player_goes_to_the_tournament_game_that_opens_for_them(site, two_players):
    """A player waiting in a pool leaves it the moment a tournament or arena game opens for
    them (RULES 1, one board at a time), and their lobby page takes them there."""
    (anna, _bruno), names = two_players
    anna.goto(site + "/play/")
    anna.get_by_test_id("pool-10+0").click()
    expect(anna.get_by_test_id("pool-waiting")).to_be_visible()
    other = User.objects.create(username="avversaria_t")
    # As a tournament round opens its games (tournaments.running uses the same service).
    game = game_open(
        white_id=user(names[0]).pk,
        black_id=other.pk,
        variant_code="chess",
        base_seconds=300,
        increment_seconds=0,
        rated=True,
        rated_with_event=True,
    )
    expect(anna).to_have_url(f"{site}/games/{game.pk}/")
    assert not PoolEntry.objects.exists()


def test_the_challenge_form_asks_for_minutes_only_for_a_custom_time(site, two_players):
    (anna, _bruno), _names = two_players
    anna.goto(site + "/play/")
    form = anna.get_by_test_id("challenge-form")
    minutes = form.locator('[data-field="base_minutes"]')
    expect(minutes).to_be_hidden()
    expect(form.locator('[data-field="increment_seconds"]')).to_be_hidden()
    form.locator("select[name=preset]").select_option("custom")
    expect(minutes).to_be_visible()
    form.locator("input[name=base_minutes]").fill("7")
    form.locator("input[name=increment_seconds]").fill("3")
    anna.get_by_test_id("challenge-submit").click()
    expect(anna.get_by_test_id("challenge-list")).to_contain_text("7+3")


def test_accepting_a_challenge_between_rounds_is_warned_first(site, two_players):
    """RULES 4.7: a player busy in another game when the next round is paired loses it by
    forfeit. The lobby and the challenge notice say so, and accepting asks first."""
    from tournaments.models import Participant, Tournament

    (anna, bruno), names = two_players
    tournament = Tournament.objects.create(
        name="Torneo del martedì",
        opened_by=user(names[1]),
        variant="chess",
        base_seconds=180,
        increment_seconds=2,
        cadence="blitz",
        starts_at=timezone.now() - timedelta(minutes=10),
        status=Tournament.Status.RUNNING,
        total_rounds=5,
        current_round=1,
    )
    Participant.objects.create(
        tournament=tournament, player=user(names[0]), number=1, start_rating=1500
    )
    challenge = challenge_create(
        challenger_id=user(names[1]).pk,
        opponent_id=user(names[0]).pk,
        variant_code="chess",
        base_seconds=300,
        increment_seconds=0,
        color="random",
        rated=False,
    )
    anna.goto(site + "/")  # on the home page (no lobby styles) the answers sit side by side
    home_notice = anna.get_by_test_id("challenge-notice")
    accept, refuse = (home_notice.get_by_role("button", name=n) for n in ("Accetta", "Rifiuta"))
    # The notice is in the page as it comes, and may be swapped by the socket's opening
    # re-fetch at any instant: both buttons measured in one call in the page (two calls could
    # each find a different notice), once both are laid out (a notice being swapped in has none).
    expect(accept).to_be_visible()
    expect(refuse).to_be_visible()
    a, r = anna.wait_for_function(
        """() => {
          const notice = document.querySelector('[data-testid="challenge-notice"]');
          const buttons = notice ? [...notice.querySelectorAll("button")] : [];
          const boxes = ["Accetta", "Rifiuta"].map(name => buttons
            .find(b => b.textContent.trim() === name)?.getBoundingClientRect().toJSON());
          return boxes.every(box => box && box.width > 0) && boxes;
        }"""
    ).json_value()
    assert abs(a["y"] - r["y"]) < 2 and r["x"] > a["x"] + a["width"], (a, r)
    anna.goto(site + "/play/")
    expect(anna.get_by_test_id("commitment-warning")).to_contain_text("Torneo del martedì")
    expect(anna.get_by_test_id("commitment-warning")).to_contain_text("a tavolino")
    notice = anna.get_by_test_id("challenge-notice")
    expect(notice.get_by_test_id("notice-commitment")).to_contain_text("a tavolino")
    asked = []

    def answer(dialog):
        asked.append(dialog.message)
        dialog.dismiss()  # not now

    anna.on("dialog", answer)
    anna.get_by_test_id(f"accept-{challenge.pk}").click()
    expect(anna).to_have_url(site + "/play/")
    assert asked and "Torneo del martedì" in asked[0]
    assert not Game.objects.filter(status="live").exists()


def test_the_open_challenges_come_a_page_at_a_time(site, two_players):
    (anna, _bruno), _names = two_players
    for i in range(23):
        challenger = User.objects.create(username=f"sfidante_{i:02d}")
        challenge_create(
            challenger_id=challenger.pk,
            variant_code="chess",
            base_seconds=60 * (i + 1),
            increment_seconds=0,
            color="random",
            rated=True,
        )
    anna.goto(site + "/play/")
    listed = anna.get_by_test_id("open-challenges").locator("li")
    expect(listed).to_have_count(20)
    pager = anna.get_by_test_id("challenges-pager")
    expect(pager).to_contain_text("pagina 1 di 2")
    pager.get_by_role("link", name=re.compile("successive")).click()
    expect(listed).to_have_count(3)
    # The live refresh keeps the page it is on.
    anna.evaluate("document.body.dispatchEvent(new Event('lobby-changed'))")
    expect(anna.get_by_test_id("challenges-pager")).to_contain_text("pagina 2 di 2")
    expect(listed).to_have_count(3)
