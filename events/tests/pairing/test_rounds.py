"""RULES 4.4: format and number of rounds for every field size and threshold."""

import pytest

from events.pairing.rounds import ROUND_ROBIN, SWISS, plan_tournament

# RULES 4.4's table, restated by hand (not the formula): (lowest n, highest n, rounds).
SWISS_ROUNDS = [(7, 8, 5), (9, 16, 6), (17, 32, 7), (33, 64, 8), (65, 128, 9), (129, 200, 10)]


def swiss_rounds_from_table(n: int) -> int:
    return next(rounds for low, high, rounds in SWISS_ROUNDS if low <= n <= high)


@pytest.mark.parametrize("threshold", range(7, 21))
def test_every_field_size_and_threshold(threshold):
    for n in range(4, 201):
        for extra in (False, True):
            for double in (False, True):
                plan = plan_tournament(n, threshold=threshold, extra=extra, double=double)
                if n < threshold:
                    assert plan.format == ROUND_ROBIN
                    assert plan.rounds == (n - 1 if n % 2 == 0 else n)  # extra ignored
                    assert plan.double == (double or n == 4)
                else:
                    assert plan.format == SWISS
                    base = swiss_rounds_from_table(n)
                    bears_extra = base + 1 <= n // 2
                    assert plan.rounds == base + (1 if extra and bears_extra else 0)
                    assert plan.double == double


def test_four_players_always_play_double_games_three_rounds():
    assert plan_tournament(4).rounds == 3
    assert plan_tournament(4, double=False).double is True


def test_extra_round_limits():
    assert plan_tournament(13, extra=True).rounds == 6  # 6 + 1 > 13 // 2
    assert plan_tournament(14, extra=True).rounds == 7
    assert plan_tournament(200, extra=True).rounds == 11
    assert plan_tournament(6, threshold=7, extra=True).rounds == 5  # round robin: ignored


@pytest.mark.parametrize("args", [(3, 7), (201, 7), (10, 6), (10, 21)])
def test_out_of_range(args):
    with pytest.raises(ValueError):
        plan_tournament(args[0], threshold=args[1])
