"""The match page's pushes: a short "changed" after commit, the page re-fetches its fragment
(STYLE 4, 7). Only the services call this, under the match's row lock, where the version is
bumped."""

from __future__ import annotations

from live import messages, pushes


def group_name(match_id: int) -> str:
    return f"teammatch-{match_id}"


def changed_on_commit(match) -> None:
    """Bump the match's version (saved by the caller, under the row lock) and push it after
    commit, at most one a second with the last never lost (a round of games ending at once)."""
    match.version += 1
    pushes.group_send_throttled_on_commit(
        group_name(match.pk), messages.team_match_changed(match.version)
    )
