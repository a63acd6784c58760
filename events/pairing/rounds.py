"""Format and number of rounds of a round tournament (RULES 4.4, 4.5)."""

from __future__ import annotations

from dataclasses import dataclass

from .model import MAX_PLAYERS

ROUND_ROBIN = "round_robin"
SWISS = "swiss"
MIN_PLAYERS = 4  # RULES 4.1 seats, up to MAX_PLAYERS
MIN_THRESHOLD, MAX_THRESHOLD = 7, 20  # RULES 4.1 threshold ("soglia")


@dataclass(frozen=True)
class Plan:
    format: str
    rounds: int
    double: bool


def plan_tournament(
    players: int, threshold: int = 7, extra: bool = False, double: bool = False
) -> Plan:
    """Choose the format and the number of rounds for `players` present at the start."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be between {MIN_PLAYERS} and {MAX_PLAYERS}")
    if not MIN_THRESHOLD <= threshold <= MAX_THRESHOLD:
        raise ValueError(f"threshold must be between {MIN_THRESHOLD} and {MAX_THRESHOLD}")
    if players < threshold:
        # RULES 4.4: round robin; one player rests each round when the number is odd.
        rounds = players - 1 if players % 2 == 0 else players
        # RULES 4.4: four players always play double games. The extra round is ignored.
        return Plan(ROUND_ROBIN, rounds, double or players == 4)
    # RULES 4.4: ceil(log2 n) + 2 (5 for 7-8 players ... 10 for 129-200).
    rounds = (players - 1).bit_length() + 2
    # RULES 4.4 Decision: the extra round only when rounds + 1 <= floor(n / 2).
    if extra and rounds + 1 <= players // 2:
        rounds += 1
    return Plan(SWISS, rounds, double)
