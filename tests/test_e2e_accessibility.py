"""End to end in Chromium: every kind of page checked by axe-core (axe-playwright-python, the
engine's own rules, WCAG 2.x A and AA), at 1280 and 390 px (issue 38). Each page's violations
are printed (rule, impact, how many nodes, the first node's selector); the test fails on any
`serious` or `critical` one, and on an aria-describedby or aria-labelledby that names no
element on the site's own pages (a field's help or error never read out). Every page is loaded
once: at 1280 px, then the same page is narrowed to 390 px and checked again (the site's layout
is CSS only, nothing reloads), in one browser context whose session cookie is swapped when
another player (or the staff) must look."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.utils import timezone
from playwright.sync_api import expect

from accounts.tests.factories import UserFactory
from analysis.services import analysis_request
from arena.running import arena_advance
from arena.tests.factories import ArenaFactory, EntryFactory
from chat import rooms as chat_rooms
from chat import services as chat_services
from chat.models import Report
from clubs import services as club_services
from clubs.tests.factories import club_with
from fairplay.models import Review
from fairplay.tests.factories import event_games, fabricated_event, with_analyses
from games.models import Game
from games.rules.variants import VARIANTS
from games.services import game_resign
from games.tests.factories import open_game
from otb import services as otb_services
from otb.tests.test_services import field as otb_field
from tests.browser import no_csp_violations, session_cookie
from tests.test_e2e_computer_analysis import mated
from tournaments import running
from tournaments.models import Registration, Tournament

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("orm_beside_playwright"),
]

WIDTHS = (1280, 390)
FAILING = {"serious", "critical"}
# Rules of a lower impact that fail all the same: two landmarks of one name are two places a
# screen reader's list of regions cannot tell apart.
FAILING_RULES = {"landmark-unique"}


def violations_of(axe: Axe, page, *, preload: bool) -> list[dict]:
    """`preload`: axe reads the page's style sheets first, for its one rule on them
    (`css-orientation-lock`); a sheet's `@import` it copies into a <style> element of its own,
    which the Content-Security-Policy refuses. The admin's forms.css imports widgets.css: its
    pages are checked without (axe lists that rule as not run)."""
    return axe.run(page, options={"resultTypes": ["violations"], "preload": preload}).response[
        "violations"
    ]


# The ids named by aria-describedby and aria-labelledby that no element has: axe-core lets a
# list pass when one of its ids exists, so a field's help or error text named by Django but never
# given its id went unread (issue 38). The site's own pages only: Django's admin templates
# have one of their own (the user's read-only password field's help).
MISSING_REFERENCES = """() => [...document.querySelectorAll("[aria-describedby], [aria-labelledby]")]
  .flatMap(el => ["aria-describedby", "aria-labelledby"].flatMap(name =>
    (el.getAttribute(name) || "").split(/\\s+/).filter(id => id && !document.getElementById(id))))"""


# The lists a phone reads as cards (events, a player's games): none wider than its place, so no
# column is cut off at 390 px behind a scroll the reader may not notice.
CLIPPED_LISTS = """() => [...document.querySelectorAll(".event-list, .player-games")]
  .some(t => t.scrollWidth > t.parentElement.clientWidth + 1)"""


def report(label: str, width: int, violations: list[dict]) -> list[str]:
    """One line per violation, printed; the serious and critical ones returned."""
    failing = []
    for v in violations:
        target = v["nodes"][0]["target"] if v["nodes"] else ""
        line = f"{label} @{width}: {v['id']} [{v['impact']}] ×{len(v['nodes'])} first: {target}"
        print(line)
        if v["impact"] in FAILING or v["id"] in FAILING_RULES:
            failing.append(line)
    if not violations:
        print(f"{label} @{width}: no violations")
    return failing


def tournament(name: str, players, **fields) -> Tournament:
    t = Tournament.objects.create(
        name=name,
        opened_by=players[-1],  # not the test's viewer, who opens events of their own
        variant="chess",
        base_seconds=300,
        increment_seconds=0,
        cadence="blitz",
        starts_at=fields.pop("starts_at", timezone.now() + timedelta(hours=1)),
        **fields,
    )
    for player in players:
        Registration.objects.create(tournament=t, player=player)
    return t


def finish_live_games(t: Tournament) -> None:
    games = Game.objects.filter(event_type__model="tournament", event_id=t.pk, status="live")
    for game in games:
        game_resign(game_id=game.pk, user_id=game.black_id)


def ran(t: Tournament) -> Tournament:
    """The tournament started and played to its end by this test (every game resigned by
    Black, each round's pause passed at once)."""
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now(), next_due_at=None)
    assert running.tournament_start(tournament_id=t.pk)
    for _ in range(12):
        finish_live_games(t)
        t.refresh_from_db()
        if t.status == Tournament.Status.FINISHED:
            break
        t.rounds.filter(ended_at__isnull=False).update(
            ended_at=timezone.now() - timedelta(minutes=5)
        )
        running.tournament_advance(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED, t.status
    return t


def test_every_page_has_no_serious_or_critical_axe_violation(site, browser):
    staff = UserFactory(username="a11y_staff", is_staff=True, is_superuser=True)
    viewer = UserFactory(username="a11y_lettore")
    others = [UserFactory(username=f"a11y_{n}") for n in range(12)]
    live, finished = {}, {}
    for i, variant in enumerate(v.code for v in VARIANTS):
        white, black = UserFactory(username=f"a11y_w_{variant}"), others[i]
        # Opened at the factories' fixed instant, ahead of now: the suite's beat never aborts
        # them for a first move not made while the test walks the other pages.
        live[variant] = (open_game(white=white, black=black, variant_code=variant), white)
        done = open_game(white=others[i + 4], black=others[i + 8], variant_code=variant)
        game_resign(game_id=done.pk, user_id=done.black_id)
        finished[variant] = done
    before = tournament("Torneo in programma", [viewer, *others[:3]])
    during = tournament("Torneo in corso", others[:4])
    Tournament.objects.filter(pk=during.pk).update(starts_at=timezone.now(), next_due_at=None)
    assert running.tournament_start(tournament_id=during.pk)
    after = ran(tournament("Torneo concluso", others[4:8]))
    # A chat with lines (docs/rules.md §9), one of them reported to the staff.
    said = chat_services.say(kind="tournament", pk=during.pk, part="event",
                             viewer=chat_rooms.viewer_of(others[0]), text="Buona fortuna a tutti!")  # fmt: skip
    chat_services.report(kind="tournament", pk=during.pk, line_id=said["line"],
                         viewer=chat_rooms.viewer_of(viewer))  # fmt: skip
    now = timezone.now()
    arena_on = ArenaFactory(name="Arena in corso", starts_at=now, duration_minutes=60)
    arena_off = ArenaFactory(
        name="Arena conclusa", starts_at=now - timedelta(hours=3), duration_minutes=60
    )
    for arena, players in ((arena_on, others[8:10]), (arena_off, others[10:12])):
        for player in players:
            EntryFactory(arena=arena, player=player, waiting_since=arena.starts_at)
        # Started and paired, here or by the suite's beat, whichever comes first.
        arena_advance(arena_id=arena.pk, now=arena.starts_at)
    arena_advance(arena_id=arena_off.pk, now=now)  # past its end and grace: closed
    arena_on.refresh_from_db()
    arena_off.refresh_from_db()
    assert (arena_on.status, arena_off.status) == ("running", "finished")
    # Fair play (docs/rules.md §15): a player under review on an arena's standings, and the
    # report of an event whose one machine-flat player is flagged, another marked.
    Review.objects.create(kind="arena", event_id=arena_off.pk, player=others[10], under_review=True)
    fair, fair_players, _machine = fabricated_event(players=8, games_each=4)
    Review.objects.create(kind="arena", event_id=fair.pk, player=fair_players[0], under_review=True)
    # Its engine figures: most games analysed, the rest to ask for (the report's button).
    fair_analysis, *_ = with_analyses(fair, random.Random(1), fair_players[1], games=12)
    event_games(fair).filter(moves=[]).update(moves=["e2e4"])

    # The computer analysis (RULES 14): a game of the viewer's analysed (the engine run here,
    # inline), another not yet.
    analysed, unanalysed = mated(viewer, UserFactory()), mated(viewer, UserFactory())
    assert analysis_request(user=viewer, game_id=analysed.pk).analysis

    # A club (docs/rules.md §12): the viewer its president, the running arena's two players its
    # members (their short name beside their names), a request waiting.
    club = club_with(president=viewer, members=others[8:10], name="Circolo Accessibile",
                     short_name="CACC", description="Giovedì sera, sala al primo piano.")  # fmt: skip
    club_services.request_create(club_id=club.pk, user=others[0])
    # An over-the-board tournament (RULES 13) the viewer arbitrates: round 1 published, one
    # result typed, round 2's draft not.
    otb = otb_field(viewer)
    otb_services.round_pair(tournament_id=otb.pk, by=viewer)
    otb_services.round_publish(tournament_id=otb.pk, by=viewer, number=1)
    otb_services.result_set(tournament_id=otb.pk, by=viewer, number=1, board=1, typed="=")

    axe = Axe()
    failing: list[str] = []
    context = browser.new_context(locale="it-IT", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    # No page writes an error in the console (a failed request, an exception, htmx's own):
    # each is reported with the page it came from.
    where = {"label": "start"}
    page.on(
        "console",
        lambda m: (
            failing.append(f"{where['label']}: console error: {m.text}")
            if m.type == "error"
            and not (where.get("status") and f"status of {where['status']}" in m.text)
            else None
        ),
    )
    page.on("pageerror", lambda e: failing.append(f"{where['label']}: page error: {e}"))

    def as_user(user) -> None:
        context.clear_cookies()
        if user is not None:
            context.add_cookies([session_cookie(site, user.username)])

    def check(label: str) -> None:
        admin = page.url.startswith(site + "/admin/")
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            # The new width laid out: two frames later the page has its narrow layout.
            page.evaluate(
                "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
            )
            violations = violations_of(axe, page, preload=not admin)
            failing.extend(report(label, width, violations))
            if width < 500 and page.evaluate(CLIPPED_LISTS):
                failing.append(f"{label} @{width}: a list of events or games wider than the page")
        missing = [] if admin else page.evaluate(MISSING_REFERENCES)
        if missing:
            failing.append(f"{label}: aria references to no element: {missing}")
        page.set_viewport_size({"width": 1280, "height": 900})

    def visit(label: str, path: str) -> None:
        where["label"] = label
        page.goto(site + path)
        # Its own requests answered (the site's notices, a fragment) before it is left: one
        # cut short by the next page would be the test's doing, not the page's.
        page.wait_for_load_state("networkidle")
        check(label)

    try:
        # Signed out: the home page, sign-up and log-in, with and without errors.
        as_user(None)
        visit("home (signed out)", "/")
        visit("log-in", "/accounts/login/")
        page.get_by_label("Nome utente").fill("nessuno_qui")
        page.get_by_label("Password", exact=True).fill("sbagliata")
        page.get_by_role("button", name="Accedi").last.click()
        expect(page.locator(".form-errors, .has-error, [role=alert]").first).to_be_visible()
        check("log-in with errors")
        visit("sign-up", "/accounts/signup/")
        page.get_by_label("Nome utente").fill("a11y_nuovo")
        page.get_by_label("Password", exact=True).fill("alfiere-in-c4!")
        page.get_by_label("Ripeti la password").fill("alfiere-in-c5!")
        page.get_by_role("button", name="Crea l'account").click()
        expect(page.locator(".has-error").first).to_be_visible()
        check("sign-up with errors")

        # A guest sees other pages than a player (the lobby's grid disabled, no join buttons),
        # and the error pages have a look of their own.
        visit("lobby (guest)", "/play/")
        visit("tournament before (guest)", f"/tournaments/{before.pk}/")
        visit("tournament during (guest)", f"/tournaments/{during.pk}/")
        visit("arena running (guest)", f"/arenas/{arena_on.pk}/")
        visit("finished chess (guest)", f"/games/{finished['chess'].pk}/")
        visit("player page (guest)", f"/@/{others[4].username}/")
        visit("password reset", "/accounts/password/reset/")
        page.get_by_label("E-mail").fill("non-un-indirizzo")
        page.get_by_role("button", name="Mandami il link").click()
        expect(page.locator(".has-error").first).to_be_visible()
        check("password reset with errors")
        # The browser's console line for the page's own status is no fault.
        where.update(label="404", status="404")
        page.goto(site + "/questa-pagina-non-esiste/")
        check("404")
        where.pop("status")

        # A player: the home and lobby, the lists, the events in every state.
        as_user(viewer)
        visit("home", "/")
        visit("lobby", "/play/")
        visit("games being played", "/games/")
        visit("players", "/players/")
        visit("player page", f"/@/{others[4].username}/")
        visit("tournaments", "/tournaments/")
        visit("arenas", "/arenas/")
        visit("ratings", "/ratings/")
        visit("leaderboard", "/ratings/chess/blitz/")
        visit("tournament before", f"/tournaments/{before.pk}/")
        visit("tournament during", f"/tournaments/{during.pk}/")
        # The chat's lines come over its socket: with them, and a line's menu open.
        page.locator(".chat-actions summary").first.click()
        expect(page.get_by_test_id("chat-mute").first).to_be_visible()
        check("tournament chat with a line's menu open")
        visit("tournament after", f"/tournaments/{after.pk}/")
        visit("tournament player", f"/tournaments/{after.pk}/player/1/")
        visit("tournament round", f"/tournaments/{after.pk}/round/1/")
        visit("tournament print", f"/tournaments/{after.pk}/print/")
        visit("guide without the board", "/guida/senza-scacchiera/")
        visit("otb list", "/tavolino/")
        visit("otb new", "/tavolino/nuovo/")
        visit("otb desk", f"/tavolino/{otb.pk}/arbitro/")
        visit("otb round sheet", f"/tavolino/{otb.pk}/turno/1/")
        visit("otb public", f"/tavolino/{otb.pk}/")
        for label, path in (
            ("pairings", "abbinamenti/1/"),
            ("standings", "classifica/"),
            ("cross table", "tabellone/"),
            ("board labels", "cartellini/1/"),
            ("result slips", "foglietti/1/"),
        ):
            visit(f"otb print {label}", f"/tavolino/{otb.pk}/stampa/{path}")
        visit("otb rating report", f"/tavolino/{otb.pk}/elo/")
        visit("arena running", f"/arenas/{arena_on.pk}/")
        visit("arena ended", f"/arenas/{arena_off.pk}/")
        visit("clubs", "/clubs/")
        visit("club page", f"/clubs/{club.pk}/")
        visit("club management", f"/clubs/{club.pk}/manage/")
        page.goto(f"{site}/clubs/{club.pk}/edit/")
        page.locator("#id_name").fill("")
        where.update(label="club edit with errors", status="400")
        page.locator("form[data-testid=club-form] button[type=submit]").click()
        expect(page.locator(".has-error").first).to_be_visible()
        check("club edit with errors")
        where.pop("status")
        visit("account", "/accounts/settings/")
        # Its forms refused: the labels, the errors read with their fields (two password fields
        # on one page, each named by its own label).
        page.locator("#id_email").fill("nuovo@example.org")
        page.locator("#id_password").fill("sbagliata")
        where.update(label="account, address change refused", status="400")
        page.locator("#id_password").evaluate("el => el.form.requestSubmit()")
        expect(page.locator(".has-error").first).to_be_visible()
        check("account, address change refused")
        where.pop("status")
        for kind in ("tournaments", "arenas"):
            page.goto(f"{site}/{kind}/new/")
            page.locator("#event-form input[name=name]").fill("")  # the form is `novalidate`
            page.locator("#event-form button[type=submit]").click()
            expect(page.locator(".has-error").first).to_be_visible()
            check(f"new {kind} with errors")

        # Each variant's game, live as its player sees it, and finished.
        for variant, (game, white) in live.items():
            as_user(white)
            visit(f"live {variant}", f"/games/{game.pk}/")
        as_user(viewer)
        for variant, game in finished.items():
            visit(f"finished {variant}", f"/games/{game.pk}/")
            visit(f"analysis {variant}", f"/games/{game.pk}/analysis/")
        where["label"] = "computer analysis done"
        page.goto(f"{site}/games/{analysed.pk}/analysis/")
        expect(page.get_by_test_id("eval-graph").locator("svg")).to_have_count(1)  # drawn
        page.wait_for_load_state("networkidle")
        check("computer analysis done")
        visit("finished chess, analysis offered", f"/games/{unanalysed.pk}/")
        visit("free analysis board", "/analysis/")
        page.get_by_test_id("paste-text").fill("not a position")
        where.update(label="free board, paste refused", status="400")
        page.get_by_test_id("paste-submit").click()
        expect(page.get_by_test_id("paste-error")).to_be_visible()
        check("free board, paste refused")
        where.pop("status")

        # The staff: the admin's pages of the site's own models.
        as_user(staff)
        visit("admin", "/admin/")
        visit("fair-play report", f"/fairplay/arena/{fair.pk}/")
        visit("fair-play report (running tournament)", f"/fairplay/tournament/{during.pk}/")
        admin_pages = {
            "accounts/user": staff.pk,
            "tournaments/tournament": after.pk,
            "arena/arena": arena_off.pk,
            "games/game": finished["chess"].pk,
            "chat/report": Report.objects.get().pk,
            "clubs/club": club.pk,
            "analysis/gameanalysis": fair_analysis.pk,
        }
        for model, pk in admin_pages.items():
            visit(f"admin {model} list", f"/admin/{model}/")
            visit(f"admin {model} change", f"/admin/{model}/{pk}/change/")
        visit("admin chat silence add", "/admin/chat/silence/add/")
        no_csp_violations(page, browser)
    finally:
        context.close()
    assert not failing, (
        "serious or critical axe violations, missing references, console errors:\n"
        + "\n".join(failing)
    )
