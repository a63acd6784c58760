"""The text mode's reader (games/rules/typed.py): typed moves against the legal moves."""

import pytest

from games.rules import variant
from games.rules.typed import Reading, read_move

CHESS = variant("chess")
START = CHESS.start_fen()
# White: Ke1, Ra1, Rh1, Nb1, Nf3 (Nd2 ambiguous), pawn e7 to promote; Black: Kc8.
PROMOTE = "2k5/4P3/8/8/8/5N2/8/RN2K2R w KQ - 0 1"


@pytest.mark.parametrize(
    ("fen", "text", "language", "move"),
    [
        (START, "Cf3", "it", "g1f3"),
        (START, "Nf3", "it", "g1f3"),
        (START, "Nf3", "en", "g1f3"),
        (START, "g1f3", "en", "g1f3"),
        (START, "g1-f3", "it", "g1f3"),
        (START, "e4", "it", "e2e4"),
        (START, "nf3", "en", "g1f3"),
        (PROMOTE, "th2", "it", "h1h2"),
        (START, " e4+ ", "it", "e2e4"),
        (PROMOTE, "e8=D", "it", "e7e8q"),
        (PROMOTE, "e8=Q", "en", "e7e8q"),
        (PROMOTE, "e8D+", "it", "e7e8q"),
        (PROMOTE, "e7e8q", "it", "e7e8q"),
        (PROMOTE, "e8=C", "it", "e7e8n"),
        (PROMOTE, "e8=T", "it", "e7e8r"),
        (PROMOTE, "e8=R", "it", "e7e8r"),  # the Italian king is no promotion: a rook
        (PROMOTE, "O-O", "it", "e1g1"),
        (PROMOTE, "0-0", "en", "e1g1"),
        (PROMOTE, "Nbd2", "en", "b1d2"),
        (PROMOTE, "Cfd2", "it", "f3d2"),
        # R is the Italian king and the English rook: the language decides when both fit.
        (PROMOTE, "Rf1", "it", "e1f1"),
        (PROMOTE, "Rf1", "en", "h1f1"),
        (PROMOTE, "Rd1", "it", "e1d1"),
    ],
)
def test_chess_moves_read(fen, text, language, move):
    assert read_move(CHESS, fen, text, language) == Reading(move=move)


@pytest.mark.parametrize(
    ("fen", "text", "problem"),
    [
        (START, "", "unreadable"),
        (START, "hello", "unreadable"),
        (START, "Cf6", "illegal"),
        (START, "e5", "illegal"),
        (START, "O-O", "illegal"),
        (PROMOTE, "0-0-0", "illegal"),  # the knight on b1 is in the way
        (START, "z9", "unreadable"),
    ],
)
def test_chess_bad_input_says_why(fen, text, problem):
    assert read_move(CHESS, fen, text).problem == problem


def test_chess_ambiguous_lists_the_moves_in_the_players_letters():
    assert read_move(CHESS, PROMOTE, "Cd2", "it") == Reading(
        problem="ambiguous", choices=("Cbd2", "Cfd2")
    )
    assert read_move(CHESS, PROMOTE, "Nd2", "en") == Reading(
        problem="ambiguous", choices=("Nbd2", "Nfd2")
    )
    # A promotion without its piece is never taken for a queen.
    assert set(read_move(CHESS, PROMOTE, "e8", "it").choices) == {"e8D+", "e8T+", "e8A", "e8C"}
    # A king move is not castling: `Rg1` (Italian) is the rook, not 0-0.
    assert read_move(CHESS, PROMOTE, "Rg1", "it") == Reading(move="h1g1")


def test_draughts_moves_read_with_each_variants_numbers():
    italian = variant("italian")
    assert read_move(italian, italian.start_fen(), "22-18") == Reading(move="22-18")
    assert read_move(italian, italian.start_fen(), "22 - 18") == Reading(move="22-18")
    assert read_move(italian, italian.start_fen(), "22-17").problem == "illegal"
    assert read_move(italian, italian.start_fen(), "ventidue").problem == "unreadable"
    english = variant("english")
    # English draughts: Black (1-12) moves first.
    assert read_move(english, english.start_fen(), "11-15") == Reading(move="11-15")
    international = variant("international")
    assert read_move(international, international.start_fen(), "32-28") == Reading(move="32-28")


@pytest.mark.parametrize("text", ["٢٢-١٨", "２２-１８", "۲۲-۱۸", "22-１８"])
def test_draughts_squares_are_ascii_digits_as_in_a_machine_move(text):
    """One rule for typed and machine moves: other scripts' digits are no square numbers
    (`\\d` took them and `int()` read "٢٢-١٨" as 22-18)."""
    italian = variant("italian")
    assert read_move(italian, italian.start_fen(), text).problem == "unreadable"


def test_draughts_captures_by_ends_or_path_and_ambiguity():
    italian = variant("italian")
    fen = "W:W22:B18,11,19,12"  # 22x15x6 or 22x15x8
    assert read_move(italian, fen, "22x6") == Reading(move="22x15x6")
    assert read_move(italian, fen, "22x15x8") == Reading(move="22x15x8")
    assert read_move(italian, fen, "22-8") == Reading(move="22x15x8")
    assert read_move(italian, fen, "22x15").problem == "illegal"
    # The same start and end by two paths: the player is asked which.
    assert read_move(italian, "W:W30:B18,19,26,27", "30x14") == Reading(
        problem="ambiguous", choices=("30x21x14", "30x23x14")
    )
    assert read_move(italian, "W:W30:B18,19,26,27", "30x23x14") == Reading(move="30x23x14")
    international = variant("international")
    assert read_move(international, "W:W47:B31,32,41,42", "47x47").choices == (
        "47x36x27x38x47",
        "47x38x27x36x47",
    )


def test_a_chess_variant_under_another_code_reads_chess_moves():
    """The reading goes by the rules, not by the code "chess" (docs/adding-a-variant.md: a
    variant is a code and a rules object)."""
    import copy

    from games.rules.chess_variant import Chess

    other = copy.copy(Chess())
    other.code = "toychess"
    reading = read_move(other, other.start_fen(), "Cf3")
    assert reading.move == "g1f3"
