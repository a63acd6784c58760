"""The match page's pushes: a short "changed" after commit, the page re-fetches its fragment
(STYLE 4, 7). Only the services call this, under the match's row lock, where the version is
bumped."""

from __future__ import annotations

from live import messages, pushes


def group_name(match_id: int) -> str:
    return f"teammatch-{match_id}"


def league_group_name(league_id: int) -> str:
    return f"league-{league_id}"


def changed_on_commit(match) -> None:
    """Bump the match's version (saved by the caller, under the row lock) and push it after
    commit, at most one a second with the last never lost (a round of games ending at once).
    A league's match tells its league's page too (its tables follow the boards, RULES 16.8)."""
    match.version += 1
    pushes.group_send_throttled_on_commit(
        group_name(match.pk), messages.team_match_changed(match.version)
    )
    if match.league_round_id is not None:
        pushes.group_send_throttled_on_commit(
            league_group_name(match.league_round.league_id),
            messages.team_match_changed(match.version),
        )


def league_changed_on_commit(league) -> None:
    """Bump the league's version (saved by the caller, under its row lock) and push it after
    commit: its page re-fetches its tables (a team, a roster, a round paired, the end)."""
    league.version += 1
    pushes.group_send_throttled_on_commit(
        league_group_name(league.pk), messages.team_match_changed(league.version)
    )
