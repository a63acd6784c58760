"""End to end in Chromium: tournament and arena pages that read well and never show
what no longer holds. Organiser controls and countdowns follow the start without a reload; the
round robin's standings and cross table, every round's results, forfeits explained, a printable
view; the list's countdowns with units and its cancelled tournaments; the private opener; the
form's rated hint and the live-event link; a tournament game's way back; the phone width."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import User
from accounts.tests.factories import UserFactory
from arena.models import Arena
from games.models import Game
from games.services import game_open, game_presence, game_resign
from tests.browser import log_in, socket_open
from tournaments import running
from tournaments.models import Registration, Tournament

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("orm_beside_playwright"),
]


@pytest.fixture
def context(browser):
    context = browser.new_context(locale="it-IT")
    context.set_default_timeout(15_000)
    yield context
    context.close()


def tournament(
    name: str, opener: User, players: list[User], *, start_now: bool = False, **fields
) -> Tournament:
    """A scheduled tournament. `start_now`: due now, but kept from the suite's tick (no
    `next_due_at`), so this test starts it itself, at the instant it chooses."""
    t = Tournament.objects.create(
        name=name,
        opened_by=opener,
        variant=fields.pop("variant", "chess"),
        base_seconds=fields.pop("base_seconds", 300),
        increment_seconds=0,
        cadence="blitz",
        starts_at=fields.pop("starts_at", timezone.now() + timedelta(hours=1)),
        **fields,
    )
    for player in players:
        Registration.objects.create(tournament=t, player=player)
    if start_now:
        Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now(), next_due_at=None)
    return t


def live_games(t: Tournament) -> list[Game]:
    return list(
        Game.objects.filter(event_type__model="tournament", event_id=t.pk, status="live").order_by(
            "pk"
        )
    )


def finish_round(t: Tournament, loser: str = "black") -> None:
    """Every live game of the tournament ends: both sat, then one resigns."""
    for game in live_games(t):
        for player in (game.white_id, game.black_id):
            game_presence(
                game_id=game.pk, user_id=player, key=f"k{game.pk}-{player}", connected=True
            )
        game_resign(game_id=game.pk, user_id=getattr(game, f"{loser}_id"))


def test_organiser_controls_and_countdowns_follow_the_start_live(site, context):
    # The opener does not play: a player's page goes to their board when the round opens
    # (`mygame`), and this test watches the tournament page.
    opener = UserFactory(username="org_anna")
    players = [UserFactory(username=f"org_{n}") for n in ("bruno", "carla", "dario", "elena")]
    t = tournament(
        "Lampo che parte", opener, players, starts_at=timezone.now() + timedelta(seconds=12)
    )
    page = context.new_page()
    log_in(page, site, opener.username)
    page.goto(f"{site}/tournaments/{t.pk}/")
    expect(page.get_by_test_id("organizer")).to_be_visible()
    expect(page.get_by_test_id("countdown")).to_have_text(re.compile(r"^\d+ s$"))
    # Every fragment swapped in has its countdown already written by the server (else the end
    # line reads "()" until the next second).
    page.evaluate(
        """() => { window.swapped = [];
        document.body.addEventListener('htmx:afterSwap', () => {
          const el = document.querySelector('[data-testid=time-to-end]');
          if (el) window.swapped.push(el.textContent); }); }"""
    )
    # The tick starts it: no reload, the controls and the start countdown are gone.
    expect(page.get_by_test_id("run-status")).to_contain_text("turno 1 di 3", timeout=30_000)
    expect(page.get_by_test_id("organizer")).to_have_count(0)
    expect(page.get_by_test_id("countdown")).to_have_count(0)
    expect(page.get_by_role("link", name="Modifica")).to_have_count(0)
    expect(page.get_by_test_id("time-to-end")).to_have_text(re.compile(r"^\d+ min \d\d s$|^\d+ h"))
    finish_round(Tournament.objects.get(pk=t.pk))  # results come in: live refreshes
    expect(page.get_by_test_id("pairings-1")).to_contain_text("1–0")  # the game's result
    swapped = page.evaluate("window.swapped")
    assert swapped and all(re.match(r"^\d+ (min|h)", text) for text in swapped), swapped


def test_round_robin_results_read_as_a_player_expects(site, context):
    names = ("anna", "bruno", "carla", "dario", "elena", "fabio")
    players = [UserFactory(username=f"rr_{n}") for n in names]
    t = tournament("Girone a sei", players[0], players, start_now=True)
    # Carla is busy in another game when round 1 is paired: she loses it by forfeit (4.7).
    busy = game_open(
        white_id=players[2].pk,
        black_id=UserFactory().pk,
        variant_code="chess",
        base_seconds=300,
        increment_seconds=0,
        rated=False,
    )
    assert running.tournament_start(tournament_id=t.pk)
    game_resign(game_id=busy.pk, user_id=busy.white_id)
    finish_round(t, loser="black")
    t.refresh_from_db()
    t.rounds.filter(number=1).update(ended_at=timezone.now() - timedelta(seconds=60))
    assert running.tournament_advance(tournament_id=t.pk)  # round 2, after the pause
    finish_round(t, loser="white")
    page = context.new_page()
    page.goto(f"{site}/tournaments/{t.pk}/")
    standings = page.get_by_test_id("standings").locator("tbody tr")
    expect(standings).to_have_count(6)
    cross = page.get_by_test_id("cross-table")
    # One cell per opponent under every number of the header, the player's own crossed out.
    expect(cross.locator("thead th")).to_have_count(2 + 6 + 1)
    for row in range(6):
        expect(cross.locator("tbody tr").nth(row).locator("td.cell")).to_have_count(6)
    expect(cross.locator("td.cell.self")).to_have_count(6)
    # Results in tournament points, the colour played, and the forfeit as +/−.
    expect(cross.locator(".mark.win.w, .mark.win.b")).not_to_have_count(0)
    expect(cross.locator(".mark.forfeit_win")).to_have_count(1)
    expect(cross.locator(".mark.forfeit_loss")).to_have_count(1)
    expect(page.get_by_test_id("legend")).to_contain_text("vittoria a tavolino")
    # Every round: the current one shown, the earlier ones opened on demand.
    expect(page.get_by_test_id("pairings-2")).to_be_visible()
    earlier = page.get_by_test_id("round-1")
    expect(earlier.get_by_test_id("pairings-1")).to_have_count(0)
    earlier.locator("summary").click()
    expect(earlier.get_by_test_id("pairings-1")).to_contain_text(re.compile("[+−]–[+−]"))
    # The open round stays open across a live refresh, which says it answers a push (the
    # server shares one part per push, events/shared_part.py).
    with page.expect_request(lambda r: r.headers.get("hx-request") == "true") as refetch:
        page.evaluate("document.body.dispatchEvent(new Event('tournament-changed'))")
    assert refetch.value.headers.get("x-event-refresh") == "push"
    expect(earlier.get_by_test_id("pairings-1")).to_be_visible()
    # The printable standings.
    page.get_by_test_id("print-link").click()
    expect(page.get_by_test_id("print-sheet").get_by_test_id("standings")).to_be_visible()
    expect(page.get_by_test_id("print-sheet").get_by_test_id("cross-table")).to_be_visible()
    # Its button opens the browser's print dialog (site.js's data-print), which a headless
    # browser has not: the page's window.print says it was called instead.
    page.evaluate("() => { window.print = () => { document.body.dataset.printed = '1'; }; }")
    page.get_by_role("button", name="Stampa").click()
    expect(page.locator("body")).to_have_attribute("data-printed", "1")
    page.emulate_media(media="print")
    expect(page.locator(".topbar")).to_be_hidden()
    # Every round's pairings follow, each starting a page of its own on paper.
    first = page.get_by_test_id("print-round-1")
    expect(first).to_contain_text("Turno 1")
    assert first.evaluate("e => getComputedStyle(e).breakBefore") == "page"
    page.emulate_media(media="screen")


def test_the_private_opener_joins_without_a_password(site, context):
    opener = UserFactory(username="priv_anna")
    t = tournament("Tra amici", opener, [])
    from django.contrib.auth.hashers import make_password

    t.password_hash = make_password("segreta")
    t.save()
    page = context.new_page()
    log_in(page, site, opener.username)
    page.goto(f"{site}/tournaments/{t.pk}/")
    expect(page.get_by_test_id("format")).not_to_contain_text("aperto a tutti")
    expect(page.get_by_label("Password del torneo")).to_have_count(0)
    page.get_by_test_id("join").click()
    expect(page.get_by_test_id("registered")).to_be_visible()
    assert t.registrations.filter(player=opener).exists()


def test_the_list_counts_down_in_words_and_keeps_the_cancelled(site, context):
    opener = UserFactory(username="lista_anna")
    tournament(
        "Fra poco", UserFactory(), [], starts_at=timezone.now() + timedelta(minutes=23, seconds=30)
    )
    empty = tournament("Nessuno viene", opener, [UserFactory()], start_now=True)
    page = context.new_page()
    log_in(page, site, opener.username)
    page.goto(site + "/tournaments/")
    soon = page.get_by_test_id("tournament-row").filter(has_text="Fra poco")
    expect(soon.get_by_test_id("starts")).to_have_text(re.compile(r"^tra 2[34] min$"))
    assert running.tournament_start(tournament_id=empty.pk)  # below its minimum: cancelled
    # The opener is told at once, wherever they are (the site socket).
    expect(page.get_by_test_id("tournament-cancelled-banner")).to_contain_text("Nessuno viene")
    page.reload()
    ended = page.locator("#rows h2", has_text="Conclusi").locator("xpath=following-sibling::*[1]")
    row = ended.get_by_test_id("tournament-row").filter(has_text="Nessuno viene")
    expect(row.get_by_test_id("cancelled-badge")).to_be_visible()
    row.get_by_role("link", name="Nessuno viene").click()
    expect(page.get_by_test_id("cancelled")).to_contain_text("meno del minimo")


def test_the_form_hides_what_the_openings_take_away_and_one_event_at_a_time(site, context):
    opener = UserFactory(username="form_anna")
    page = context.new_page()
    log_in(page, site, opener.username)
    page.goto(site + "/tournaments/new/")
    page.wait_for_load_state("networkidle")  # the site's notices asked for once loaded
    errors = []  # leaving a field for the submit button must not abort the hint noisily
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.get_by_label("Variante").select_option("italian")
    rated = page.locator('[data-field="rated"]')
    floor = page.locator('[data-field="floor"]')
    expect(rated).to_be_visible()
    expect(floor).to_be_visible()
    page.get_by_label("Aperture").select_option("table_all")  # RULES 7.3: casual
    expect(page.get_by_test_id("rated-hint")).to_be_visible()
    expect(rated).to_be_hidden()
    expect(floor).to_be_hidden()
    page.get_by_label("Andata e ritorno").check()  # double games keep it rated
    expect(page.get_by_test_id("rated-hint")).to_have_count(0)
    expect(rated).to_be_visible()
    # 500 minutes: one message, beside the field.
    page.get_by_label("Tempo di riflessione").select_option("custom")
    page.get_by_label("Minuti (personalizzato)").fill("500")
    page.get_by_label("Incremento in secondi (personalizzato)").fill("0")
    page.get_by_label("Nome", exact=True).fill("Troppo lungo")
    page.get_by_role("button", name="Apri il torneo").click()
    expect(page.locator('[data-field="base_minutes"] .error')).to_have_count(1)
    expect(page.locator(".form-errors")).to_have_count(0)
    page.wait_for_load_state("networkidle")
    assert errors == []
    # With a live event, the form is not offered: its link is.
    tournament("Il mio torneo", opener, [])
    page.goto(site + "/tournaments/new/")
    expect(page.get_by_test_id("live-event")).to_contain_text("Il mio torneo")
    expect(page.locator("#event-form")).to_have_count(0)
    page.goto(site + "/arenas/new/")
    expect(page.get_by_test_id("live-event")).to_contain_text("Il mio torneo")
    expect(page.locator("#event-form")).to_have_count(0)


def test_a_tournament_game_shows_its_round_and_the_way_back(site, context):
    players = [UserFactory(username=f"via_{n}") for n in ("anna", "bruno", "carla", "dario")]
    t = tournament("Torneo della via", players[0], players, start_now=True)
    assert running.tournament_start(tournament_id=t.pk)
    game = live_games(t)[0]
    # White has sat at the board in another tab already: otherwise every page of theirs goes
    # to it by itself (`mygame`), and here the banner's link is what is looked at.
    for connected in (True, False):
        game_presence(game_id=game.pk, user_id=game.white_id, connected=connected, key="tab")
    page = context.new_page()
    log_in(page, site, game.white.username)
    page.goto(site + "/players/")
    banner = page.get_by_test_id("tournament-banner")
    expect(banner).to_contain_text("Torneo della via")
    content = page.locator("main.content").bounding_box()
    box = banner.bounding_box()
    assert box["x"] >= content["x"] and box["x"] + box["width"] <= content["x"] + content["width"]
    banner.get_by_role("link").click()
    expect(page).to_have_url(f"{site}/games/{game.pk}/")
    # The page's scripts have run (htmx among them: its text shows before they do).
    socket_open(page, f"/ws/game/{game.pk}/")
    expect(page.get_by_test_id("game-event")).to_contain_text("Torneo della via")
    expect(page.get_by_test_id("game-caption")).to_contain_text("turno 1 di 3")
    expect(page.get_by_test_id("game-caption")).to_contain_text("andata")  # four: double games
    # On the page it points to, the banner says nothing.
    page.locator("#tournament-notices").evaluate("el => htmx.trigger(el, 'mytournament-changed')")
    expect(page.get_by_test_id("tournament-banner")).to_have_count(0)
    page.get_by_test_id("back-to-event").click()
    expect(page).to_have_url(f"{site}/tournaments/{t.pk}/")


def test_event_pages_fit_a_phone(site, browser):
    opener = UserFactory(username="tel_anna")
    t = tournament("Un nome di torneo piuttosto lungo, per vedere", opener, [])
    Arena.objects.create(
        name="Arena del telefono",
        opened_by=opener,
        variant="chess",
        base_seconds=180,
        increment_seconds=0,
        cadence="blitz",
        starts_at=timezone.now() + timedelta(hours=1),
        status=Arena.Status.CANCELLED,
    )
    phone = browser.new_context(
        locale="it-IT", viewport={"width": 390, "height": 844}, is_mobile=True
    )
    try:
        page = phone.new_page()
        log_in(page, site, UserFactory(username="tel_bruno").username)
        for path in (
            f"/tournaments/{t.pk}/",
            "/tournaments/",
            "/tournaments/new/",
            "/arenas/",
            "/play/",
            "/",
            "/players/",
        ):
            page.goto(site + path)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, (path, width)
        page.goto(site + "/arenas/")
        expect(page.get_by_test_id("cancelled-badge")).to_be_visible()
    finally:
        phone.close()
