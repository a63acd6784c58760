"""TRF-16: round trip, files written by other programs, malformed files."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.pairing.checks import hard_rule_violations
from events.pairing.lim import NoLegalPairing, pair_round
from events.pairing.model import (
    BYE_HALF,
    BYE_ZERO,
    Bye,
    Entrant,
    Tournament,
)
from events.pairing.trf import MAX_TRF_CHARS, TrfError, one_line, read_trf, write_trf

from .helpers import play

DATA = Path(__file__).parent / "data"


def normalised(t: Tournament) -> Tournament:
    """The order games and byes are listed in carries no meaning."""
    return Tournament(
        t.entrants,
        t.total_rounds,
        tuple(sorted(t.games, key=lambda g: (g.round, g.white))),
        tuple(sorted(t.byes, key=lambda b: (b.round, b.player))),
        t.first_colour,
        t.double_games,
        t.absent_next,
        t.name,
        t.rounds_played,
    )


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 40), rounds=st.integers(0, 6), seed=st.integers(0, 10**6))
def test_write_then_read_gives_the_same_tournament(players, rounds, seed):
    rounds = min(rounds, players - 1 if players % 2 == 0 else players)
    try:
        t = play(players, rounds, seed)
    except NoLegalPairing:  # a field too small to pair that many rounds
        return
    assert read_trf(write_trf(t)) == normalised(t)


def test_round_trip_keeps_half_and_zero_byes_and_announced_absences():
    t = play(6, 2, 1)
    t = Tournament(
        t.entrants + (Entrant(7, "Late", 1500),),
        t.total_rounds,
        t.games,
        t.byes + (Bye(1, 7, BYE_HALF, 1), Bye(2, 7, BYE_ZERO, 0)),
        t.first_colour,
        absent_next=frozenset({3}),
        name=t.name,
    )
    again = read_trf(write_trf(t))
    assert again == normalised(t)
    assert 3 not in {p.number for p in again.player_states()}


def test_writes_the_point_system_and_round_count():
    text = write_trf(play(4, 1, 3))
    assert "\nBBW  2.0\n" in text and "\nBBD  1.0\n" in text
    assert "\nXXR 2\n" in text


@pytest.mark.parametrize("name", ["bbppairings_dutch_2025_C5.trf", "bbppairings_issue_7.trf"])
def test_files_written_by_other_programs_are_read_and_paired(name):
    t = read_trf((DATA / name).read_text())
    states = t.player_states()
    pairing = pair_round(states, t.next_round_spec())
    assert hard_rule_violations(states, t.next_round_spec(), pairing) == []


def test_c5_file_details():
    t = read_trf((DATA / "bbppairings_dutch_2025_C5.trf").read_text())
    assert t.total_rounds == 3 and t.rounds_played == 2
    assert t.absent_next == frozenset({4})
    assert {p.number: p.score for p in t.player_states()} == {1: 4, 2: 2, 3: 4, 5: 2, 6: 0}


def test_bbppairings_issue_7_file_scores_match_the_points_column():
    text = (DATA / "bbppairings_issue_7.trf").read_text()
    t = read_trf(text)
    scores = t.scores_after(t.rounds_played)
    for line in text.splitlines():
        if line.startswith("001"):
            assert scores[int(line[4:8])] == round(2 * float(line[80:84]))


GOOD = (DATA / "bbppairings_dutch_2025_C5.trf").read_text().splitlines()


def broken(line_index: int, new_line: str) -> str:
    lines = list(GOOD)
    lines[line_index] = new_line
    return "\n".join(lines) + "\n"


MALFORMED = [
    (broken(1, GOOD[1].replace("001    1", "001    x")), 2, "start rank"),
    (broken(1, GOOD[1][:60]), 2, "shorter"),
    (broken(1, GOOD[1].replace("4 w 1", "4 w 7")), 2, "result"),
    (broken(1, GOOD[1].replace("4 w 1", "4 q 1")), 2, "colour"),
    (broken(1, GOOD[1].replace("4 w 1", "5 w 1")), 2, "disagrees"),
    (broken(1, GOOD[1].replace("   2 b 1", "  99 b 1")), 2, "no 001 line"),
    (broken(2, GOOD[1]), 3, "appears twice"),
    (broken(7, "XXR three"), 8, "XXR"),
    (broken(7, "XXR 1"), 8, "XXR says 1 rounds but 2 were played"),
    (broken(1, GOOD[1].replace("4 w 1", "4 b 1")), 2, "colours clash"),
    (broken(1, GOOD[1].replace("2720", "27x0")), 2, "rating"),
    (broken(1, GOOD[1].replace("4 w 1", "4 w =")), 2, "do not match"),
    ("012 empty\n", 1, "no player lines"),
]


@pytest.mark.parametrize(("text", "line", "words"), MALFORMED)
def test_malformed_files_name_the_line(text, line, words):
    with pytest.raises(TrfError) as error:
        read_trf(text)
    assert error.value.line_number == line
    assert words in str(error.value)


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(["bbppairings_dutch_2025_C5.trf", "bbppairings_issue_7.trf"]),
    edits=st.lists(
        st.tuples(st.integers(0, 20_000), st.sampled_from(list("0123456789 wb-+=UZHFDLW\nX"))),
        min_size=1,
        max_size=6,
    ),
)
def test_corrupted_files_give_a_tournament_or_a_trf_error_never_a_crash(name, edits):
    text = list((DATA / name).read_text())
    for position, char in edits:
        text[position % len(text)] = char
    try:
        t = read_trf("".join(text))
    except TrfError as error:
        assert str(error).startswith("line ")
        return
    try:
        pair_round(t.player_states(), t.next_round_spec())
    except NoLegalPairing:
        pass


# -- point systems (only 2/1/0 is read) and size ----------------------------------------------

C5 = "\n".join(GOOD) + "\n"


def with_lines(*extra: str, text: str = C5) -> str:
    return text + "".join(f"{line}\n" for line in extra)


def last_line_number(text: str) -> int:
    return len(text.splitlines())


@pytest.mark.parametrize(
    "lines",
    [
        (),
        ("BBW 1.0", "BBD 0.5"),
        ("BBW 2.0", "BBD 1.0"),
        ("BBW 4.0", "BBD 2.0", "BBU 4.0", "BBL 0.0", "BBZ 0.0", "BBF 0.0"),
        ("162 W 2.0 D 1.0",),
        ("162  W 3.0    D 1.5    A 0.0    P 3.0",),
    ],
)
def test_point_systems_scaled_from_2_1_0_are_read_alike(lines):
    # A win worth two draws, nothing for a loss: the same scores in platform units (the
    # points columns written in the file's own system).
    win = next((float(w.split()[1]) for w in lines if w.startswith("BBW")), None)
    win = win or next((float(w.split()[2]) for w in lines if w.startswith("162")), 1.0)
    t = read_trf(with_lines(*lines, text=scaled_points(C5, win)))
    assert t == read_trf(C5)


def scaled_points(text: str, factor: float) -> str:
    """`text` with every points column (81-84) multiplied by `factor`."""
    return "".join(
        f"{line[:80]}{float(line[80:84]) * factor:4.1f}{line[84:]}"
        if line.startswith("001")
        else line
        for line in text.splitlines(keepends=True)
    )


@pytest.mark.parametrize(
    ("lines", "blamed", "words"),
    [
        (("BBW 3.0", "BBD 1.0"), 0, "BBW 3.0: a win worth 3.0 and a draw worth 1.0"),
        (("BBD 1.0", "BBW 3.0"), 1, "BBW 3.0"),
        (("BBD 1.0",), 0, "BBD 1.0: a win worth 1.0"),  # the win keeps its default, 1.0
        (("BBW 2.0",), 0, "a draw worth 0.5"),
        (("162 W 3.0 D 1.0",), 0, "162 W 3.0"),
        (("BBW 2.0", "BBD 1.0", "BBL 0.5"), 2, "BBL 0.5: a loss worth 0.5"),
        (("BBZ 1.0",), 0, "zero-point bye worth 1.0"),
        (("BBF 0.5",), 0, "forfeit loss worth 0.5"),
        (("BBU 0.5",), 0, "pairing-allocated bye worth 0.5: it must be worth a win"),
        (("162 P 0.5",), 0, "162 P 0.5"),
        (("BBW 0.0", "BBD 0.0"), 0, "a win worth 0.0"),
    ],
)
def test_other_point_systems_are_refused_naming_their_line(lines, blamed, words):
    text = with_lines(*lines)
    first = last_line_number(text) - len(lines) + 1
    with pytest.raises(TrfError) as error:
        read_trf(text)
    assert error.value.line_number == first + blamed
    assert words in str(error.value) and "cannot be paired" in str(error.value)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("BBW two", "'two' is not a number"),
        ("BBW", "needs one number"),
        ("BBW -1.0", "is not a number"),
        ("162 W", "pairs of a code"),
        ("162 X 1.0", "'X' is not W, D, L, A or P"),
        ("BBD NaN", "is not a number"),
    ],
)
def test_malformed_point_lines_name_the_line(line, words):
    text = with_lines(line)
    with pytest.raises(TrfError) as error:
        read_trf(text)
    assert error.value.line_number == last_line_number(text)
    assert words in str(error.value)


def player_lines(count: int) -> str:
    return "".join(
        f"001 {n:4d}      {'Player ' + str(n):<33} {2000:4d}{'':28}{0.0:4.1f} {n:4d}\n"
        for n in range(1, count + 1)
    )


def test_big_opens_up_to_1000_players_are_read():
    # Big opens exist: the platform seats 200 (RULES 4.1), a file may hold 1,000.
    assert len(read_trf("012 Open\n" + player_lines(300) + "XXR 9\n").entrants) == 300
    assert len(read_trf("012 Full\n" + player_lines(1000) + "XXR 9\n").entrants) == 1000
    with pytest.raises(TrfError) as error:
        read_trf("012 Too many\n" + player_lines(10_000) + "XXR 9\n")
    assert error.value.line_number == 1002  # the 1,001st player line
    assert "more than 1,000 players" in str(error.value)


def test_larger_files_are_refused_before_reading_them():
    with pytest.raises(TrfError) as error:
        read_trf(C5 + "022 " + "x" * MAX_TRF_CHARS + "\n")
    assert "larger than" in str(error.value)


# -- hostile names: every field stays on its line and in its columns -------------------------

HOSTILE_NAMES = [
    "Cup\nXXR 99\n001    1      Evil                              2000",
    "ends with a backslash \\",
    'has "quotes"',
    "\u202eexe.tset",
    "nul\x00inside",
    "carriage\rreturn\r\n",
    "line\u2028separator \x85 and \x0b, \x1c, \x0c",
    "a name much longer than the thirty-three columns it has",
    "lone surrogate \ud800",
    "Ünïcödé 国际象棋",
    "",
]
KNOWN_CODES = {"012", "001", "142", "152", "162", "XXR", "XXC", "BBW", "BBD"}


def with_names(t: Tournament, names: list[str], title: str) -> Tournament:
    entrants = tuple(
        Entrant(e.number, names[i % len(names)], e.rating) for i, e in enumerate(t.entrants)
    )
    return Tournament(entrants, t.total_rounds, t.games, t.byes, t.first_colour, name=title)


def check_round_trip(t: Tournament) -> None:
    text = write_trf(t)
    lines = text.split("\n")[:-1]
    # 012, one 001 per player, 142, 152, 162 (TRF-2026), XXR, XXC, BBW, BBD (JaVaFo's)
    assert len(lines) == len(t.entrants) + 8
    assert {line[:3] for line in lines} == KNOWN_CODES
    # The name ends in column 47, the points in column 84: the separators are where they belong.
    assert all(line[47] == line[84] == " " for line in lines if line.startswith("001"))
    back = read_trf(text)
    assert back.name == one_line(t.name)
    assert [e.name for e in back.entrants] == [one_line(e.name)[:33].rstrip() for e in t.entrants]
    assert (back.games, back.byes) == (normalised(t).games, normalised(t).byes)
    assert [e.rating for e in back.entrants] == [e.rating for e in t.entrants]


@pytest.mark.parametrize("title", HOSTILE_NAMES)
def test_hostile_names_cannot_inject_lines(title):
    check_round_trip(with_names(play(8, 3, 5), HOSTILE_NAMES, title))


@settings(max_examples=100, deadline=None)
@given(title=st.text(), names=st.lists(st.text(), min_size=1, max_size=6))
def test_any_names_round_trip(title, names):
    check_round_trip(with_names(play(6, 2, 9), names, title))


def test_numbers_that_do_not_fit_their_columns_are_refused():
    t = play(4, 1, 3)
    big = Tournament(
        (Entrant(1, "Strong", 10_000),) + t.entrants[1:], t.total_rounds, t.games, t.byes
    )
    with pytest.raises(ValueError, match="does not fit"):
        write_trf(big)


def test_the_export_is_trf_2026_and_reads_back_with_every_result():
    """TRF-2026's tags in their columns (142 rounds, 152 the colour of #1 in round 1, 162 the
    point system: a code every nine columns from column 6), and the file read back gives the
    same scores, results, byes and forfeits; a file with the TRF-2026 tags alone (no JaVaFo
    ones) reads the same."""
    from events.pairing.simulate import simulate

    t = simulate(21, 6, 8, absence_percent=10, forfeit_percent=10).tournament
    text = write_trf(t)
    lines = text.split("\n")
    assert f"142 {t.total_rounds}" in lines
    assert f"152 {'W' if t.first_colour == 'W' else 'B'}" in lines
    [points] = [line for line in lines if line.startswith("162")]
    assert [(i + 1, c) for i, c in enumerate(points) if c.isalpha()] == [
        (6, "W"), (15, "D"), (24, "L"), (33, "A"), (42, "P"),
    ]  # fmt: skip
    assert points[6:10] == " 2.0" and points[15:19] == " 1.0" and points[42:46] == " 2.0"
    for version in (
        text,
        "\n".join(line for line in lines if line[:3] not in {"XXR", "XXC", "BBW", "BBD"}),
    ):
        back = read_trf(version)
        assert (back.games, back.byes) == (normalised(t).games, normalised(t).byes)
        assert back.scores_after(6) == t.scores_after(6)
        assert (back.total_rounds, back.first_colour) == (t.total_rounds, t.first_colour)
        assert any(not g.played for g in back.games)  # the forfeits survive
    with pytest.raises(TrfError, match="XXR says 6 rounds but line 23 says 7"):  # two tags disagree
        read_trf(text.replace(f"142 {t.total_rounds}", "142 7"))


def test_points_before_any_round_must_be_nothing():
    text = "012 New\n" + player_lines(4).replace(" 0.0 ", " 1.0 ", 1) + "XXR 5\n"
    with pytest.raises(TrfError) as error:
        read_trf(text)
    assert error.value.line_number == 2
    assert "player 1: the points column (columns 81-84) says 1.0, but no round has been played" in (
        str(error.value)
    )
