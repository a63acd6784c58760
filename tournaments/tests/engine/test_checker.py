"""The Lim checker (`python -m tournaments.engine check`): our own tournaments agree round by
round; a file that breaks an absolute rule is refused with the rule's LIM.md number; a legal
pairing that is not ours is reported as different (pure, no database)."""

from __future__ import annotations

import random

import pytest

from tournaments.engine.checker import check_tournament, format_findings
from tournaments.engine.cli import main
from tournaments.engine.model import (
    BYE_PAIRING_ALLOCATED,
    Bye,
    Entrant,
    GameResult,
    Tournament,
)
from tournaments.engine.simulate import simulate
from tournaments.engine.trf import read_trf, write_trf


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
