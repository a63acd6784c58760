"""Quick pairing ("Partita veloce"): click a time control, be paired with the next
player who clicks the same one, without posting a challenge.

A pool is (variant, time control, rated or casual). A player waits in at most one pool, never
while in a live game (RULES 1: one board at a time), and only while a lobby page of theirs is
open (its socket is their presence on the topic `POOL_TOPIC`; a player who just clicked counts
as present for `PRESENT_GRACE_MS`, so a page without its socket yet is not left out). Who plays
whom is `games.pool_pairing`, pure: close ratings first, widening with the wait.

Locking contract
----------------
A player's pool entry is guarded by their user row (USER rank, `live.locks`): joining, leaving
and the end of a wait take it first, and every game opened clears its players' entries under
the same locks (`play.game_open` / `games_open` call `pool_entries_clear`), so a player paired
by a tournament round, an arena or a challenge leaves the pool in the transaction that opens
that game (RULES 1), and the pool never pairs them again. A pairing pass locks the two players
of each pair together (ascending id), reads their entries again and opens the game through
`game_open` (which checks again that neither is busy): two passes racing for one player cannot
both pair them. Joining commits first and pairs after, so two players joining at once see each
other, whoever commits second pairing both. Safe to run twice: a pass finds nothing left.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Count, Q

from accounts.services import account_lock_open
from games import player_ratings
from games.models import Game, PoolEntry, Status
from games.pool_pairing import Seeker, pair_seekers
from games.rules import VARIANT_CODES
from games.services.errors import Malformed, NotAPlayer, PlayerBusy
from games.services.play import game_open
from games.services.pool_entries import pools_changed_on_commit
from games.services.state import now_ms
from live import locks, presence

logger = logging.getLogger(__name__)

# The grid of the lobby: the usual time controls, minutes + seconds of increment (RULES 2).
QUICK_TIME_CONTROLS = [
    (1, 0),
    (2, 1),
    (3, 0),
    (3, 2),
    (5, 0),
    (5, 3),
    (10, 0),
    (10, 5),
    (15, 10),
    (30, 0),
    (30, 20),
]
POOL_TOPIC = "pool"  # live.presence: the lobby pages of signed-in players
PRESENT_GRACE_MS = 30_000


@dataclass(frozen=True)
class Pool:
    variant: str
    base_seconds: int
    increment_seconds: int
    rated: bool


def pool_of(entry: PoolEntry) -> Pool:
    return Pool(entry.variant, entry.base_seconds, entry.increment_seconds, entry.rated)


def on_the_grid(base_seconds: int, increment_seconds: int) -> bool:
    """Whether this time control is a cell of the lobby's grid (whole minutes + increment)."""
    return not base_seconds % 60 and (base_seconds // 60, increment_seconds) in QUICK_TIME_CONTROLS


def check_pool(pool: Pool) -> None:
    if pool.variant not in VARIANT_CODES:
        raise Malformed("unknown variant")
    if not on_the_grid(pool.base_seconds, pool.increment_seconds):
        raise Malformed("not a quick-pairing time control")


def _lock_players(player_ids: Iterable[int]) -> None:
    users = get_user_model().objects.filter(pk__in=sorted(set(player_ids))).only("pk")
    locks.lock_rows(users, locks.Rank.USER)


def _in_live_game(player_id: int) -> bool:
    return Game.objects.filter(
        Q(white_id=player_id) | Q(black_id=player_id), status=Status.LIVE
    ).exists()


def pool_join(*, player_id: int, pool: Pool, at_ms: int | None = None) -> Game | None:
    """Wait in `pool` (leaving any other), then pair at once if an acceptable opponent waits.

    Returns the game when this join paired the player, else None (they wait; the pass on the
    tick widens the search, `pools_pair_due`). Raises PlayerBusy while they are in a live game
    (RULES 1) and Malformed for a pool that is not on the grid."""
    check_pool(pool)
    at = now_ms() if at_ms is None else at_ms
    with locks.atomic():
        # The player's row, as deleting the account locks it: a closed account never waits.
        if account_lock_open(user_id=player_id) is None:
            raise NotAPlayer("your account is closed")
        if _in_live_game(player_id):
            raise PlayerBusy("you are already in a live game")
        rating = player_ratings.current(
            [player_ratings.key(player_id, pool.variant, pool.base_seconds, pool.increment_seconds)]
        )
        PoolEntry.objects.filter(player_id=player_id).delete()
        PoolEntry.objects.create(
            player_id=player_id,
            variant=pool.variant,
            base_seconds=pool.base_seconds,
            increment_seconds=pool.increment_seconds,
            rated=pool.rated,
            rating=next(iter(rating.values()), player_ratings.DEFAULT),
            joined_at_ms=at,
        )
        pools_changed_on_commit([player_id])
    for game in pool_pair(pool=pool, at_ms=at):
        if player_id in (game.white_id, game.black_id):
            return game
    return None


def pool_leave(*, player_id: int) -> bool:
    """Stop waiting ("Annulla", or the last lobby page closed). Returns whether they waited."""
    with locks.atomic():
        _lock_players([player_id])
        deleted, _rows = PoolEntry.objects.filter(player_id=player_id).delete()
        if deleted:
            pools_changed_on_commit([player_id])
    return bool(deleted)


def pool_left_page(*, player_id: int) -> bool:
    """A lobby socket of the player closed: if it was their last, they stop waiting."""
    if presence.count(topic=POOL_TOPIC, user_id=player_id):
        return False
    return pool_leave(player_id=player_id)


def _seekers(pool: Pool, at_ms: int) -> list[Seeker]:
    """Who waits in the pool and is present (a lobby page open, or just clicked)."""
    entries = list(
        PoolEntry.objects.filter(
            variant=pool.variant,
            base_seconds=pool.base_seconds,
            increment_seconds=pool.increment_seconds,
            rated=pool.rated,
        ).values_list("player_id", "rating", "joined_at_ms")
    )
    if len(entries) < 2:
        return []
    here = {user for _topic, user in presence.fresh(topics=[POOL_TOPIC], at_ms=at_ms)}
    return [
        Seeker(player, rating, since)
        for player, rating, since in entries
        if player in here or at_ms - since < PRESENT_GRACE_MS
    ]


def pool_pair(*, pool: Pool, at_ms: int | None = None) -> list[Game]:
    """One pairing pass over one pool: the pairs `pair_seekers` chooses, each opened in its
    own transaction under both players' locks; a pair one of whom left meanwhile is skipped."""
    at = now_ms() if at_ms is None else at_ms
    opened: list[Game] = []
    for a, b in pair_seekers(_seekers(pool, at), at):
        white, black = (a.player, b.player) if secrets.randbelow(2) else (b.player, a.player)
        try:
            with locks.atomic():
                _lock_players([white, black])
                still = PoolEntry.objects.filter(
                    player_id__in=[white, black],
                    variant=pool.variant,
                    base_seconds=pool.base_seconds,
                    increment_seconds=pool.increment_seconds,
                    rated=pool.rated,
                ).count()
                if still != 2:
                    continue
                # Its players leave the pool and are taken to the board (pool_entries_clear).
                opened.append(
                    game_open(
                        white_id=white,
                        black_id=black,
                        variant_code=pool.variant,
                        base_seconds=pool.base_seconds,
                        increment_seconds=pool.increment_seconds,
                        rated=pool.rated,
                        at_ms=at,
                    )
                )
        except PlayerBusy:
            logger.warning("pool: %s or %s busy although waiting", white, black)
    return opened


def pools_pair_due(*, at_ms: int | None = None) -> list[Game]:
    """The tick: a pass over every pool where two or more wait (the ranges widen with the
    wait, so a pair refused at joining may be acceptable now); entries of players gone for
    good (no lobby page for a while) are dropped. Each pool's failure stays its own."""
    at = now_ms() if at_ms is None else at_ms
    opened: list[Game] = []
    here = {user for _topic, user in presence.fresh(topics=[POOL_TOPIC], at_ms=at)}
    gone = PoolEntry.objects.filter(joined_at_ms__lt=at - PRESENT_GRACE_MS).exclude(
        player_id__in=here
    )
    for player_id in list(gone.values_list("player_id", flat=True)):
        try:
            pool_leave(player_id=player_id)
        except Exception:
            logger.exception("pool: dropping the wait of %s failed", player_id)
    crowded = (
        PoolEntry.objects.values("variant", "base_seconds", "increment_seconds", "rated")
        .annotate(n=Count("id"))
        .filter(n__gte=2)
    )
    for row in list(crowded):
        pool = Pool(row["variant"], row["base_seconds"], row["increment_seconds"], row["rated"])
        try:
            opened.extend(pool_pair(pool=pool, at_ms=at))
        except Exception:
            logger.exception("pool pass failed for %s", pool)
    return opened
