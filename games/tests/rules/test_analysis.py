"""The analysis board's rules (games/rules/analysis.py) and the export of a game with its
variations (PGN's RAV, PDN 3.0's variations), read back with python-chess and pydraughts."""

from __future__ import annotations

import io

import chess
import chess.pgn
import pytest
from draughts.PDN import PDNReader
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import IllegalMove, MoveNode, variant
from games.rules.analysis import (
    MAX_DEPTH,
    MAX_NODES,
    BadAnalysis,
    game_line,
    main_line,
    read_line,
    step,
)

CHESS = variant("chess")
ITALIAN = variant("italian")


# -- the export with variations ----------------------------------------------------------------


def test_a_chess_tree_reads_back_with_python_chess_variations_and_all():
    # 1. e4 e5 (1... c5 2. Nf3 (2. Nc3 Nc6) d6) (1... e6) 2. Nf3, with clocks on the main line.
    nested = MoveNode("g1f3", (("b1c3", "b8c6"),))
    tree = ["e2e4", MoveNode("e7e5", (("c7c5", nested, "d7d6"), ("e7e6",))), "g1f3"]
    text = CHESS.export(tree, clocks=[60_000, 59_000, 58_000])
    game = chess.pgn.read_game(io.StringIO(text))
    assert [m.uci() for m in game.mainline_moves()] == ["e2e4", "e7e5", "g1f3"]
    after_e4 = game.variations[0]
    assert [v.move.uci() for v in after_e4.variations] == ["e7e5", "c7c5", "e7e6"]
    sicilian = after_e4.variations[1]
    assert [v.move.uci() for v in sicilian.variations] == ["g1f3", "b1c3"]
    assert [n.move.uci() for n in sicilian.variations[0].mainline()] == ["d7d6"]
    assert [n.move.uci() for n in sicilian.variations[1].mainline()] == ["b8c6"]
    assert [n.clock() for n in game.mainline()] == [60, 59, 58]  # the variations have none
    assert "( 1... c5 2. Nf3 ( 2. Nc3 Nc6 ) 2... d6 )" in " ".join(text.split())


def test_plain_moves_export_as_before():
    moves = ["e2e4", "e7e5", "g1f3"]
    assert CHESS.export(moves) == CHESS.export([MoveNode(m) for m in moves])
    first = ITALIAN.legal_moves(ITALIAN.start_fen())[0]
    assert ITALIAN.export([first]) == ITALIAN.export([MoveNode(first)])


def _line(rules, fen, plies, pick=0):
    """`plies` legal moves from `fen`, each the `pick`-th legal one (or the last)."""
    moves = []
    for _ in range(plies):
        legal = rules.legal_moves(fen)
        moves.append(legal[min(pick, len(legal) - 1)])
        fen = rules.apply(fen, moves[-1])
    return moves


def test_an_italian_tree_reads_back_with_pydraughts_and_the_variation_is_in_parentheses():
    main = _line(ITALIAN, ITALIAN.start_fen(), 6)
    after_two = ITALIAN.replay(main[:2])[-1]
    # White's second move replaced by another one and Black's reply: "2. a (2. x y) 2... b".
    other = [m for m in ITALIAN.legal_moves(after_two) if m != main[2]][0]
    reply = ITALIAN.legal_moves(ITALIAN.apply(after_two, other))[0]
    tree = [*main[:2], MoveNode(main[2], ((other, reply),)), *main[3:]]
    text = ITALIAN.export(tree, result=None)
    (read,) = PDNReader(pdn_text=text).games
    # pydraughts reads the main line and leaves the variations out (they are read, not lost:
    # it drops what is between parentheses). The main line's numbering resumes "2..." after
    # the variation, as PGN 8.2.2.2 writes it. pydraughts 0.6.7 then drops every later "2."
    # it finds in the text, "12." too: the game is kept under ten moves.
    assert read.moves == main
    assert read.variant == "italian"
    body = " ".join(text.split("\n\n", 1)[1].split())
    assert f"2. {main[2]} ({'2. ' + other} {reply}) 2... {main[3]}" in body


def test_a_variation_of_black_in_english_draughts_is_numbered_from_its_first_mover():
    english = variant("english")  # Black moves first (RULES 3)
    main = _line(english, english.start_fen(), 3)
    other = [m for m in english.legal_moves(english.start_fen()) if m != main[0]][0]
    text = english.export([MoveNode(main[0], ((other,),)), *main[1:]])
    body = " ".join(text.split("\n\n", 1)[1].split())
    assert body.startswith(f"1. {main[0]} (1. {other}) 1... {main[1]} 2. {main[2]}")
    assert PDNReader(pdn_text=text).games[0].moves == main


def test_an_illegal_move_in_a_variation_is_refused_by_the_export():
    with pytest.raises(IllegalMove):
        CHESS.export(["e2e4", MoveNode("e7e5", (("e2e4",),))])
    first = ITALIAN.legal_moves(ITALIAN.start_fen())[0]
    with pytest.raises(IllegalMove):
        ITALIAN.export([MoveNode(first, (("1-5",),))])


# -- a move tried on the board -----------------------------------------------------------------


def test_step_plays_a_legal_move_and_says_everything_the_board_needs():
    answer = step("chess", CHESS.start_fen(), "g1f3")
    assert answer["notation"] == {"it": "Cf3", "en": "Nf3"}  # RULES 2: Italian letters
    assert answer["to_move"] == "black" and "e7e5" in answer["legal_moves"]
    assert answer["fen"] == CHESS.apply(CHESS.start_fen(), "g1f3")
    assert answer["outcome"] is None


def test_game_line_describes_each_position_as_step_does():
    moves = ["f2f3", "e7e5", "g2g4", "d8h4"]
    line = game_line("chess", CHESS.start_fen(), moves)
    assert [n["fen"] for n in line] == CHESS.replay(moves)
    fen = CHESS.start_fen()
    for node, move in zip(line[1:], moves, strict=True):
        assert {"variant": "chess", **node} == step("chess", fen, move)
        fen = node["fen"]
    assert line[-1]["outcome"] == {"result": "0-1", "reason": "checkmate"}
    resigned = game_line("chess", CHESS.start_fen(), moves[:2])  # ended by no rule
    assert resigned[-1]["legal_moves"] == CHESS.legal_moves(resigned[-1]["fen"])


def test_step_without_a_move_describes_the_position():
    answer = step("italian", ITALIAN.start_fen())
    assert answer["legal_moves"] == ITALIAN.legal_moves(ITALIAN.start_fen())
    assert "notation" not in answer and answer["to_move"] == "white"


def test_step_says_the_end_a_move_brings():
    mated = CHESS.replay(["f2f3", "e7e5", "g2g4"])[-1]
    answer = step("chess", mated, "d8h4")
    assert answer["outcome"] == {"result": "0-1", "reason": "checkmate"}
    assert answer["legal_moves"] == [] and answer["notation"]["it"] == "Dh4#"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("go", "x", None), "unknown variant"),
        ((None, "x", None), "variant must be a string"),
        (("chess", "not a fen", None), "not a chess position"),
        (("chess", 42, None), "fen must be a non-empty string"),
        (("chess", CHESS.start_fen(), "e2e5"), "illegal move"),
        (("chess", CHESS.start_fen(), "zz"), "illegal move"),
        (("chess", CHESS.start_fen(), ["e2e4"]), "move must be a non-empty string"),
        (("italian", ITALIAN.start_fen(), "1-5"), "illegal move"),
        (("italian", "W:W99:B1", None), "not a italian position"),
        (("chess", CHESS.start_fen(), "e2e4", "no list"), "positions must be a list"),
        (("chess", CHESS.start_fen(), "e2e4", [1]), "a position must be a non-empty string"),
        (("chess", "x" * 500, None), "longer than"),
        (("italian", ITALIAN.start_fen(), None, ["W:W99:B1"]), "positions holds what is not"),
        (("chess", CHESS.start_fen(), "e2e4", ["garbage"]), "positions holds what is not"),
    ],
)
def test_step_refuses_what_it_cannot_read_or_play_and_says_why(args, says):
    with pytest.raises(BadAnalysis, match=says):
        step(*args)


def test_the_earlier_positions_make_a_repetition():
    """Kings going back and forth: the third time the position stands, Italian draughts ends
    it as a draw (automatic, RULES 3); without the earlier positions, play goes on."""
    fen = ITALIAN.normalize_fen("W:WK29,K30:BK1,K2")
    line = ["29-25", "1-5", "25-29", "5-1"] * 2
    positions = ITALIAN.replay(line, fen)
    ended = step("italian", positions[-2], line[-1], positions[:-2])
    assert ended["outcome"] == {"result": "1/2-1/2", "reason": "threefold_repetition"}
    assert ended["legal_moves"] == []
    assert step("italian", positions[-2], line[-1], positions[-5:-2])["outcome"] is None
    with pytest.raises(BadAnalysis, match="the game is over"):
        step("italian", positions[-1], "29-25", positions[:-1])


def test_no_move_is_played_from_a_finished_position():
    mate = CHESS.replay(["f2f3", "e7e5", "g2g4", "d8h4"])[-1]
    assert step("chess", mate)["legal_moves"] == []
    with pytest.raises(BadAnalysis, match="illegal move"):
        step("chess", mate, "e1f2")


# -- the tree the browser sends ----------------------------------------------------------------


def test_read_line_reads_plain_and_nested_moves():
    line = read_line(["e2e4", {"move": "e7e5", "variations": [["c7c5"], []]}, "g1f3"])
    assert line == ("e2e4", MoveNode("e7e5", (("c7c5",),)), "g1f3")  # an empty line dropped
    assert main_line(line) == ["e2e4", "e7e5", "g1f3"]


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"move": "e2e4"}, "a line must be a list"),
        ([1], "a move must be a string or an object"),
        ([{"variations": []}], "a move must be a non-empty string"),
        ([{"move": "e2e4", "variations": "c7c5"}], "variations must be a list"),
        (["e2e4"] * (MAX_NODES + 1), "more than"),
    ],
)
def test_read_line_refuses_a_bad_tree(data, says):
    with pytest.raises(BadAnalysis, match=says):
        read_line(data)


def test_read_line_refuses_variations_nested_too_deep():
    data: list = ["e2e4"]
    for _ in range(MAX_DEPTH + 2):
        data = [{"move": "e2e4", "variations": [data]}]
    with pytest.raises(BadAnalysis, match="nested"):
        read_line(data)


# -- whatever is sent, a BadAnalysis or an answer: never another error (a 500) -----------------

_junk = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=130),
    st.sampled_from(["e2e4", "e7e8q", "22-18", "22x13", "21-17", "1-5", "K29", "W:W21:B1"]),
    st.lists(st.text(max_size=10), max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(
    code=st.sampled_from(["chess", "italian", "english", "international", "go"]),
    fen=st.one_of(
        _junk,
        st.sampled_from([variant(c).start_fen() for c in ("chess", "italian", "international")]),
    ),
    move=_junk,
    positions=st.one_of(_junk, st.lists(_junk, max_size=3)),
)
def test_step_answers_or_refuses_whatever_it_is_sent(code, fen, move, positions):
    try:
        answer = step(code, fen, move, positions)
    except BadAnalysis:
        return
    assert answer["to_move"] in ("white", "black")


@settings(max_examples=200, deadline=None)
@given(
    data=st.recursive(
        _junk,
        lambda inner: (
            st.lists(inner) | st.dictionaries(st.sampled_from(["move", "variations"]), inner)
        ),
        max_leaves=12,
    )
)
def test_a_tree_is_read_and_exported_or_refused(data):
    try:
        line = read_line(data)
        CHESS.export(line)
    except (BadAnalysis, IllegalMove):
        return
