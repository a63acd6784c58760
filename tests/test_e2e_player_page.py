"""End to end in Chromium: a player's page you can read. The rating chart shows a
point's value and date on hover and on keyboard focus (arrow keys move between points), the
recent games say won/lost/drawn with the rating change and the event; the admin's saved message
has the noun's gender. Screenshots at 1280 and 390 px in docs/screenshots/issue-24/."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.contrib.contenttypes.models import ContentType
from playwright.sync_api import expect

from accounts.tests.factories import PASSWORD, UserFactory
from arena.tests.factories import ArenaFactory
from games.models import Game
from games.services import game_draw_accept, game_draw_offer, game_resign
from games.services.due import game_settle
from games.tests.factories import T0, open_game
from ratings.models import RatingChange, RatingPeriod
from tests.browser import shoot

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("orm_beside_playwright"),
]

SHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots" / "issue-24"
DESK, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}


@pytest.fixture
def context_it(browser):
    context = browser.new_context(locale="it-IT", viewport=DESK)
    context.set_default_timeout(15_000)
    yield context
    context.close()


def played(white, black, *, loser, when: datetime, variant: str = "chess", base: int = 180):
    """A rated game both sat at, ended by `loser` resigning (a draw if None), settled (rated)
    and dated `when`, with its rating change."""
    game = open_game(white=white, black=black, variant_code=variant, base_seconds=base)
    Game.objects.filter(pk=game.pk).update(white_sat=True, black_sat=True)
    if loser is None:
        game_draw_offer(game_id=game.pk, user_id=white.pk, at_ms=T0 + 1)
        game_draw_accept(game_id=game.pk, user_id=black.pk, at_ms=T0 + 2)
    else:
        game_resign(game_id=game.pk, user_id=loser.pk, at_ms=T0 + 1)
    game_settle(game_id=game.pk)
    Game.objects.filter(pk=game.pk).update(created_at=when, finished_at=when)
    periods = RatingPeriod.objects.filter(kind="game", source_id=game.pk)
    RatingChange.objects.filter(period__in=periods).update(created_at=when)
    return game


def day(d: int) -> datetime:
    return datetime(2026, 11, d, 20, 0, tzinfo=UTC)


def history(anna):
    rivals = [UserFactory(username=n) for n in ("bruno_r", "carla_v", "dario_n")]
    played(anna, rivals[0], loser=rivals[0], when=day(3))
    played(rivals[1], anna, loser=anna, when=day(5))
    played(anna, rivals[2], loser=rivals[2], when=day(9))
    played(anna, rivals[0], loser=None, when=day(12))
    played(rivals[2], anna, loser=rivals[2], when=day(16))
    arena_game = played(anna, rivals[1], loser=rivals[1], when=day(20))
    arena = ArenaFactory(name="Arena del mercoledì")
    Game.objects.filter(pk=arena_game.pk).update(
        event_type=ContentType.objects.get_for_model(arena), event_id=arena.pk
    )
    played(anna, rivals[0], loser=anna, when=day(24))
    played(rivals[0], anna, loser=rivals[0], when=day(27))
    played(anna, rivals[1], loser=rivals[1], when=day(29), variant="italian", base=900)
    played(
        rivals[2],
        anna,
        loser=None,
        when=datetime(2026, 12, 1, 20, tzinfo=UTC),
        variant="italian",
        base=900,
    )


def test_the_chart_shows_a_points_value_on_hover_and_on_keyboard_focus(site, context_it):
    anna = UserFactory(username="anna_grafico", date_joined=datetime(2026, 11, 1, 10, tzinfo=UTC))
    history(anna)
    page = context_it.new_page()
    page.goto(f"{site}/@/anna_grafico/")
    chart = page.get_by_test_id("chart-chess-blitz")
    points = chart.get_by_test_id("chart-point")
    expect(points).to_have_count(9)  # joining, then eight games
    labels = [points.nth(i).get_attribute("aria-label") for i in range(9)]
    assert labels[0] == "1500, 1 nov 2026"
    assert re.fullmatch(r"\d{4} \(\+\d+\), 3 nov 2026", labels[1]), labels[1]
    dates = chart.get_by_test_id("chart-date")
    expect(dates.first).to_have_text("1 nov 2026")
    expect(dates.last).to_have_text("27 nov 2026")
    # Nothing shown until a point is pointed at or focused.
    expect(chart.get_by_test_id("chart-tip").filter(visible=True)).to_have_count(0)

    # Hover: the point's label appears with its value, change and date.
    third = chart.locator(f'[aria-label="{labels[3]}"]')
    third.hover()
    tip = third.get_by_test_id("chart-tip")
    expect(tip).to_be_visible()
    value = labels[3].split(" ")[0]
    expect(tip).to_contain_text(value)
    expect(tip).to_contain_text("9 nov 2026")
    page.mouse.move(0, 0)
    expect(tip).to_be_hidden()

    # Keyboard: the chart is one tab stop (the newest point), arrows move between points.
    page.get_by_test_id("rating-chess-blitz").get_by_role("link").focus()
    for _ in range(10):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('.chart-point')"):
            break
    newest = chart.locator(f'[aria-label="{labels[8]}"]')
    expect(newest).to_be_focused()
    expect(newest.get_by_test_id("chart-tip")).to_be_visible()
    expect(newest.get_by_test_id("chart-tip")).to_contain_text("27 nov 2026")
    page.keyboard.press("ArrowLeft")
    before = chart.locator(f'[aria-label="{labels[7]}"]')
    expect(before).to_be_focused()
    expect(before.get_by_test_id("chart-tip")).to_be_visible()
    expect(before.get_by_test_id("chart-tip")).to_contain_text("24 nov 2026")
    expect(before.get_by_test_id("chart-tip")).to_contain_text("−")  # a lost game
    expect(newest.get_by_test_id("chart-tip")).to_be_hidden()
    page.keyboard.press("Home")
    expect(chart.locator(f'[aria-label="{labels[0]}"]')).to_be_focused()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    shoot(chart, str(SHOTS / "chart-focus-desk.png"))

    # The values as a table, for screen readers and anyone.
    chart.get_by_text("I valori in tabella").click()
    expect(chart.get_by_role("table")).to_contain_text("iniziale")

    # The recent games, from Anna's side.
    games = page.get_by_test_id("recent-games")
    expect(games).to_contain_text("Vinta")
    expect(games).to_contain_text("Persa")
    expect(games).to_contain_text("½-½")
    expect(games).not_to_contain_text("1/2")
    expect(games.get_by_role("link", name="Arena del mercoledì")).to_be_visible()

    page.reload()
    shoot(page, str(SHOTS / "player-page-desk.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.reload()
    # At 390 px nothing sticks out sideways: the chart fits the screen.
    box = chart.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    point = chart.locator(f'[aria-label="{labels[5]}"]')
    point.focus()
    expect(point.get_by_test_id("chart-tip")).to_be_visible()
    shoot(chart, str(SHOTS / "chart-focus-phone.png"))
    shoot(page, str(SHOTS / "player-page-phone.png"), full_page=True)
    # A game on a phone: outcome, opponent and change on one line, the event under them.
    row = games.locator("tbody tr").first
    cells = [row.locator("td").nth(i).bounding_box() for i in range(4)]
    assert all(c is not None for c in cells)
    assert abs(cells[0]["y"] - cells[2]["y"]) < 4 and cells[3]["y"] > cells[0]["y"] + 10
    assert cells[2]["x"] + cells[2]["width"] <= 390


def test_the_admin_says_the_arena_was_changed_in_the_feminine(site, context_it):
    UserFactory(username="capo_arene", is_staff=True, is_superuser=True)
    arena = ArenaFactory(name="Arena del giovedì")
    page = context_it.new_page()
    page.goto(site + "/admin/login/")
    page.locator("input[name=username]").fill("capo_arene")
    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("input[type=submit]").click()
    expect(page.locator("#site-name")).to_have_text("Amministrazione del Circolo")
    page.goto(f"{site}/admin/arena/arena/{arena.pk}/change/")
    page.locator("input[name=name]").fill("Arena del venerdì")
    page.locator("input[name=_continue]").click()
    message = page.locator(".messagelist li")
    expect(message).to_have_text(
        "L'arena «Arena del venerdì» è stata modificata. Puoi modificarla di nuovo qui sotto."
    )
    expect(page.locator("#content")).not_to_contain_text("Pairing due at")
    expect(page.get_by_text("Prossimo abbinamento")).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    shoot(page, str(SHOTS / "admin-arena-changed-desk.png"))
    page.set_viewport_size(PHONE)
    page.locator("input[name=_continue]").click()  # saved again, read on a phone
    expect(message).to_contain_text("è stata modificata")
    shoot(page, str(SHOTS / "admin-arena-changed-phone.png"))
