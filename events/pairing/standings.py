"""Standings and tiebreaks (RULES 4.6, 4.10) for both formats.

- Points: win 2, draw 1, loss 0 per game; a forfeit win scores its points; a 0-0 double
  absence scores nothing; the bye is worth a win (4 with double games).
- Buchholz cut 1: final points of every opponent met (forfeits included, the bye and a 0-0
  double absence are not opponents), minus the lowest. An opponent met in a double-games
  round counts once.
- Sonneborn-Berger: per game played, the final points of an opponent beaten, half those of an
  opponent drawn. A forfeit win adds nothing to it (RULES 4.10 Decision: that opponent still
  counts for Buchholz, but was not beaten over the board).
- Wins: games won over the board; forfeit wins and byes are not games won.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from .model import DRAW_POINTS, WIN_POINTS, Tournament


@dataclass(frozen=True)
class Standing:
    rank: int
    player: int
    name: str
    points: int
    buchholz_cut1: int
    sonneborn_berger: float
    wins: int
    head_to_head: int = 0  # round robin only: points against the players tied with them

    def as_dict(self) -> dict:
        return {
            "rank": self.rank,
            "player": self.player,
            "name": self.name,
            "points": self.points,
            "buchholz_cut1": self.buchholz_cut1,
            "sonneborn_berger": self.sonneborn_berger,
            "wins": self.wins,
        }


@dataclass(frozen=True)
class _Figures:
    points: int
    buchholz_cut1: int
    sonneborn_berger: float
    wins: int


def _figures(tournament: Tournament) -> dict[int, _Figures]:
    last = max(tournament.rounds_played, max((g.round for g in tournament.games), default=0))
    points = tournament.scores_after(last)
    met: dict[int, set[tuple[int, int]]] = defaultdict(set)
    sonneborn: dict[int, float] = defaultdict(float)
    wins: dict[int, int] = defaultdict(int)
    for g in tournament.games:
        if not g.played and g.white_points == g.black_points == 0:
            continue  # RULES 4.10 Decision: a 0-0 double absence is no game, no opponent
        for me, opponent, mine in (
            (g.white, g.black, g.white_points),
            (g.black, g.white, g.black_points),
        ):
            met[me].add((g.round, opponent))
            if not g.played:
                continue  # RULES 4.10 Decision: a forfeit win is no SB and no game won
            if mine == WIN_POINTS:
                sonneborn[me] += points[opponent]
                wins[me] += 1
            elif mine == DRAW_POINTS:
                sonneborn[me] += points[opponent] / 2
    figures = {}
    for e in tournament.entrants:
        opponent_points = [points[opponent] for _, opponent in met[e.number]]
        cut = sum(opponent_points) - min(opponent_points) if opponent_points else 0
        figures[e.number] = _Figures(points[e.number], cut, sonneborn[e.number], wins[e.number])
    return figures


def swiss_standings(tournament: Tournament) -> list[Standing]:
    """RULES 4.10 Swiss: points, Buchholz cut 1, Sonneborn-Berger, wins."""
    figures = _figures(tournament)
    names = {e.number: e.name for e in tournament.entrants}

    def key(number: int) -> tuple:
        f = figures[number]
        return (-f.points, -f.buchholz_cut1, -f.sonneborn_berger, -f.wins)

    order = sorted(figures, key=lambda n: (key(n), n))
    return _ranked(order, key, figures, names, {})


def round_robin_standings(tournament: Tournament) -> list[Standing]:
    """RULES 4.10 round robin: points, wins, head-to-head among the tied (again among those
    still tied, and so on), Berger number."""
    figures = _figures(tournament)
    names = {e.number: e.name for e in tournament.entrants}
    tied: dict[tuple[int, int], list[int]] = defaultdict(list)
    for number, f in figures.items():
        tied[(f.points, f.wins)].append(number)
    # Each player's head-to-head points at each pass: among the whole tied group first, then
    # among those still level with them alone, until a pass separates nobody more.
    passes: dict[int, list[int]] = defaultdict(list)
    for group in tied.values():
        _head_to_head(tournament, group, passes)

    def key(number: int) -> tuple:
        f = figures[number]
        # The Berger number is the last criterion, so no two players ever tie.
        return (-f.points, -f.wins, tuple(-h for h in passes[number]), number)

    order = sorted(figures, key=key)
    # The table shows the first pass, among all the players tied on points and wins.
    shown = {number: h[0] for number, h in passes.items() if h}
    return _ranked(order, key, figures, names, defaultdict(int, shown))


def _head_to_head(tournament: Tournament, group: list[int], passes: dict[int, list[int]]) -> None:
    """RULES 4.10 Decision: head-to-head points among `group`, appended to each member's
    passes; then again among each set of them still level, when it is smaller than `group`."""
    if len(group) < 2:
        return
    members = set(group)
    scored = dict.fromkeys(group, 0)
    for g in tournament.games:
        if g.white in members and g.black in members:
            scored[g.white] += g.white_points
            scored[g.black] += g.black_points
    level: dict[int, list[int]] = defaultdict(list)
    for number in group:
        passes[number].append(scored[number])
        level[scored[number]].append(number)
    for still_tied in level.values():
        if len(still_tied) < len(group):
            _head_to_head(tournament, still_tied, passes)


def _ranked(
    order: list[int],
    key: Callable[[int], tuple],
    figures: dict[int, _Figures],
    names: dict[int, str],
    head_to_head: dict[int, int],
) -> list[Standing]:
    standings: list[Standing] = []
    for position, number in enumerate(order, start=1):
        f = figures[number]
        rank = position
        if standings and key(standings[-1].player) == key(number):
            rank = standings[-1].rank  # fully tied: same place
        standings.append(
            Standing(
                rank=rank,
                player=number,
                name=names.get(number, ""),
                points=f.points,
                buchholz_cut1=f.buchholz_cut1,
                sonneborn_berger=f.sonneborn_berger,
                wins=f.wins,
                head_to_head=head_to_head.get(number, 0),
            )
        )
    return standings
