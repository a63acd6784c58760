"""Tournament page pushes: a short "changed" message; the page re-fetches its fragment
(STYLE 4, 7). Only services call this, and only through `transaction.on_commit`."""

from __future__ import annotations

from live import messages, pushes


def group_name(tournament_id: int) -> str:
    return f"tournament-{tournament_id}"


def changed_on_commit(tournament_id: int, round_number: int = 0) -> None:
    """Announce after commit; every message carries the round (0 before the start, STYLE 4).
    Counted, so the page's shared part is rendered anew (events/shared_part.py)."""
    pushes.group_send_counted_on_commit(
        group_name(tournament_id), messages.tournament_changed(round_number)
    )


def result_on_commit(tournament_id: int, round_number: int) -> None:
    """A game's result (the standings move): as `changed_on_commit`, but at most one push a
    second, the last never lost (`live.pushes.group_send_throttled_on_commit`, as an arena's).
    A 200-player round's results come several a second, and each push had every open page of
    the tournament re-fetch and each daphne render its run anew (bench/evening.py); a page a
    second late is worth it. The rounds' starts and ends are pushed at once."""
    pushes.group_send_throttled_on_commit(
        group_name(tournament_id), messages.tournament_changed(round_number)
    )


# What a player's site socket (`/ws/me/`) is told when their tournament game opens or ends, or
# their tournament cancels itself: the banner re-fetches.
PLAYER_WHAT = "mytournament"  # registered by tournaments.receivers


def players_changed_on_commit(user_ids) -> None:
    """After commit, tell these players' pages that their tournament game changed (a banner a
    little late if a push is lost: the fragment also polls)."""
    pushes.user_changed_on_commit(user_ids, PLAYER_WHAT)


def game_opened_on_commit(game) -> None:
    """After commit, take both players' pages to the game that just opened for them (a round,
    the return leg of a double pairing): the site socket's `mygame`, as for an arena pairing or
    an accepted challenge (with a banner alone half the games ended 0-0, neither player at the
    board, RULES 3)."""
    pushes.user_changed_on_commit(
        [game.white_id, game.black_id], messages.What.MYGAME, game=game.pk
    )
