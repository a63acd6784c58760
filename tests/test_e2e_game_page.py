"""End to end in Chromium: what a player expects of the game page besides the board.

The imposed opening and the numbering of the moves after it, move-list navigation, ratings and
their change, the mated and stalemated king, the draw claim only when possible, the reasons a
move is refused, premoves, sounds and the low-time warning with a mute switch the browser
remembers, the rematch, and a page that fits a phone.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from accounts.models import User
from games.rules import variant
from games.services import game_move, game_open
from tests.browser import chess_move, click_chess, draughts_move, to_board

pytestmark = pytest.mark.e2e


def open_between(names, variant_code="chess", *, start_fen=None, base=600, rated=False, **more):
    white, black = (User.objects.get(username=name) for name in names)
    return game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code=variant_code,
        base_seconds=base,
        increment_seconds=0,
        rated=rated,
        start_fen=start_fen,
        **more,
    )


def play(game, *moves):
    """Moves played by the two players through the services (as their sockets would)."""
    rules = variant(game.variant)
    game.refresh_from_db()
    for move in moves:
        mover = game.white_id if rules.side_to_move(game.fen).value == "white" else game.black_id
        game = game_move(game_id=game.pk, user_id=mover, expected_ply=game.ply, move=move)
    return game


def finish(game):
    """The game ends (White resigns through the service): one board at a time (RULES 1), so
    the players can start another."""
    from games.services import game_resign

    game.refresh_from_db()
    if game.is_live:
        game_resign(game_id=game.pk, user_id=game.white_id)


def visit(site, game, *pages):
    for page in pages:
        to_board(page, site, game.pk)
        expect(page.locator('.presence[data-side="bottom"]')).to_have_class(re.compile(r"\bon\b"))


def test_an_imposed_opening_is_shown_and_the_moves_numbered_from_it(site, two_players):
    """The defect: an Italian game from a drawn opening (23-19 11-15 28-23, Black to move)
    showed an empty list, then Black's moves in White's column."""
    (anna, bruno), names = two_players
    rules = variant("italian")
    opening = ["23-19", "11-15", "28-23"]
    fen = rules.start_fen()
    for move in opening:
        fen = rules.apply(fen, move)
    game = open_between(names, "italian", start_fen=fen, opening_moves=opening)
    visit(site, game, anna, bruno)
    expect(anna.get_by_test_id("opening")).to_contain_text("3 mosse a caso")
    rows = anna.get_by_test_id("moves").locator("li")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_have_attribute("data-n", "1")
    expect(rows.nth(0)).to_have_text(re.compile(r"^\s*23-19\s+11-15\s*$"))
    expect(anna.get_by_test_id("moves").locator(".mv.imposed")).to_have_count(3)
    # Black's first move goes beside 28-23, in Black's column of move 2.
    draughts_move(bruno, 9, 13)
    expect(rows.nth(1)).to_have_text(re.compile(r"^\s*28-23\s+9-13\s*$"))
    draughts_move(anna, 22, 18)
    expect(rows).to_have_count(3)
    expect(rows.nth(2)).to_have_attribute("data-n", "3")
    expect(rows.nth(2)).to_contain_text("22-18")

    # Navigation: back a move with the arrow key, to the start, and back to the game.
    anna.keyboard.press("ArrowLeft")
    # Named by the move as the list numbers it (Black's 9-13 in move 2), not "mossa 1".
    expect(anna.get_by_test_id("viewing")).to_have_text(
        re.compile(r"^Stai guardando la mossa 2… 9-13:\s*torna alla partita$")
    )
    expect(anna.locator('#board g[data-square="22"] .piece')).to_have_count(1)
    expect(anna.locator('#board g[data-square="18"] .piece')).to_have_count(0)
    anna.get_by_role("button", name="Inizio").click()
    expect(anna.get_by_test_id("viewing")).to_contain_text("dopo l’apertura imposta")
    expect(anna.locator('#board g[data-square="9"] .piece')).to_have_count(1)
    expect(anna.locator('#board g[data-square="13"] .piece')).to_have_count(0)
    anna.get_by_test_id("moves").locator('.mv[data-ply="1"]').click()  # a move in the list
    expect(anna.locator('#board g[data-square="13"] .piece')).to_have_count(1)
    expect(anna.locator('#board g[data-square="22"] .piece')).to_have_count(1)
    anna.keyboard.press("End")
    expect(anna.get_by_test_id("viewing")).to_be_hidden()
    expect(anna.locator('#board g[data-square="18"] .piece')).to_have_count(1)
    # The same on a finished game.
    anna.on("dialog", lambda dialog: dialog.accept())
    anna.get_by_test_id("resign").click()
    expect(bruno.get_by_test_id("result")).to_contain_text("resa")
    bruno.reload()
    bruno.get_by_role("button", name="Indietro").click()
    expect(bruno.get_by_test_id("viewing")).to_contain_text("mossa 2… 9-13")


def test_ratings_beside_the_names_and_the_change_at_the_end(site, two_players):
    (anna, bruno), names = two_players
    game = open_between(names, base=300, rated=True)
    visit(site, game, anna, bruno)
    expect(anna.get_by_test_id("rating-bottom")).to_have_text("1500")
    expect(anna.get_by_test_id("rating-top")).to_have_text("1500")
    # The clocks are drawn ten times a second, but the page is written only where they change:
    # above 10 s the running clock's figure once a second (it was every clock and presence
    # mark ten times a second, style and layout work for nothing on every open game page).
    assert player_bar_changes(anna, 1500) < 8
    bruno.on("dialog", lambda dialog: dialog.accept())
    bruno.get_by_test_id("resign").click()
    # Rated by the worker after the game ended; the pages hear it and show the change.
    expect(anna.get_by_test_id("rating-bottom")).to_have_text(re.compile(r"^1500 \+\d+$"))
    expect(anna.get_by_test_id("rating-top")).to_have_text(re.compile(r"^1500 −\d+$"))
    expect(bruno.get_by_test_id("rating-bottom")).to_have_text(re.compile(r"^1500 −\d+$"))
    expect(anna.get_by_test_id("rating-bottom")).to_have_class(re.compile(r"\bup\b"))
    assert player_bar_changes(anna, 1500) == 0  # a finished game's page stands still


def player_bar_changes(page, ms: int) -> int:
    """How many changes the page makes to its player bars (names, ratings, presence, clocks)
    in `ms` milliseconds, counted by a MutationObserver."""
    return page.evaluate(
        """(ms) => new Promise((done) => {
            let changes = 0;
            const seen = new MutationObserver((records) => { changes += records.length; });
            for (const bar of document.querySelectorAll(".player-bar")) {
                seen.observe(bar, {subtree: true, childList: true, characterData: true, attributes: true});
            }
            setTimeout(() => { seen.disconnect(); done(changes); }, ms);
        })""",
        ms,
    )


def test_the_mated_and_the_stalemated_king_are_marked(site, two_players):
    (anna, bruno), names = two_players
    mate = play(open_between(names), "f2f3", "e7e5", "g2g4", "d8h4")
    to_board(anna, site, mate.pk)
    expect(anna.get_by_test_id("result")).to_contain_text("scacco matto")
    expect(anna.locator("cg-board square.mate")).to_have_count(1)
    expect(anna.locator("cg-board square.check")).to_have_count(1)
    finish(mate)
    stalemate = open_between(names, start_fen="7k/8/6K1/8/8/8/8/5Q2 w - - 0 1")
    to_board(anna, site, stalemate.pk)
    expect(anna.locator("cg-board square.stalemate")).to_have_count(0)
    play(stalemate, "f1f7")
    expect(anna.get_by_test_id("result")).to_contain_text("stallo")
    expect(anna.locator("cg-board square.stalemate")).to_have_count(1)
    expect(anna.locator("cg-board square.mate")).to_have_count(0)


def test_the_draw_claim_is_offered_only_when_a_claim_is_possible(site, two_players):
    (anna, bruno), names = two_players
    game = open_between(names)
    visit(site, game, anna)
    claim = anna.get_by_test_id("draw-claim")
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]
    play(game, *shuffle)
    expect(anna.get_by_test_id("moves")).to_contain_text("Cg1")
    expect(claim).to_be_hidden()  # Black to move, and no repetition yet
    play(game, "f6g8")  # the start position for the third time, White to move
    expect(claim).to_be_visible()
    claim.click()
    expect(anna.get_by_test_id("result")).to_contain_text("½-½")
    expect(anna.get_by_test_id("result")).to_contain_text("triplice ripetizione")


def test_a_refused_move_says_why(site, two_players):
    (anna, bruno), names = two_players
    # Italian draughts, White must take 22x13: the other man may not move.
    game = open_between(names, "italian", start_fen="W:W22,29:B18,3")
    visit(site, game, anna, bruno)
    anna.locator('#board g[data-square="29"]').click()
    expect(anna.get_by_test_id("notice")).to_contain_text("La presa è obbligatoria")
    # Not Black's turn: a click on the opponent's man says so (and how to premove).
    bruno.locator('#board g[data-square="22"]').click()
    expect(bruno.get_by_test_id("notice")).to_contain_text("Tocca al tuo avversario")

    # A move the server refuses (the page missed a change): the reason, then the right board.
    finish(game)
    again = open_between(names, "italian")
    dropped = []

    def drop_first_state_after_a_move(ws):
        server = ws.connect_to_server()

        def from_server(message):
            data = json.loads(message)
            if data.get("type") in ("state", "played") and data.get("ply") == 1 and not dropped:
                dropped.append(data["version"])  # lost on the way, as over a broken pub/sub
                return
            ws.send(message)

        server.on_message(from_server)
        ws.on_message(lambda message: server.send(message))

    anna.route_web_socket(re.compile(r"/ws/page/game/"), drop_first_state_after_a_move)
    visit(site, again, anna)
    draughts_move(anna, 22, 18)
    draughts_move(anna, 21, 17)  # the page still thinks it is White's move
    notice = anna.get_by_test_id("notice")
    expect(notice).to_contain_text("la partita era già andata avanti")
    expect(anna.get_by_test_id("moves")).to_have_text(re.compile(r"^\s*22-18\s*$"))
    assert dropped


NOTICES = """() => {
  window.notices = [];
  const el = document.getElementById("notice");
  new MutationObserver(() => { if (!el.hidden) window.notices.push(el.textContent); })
    .observe(el, { attributes: true, childList: true, characterData: true, subtree: true });
}"""


def test_a_move_made_by_clicking_is_not_called_refused(site, two_players):
    """The click that puts a chess piece on its square is not read as picking a piece that
    cannot move (chessground reports it as a selection, before the server's answer), nor, for
    a player in check, as a piece that does not parry it. Every notice shown is recorded."""
    (anna, bruno), names = two_players
    game = open_between(names)
    visit(site, game, anna, bruno)
    for page in (anna, bruno):
        page.evaluate(NOTICES)
    chess_move(anna, "e2e4", "white")
    expect(bruno.get_by_test_id("moves")).to_contain_text("e4")
    chess_move(bruno, "e7e5", "black")
    expect(anna.get_by_test_id("moves")).to_contain_text("e5")
    play(game, "d1h5", "b8c6", "h5f7")  # Black in check, the king may take
    expect(bruno.get_by_test_id("moves")).to_contain_text("Dxf7+")
    chess_move(bruno, "e8f7", "black")
    expect(anna.get_by_test_id("moves")).to_contain_text("Rxf7")
    bruno.wait_for_timeout(300)
    assert anna.evaluate("window.notices") == []
    assert bruno.evaluate("window.notices") == []
    finish(game)


def test_premoves_in_chess_and_draughts(site, two_players):
    (anna, bruno), names = two_players
    game = open_between(names)
    visit(site, game, anna, bruno)
    chess_move(anna, "e2e4", "white")
    expect(bruno.get_by_test_id("moves")).to_contain_text("e4")
    # Black thinks; White queues d2-d4, played the moment Black has moved.
    chess_move(anna, "d2d4", "white")
    expect(anna.get_by_test_id("notice")).to_contain_text("Premossa pronta")
    chess_move(bruno, "e7e5", "black")
    expect(bruno.get_by_test_id("moves")).to_contain_text("d4")
    chess_move(bruno, "e5d4", "black")
    expect(anna.get_by_test_id("moves")).to_contain_text("exd4")
    chess_move(anna, "g1f3", "white")
    expect(bruno.get_by_test_id("moves")).to_contain_text("Cf3")
    # One that Black's move makes impossible (a check) is dropped, and the page says so.
    chess_move(anna, "f3d4", "white")
    chess_move(bruno, "f8b4", "black")
    expect(anna.get_by_test_id("notice")).to_contain_text("Premossa annullata")
    expect(anna.get_by_test_id("moves")).not_to_contain_text("Cxd4")
    chess_move(anna, "c2c3", "white")
    expect(bruno.get_by_test_id("moves")).to_contain_text("c3")
    # Cancelled with Esc: nothing is played for White.
    chess_move(anna, "f3d4", "white")
    anna.keyboard.press("Escape")
    chess_move(bruno, "d4c3", "black")
    expect(anna.get_by_test_id("moves")).to_contain_text("dxc3")
    expect(anna.get_by_test_id("moves")).not_to_contain_text("Cxd4")

    finish(game)
    # Draughts: a man picked, then its square, while the opponent thinks.
    for black_reply, played in (("10-13", True), ("11-14", False)):
        dama = open_between(names, "italian")
        visit(site, dama, anna, bruno)
        draughts_move(anna, 22, 18)
        expect(bruno.get_by_test_id("moves")).to_contain_text("22-18")
        draughts_move(anna, 21, 17)  # premove
        expect(anna.locator("#board .sq.premove")).to_have_count(2)
        draughts_move(bruno, *(int(n) for n in black_reply.split("-")))
        if played:
            expect(bruno.get_by_test_id("moves")).to_contain_text("21-17")
        else:  # 11-14 makes 18x11 compulsory: the premove is dropped
            expect(anna.get_by_test_id("notice")).to_contain_text("Premossa annullata")
            expect(anna.get_by_test_id("moves")).not_to_contain_text("21-17")
        anna.on("dialog", lambda dialog: dialog.accept())
        anna.get_by_test_id("resign").click()
        expect(anna.get_by_test_id("result")).to_be_visible()


def sounds(page) -> int:
    return int(page.get_by_test_id("board").evaluate("b => b.closest('#game').dataset.sounds || 0"))


def test_sounds_low_time_and_a_mute_switch_the_browser_remembers(site, two_players):
    (anna, bruno), names = two_players
    # A nine-second game: White's clock is low from the start, and says so.
    short = open_between(names, base=9)
    to_board(anna, site, short.pk)
    expect(anna.get_by_test_id("clock-bottom")).to_have_class(re.compile(r"\blow\b"))
    expect(anna.locator("#game")).to_have_attribute("data-last-sound", "lowtime")
    finish(short)

    game = open_between(names, "italian", start_fen="B:W22,29:B18,3")
    visit(site, game, anna)
    before = sounds(anna)
    play(game, "18x27")  # a capture
    expect(anna.locator("#game")).to_have_attribute("data-last-sound", "capture")
    assert sounds(anna) == before + 1
    play(game, "29-25")  # anna's man, moved through the service: a move sound
    expect(anna.locator("#game")).to_have_attribute("data-last-sound", "move")
    toggle = anna.get_by_test_id("sound-toggle")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    anna.reload()  # remembered by the browser
    expect(anna.get_by_test_id("sound-toggle")).to_have_attribute("aria-pressed", "false")
    play(game, "3-7")
    expect(anna.get_by_test_id("moves")).to_contain_text("3-7")
    assert sounds(anna) == 0  # muted: nothing played on this page


def test_rematch_offered_and_accepted_on_the_game_page(site, two_players):
    (anna, bruno), names = two_players
    game = open_between(names, base=300)
    visit(site, game, anna, bruno)
    anna.on("dialog", lambda dialog: dialog.accept())
    anna.get_by_test_id("resign").click()
    anna.get_by_test_id("rematch-offer").click()
    expect(anna.get_by_test_id("rematch-waiting")).to_contain_text(names[1])
    offer = bruno.get_by_test_id("rematch-offered-to-me")
    expect(offer).to_contain_text(names[0])
    expect(bruno.get_by_test_id("challenge-notice")).to_have_count(0)  # not twice
    offer.get_by_test_id("rematch-accept").click()
    expect(bruno).not_to_have_url(f"{site}/games/{game.pk}/")
    new_url = bruno.url
    assert re.search(r"/games/\d+/$", new_url)
    expect(anna).to_have_url(new_url)  # taken there by the site socket
    # Colours swapped: Anna had White, now Bruno has.
    expect(bruno.locator("#game")).to_have_attribute("data-my-color", "white")
    expect(anna.locator("#game")).to_have_attribute("data-my-color", "black")


def test_the_game_page_fits_a_phone(site, browser, two_players):
    (anna, bruno), names = two_players
    game = open_between(names, rated=True)
    visit(site, game, bruno)  # the opponent connected: both bars say so
    phone = browser.new_context(
        locale="it-IT", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    try:
        page = phone.new_page()
        page.context.add_cookies(anna.context.cookies())
        to_board(page, site, game.pk)
        expect(page.locator("cg-board")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        board = page.get_by_test_id("board").bounding_box()
        letter = page.locator("coords.files coord").last.bounding_box()
        # The file letters sit inside the board (h was drawn beyond its right edge).
        assert (
            board["x"] <= letter["x"]
            and letter["x"] + letter["width"] <= board["x"] + board["width"] + 0.5
        )
        click_chess(page, "e2", "white")
        click_chess(page, "e4", "white")
        expect(page.get_by_test_id("moves")).to_contain_text("e4")
        # Rated, ended: the rating change joins the bar (a worker rates the game).
        finish(game)
        expect(page.get_by_test_id("rating-bottom")).to_have_text(re.compile(r"^1500 −\d+$"))
        # Each player bar stays one line: neither the rating nor the presence wraps.
        for side in ("top", "bottom"):
            name = page.locator(f'.pname[data-side="{side}"]').bounding_box()
            for part in (".prating", ".presence"):
                box = page.locator(f'{part}[data-side="{side}"]').bounding_box()
                assert box["height"] < 1.5 * name["height"], (side, part, box, name)
    finally:
        phone.close()


def test_resigning_before_the_board_has_loaded_still_resigns(site, two_players):
    """The chess board is a module loaded after the page; the socket opened only once it was
    built, so a resignation clicked in between was thrown away (seen in the tournament run:
    the result never came). Such a click now waits for the socket."""
    (anna, bruno), names = two_players
    game = open_between(names)

    def slow_board(route):
        anna.wait_for_timeout(1500)
        route.continue_()

    anna.route(re.compile(r"chessground.*\.js"), slow_board)
    anna.on("dialog", lambda dialog: dialog.accept())
    to_board(anna, site, game.pk, wait_until="domcontentloaded")
    anna.get_by_test_id("resign").click()
    expect(anna.get_by_test_id("result")).to_contain_text("0-1")
    game.refresh_from_db()
    assert (game.status, game.result) == ("finished", "0-1")
