from __future__ import annotations

from accounts.tests.factories import PASSWORD, UserFactory
from games.services import game_open

__all__ = ["PASSWORD", "UserFactory", "open_game"]

T0 = 1_800_000_000_000  # a fixed instant (epoch ms) for a controlled clock


def open_game(
    *,
    white=None,
    black=None,
    variant_code: str = "chess",
    base_seconds: int = 60,
    increment_seconds: int = 2,
    rated: bool = True,
    start_fen: str | None = None,
    at_ms: int = T0,
    opening_number: int | None = None,
    opening_moves=(),
):
    white = white or UserFactory()
    black = black or UserFactory()
    return game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code=variant_code,
        base_seconds=base_seconds,
        increment_seconds=increment_seconds,
        rated=rated,
        start_fen=start_fen,
        at_ms=at_ms,
        opening_number=opening_number,
        opening_moves=opening_moves,
    )
