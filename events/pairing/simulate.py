"""Play whole Swiss tournaments with random results through our own pairing.

Used by `python -m events.pairing simulate`, the benchmark and the soak test. Every round is
checked by `checks` (independent of the pairing code) and timed.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field, replace

from .checks import Quality, hard_rule_violations, legal_pairing_exists, quality
from .lim import NoLegalPairing, PairingNotes, pair_round
from .model import DRAW_POINTS, WIN_POINTS, Entrant, Game, GameResult, Tournament


@dataclass(frozen=True)
class RoundReport:
    round: int
    seconds: float
    violations: tuple[str, ...]
    quality: Quality
    notes: PairingNotes = field(default_factory=PairingNotes)  # rule 9 cracks, guard fallbacks
    compared: Quality | None = None  # the same state paired by `compare_reading`, if asked
    differs: bool = False  # whether that pairing differs from ours


@dataclass(frozen=True)
class SimulationReport:
    players: int
    rounds_planned: int
    rounds: tuple[RoundReport, ...]
    stopped: str | None = None  # why the tournament ended early (Lim 11), if it did
    stop_confirmed: bool = True  # the independent check agrees no legal pairing existed
    tournament: Tournament | None = None  # as played, every round's results in it

    @property
    def violations(self) -> int:
        return sum(len(r.violations) for r in self.rounds) + (0 if self.stop_confirmed else 1)


def random_result(
    rng: random.Random, white_rating: int, black_rating: int, draw_rate: float
) -> tuple[int, int]:
    """The stronger player is more likely to win (Elo expectation); draws at draw_rate."""
    expected_white = 1 / (1 + 10 ** ((black_rating - white_rating) / 400))
    x = rng.random()
    if x < draw_rate:
        return (DRAW_POINTS, DRAW_POINTS)
    if rng.random() < expected_white:
        return (WIN_POINTS, 0)
    return (0, WIN_POINTS)


def simulate(
    players: int,
    rounds: int,
    seed: int,
    draw_percent: float = 20.0,
    absence_percent: float = 0.0,
    double_games: bool = False,
    forfeit_percent: float = 0.0,
    compare_reading: str | None = None,
) -> SimulationReport:
    """Play `rounds` rounds (or until Lim 11 ends the tournament) with random results.

    `absence_percent`: chance that a player is announced absent for a round (not paired).
    `double_games`: two games per pairing, colours reversed (RULES 4.5).
    `forfeit_percent`: chance that a pairing is not played (RULES 4.7): one player busy (a
    forfeit win for the other, Lim 1 then denies them the bye) or, one time in three, both.
    `compare_reading`: also pair every state by that reading of rule 8.3 (`lim.ROUND_READING`)
    and report its quality beside ours; the tournament goes on with ours.
    """
    rng = random.Random(seed)
    ratings = sorted((rng.randint(1000, 2500) for _ in range(players)), reverse=True)
    entrants = tuple(Entrant(i + 1, f"p{i + 1}", r) for i, r in enumerate(ratings))
    rating = {e.number: e.rating or 0 for e in entrants}
    first_colour = "W" if rng.random() < 0.5 else "B"
    tournament = Tournament(
        entrants=entrants,
        total_rounds=rounds,
        first_colour=first_colour,
        double_games=double_games,
    )
    reports: list[RoundReport] = []
    for number in range(1, rounds + 1):
        if absence_percent:
            absent = frozenset(e.number for e in entrants if rng.random() * 100 < absence_percent)
            tournament = replace(tournament, absent_next=absent)
        states = tournament.player_states()
        spec = tournament.next_round_spec()
        notes = PairingNotes()
        started = time.perf_counter()
        try:
            pairing = pair_round(states, spec, notes=notes)
        except NoLegalPairing as exc:
            confirmed = not legal_pairing_exists(states, spec)
            return SimulationReport(
                players, rounds, tuple(reports), str(exc), confirmed, tournament=tournament
            )
        seconds = time.perf_counter() - started
        violations = hard_rule_violations(states, spec, pairing)
        compared, differs = None, False
        if compare_reading is not None:
            other = pair_round(states, spec, reading=compare_reading)
            compared, differs = quality(states, other), other != pairing
        reports.append(
            RoundReport(
                number,
                seconds,
                tuple(violations),
                quality(states, pairing),
                notes,
                compared,
                differs,
            )
        )
        results: dict[Game, tuple[int, int]] = {
            g: random_result(rng, rating[g.white], rating[g.black], draw_percent / 100)
            for g in pairing.games
        }
        unplayed: dict[Game, tuple[int, int]] = {}
        for g in pairing.games:
            if forfeit_percent and rng.random() * 100 < forfeit_percent:
                unplayed[g] = rng.choice([(WIN_POINTS, 0), (0, WIN_POINTS), (0, 0)])
        results.update(unplayed)
        tournament = tournament.with_round(pairing, results, number)
        if unplayed:
            games = tuple(
                replace(r, played=False)
                if r.round == number and Game(r.white, r.black) in unplayed
                else r
                for r in tournament.games
            )
            tournament = replace(tournament, games=games)
        if double_games:
            # RULES 4.5: the return game, colours reversed, in the same round (a forfeit
            # forfeits both games).
            return_games = tuple(
                GameResult(number, g.black, g.white, *unplayed[g][::-1], played=False, leg=2)
                if g in unplayed
                else GameResult(
                    number,
                    g.black,
                    g.white,
                    *random_result(rng, rating[g.black], rating[g.white], draw_percent / 100),
                    leg=2,
                )
                for g in pairing.games
            )
            tournament = replace(tournament, games=tournament.games + return_games)
    return SimulationReport(players, rounds, tuple(reports), tournament=tournament)


def format_report(report: SimulationReport) -> str:
    lines = [
        f"{'round':>5} {'ms':>8} {'viol':>4} {'floaters':>8} {'diff_sum':>8} "
        f"{'diff_max':>8} {'col_not':>7}"
    ]
    for r in report.rounds:
        q = r.quality
        lines.append(
            f"{r.round:5d} {r.seconds * 1000:8.1f} {len(r.violations):4d} {q.floaters:8d} "
            f"{q.score_difference_sum:8d} {q.score_difference_max:8d} "
            f"{q.due_colours_not_granted:7d}"
        )
        lines.extend(f"      violation: {v}" for v in r.violations)
    total_ms = sum(r.seconds for r in report.rounds) * 1000
    lines.append(
        f"total {total_ms:8.1f} {report.violations:4d} "
        f"{sum(r.quality.floaters for r in report.rounds):8d} "
        f"{sum(r.quality.score_difference_sum for r in report.rounds):8d} "
        f"{max((r.quality.score_difference_max for r in report.rounds), default=0):8d} "
        f"{sum(r.quality.due_colours_not_granted for r in report.rounds):7d}"
    )
    if report.stopped:
        verdict = "confirmed" if report.stop_confirmed else "NOT confirmed: a legal pairing existed"
        lines.append(
            f"stopped after round {len(report.rounds)}: {report.stopped} "
            f"(independent check: {verdict})"
        )
    lines.append(
        "columns: pairing time, hard-rule violations (must be 0), floaters (pairs of unequal "
        "score), sum and maximum score difference of the pairs (points, win = 2), due colours "
        "not granted"
    )
    return "\n".join(lines)
