"""The report's figures, pure (RULES 15.2, 15.3): think times from stored clocks, runs of
near-equal times, and the field's modified z-scores flagging a machine-flat player and no
other."""

from __future__ import annotations

import math
import random

from fairplay.figures import (
    MIN_FIELD,
    MIN_MOVES,
    Figure,
    GameClocks,
    field_report,
    moves_in_runs,
    player_figures,
    think_times,
)
from fairplay.tests.factories import clocks_of


def test_think_times_come_from_the_clocks_without_each_sides_first_move():
    clocks = clocks_of([9000, 1200, 3400], [5000, 700, 2500], 60_000, 2000)
    game = GameClocks(1, 2, clocks, 60_000, 2000, 2000)
    assert think_times(game) == {1: [1200, 3400], 2: [700, 2500]}


def test_black_moving_first_and_an_odd_count():
    # English draughts: Black moves first. The clocks alternate from Black's.
    clocks = [59_000, 58_000, 57_500, 55_000, 56_000]  # B, W, B, W, B
    game = GameClocks(1, 2, clocks, 60_000, 1000, 1000, white_first=False)
    assert think_times(game) == {1: [4000], 2: [2500, 2500]}


def test_a_clock_that_grew_counts_as_no_time():
    # "+15 s" given by the opponent: the clock after the move is above before + increment.
    game = GameClocks(1, 2, [50_000, 50_000, 70_000, 49_000], 60_000, 0, 0)
    assert think_times(game)[1] == [0]


def test_runs_of_near_equal_times():
    assert moves_in_runs([2000, 2100, 1950, 2050, 2000]) == 5
    assert moves_in_runs([2000, 2100, 1950, 2050]) == 0  # four is no run
    assert moves_in_runs([2000, 2100, 1950, 2050, 2000, 9000, 500, 520, 480]) == 5
    # Within a tenth of the longer: 30 s and 32 s are near-equal; 1 s and 2 s are not.
    assert moves_in_runs([30_000, 32_000, 31_000, 30_500, 29_000]) == 5
    assert moves_in_runs([1000, 2000, 1000, 2000, 1000]) == 0
    assert moves_in_runs([]) == 0


def human(rng: random.Random, games: int, moves: int) -> list[list[int]]:
    mu, sigma = math.log(rng.uniform(2000, 9000)), rng.uniform(0.6, 1.1)
    return [[int(rng.lognormvariate(mu, sigma)) for _ in range(moves)] for _ in range(games)]


def test_a_machine_flat_player_is_flagged_and_nobody_else():
    rng = random.Random(2026)
    players = [
        player_figures(p, human(rng, 6, 30), turns=186, focus_lost=rng.randint(0, 12))
        for p in range(11)
    ]
    flat = [[2000 + rng.randint(-60, 60) for _ in range(30)] for _ in range(6)]
    players.append(player_figures(99, flat, turns=186, focus_lost=2))
    reports = field_report(players)
    assert [r.figures.player for r in reports if r.flagged] == [99]
    machine = reports[-1]
    assert machine.scored[Figure.NEAR_EQUAL].outlier
    assert machine.scored[Figure.VARIATION].outlier
    assert machine.scored[Figure.VARIATION].z < 0  # flat: far below the field


def test_many_fabricated_fields_flag_no_human():
    """Over 200 random fields of human-like players, none is flagged (the cut-off holds)."""
    for seed in range(200):
        rng = random.Random(seed)
        players = [player_figures(p, human(rng, 6, 30), turns=186, focus_lost=0) for p in range(12)]
        assert not any(r.flagged for r in field_report(players)), seed


def test_focus_alone_never_flags():
    rng = random.Random(5)
    players = [player_figures(p, human(rng, 6, 30), turns=180, focus_lost=2) for p in range(8)]
    players.append(player_figures(50, human(rng, 6, 30), turns=180, focus_lost=150))
    report = field_report(players)[-1]
    assert report.scored[Figure.FOCUS].outlier
    assert report.weak_signal and not report.flagged


def test_no_field_no_comparison():
    rng = random.Random(1)
    few = [
        player_figures(p, human(rng, 6, 30), turns=186, focus_lost=0) for p in range(MIN_FIELD - 1)
    ]
    few.append(player_figures(9, [[2000] * 30] * 6, turns=186, focus_lost=0))
    assert len(few) == MIN_FIELD  # but the field counts only those with enough moves…
    short = player_figures(10, [[2000] * (MIN_MOVES - 1)], turns=20, focus_lost=0)
    reports = field_report([*few[:-1], short])
    assert not any(r.compared for r in reports)
    assert all(s.z is None for r in reports for s in r.scored.values())
    assert not any(r.flagged for r in reports)
