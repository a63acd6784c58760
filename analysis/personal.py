"""The analysis's part of what is personal to a player (accounts.personal, RULES 10.7, 14.6):
the analyses they asked for go with their data download, and their requests with their
account. The analyses themselves stay with the games (RULES 14.1: shown to everyone who
opens the game's analysis board), as the games stay under the tombstone name."""

from __future__ import annotations

from analysis.models import AnalysisRequest


def requests_section(user) -> list[dict]:
    """Every analysis the player asked for, oldest first: the game, when, whether it counted
    towards the day's bound, and where the analysis stands now."""
    return [
        {"game": game_id, "asked_at": asked_at.isoformat(), "counted": counted, "state": state}
        for game_id, asked_at, counted, state in AnalysisRequest.objects.filter(player=user)
        .order_by("asked_at", "pk")
        .values_list("analysis__game_id", "asked_at", "counted", "analysis__state")
    ]


def forget_requests(user) -> None:
    AnalysisRequest.objects.filter(player=user).delete()
