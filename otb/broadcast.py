"""The public page's pushes: a short "changed" after commit, the page re-fetches its fragment
(STYLE 4, 7). Results come several a minute at the venue: at most one push a second."""

from __future__ import annotations

from live import messages, pushes


def group_name(tournament_id: int) -> str:
    return f"otb-{tournament_id}"


def changed_on_commit(tournament_id: int, version: int) -> None:
    pushes.group_send_throttled_on_commit(group_name(tournament_id), messages.otb_changed(version))
