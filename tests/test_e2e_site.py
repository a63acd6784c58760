"""End to end in Chromium: the pages around the games. The home page, the games to
watch, the menu, the players list with ratings and who is online, a player's page with its
challenge button and its dates, the error pages and the admin, in Italian and in English."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import User
from accounts.tests.factories import UserFactory
from games.models import Game
from games.services import game_open
from ratings.models import Rating
from tests.browser import log_in
from tournaments.models import Tournament

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("orm_beside_playwright"),
]


@pytest.fixture
def page(browser):
    context = browser.new_context(locale="it-IT")
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


def live_game(white: User, black: User, variant_code: str = "chess"):
    return game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code=variant_code,
        base_seconds=300,
        increment_seconds=3,
        rated=True,
    )


def test_home_shows_my_game_games_to_watch_events_and_the_best(site, page):
    me, rival = UserFactory(username="casa_anna"), UserFactory(username="casa_bruno")
    others = UserFactory(username="casa_carla"), UserFactory(username="casa_dario")
    Rating.objects.create(player=rival, variant="chess", cadence="blitz", value=1834, games=12)
    mine = live_game(me, rival)
    # I have sat at it: a game just opened that waits for me would take the page to its board
    # as the site socket opens (`mygame`), and this page is about the home page.
    Game.objects.filter(pk=mine.pk).update(white_sat=True)
    theirs = live_game(*others, variant_code="italian")
    Tournament.objects.create(
        name="Lampo del venerdì",
        opened_by=rival,
        variant="chess",
        base_seconds=180,
        increment_seconds=2,
        cadence="blitz",
        starts_at=timezone.now() + timedelta(minutes=40),
    )
    log_in(page, site, me.username)
    page.goto(site + "/")
    expect(page.get_by_test_id("home-my-game")).to_be_visible()
    page.get_by_test_id("home-my-game").get_by_role("link").click()
    expect(page).to_have_url(f"{site}/games/{mine.pk}/")
    page.goto(site + "/")
    games = page.get_by_test_id("home-live-games")
    expect(games.get_by_test_id(f"live-game-{theirs.pk}")).to_contain_text("Dama italiana")
    expect(games.get_by_test_id(f"live-game-{mine.pk}")).to_contain_text("1834")  # rating
    tournaments = page.get_by_test_id("home-tournaments")
    expect(tournaments).to_contain_text("Lampo del venerdì")
    expect(tournaments.get_by_test_id("starts")).to_have_text(re.compile(r"^tra \d+ min$"))
    expect(page.get_by_test_id("home-leaders")).to_contain_text("casa_bruno")
    expect(page.get_by_test_id("home-leaders")).to_contain_text("1834")
    # Watching: the list of games being played, each a link to watch it live.
    games.get_by_test_id(f"live-game-{theirs.pk}").get_by_role("link", name="Guarda").click()
    expect(page).to_have_url(f"{site}/games/{theirs.pk}/")
    expect(page.get_by_test_id("board")).to_be_visible()
    page.get_by_role("navigation").get_by_role("link", name="Guarda").click()
    expect(page).to_have_url(site + "/games/")
    expect(page.get_by_test_id("live-games").locator("tbody tr")).to_have_count(2)
    page.locator("select[name=variant]").select_option("italian")
    expect(page.get_by_test_id("live-games").locator("tbody tr")).to_have_count(1)


def test_menu_players_online_and_the_challenge_button(site, browser, page):
    me = UserFactory(username="elenco_anna")
    away = UserFactory(username="elenco_bruno")
    away.date_joined = datetime(2026, 12, 1, 10, tzinfo=UTC)
    away.save()
    Rating.objects.create(player=away, variant="italian", cadence="rapid", value=1622, games=3)
    log_in(page, site, me.username)
    page.get_by_test_id("nav-ratings").click()
    expect(page).to_have_url(site + "/ratings/")
    page.goto(site + "/players/?q=elenco")
    row = page.get_by_test_id("player-row").filter(has_text="elenco_bruno")
    expect(row).to_contain_text("1622")
    expect(page.get_by_test_id("online-elenco_anna")).to_have_class(re.compile(r"\bon\b"))
    expect(page.get_by_test_id("online-elenco_bruno")).not_to_have_class(re.compile(r"\bon\b"))
    page.get_by_test_id("online-only").check()
    expect(page.get_by_test_id("player-row")).to_have_count(1)
    expect(page.get_by_test_id("player-row")).to_contain_text("elenco_anna")
    # A player's page: the date as Italian writes it, and a challenge in one click.
    page.goto(site + "/@/elenco_bruno/")
    expect(page.locator(".player-head")).to_contain_text("Iscritto dal 1 dicembre 2026")
    page.get_by_test_id("challenge-player").click()
    expect(page.locator("input[name=opponent]")).to_have_value("elenco_bruno")
    page.get_by_test_id("challenge-submit").click()
    expect(page.get_by_test_id("challenge-list")).to_contain_text("elenco_bruno")


def test_error_pages_have_the_site_layout_in_both_languages(site, page):
    response = page.goto(site + "/nessuna-pagina/")
    assert response.status == 404
    expect(page.get_by_test_id("error-page")).to_contain_text("Pagina non trovata")
    expect(page.get_by_test_id("user-menu")).to_have_count(0)
    expect(page.locator(".topbar")).to_be_visible()
    page.get_by_test_id("lang-en").click()
    response = page.goto(site + "/games/999999/")
    assert response.status == 404
    expect(page.get_by_test_id("error-page")).to_contain_text("Page not found")
    page.get_by_test_id("error-page").get_by_role("link", name="Back to the home page").click()
    expect(page).to_have_url(site + "/")


def test_the_admin_speaks_italian_and_hides_no_schedule(site, page):
    UserFactory(username="capo_staff", is_staff=True, is_superuser=True)
    page.goto(site + "/admin/login/")
    page.locator("input[name=username]").fill("capo_staff")
    from accounts.tests.factories import PASSWORD

    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("input[type=submit]").click()
    expect(page.locator("#site-name")).to_have_text("Amministrazione del Circolo")
    modules = page.locator("#content-main")
    for section in ("Giocatori", "Partite e sfide", "Punteggi Elo Italia", "Tornei", "Arene"):
        expect(modules.get_by_role("table").filter(has_text=section).first).to_be_visible()
    expect(modules).not_to_contain_text("ACCOUNTS")
    expect(modules).not_to_contain_text("Periodic tasks")
    expect(modules).not_to_contain_text("Attività periodiche")
