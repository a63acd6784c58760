"""Hostile names cannot break a PGN or PDN export. Every header value is escaped
(PGN 7: backslash and double quote) and kept on one line with nothing hidden; the result is
parsed back by python-chess's PGN reader (chess) or checked tag by tag (PDN)."""

import io
import re

import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import Result, variant
from games.rules.base import plain_text, tag_pair, tag_value

HOSTILE = [
    "Cup\nXXR 99\n001    1      Evil                              2000",
    "ends with a backslash \\",
    'has "quotes" and \\" an escaped one',
    "\u202eexe.tset",  # right-to-left override
    "nul\x00inside",
    "carriage\rreturn\r\n and tab\there",
    "line\u2028and paragraph\u2029separators, \x85next line, \x0bvertical tab",
    "zero\u200bwidth and \ufeffBOM",
    ']\n[Event "Injected"]\n\n1. e4 *',
    "lone surrogate \ud800 here",
    "Ünïcödé, 国际象棋, emoji ♟️",
    "x" * 300,
    "",
]
TAG = re.compile(r'\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*) "((?:[^"\\]|\\.)*)"\]\Z')


def unescaped(value: str) -> str:
    """A PGN string token's contents as text (PGN 7)."""
    return re.sub(r"\\(.)", r"\1", value)


def expected(value: str) -> str:
    return plain_text(value)[:255].rstrip()


def headers_for(value: str) -> dict[str, str]:
    return {"Event": value, "Site": value, "White": value, "Black": "b" + value}


def check_chess(value: str) -> None:
    moves = ["e2e4", "e7e5", "g1f3"]
    text = variant("chess").export(moves, headers=headers_for(value), result=Result.DRAW)
    handle = io.StringIO(text)
    game = chess.pgn.read_game(handle)
    assert game is not None and not game.errors
    assert chess.pgn.read_game(handle) is None  # one game, nothing injected after it
    assert [m.uci() for m in game.mainline_moves()] == moves
    assert game.headers["Result"] == "1/2-1/2"
    for key, sent in headers_for(value).items():
        assert unescaped(game.headers[key]) == expected(sent)
    header_lines = text.split("\n\n")[0].splitlines()
    assert all(TAG.match(line) for line in header_lines)
    assert sorted(TAG.match(line).group(1) for line in header_lines) == sorted(game.headers)


@pytest.mark.parametrize("value", HOSTILE)
def test_pgn_headers_read_back_as_sent(value: str) -> None:
    check_chess(value)


@pytest.mark.parametrize("code", ["italian", "english", "international"])
@pytest.mark.parametrize("value", HOSTILE)
def test_pdn_headers_stay_one_per_tag(code: str, value: str) -> None:
    rules = variant(code)
    move = rules.legal_moves(rules.start_fen())[0]
    text = rules.export([move], headers=headers_for(value), result=Result.WHITE_WINS)
    head, body = text.split("\n\n", 1)
    tags = [TAG.match(line) for line in head.splitlines()]
    assert all(tags), head
    names = [tag.group(1) for tag in tags]
    assert names == ["Event", "Site", "Date", "Round", "White", "Black", "Result", "GameType"]
    values = {tag.group(1): unescaped(tag.group(2)) for tag in tags}
    for key, sent in headers_for(value).items():
        assert values[key] == expected(sent)
    won = "2-0" if code == "international" else "1-0"  # FMJD scores a win 2 points
    assert "[" not in body and body.split() == ["1.", move, won]


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_as_a_header(value: str) -> None:
    check_chess(value)
    text = variant("italian").export([], headers={"Event": value})
    head = text.split("\n\n")[0].splitlines()
    assert len(head) == 8 and all(TAG.match(line) for line in head)
    assert unescaped(TAG.match(head[0]).group(2)) == expected(value)


def test_tag_value_escapes_and_flattens() -> None:
    assert tag_value('a "b" \\ c') == 'a \\"b\\" \\\\ c'
    assert tag_value("one\ntwo\r\nthree\x00") == "one two three"
    assert tag_value("\u202eright-to-left\u2066") == "right-to-left"
    assert tag_value("y" * 300) == "y" * 255
    assert tag_pair("Event", 'x"') == '[Event "x\\""]'


@pytest.mark.parametrize("name", ["Bad Name", 'Event "x"] [Site', "", "Event\n"])
def test_a_bad_tag_name_is_refused(name: str) -> None:
    with pytest.raises(ValueError):
        variant("chess").export([], headers={name: "x"})
    with pytest.raises(ValueError):
        variant("english").export([], headers={name: "x"})
