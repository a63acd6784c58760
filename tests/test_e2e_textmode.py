"""The game page's text mode end to end (static/js/textmode.js, docs/protocol.md "Typed moves"):
two players type their moves in each of the four variants, one page in Italian and one in
English, and hear them through the page's one live region, read from Playwright's
accessibility tree (aria snapshots)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import expect

from tests.browser import game_between, shoot, to_board

SHOTS = Path(__file__).resolve().parent.parent / "var" / "shots-text"

pytestmark = pytest.mark.e2e


def announced(page, pattern: str) -> None:
    """Until the live region's lines include one matching `pattern` (a regex)."""
    # A double-quoted YAML scalar (JSON's quoting is YAML's): the pattern may hold ": ".
    line = json.dumps(f"/{pattern}/", ensure_ascii=False)
    expect(page.get_by_role("log")).to_match_aria_snapshot(f"- log:\n  - paragraph: {line}")


def shots(page, name: str) -> None:
    """The text mode on a computer's and a phone's width (SCREENSHOTS=1 only: `shoot`)."""
    if not os.environ.get("SCREENSHOTS"):
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        shoot(page, SHOTS / f"{name}-{width}.png", full_page=True)
    page.set_viewport_size(size)


def typed(page, text: str) -> None:
    box = (
        page.get_by_role("textbox", name="Mossa o comando")
        if page.anna
        else page.get_by_role("textbox", name="Move or command")
    )
    box.fill(text)
    box.press("Enter")


def test_typed_moves_in_every_variant_with_announcements(site, two_players):
    (anna, bruno), names = two_players
    anna.anna, bruno.anna = True, False
    # Bruno reads the site in English (the language cookie the switch sets).
    bruno.context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": "en", "url": site}])

    # Chess: the fool's mate, typed with Italian and English letters and as coordinates.
    game, _, _ = game_between(names, "chess")
    to_board(anna, site, game.pk, wait_until="commit")
    anna_url = anna.url
    anna.goto(anna_url + "?testo=1")
    to_board(bruno, site, game.pk)
    bruno.goto(bruno.url + "?testo=1")
    expect(anna.get_by_test_id("text-mode")).to_be_visible()
    expect(anna.get_by_role("textbox", name="Mossa o comando")).to_be_focused()
    announced(anna, "Partita contro b_.*giochi col bianco. Tocca a te.")
    announced(bruno, "Game against a_.*you play black")
    # The commands answer in the player's language; bad input says why, nothing changes.
    typed(anna, "ciao")
    announced(anna, "Non è una mossa: «ciao»")
    typed(anna, "Cf6")
    announced(anna, "«Cf6» non è valida in questa posizione")  # what was typed, said again
    typed(anna, "f3")
    announced(bruno, "^Pawn to f3$")
    announced(anna, "Hai giocato Pedone in f3")
    typed(bruno, "e7e5")
    announced(anna, "^Pedone in e5$")
    typed(anna, "pezzi nero")
    shots(anna, "chess-it")
    typed(anna, "g4")
    announced(bruno, "^Pawn to g4$")  # his page knows it is his turn
    typed(bruno, "Qh4#")
    announced(anna, "^Donna in h4, scacco matto$")
    announced(anna, "0-1 · Vince il nero")
    announced(bruno, "0-1 · Black wins")
    # How moves are said, in each language: castling, promotion, check, en passant,
    # a disambiguated piece (RULES 2 notation, read from the English SAN of `notation`).
    said = {
        ("0-0", "O-O"): ("arrocco corto", "short castling"),
        ("0-0-0+", "O-O-O+"): ("arrocco lungo, scacco", "long castling, check"),
        ("exd8C#", "exd8=N#"): (
            "Pedone e prende in d8, promuove a cavallo, scacco matto",
            "Pawn e takes d8, promotes to knight, checkmate",
        ),
        ("exd6 e.p.", "exd6 e.p."): (
            "Pedone e prende in d6, en passant",
            "Pawn e takes d6, en passant",
        ),
        ("Tad1", "Rad1"): ("Torre a in d1", "Rook a to d1"),
    }
    for pair, (italian, english) in said.items():
        assert anna.evaluate("p => circoloGamePage.speak(p)", list(pair)) == italian
        assert bruno.evaluate("p => circoloGamePage.speak(p)", list(pair)) == english
    # A capture in a known position names the piece taken.
    before = "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4"
    speak = "([p, f]) => circoloGamePage.speak(p, f)"
    assert anna.evaluate(speak, [["Axc6", "Bxc6"], before]) == "Alfiere prende il cavallo in c6"
    assert bruno.evaluate(speak, [["Axc6", "Bxc6"], before]) == "Bishop takes the knight on c6"
    typed(anna, "mosse")
    announced(anna, r"1\. f3 e5 2\. g4 Dh4#")
    typed(bruno, "p white")
    announced(bruno, "White king: e1; white queen: d1; white rooks: a1, h1")

    # Italian draughts: White (Anna) first; the squares as the federation numbers them.
    game, _, _ = game_between(names, "italian")
    anna.goto(f"{site}/games/{game.pk}/")  # `?testo=1` was for that page only: off here
    expect(anna.get_by_test_id("text-mode")).to_be_hidden()
    bruno.goto(f"{site}/games/{game.pk}/?testo=1")
    anna.get_by_test_id("text-toggle").click()  # on, and remembered on her account
    expect(anna.get_by_role("log")).to_contain_text("Modalità testo attiva.")
    typed(anna, "22-18")
    announced(bruno, "^22 to 18$")
    typed(bruno, "11-14")
    announced(anna, "^11 per 14$")
    typed(anna, "18x11")  # a capture by its ends
    announced(bruno, "^18 takes 11$")
    typed(bruno, "p")
    announced(bruno, "White men: 11, 21, .*; black men: 1, 2, .*, 10, 12.")
    shots(bruno, "italian-en")
    typed(bruno, "resign")
    announced(anna, "1-0 · Vince il bianco")

    # English draughts: Black moves first (RULES 2), squares 1-12. Anna's switch is remembered.
    game, _, _ = game_between(names, "english")
    anna.goto(f"{site}/games/{game.pk}/")
    expect(anna.get_by_test_id("text-mode")).to_be_visible()
    bruno.goto(f"{site}/games/{game.pk}/?testo=1")
    typed(bruno, "11-15")
    announced(anna, "^11 per 15$")
    typed(anna, "23-19")
    announced(bruno, "^23 to 19$")
    typed(bruno, "moves")  # Black's move and White's reply are move 1
    announced(bruno, r"^1\. 11-15 23-19\.$")
    typed(bruno, "patta")  # the Italian word works on the English page too
    announced(anna, "Il tuo avversario propone patta")
    typed(anna, "patta")
    announced(bruno, "½-½ · Draw")

    # International draughts, 10×10: squares 31-50 are White's; a capture path asked for.
    game, _, _ = game_between(names, "international", start_fen="W:W47:B31,32,41,42,5")
    anna.goto(f"{site}/games/{game.pk}/")
    bruno.clock.install()  # his page's time, to jump to low time below
    bruno.goto(f"{site}/games/{game.pk}/?testo=1")
    typed(anna, "47x47")
    announced(anna, "Quale mossa\\? 47x36x27x38x47 o 47x38x27x36x47")
    typed(anna, "47x38x27x36x47")
    announced(bruno, "^47 takes 38, takes 27, takes 36, takes 47$")
    typed(bruno, "s 5")
    announced(bruno, "Row: 1 empty, 2 empty, 3 empty, 4 empty, 5 black man")
    # His clock runs: 9 min 35 s later by his page's time, under 30 s of his 10 min are left.
    bruno.clock.fast_forward("09:35")
    announced(bruno, "^Low time: less than 30 seconds left.$")
