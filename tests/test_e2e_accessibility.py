"""End to end in Chromium: every kind of page checked by axe-core (axe-playwright-python, the
engine's own rules, WCAG 2.x A and AA), at 1280 and 390 px (issue 38). Each page's violations
are printed (rule, impact, how many nodes, the first node's selector); the test fails on any
`serious` or `critical` one, and on an aria-describedby or aria-labelledby that names no
element on the site's own pages (a field's help or error never read out). Every page is loaded
once: at 1280 px, then the same page is narrowed to 390 px and checked again (the site's layout
is CSS only, nothing reloads), in one browser context whose session cookie is swapped when
another player (or the staff) must look. The pages are checked by two tests on the same world,
each in one of the two groups of browser tests, which run side by side."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from types import SimpleNamespace

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
from teams import services as team_services
from teams.models import TeamMatch
from teams.tests.factories import match_data as team_match_data
from teams.tests.factories import open_match as open_team_match
from teams.tests.factories import side as team_side
from teams.tests.league_world import played_league
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


def world(*, staff_pages: bool) -> SimpleNamespace:
    """What the pages show: each variant's games live and finished, tournaments and arenas in
    every state, a chat with a reported line, a club, and the staff, the viewer and the players
    who make them; with `staff_pages`, what only the second test visits (a fair-play report
    with engine figures, an analysed game, an over-the-board tournament) instead of a finished
    tournament (played to its end: the first's)."""
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
    after = None if staff_pages else ran(tournament("Torneo concluso", others[4:8]))
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
    # Fair play (docs/rules.md §15): a player under review on an arena's standings.
    Review.objects.create(kind="arena", event_id=arena_off.pk, player=others[10], under_review=True)
    # A club (docs/rules.md §12): the viewer its president, the running arena's two players its
    # members (their short name beside their names), a request waiting.
    club = club_with(president=viewer, members=others[8:10], name="Circolo Accessibile",
                     short_name="CACC", description="Giovedì sera, sala al primo piano.")  # fmt: skip
    club_services.request_create(club_id=club.pk, user=others[0])
    if not staff_pages:
        return SimpleNamespace(**locals())
    # The report of an event whose one machine-flat player is flagged, another marked.
    fair, fair_players, _machine = fabricated_event(players=8, games_each=4)
    Review.objects.create(kind="arena", event_id=fair.pk, player=fair_players[0], under_review=True)
    # Its engine figures: most games analysed, the rest to ask for (the report's button).
    fair_analysis, *_ = with_analyses(fair, random.Random(1), fair_players[1], games=12)
    event_games(fair).filter(moves=[]).update(moves=["e2e4"])

    # The computer analysis (RULES 14): a game of the viewer's analysed (the engine run here,
    # inline), another not yet.
    analysed, unanalysed = mated(viewer, UserFactory()), mated(viewer, UserFactory())
    assert analysis_request(user=viewer, game_id=analysed.pk).analysis

    # An over-the-board tournament (RULES 13) the viewer arbitrates: round 1 published, one
    # result typed, round 2's draft not.
    otb = otb_field(viewer)
    otb_services.round_pair(tournament_id=otb.pk, by=viewer)
    otb_services.round_publish(tournament_id=otb.pk, by=viewer, number=1)
    otb_services.result_set(tournament_id=otb.pk, by=viewer, number=1, board=1, typed="=")

    # Team matches (RULES 16): one running between two clubs of its own, its boards' games
    # open; one the viewer's club is to play, whose line-up form its president fills.
    home, away = team_side([1900, 1800]), team_side([1850, 1750])
    running_match = open_team_match(home, away, boards=2, name="Incontro in corso")
    for club_side in (home, away):
        team_services.lineup_set(match_id=running_match.pk, by=club_side.captain,
                                 player_ids=[u.pk for u in club_side.players])  # fmt: skip
    TeamMatch.objects.filter(pk=running_match.pk).update(starts_at=timezone.now())
    assert team_services.match_start(match_id=running_match.pk)
    to_play = team_services.match_create(
        by=viewer, first_club_id=club.pk, data=team_match_data(team_side([]), boards=2)
    )
    # A league of team matches (RULES 16.8): four teams, started, some matches played.
    league = played_league("a11y")
    league_officer = league.sides[1].captain
    league_team = league.league.teams.get(club=league.sides[1].club)

    return SimpleNamespace(**locals())


@contextmanager
def checked_pages(site: str, browser) -> Iterator[SimpleNamespace]:
    """One browser context whose session cookie is swapped when another player (or the staff)
    must look: `visit` loads a page and checks it at both widths, `check` the page as it is
    now; on leaving, the pages' console errors and violations fail the test."""
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
        # The admin is Django's own layout, used by the staff at a desk: checked at 1280 only
        # (its phone layout is Django's, and each axe run is a second of the suite).
        for width in WIDTHS[:1] if admin else WIDTHS:
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
        yield SimpleNamespace(page=page, as_user=as_user, check=check, visit=visit, where=where)
        no_csp_violations(page, browser)
    finally:
        context.close()
    assert not failing, (
        "serious or critical axe violations, missing references, console errors:\n"
        + "\n".join(failing)
    )


def test_the_pages_of_guests_players_events_and_clubs_have_no_serious_violation(site, browser):
    """Signed out, a guest, a player: the home, forms with their errors, the lists, every event
    in every state, clubs, the account."""
    w = world(staff_pages=False)
    with checked_pages(site, browser) as p:
        # Signed out: the home page, sign-up and log-in, with and without errors.
        p.as_user(None)
        p.visit("home (signed out)", "/")
        p.visit("log-in", "/accounts/login/")
        p.page.get_by_label("Nome utente").fill("nessuno_qui")
        p.page.get_by_label("Password", exact=True).fill("sbagliata")
        p.page.get_by_role("button", name="Accedi").last.click()
        expect(p.page.locator(".form-errors, .has-error, [role=alert]").first).to_be_visible()
        p.check("log-in with errors")
        p.visit("sign-up", "/accounts/signup/")
        p.page.get_by_label("Nome utente").fill("a11y_nuovo")
        p.page.get_by_label("Password", exact=True).fill("alfiere-in-c4!")
        p.page.get_by_label("Ripeti la password").fill("alfiere-in-c5!")
        p.page.get_by_role("button", name="Crea l'account").click()
        expect(p.page.locator(".has-error").first).to_be_visible()
        p.check("sign-up with errors")

        # A guest sees other pages than a player (the lobby's grid disabled, no join buttons),
        # and the error pages have a look of their own.
        p.visit("lobby (guest)", "/play/")
        p.visit("tournament before (guest)", f"/tournaments/{w.before.pk}/")
        p.visit("tournament during (guest)", f"/tournaments/{w.during.pk}/")
        p.visit("arena running (guest)", f"/arenas/{w.arena_on.pk}/")
        p.visit("finished chess (guest)", f"/games/{w.finished['chess'].pk}/")
        p.visit("player page (guest)", f"/@/{w.others[4].username}/")
        p.visit("password reset", "/accounts/password/reset/")
        p.page.get_by_label("E-mail").fill("non-un-indirizzo")
        p.page.get_by_role("button", name="Mandami il link").click()
        expect(p.page.locator(".has-error").first).to_be_visible()
        p.check("password reset with errors")
        # The browser's console line for the page's own status is no fault.
        p.where.update(label="404", status="404")
        p.page.goto(site + "/questa-pagina-non-esiste/")
        p.check("404")
        p.where.pop("status")

        # A player: the home and lobby, the lists, the events in every state.
        p.as_user(w.viewer)
        p.visit("home", "/")
        p.visit("lobby", "/play/")
        p.visit("games being played", "/games/")
        p.visit("players", "/players/")
        p.visit("player page", f"/@/{w.others[4].username}/")
        p.visit("tournaments", "/tournaments/")
        p.visit("arenas", "/arenas/")
        p.visit("ratings", "/ratings/")
        p.visit("leaderboard", "/ratings/chess/blitz/")
        p.visit("tournament before", f"/tournaments/{w.before.pk}/")
        p.visit("tournament during", f"/tournaments/{w.during.pk}/")
        # The chat's lines come over its socket: with them, and a line's menu open.
        p.page.locator(".chat-actions summary").first.click()
        expect(p.page.get_by_test_id("chat-mute").first).to_be_visible()
        p.check("tournament chat with a line's menu open")
        p.visit("tournament after", f"/tournaments/{w.after.pk}/")
        p.visit("tournament player", f"/tournaments/{w.after.pk}/player/1/")
        p.visit("tournament round", f"/tournaments/{w.after.pk}/round/1/")
        p.visit("tournament print", f"/tournaments/{w.after.pk}/print/")
        p.visit("guide without the board", "/guida/senza-scacchiera/")
        p.visit("arena running", f"/arenas/{w.arena_on.pk}/")
        p.visit("arena ended", f"/arenas/{w.arena_off.pk}/")
        p.visit("clubs", "/clubs/")
        p.visit("club page", f"/clubs/{w.club.pk}/")
        p.visit("club management", f"/clubs/{w.club.pk}/manage/")
        p.page.goto(f"{site}/clubs/{w.club.pk}/edit/")
        p.page.locator("#id_name").fill("")
        p.where.update(label="club edit with errors", status="400")
        p.page.locator("form[data-testid=club-form] button[type=submit]").click()
        expect(p.page.locator(".has-error").first).to_be_visible()
        p.check("club edit with errors")
        p.where.pop("status")
        p.visit("account", "/accounts/settings/")
        # Its forms refused: the labels, the errors read with their fields (two password fields
        # on one page, each named by its own label).
        p.page.locator("#id_email").fill("nuovo@example.org")
        p.page.locator("#id_password").fill("sbagliata")
        p.where.update(label="account, address change refused", status="400")
        p.page.locator("#id_password").evaluate("el => el.form.requestSubmit()")
        expect(p.page.locator(".has-error").first).to_be_visible()
        p.check("account, address change refused")
        p.where.pop("status")
        for kind in ("tournaments", "arenas"):
            p.page.goto(f"{site}/{kind}/new/")
            p.page.locator("#event-form input[name=name]").fill("")  # the form is `novalidate`
            p.page.locator("#event-form button[type=submit]:not([name=battle_search])").click()
            expect(p.page.locator(".has-error").first).to_be_visible()
            p.check(f"new {kind} with errors")


def test_the_game_analysis_and_staff_pages_have_no_serious_violation(site, browser):
    """Each variant's game live and finished, its analysis, the computer analysis and the free
    board, the over-the-board desk and prints; the staff's fair-play reports and admin pages.
    (A test of its own in the other group of browser tests: tests/conftest.py PROCESS_GROUPS.)"""
    w = world(staff_pages=True)
    with checked_pages(site, browser) as p:
        # Each variant's game, live as its player sees it, and finished.
        for variant, (game, white) in w.live.items():
            p.as_user(white)
            p.visit(f"live {variant}", f"/games/{game.pk}/")
        p.as_user(w.viewer)
        p.visit("otb list", "/tavolino/")
        p.visit("otb new", "/tavolino/nuovo/")
        p.visit("otb desk", f"/tavolino/{w.otb.pk}/arbitro/")
        p.visit("otb round sheet", f"/tavolino/{w.otb.pk}/turno/1/")
        p.visit("otb public", f"/tavolino/{w.otb.pk}/")
        for label, path in (
            ("pairings", "abbinamenti/1/"),
            ("standings", "classifica/"),
            ("cross table", "tabellone/"),
            ("board labels", "cartellini/1/"),
            ("result slips", "foglietti/1/"),
        ):
            p.visit(f"otb print {label}", f"/tavolino/{w.otb.pk}/stampa/{path}")
        p.visit("otb rating report", f"/tavolino/{w.otb.pk}/elo/")
        for variant, game in w.finished.items():
            p.visit(f"finished {variant}", f"/games/{game.pk}/")
            p.visit(f"analysis {variant}", f"/games/{game.pk}/analysis/")
        p.where["label"] = "computer analysis done"
        p.page.goto(f"{site}/games/{w.analysed.pk}/analysis/")
        expect(p.page.get_by_test_id("eval-graph").locator("svg")).to_have_count(1)  # drawn
        p.page.wait_for_load_state("networkidle")
        p.check("computer analysis done")
        p.visit("finished chess, analysis offered", f"/games/{w.unanalysed.pk}/")
        p.visit("team match running", f"/incontri/{w.running_match.pk}/")
        p.visit("team match line-up", f"/incontri/{w.to_play.pk}/formazione/")
        # A league (RULES 16.8), as an officer of one of its teams' clubs sees it: its page,
        # print, the team's form, the open form and its refusal.
        p.as_user(w.league_officer)
        league_url = f"/incontri/campionati/{w.league.league.pk}/"
        p.visit("league page", league_url)
        p.visit("league print", f"{league_url}stampa/")
        p.visit("league team form", f"{league_url}squadre/{w.league_team.pk}/")
        p.visit("league open form", "/incontri/campionati/nuovo/")
        p.page.locator("#event-form input[name=name]").fill("")
        p.where.update(label="league open form with errors", status="400")
        p.page.get_by_test_id("league-open").click()
        expect(p.page.locator(".has-error").first).to_be_visible()
        p.check("league open form with errors")
        p.where.pop("status")
        p.as_user(w.viewer)
        p.visit("free analysis board", "/analysis/")
        p.page.get_by_test_id("paste-text").fill("not a position")
        p.where.update(label="free board, paste refused", status="400")
        p.page.get_by_test_id("paste-submit").click()
        expect(p.page.get_by_test_id("paste-error")).to_be_visible()
        p.check("free board, paste refused")
        p.where.pop("status")

        # The staff: the admin's pages of the site's own models.
        p.as_user(w.staff)
        p.visit("admin", "/admin/")
        p.visit("fair-play report", f"/fairplay/arena/{w.fair.pk}/")
        p.visit("fair-play report (running tournament)", f"/fairplay/tournament/{w.during.pk}/")
        admin_pages = {
            "accounts/user": w.staff.pk,
            "tournaments/tournament": w.during.pk,
            "arena/arena": w.arena_off.pk,
            "games/game": w.finished["chess"].pk,
            "chat/report": Report.objects.get().pk,
            "clubs/club": w.club.pk,
            "analysis/gameanalysis": w.fair_analysis.pk,
        }
        for model, pk in admin_pages.items():
            p.visit(f"admin {model} list", f"/admin/{model}/")
            p.visit(f"admin {model} change", f"/admin/{model}/{pk}/change/")
        p.visit("admin chat silence add", "/admin/chat/silence/add/")
