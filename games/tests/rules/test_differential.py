"""Our draughts generator against pydraughts, the oracle (RULES 2; docs/benchmarks.md,
``make test-differential``).

Every position reached by seeded random playouts: the same legal moves (path and captured
pieces) and the same position after each of them. ``make test`` checks
DIFFERENTIAL_POSITIONS positions per variant (default: what fits the test-time budget);
the full 100,000 per variant runs with
``python -m games.tests.rules.differential --positions 100000`` (see that module).
"""

import os

import pytest

from games.tests.rules.differential import DRAUGHTS_CODES, run

# Per-variant defaults sized for ``make test`` on a 2-core machine (a few seconds each, so the
# whole suite stays under 5 minutes, docs/testing.md); International positions cost pydraughts
# about three times more. The playouts are the same seeded games, so every kind of position the playouts
# meet early (openings, first captures, majority and multiple captures, first kings) is still
# in the sample; `make test-differential` plays them on to 100,000 positions per variant.
DEFAULT_POSITIONS = {"italian": 600, "english": 600, "international": 300}


def positions_for(code: str) -> int:
    configured = os.environ.get("DIFFERENTIAL_POSITIONS")
    return int(configured) if configured else DEFAULT_POSITIONS[code]


@pytest.mark.parametrize("code", DRAUGHTS_CODES)
def test_legal_moves_and_results_match_pydraughts(code: str) -> None:
    wanted = positions_for(code)
    report = run(code, wanted, workers=int(os.environ.get("DIFFERENTIAL_WORKERS", "1")))
    assert report.positions == wanted
    assert report.playouts >= 2
    assert report.mismatches == []
