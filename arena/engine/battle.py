"""A club battle's standings ("battaglia tra circoli", RULES 12.7), pure.

Every player scores for the club they entered for, as in any arena (RULES 8: streaks, boost);
a club's score is the sum of the points of its N best scorers (N chosen at the opening, 3 to
10). Ranking: the score, then **Decision** the points of the club's best scorer beyond the N
(the N+1st: the deeper bench wins a tie), then shared (1, 1, 3). The N counted are the club's
first N by the arena's own ranking (points, then wins, then the earlier entry): who they are
changes nothing of the sum, only whom the page marks as counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

TOP_N_MIN, TOP_N_MAX, TOP_N_DEFAULT = 3, 10, 5
CLUBS_MIN, CLUBS_MAX = 2, 10


@dataclass(frozen=True)
class Scorer:
    club: int
    player: int
    points: int
    wins: int = 0
    order: int = 0  # the entry's id: the earlier entry first on a full tie


@dataclass(frozen=True)
class ClubStanding:
    rank: int
    club: int
    score: int
    counted: tuple[Scorer, ...]  # its N best, best first
    others: tuple[Scorer, ...]  # the rest of its players, best first

    @property
    def players(self) -> int:
        return len(self.counted) + len(self.others)


def _best_first(scorer: Scorer) -> tuple[int, int, int]:
    return (-scorer.points, -scorer.wins, scorer.order)


def club_standings(
    clubs: Sequence[int], scorers: Sequence[Scorer], top_n: int
) -> list[ClubStanding]:
    """The clubs' standings: every invited club, with or without players."""
    if not TOP_N_MIN <= top_n <= TOP_N_MAX:
        raise ValueError(f"top_n {top_n} outside {TOP_N_MIN}..{TOP_N_MAX}")
    by_club: dict[int, list[Scorer]] = {club: [] for club in clubs}
    for scorer in scorers:
        if scorer.club not in by_club:
            raise ValueError(f"player {scorer.player} scores for a club not in the battle")
        by_club[scorer.club].append(scorer)
    rows = []
    for club, players in by_club.items():
        players = sorted(players, key=_best_first)
        counted, others = tuple(players[:top_n]), tuple(players[top_n:])
        score = sum(s.points for s in counted)
        bench = others[0].points if others else 0
        rows.append((score, bench, club, counted, others))
    rows.sort(key=lambda r: (-r[0], -r[1], r[2]))
    standings: list[ClubStanding] = []
    for place, (score, bench, club, counted, others) in enumerate(rows, start=1):
        previous = rows[place - 2] if place > 1 else None
        tied = previous is not None and (previous[0], previous[1]) == (score, bench)
        rank = standings[-1].rank if tied else place
        standings.append(ClubStanding(rank, club, score, counted, others))
    return standings
