"""A player's wait in a quick-pairing pool ends when a game of theirs opens (RULES 1: one board
at a time): what every opening of a game does to the pools, below both the openings
(`play.game_open`, `play.games_open`) and the pools' own services (`pools`), which pair
waiting players by opening games."""

from __future__ import annotations

from collections.abc import Iterable

from games.models import Game, PoolEntry
from games.services.state import lobby_changed_on_commit, lobby_games_changed_on_commit
from live import messages, pushes

POOL_WHAT = messages.What.POOL  # the site socket says "pool" when a player's wait changes


def pool_entries_clear(games: list[Game]) -> None:
    """The players of these games, just opened, leave any pool they waited in (RULES 1); each
    who waited is told where their game is (the site socket's `mygame`: the lobby page goes to
    the board). Runs inside the opening's transaction, under the players' user-row locks.
    Every opening of a game comes here (`play.game_open`, `play.games_open`), so the lobbies
    are told here too that the games being played, which each cell of the grid counts, have
    changed (throttled, after commit)."""
    players = {p: g.pk for g in games for p in (g.white_id, g.black_id)}
    if not players:
        return
    lobby_games_changed_on_commit()
    waiting = list(PoolEntry.objects.filter(player_id__in=players).values_list("player", flat=True))
    if not waiting:
        return
    PoolEntry.objects.filter(player_id__in=waiting).delete()
    for player_id in waiting:
        pushes.user_changed_on_commit([player_id], messages.What.MYGAME, game=players[player_id])
    pools_changed_on_commit(waiting)


def pools_changed_on_commit(player_ids: Iterable[int]) -> None:
    """After commit: the lobbies re-fetch the grid (counts), the players their wait."""
    lobby_changed_on_commit()
    pushes.user_changed_on_commit(player_ids, POOL_WHAT)
