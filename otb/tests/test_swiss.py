"""RULES 13's "done when", through the services: a 30-player Swiss of 7 rounds from a CSV,
with a late entry, a requested bye, a withdrawal, forfeits and an edited pairing; its TRF read
back equal and judged by the Lim checker; the Elo Italia report checked by hand for three
players. (tests/test_e2e_otb.py plays the same tournament with one round typed in Chromium.)"""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from accounts.tests.factories import UserFactory
from events.pairing.checker import check_tournament
from events.pairing.trf import read_trf
from otb import selectors, services
from otb.models import OtbTournament
from otb.tests import scenario
from otb.trf import otb_trf

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fixed_lot(monkeypatch):
    """The colour of #1 in round 1 drawn by a seeded lot: the same tournament every run."""
    monkeypatch.setattr(services, "LOT", random.Random(1))


def check_played(tournament: OtbTournament) -> None:
    """What both tests assert of the tournament once played."""
    tournament.refresh_from_db()
    assert tournament.status == OtbTournament.Status.FINISHED
    assert (tournament.format, tournament.total_rounds) == ("swiss", 7)  # RULES 4.4: 17-32
    assert tournament.players.count() == 30
    late = tournament.players.get(last_name="Verdi")
    assert (late.number, late.entered_round) == (30, 3)  # RULES 13.3: the next free number

    text = otb_trf(tournament)
    # The federations' columns and header lines are there, the engine's reader reads it back
    # to the very tournament the pairings were made from.
    assert "\n042 2026/12/05\n" in text and "\n142 7\n" in text and "\n162 " in text
    assert read_trf(text) == selectors.engine_tournament(tournament)
    findings = check_tournament(read_trf(text))
    assert [f.round for f in findings] == [1, 2, 3, 4, 5, 6, 7]
    # No round breaks an absolute rule; each round is the engine's own pairing but round 2,
    # whose two Blacks the arbiter exchanged (a legal edit: the checker names no rule).
    assert [f.broken for f in findings] == [()] * 7
    assert [f.round for f in findings if f.differs] == [2]

    row = {
        n: line for line in text.splitlines() if line.startswith("001") for n in [int(line[4:8])]
    }
    assert row[30][91:].split()[:6] == ["0000", "-", "Z", "0000", "-", "Z"]  # late: rounds 1-2
    assert "0000 - H" in row[scenario.HALF_BYE[0]]
    assert len(row[scenario.WITHDRAWN[0]]) <= 91 + 4 * 10  # nothing after round 4


def test_thirty_player_swiss_from_csv_to_trf_and_rating_report():
    organizer = UserFactory(username="arbitro")
    tournament = scenario.open_tournament(organizer)
    scenario.play(tournament, organizer)
    check_played(tournament)

    round_two = tournament.rounds.get(number=2)
    # The rematch the checker refused is in the record too (RULES 13.6), then the legal edit.
    kinds = [(e["what"], bool(e.get("broken")), e.get("refused")) for e in round_two.record]
    assert kinds[0] == ("paired", False, None) and kinds[-1] == ("published", False, None)
    assert kinds[1] == ("exchange", True, True) and kinds[-2] == ("exchange", False, False)

    lines = {line.number: line for line in selectors.rating_lines(tournament)}
    figures = {
        n: (lines[n].opponents, lines[n].score, lines[n].expected, lines[n].new_rating)
        for n in (1, 6, 30)
    }
    D = Decimal
    # By hand, with the REI table (the higher-rated expects the row's %, the lower 100 - it;
    # over 350 counts as 350; PA's second decimal 1-5 down, 6-9 up; K 30 below 2200).
    # #1 (Elo Italia 2127): 1805 (diff 322: 87), 1440 (#27 unrated, RULES 13.10; 687 -> 350:
    # 89), 1874 (253: 81), 2012 (115: 66), 1989 (138: 69), 1667 (460 -> 350: 89); round 3 a
    # forfeit win, not rated. Sum 4,81 -> PA 4,8; P = 0 + 1 + 1 + 1 + 1 + ½ = 4,5;
    # V = 30 x (4,5 - 4,8) = -9, but #1 finished
    # first ex aequo with #6 (5½ each, round 3's forfeit win counted): art. 11, stays 2127.
    # #6 (1989): 1575 (414: 89), 1667 (322: 87), 1440 (#29 unrated: 89), 2012 (-23: 47),
    # 1943 (46: 56), 2127 (-138: 31), 2058 (-69: 40). Sum 4,39 -> 4,4; P = 1 + ½ + 1 + 1 + 1 +
    # 0 + 1 = 5,5; V = 30 x 1,1 = 33 -> 2022.
    # #30 (Verdi, the late entry, 1900; rounds 3-7): 1552 (348: 89), 1598 (302: 85), 1713
    # (187: 74), 1966 (-66: 41), 2104 (-204: 24). Sum 3,13 -> 3,1; P = ½ + 1 + ½ + ½ + 0 = 2,5;
    # V = 30 x (2,5 - 3,1) = -18 -> 1882.
    assert lines[1].change == -9 and lines[1].first_protected
    assert figures == {
        1: ((1805, 1440, 1874, 2012, 1989, 1667), D("4.5"), D("4.8"), 2127),
        6: ((1575, 1667, 1440, 2012, 1943, 2127, 2058), D("5.5"), D("4.4"), 2022),
        30: ((1552, 1598, 1713, 1966, 2104), D("2.5"), D("3.1"), 1882),
    }
