"""The Lim checker (`python -m events.pairing check`): our own tournaments agree round by
round; a file that breaks an absolute rule is refused with the rule's LIM.md number; a legal
pairing that is not ours is reported as different (pure, no database)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from events.pairing.checker import _before, check_tournament, format_findings
from events.pairing.cli import main
from events.pairing.lim import compatible
from events.pairing.model import (
    BYE_FULL,
    BYE_PAIRING_ALLOCATED,
    BYE_ZERO,
    Bye,
    Entrant,
    GameResult,
    Tournament,
)
from events.pairing.simulate import simulate
from events.pairing.trf import TrfError, read_trf, write_trf


def through_trf(tournament: Tournament) -> Tournament:
    """As a program reading our file would see it."""
    return read_trf(write_trf(tournament))


def made(players: int, rounds: int, games=(), byes=()) -> Tournament:
    return through_trf(
        Tournament(
            entrants=tuple(Entrant(n, f"p{n}", 2000 - 10 * n) for n in range(1, players + 1)),
            total_rounds=rounds,
            games=tuple(GameResult(*g) for g in games),
            byes=tuple(Bye(r, p, BYE_PAIRING_ALLOCATED) for r, p in byes),
        )
    )


def broken_in(tournament: Tournament, round_number: int) -> list[str]:
    [finding] = [f for f in check_tournament(tournament) if f.round == round_number]
    return list(finding.broken)


def test_random_tournaments_of_ours_agree_in_every_round():
    """Ten to two hundred players, absences and forfeits: every round of every file paired as
    we pair it (`make check-lim` runs a thousand)."""
    rng = random.Random(11)
    for seed in range(12):
        players, rounds = rng.randint(10, 200), rng.randint(3, 9)
        report = simulate(players, rounds, seed, absence_percent=5, forfeit_percent=5)
        findings = check_tournament(through_trf(report.tournament))
        assert findings and all(f.agrees for f in findings), format_findings(findings)


def test_a_rematch_breaks_lim_2():
    t = made(4, 3, games=[(1, 1, 3, 2, 0), (1, 2, 4, 2, 0), (2, 3, 1, 0, 2), (2, 2, 4, 1, 1)])
    assert any(item.startswith("Lim 2: rematch") for item in broken_in(t, 2))


def test_a_third_white_in_a_row_breaks_lim_2():
    games = [
        (1, 1, 4, 2, 0), (1, 2, 5, 2, 0), (1, 3, 6, 2, 0),
        (2, 1, 5, 2, 0), (2, 6, 2, 0, 2), (2, 3, 4, 2, 0),
        (3, 1, 6, 2, 0), (3, 2, 3, 1, 1), (3, 4, 5, 1, 1),
    ]  # fmt: skip
    assert "Lim 2: 1 cannot have White" in broken_in(made(6, 4, games), 3)


def test_a_second_bye_breaks_lim_1():
    games = [(1, 1, 2, 2, 0), (1, 3, 4, 2, 0), (2, 1, 3, 1, 1), (2, 4, 2, 1, 1)]
    t = made(5, 3, games, byes=[(1, 5), (2, 5)])
    assert "Lim 1: second bye for 5" in broken_in(t, 2)


def test_a_bye_to_a_forfeit_winner_breaks_lim_1():
    t = made(5, 3, games=[(1, 5, 4, 2, 0, False), (1, 1, 2, 2, 0)], byes=[(1, 3), (2, 5)])
    t = through_trf(t)
    assert any("who already won by forfeit" in item for item in broken_in(t, 2))


def test_a_bye_above_a_lower_group_that_could_rest_breaks_lim_1():
    games = [(1, 1, 2, 2, 0), (1, 3, 4, 2, 0), (2, 3, 5, 2, 0), (2, 2, 4, 1, 1)]
    t = made(5, 3, games, byes=[(1, 5), (2, 1)])
    assert any(item.startswith("Lim 1: bye to 1 while") for item in broken_in(t, 2))


def test_a_legal_pairing_that_is_not_ours_differs_and_breaks_nothing(tmp_path, capsys):
    report = simulate(12, 4, 5)
    t = report.tournament
    last = [g for g in t.games if g.round == 4]
    a, b = last[0], last[1]
    # Swap two boards' Black players: legal if they have not met and the colours allow it.
    swapped = (
        GameResult(4, a.white, b.black, a.white_points, b.black_points),
        GameResult(4, b.white, a.black, b.white_points, a.black_points),
    )
    changed = Tournament(
        entrants=t.entrants,
        total_rounds=t.total_rounds,
        games=tuple(g for g in t.games if g not in (a, b)) + swapped,
        byes=t.byes,
        first_colour=t.first_colour,
    )
    [finding] = [f for f in check_tournament(through_trf(changed)) if f.round == 4]
    assert finding.differs
    # The command line: exit 1, the round named with both pairings.
    path = tmp_path / "changed.trf"
    path.write_text(write_trf(changed))
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "round 4:" in out and "file:" in out and "ours:" in out
    assert "round 1: agrees" in out


def test_the_command_line_writes_a_random_swiss_and_checks_it(tmp_path, capsys):
    assert main(["random", "--players", "15", "--rounds", "5", "--seed", "4"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("012") and text.count("\n001 ") == 15
    path = tmp_path / "made.trf"
    path.write_text(text)
    assert main(["check", str(path)]) == 0
    assert capsys.readouterr().out.count("agrees") == 5
    path.write_text("001 not a trf")
    assert main(["check", str(path)]) == 3


@pytest.mark.parametrize("players", [2, 3])
def test_tiny_tournaments_agree(players):
    report = simulate(players, 1, 1)
    assert all(f.agrees for f in check_tournament(through_trf(report.tournament)))


# -- the points column, forfeits, big opens, rounds nobody played ------------------------------


def with_points(text: str, number: int, points: str) -> str:
    """`text` (a TRF file) with player `number`'s points column (81-84) set to `points`."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("001") and int(line[4:8]) == number:
            lines[i] = f"{line[:80]}{points:>4}{line[84:]}"
    return "".join(lines)


def test_points_that_contradict_the_results_are_refused_naming_player_and_rounds(tmp_path, capsys):
    # 1 beats 3, 2 and 4 draw, then 1 draws 2 and 3 beats 4: 1 has 1.5 in a 1/0.5 file.
    games = [(1, 1, 3, 2, 0), (1, 2, 4, 1, 1), (2, 2, 1, 1, 1), (2, 3, 4, 2, 0)]
    text = (
        write_trf(made(4, 3, games)).replace("BBW  2.0", "BBW 1.0").replace("BBD  1.0", "BBD 0.5")
    )
    text = "".join(
        f"{line[:80]}{float(line[80:84]) / 2:4.1f}{line[84:]}" if line.startswith("001") else line
        for line in text.splitlines(keepends=True)
    ).replace("162  W 2.0    D 1.0    L 0.0    A 0.0    P 2.0\n", "")
    path = tmp_path / "points.trf"
    path.write_text(text)
    assert main(["check", str(path)]) != 3  # the file as written is read
    assert capsys.readouterr().err == ""
    path.write_text(with_points(text, 1, "2.0"))
    assert main(["check", str(path)]) == 3
    err = capsys.readouterr().err
    line = 1 + next(i for i, t in enumerate(text.splitlines()) if t.startswith("001    1"))
    assert (
        f"line {line}: player 1: the points column (columns 81-84) says 2.0, "
        "but the results of rounds 1-2 give 1.5"
    ) in err


def test_points_may_include_a_bye_announced_for_the_round_to_pair():
    # Decision (trf.py): the column is the total of the rounds played, or that plus a bye
    # already announced for the round to pair.
    t = made(4, 3, [(1, 1, 3, 2, 0), (1, 2, 4, 1, 1)])
    text = write_trf(t)
    lines = text.splitlines(keepends=True)
    announced = "".join(
        line.rstrip("\n") + "  0000 - H\n" if line.startswith("001    4") else line
        for line in lines
    )
    assert read_trf(announced).absent_next == frozenset({4})
    assert read_trf(with_points(announced, 4, "2.0")).absent_next == frozenset({4})  # 1 + 1
    with pytest.raises(TrfError) as error:
        read_trf(with_points(announced, 4, "3.0"))
    assert "player 4" in str(error.value) and "give 1.0 (2.0 with the bye announced" in str(
        error.value
    )


def test_a_pairing_repeated_after_a_forfeit_is_no_rematch():
    # docs/lim.md rule 2: a forfeit is no meeting (FIDE C.04.1 b). 1-3 was not played in
    # round 1 (3 did not show up); pairing them in round 2 breaks nothing, and we may pair it.
    t = made(4, 3, [(1, 1, 3, 2, 0, False), (1, 2, 4, 2, 0), (2, 1, 2, 2, 0), (2, 3, 4, 2, 0)])
    before = _before(t, 2)
    one = next(p for p in before.player_states() if p.number == 1)
    assert one.opponents == frozenset() and one.won_by_forfeit
    repeated = made(
        6,
        3,
        [(1, 1, 3, 2, 0, False), (1, 2, 4, 2, 0), (1, 5, 6, 1, 1)]
        + [(2, 3, 1, 0, 2), (2, 2, 5, 1, 1), (2, 6, 4, 1, 1)],
    )
    assert broken_in(repeated, 2) == []
    states = {p.number: p for p in repeated.player_states()}
    assert compatible(states[1], states[3], repeated.next_round_spec()) is False
    assert 3 in states[1].opponents  # played in round 2: now they have met


def test_a_300_player_open_is_checked(tmp_path, capsys):
    report = simulate(300, 3, 7, absence_percent=2, forfeit_percent=2)
    path = tmp_path / "open.trf"
    path.write_text(write_trf(report.tournament))
    assert main(["check", str(path)]) == 0
    assert capsys.readouterr().out.count("agrees") == 3


def test_a_round_nobody_played_keeps_the_numbering_of_the_next():
    # Round 2: 1 and 2 absent (0), 3 and 4 on a full-point bye: all four have 2 points, so
    # round 3 is one group of four (1 and 3, 2 and 4 have met): 1-4 and 2-3.
    t = Tournament(
        entrants=tuple(Entrant(n, f"p{n}", 2000 - 10 * n) for n in range(1, 5)),
        total_rounds=4,
        games=(
            GameResult(1, 1, 3, 2, 0),
            GameResult(1, 4, 2, 0, 2),
            GameResult(3, 4, 1, 0, 2),
            GameResult(3, 2, 3, 2, 0),
        ),
        byes=(
            Bye(2, 1, BYE_ZERO, 0),
            Bye(2, 2, BYE_ZERO, 0),
            Bye(2, 3, BYE_FULL, 2),
            Bye(2, 4, BYE_FULL, 2),
        ),
    )
    t = through_trf(t)
    assert t.rounds_played == 3
    before = _before(t, 3)
    assert before.next_round_spec().number == 3 and before.next_round_spec().median_score == 2
    assert {p.score for p in before.player_states()} == {2}
    findings = check_tournament(t)
    assert [f.agrees for f in findings] == [True, True, True], format_findings(findings)


def test_a_round_with_no_entry_at_all_still_counts():
    # Round 2's blocks are blank for everyone (nobody paired, nobody scored).
    games = [(1, 1, 3, 2, 0), (1, 4, 2, 0, 2), (3, 1, 2, 1, 1), (3, 3, 4, 1, 1)]
    t = made(4, 4, games)
    assert t.rounds_played == 3
    assert _before(t, 3).next_round_spec().number == 3


def test_bbppairings_repairs_forfeited_pairings_and_that_is_no_rematch():
    # bbpPairings' own file: 50-56 and 4-8 did not play (forfeits) and were paired again later.
    text = (Path(__file__).parent / "data" / "bbppairings_issue_7.trf").read_text()
    findings = check_tournament(read_trf(text))
    assert not [item for f in findings for item in f.broken if "rematch" in item]
    assert "rematch" not in format_findings(findings)
