"""Reading team matches (RULES §16) for their pages and for the other apps' registries."""

from __future__ import annotations

from teams.models import LineupEntry, TeamMatch


def commitments_of(club_id: int, user_id: int) -> list[str]:
    """RULES 16.6: the club's matches not over in whose line-up the player is named (they stay
    a member until it is over, RULES 12.3)."""
    return list(
        LineupEntry.objects.filter(lineup__club_id=club_id, player_id=user_id)
        .exclude(lineup__match__status__in=[TeamMatch.Status.FINISHED, TeamMatch.Status.CANCELLED])
        .values_list("lineup__match__name", flat=True)
        .order_by("lineup__match__starts_at")
    )


def match_boards(match: TeamMatch) -> list:
    """The boards of a started match, in order, with their players and games."""
    return list(
        match.board_rows.select_related("first_player", "second_player", "game1", "game2").order_by(
            "number"
        )
    )
