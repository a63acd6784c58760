"""TRF-16: round trip, files written by other programs, malformed files."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.engine.checks import hard_rule_violations
from tournaments.engine.lim import NoLegalPairing, pair_round
from tournaments.engine.model import (
    BYE_HALF,
    BYE_ZERO,
    Bye,
    Entrant,
    Tournament,
)
from tournaments.engine.trf import TrfError, read_trf, write_trf

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


def test_issue_7_scores_match_the_points_column():
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
