"""Writing ratings (RULES 7.1). The only module that changes `Rating` rows or their history.

The games and tournaments that call these services describe what happened with two small
frozen dataclasses, `FinishedGame` and `FinishedTournament`, so this module depends on nothing
but their ids (STYLE 6: games know nothing of ratings; the handler of the `game_finished`
signal builds a `FinishedGame` and calls `game_rate`).

Locking contract
----------------
Every service that changes ratings runs in one transaction and, before reading any rating
value, locks all the rating rows it will touch with `SELECT … FOR UPDATE`, always in ascending
primary key order (`live.locks`, RATING rank: after any event, user or game row). Rows that do not exist yet are first
inserted with `INSERT … ON CONFLICT DO NOTHING`, in the same order. Two transactions therefore
always queue on their first shared row and never deadlock, and a second game of the same player
reads the rating the first one wrote (no lost update).

Idempotency
-----------
An event (a game or a tournament) is rated at most once: `RatingPeriod` is unique on
(kind, source_id) and `RatingChange` on (period, rating), so the database refuses a second
rating even if two workers race past the `exists()` checks. Running a service twice returns
`already_rated` and changes nothing.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import Any

from django.db import IntegrityError

from games.rules.timecontrol import TimeControl
from live import locks
from ratings.elo_italia import PeriodResult, rate_period
from ratings.models import Rating, RatingChange, RatingPeriod, initial_rating

logger = logging.getLogger(__name__)


class GameResult(StrEnum):
    WHITE_WINS = "1-0"
    BLACK_WINS = "0-1"
    DRAW = "1/2-1/2"
    NOBODY_SCORES = "0-0"  # RULES 3: neither player sat
    NO_RESULT = ""  # RULES 3: an aborted game


# Game points for (white, black), in half points (RULES 7.1: 1 / ½ / 0, not tournament points).
RESULT_HALVES: dict[GameResult, tuple[int, int]] = {
    GameResult.WHITE_WINS: (2, 0),
    GameResult.BLACK_WINS: (0, 2),
    GameResult.DRAW: (1, 1),
    GameResult.NOBODY_SCORES: (0, 0),
}


@dataclass(frozen=True)
class FinishedGame:
    """What the ratings need to know about a finished game. `game_id` is the source key."""

    game_id: int
    white_id: int
    black_id: int
    variant: str
    time_control: TimeControl
    result: GameResult
    rated: bool  # False for casual games and for every game of an unrated event
    white_sat: bool
    black_sat: bool
    forfeit: bool = False
    # The game's own decision (`Game.rated_with_event`): its event rates it with the others as
    # one period (a round tournament), never on its own.
    with_event: bool = False
    # The ratings each player held as the game opened (`Game.white_rating`): a game rated alone
    # is a period of its own, rated at the ratings of its start (REI art. 4), not at those its
    # players hold when it ends (another period of theirs may have been rated meanwhile).
    # None: not kept (a game older than the column), the ratings as they are then.
    white_rating: int | None = None
    black_rating: int | None = None

    def halves_of(self, player_id: int) -> int:
        white, black = RESULT_HALVES[self.result]
        return white if player_id == self.white_id else black


@dataclass(frozen=True)
class FinishedTournament:
    """A finished round tournament, rated as one period (RULES 7.1, REI art. 4 and 11).

    `start_ratings` are every player's ratings in the tournament's pool as they were at the
    start (selectors.ratings_snapshot at the start, or selectors.ratings_at afterwards);
    `first_place` are the players who finished first, ex aequo included.
    """

    tournament_id: int
    variant: str
    time_control: TimeControl
    rated: bool
    games: Sequence[FinishedGame]
    start_ratings: Mapping[int, int]
    first_place: frozenset[int] = field(default_factory=frozenset)


class NotRatedReason(StrEnum):
    CASUAL = "casual"  # RULES 7.1: casual games and unrated events are never rated
    UNRATED_EVENT = "unrated_event"
    FORFEIT = "forfeit"  # RULES 4.7, REI art. 7: forfeits are never rated
    NEVER_SAT = "never_sat"  # RULES 3: a game one player never sat at is never rated
    NO_RATED_GAMES = "no_rated_games"  # a tournament with nothing left to rate
    WITH_EVENT = "with_event"  # RULES 7.1: a tournament is rated as one period
    ABORTED = "aborted"  # RULES 3: an aborted game has no result


class Status(StrEnum):
    RATED = "rated"
    ALREADY_RATED = "already_rated"
    NOT_RATED = "not_rated"


@dataclass(frozen=True)
class RatingOutcome:
    status: Status
    reason: NotRatedReason | None = None
    changes: tuple[RatingChange, ...] = ()


def finished_game_of(game: Any) -> FinishedGame:
    """What the ratings need of a finished `games.models.Game` (read by attribute: the ratings
    know games only through this description)."""
    return FinishedGame(
        game_id=game.pk,
        white_id=game.white_id,
        black_id=game.black_id,
        variant=game.variant,
        time_control=game.time_control,
        result=GameResult(game.result),
        rated=game.rated,
        white_sat=game.white_sat,
        black_sat=game.black_sat,
        with_event=game.rated_with_event,
        white_rating=game.white_rating,
        black_rating=game.black_rating,
    )


def game_not_rated_reason(game: FinishedGame) -> NotRatedReason | None:
    """Why a game is never rated (RULES 7.1), or None when it counts.

    Checked in this order so that the reason shown is the most telling one.
    """
    if game.white_id == game.black_id:
        raise ValueError("a game needs two different players")
    if game.result is GameResult.NO_RESULT:
        return NotRatedReason.ABORTED
    if not game.rated:
        return NotRatedReason.CASUAL
    if game.forfeit:
        return NotRatedReason.FORFEIT  # RULES 4.7 case 2; REI art. 7
    if not (game.white_sat and game.black_sat) or game.result == GameResult.NOBODY_SCORES:
        return NotRatedReason.NEVER_SAT  # RULES 3 "Never sat" (0-0 means neither sat)
    return None


def _lock_ratings(player_ids: Iterable[int], *, variant: str, cadence: str) -> dict[int, Rating]:
    """Create missing rating rows and lock all of them, in primary key order (the RATING rank of
    the site's lock order, `live.locks`)."""
    ids = sorted(set(player_ids))
    start = initial_rating()
    Rating.objects.bulk_create(
        [
            Rating(player_id=pid, variant=variant, cadence=cadence, value=start, peak=start)
            for pid in ids
        ],
        ignore_conflicts=True,  # INSERT … ON CONFLICT DO NOTHING: another worker may have won
    )
    rows = locks.lock_rows(
        Rating.objects.filter(player_id__in=ids, variant=variant, cadence=cadence),
        locks.Rank.RATING,
    )
    return {row.player_id: row for row in rows}


def _open_period(*, kind: str, source_id: int, variant: str, cadence: str) -> RatingPeriod | None:
    """The period row that marks the event as rated, or None if it already was."""
    if RatingPeriod.objects.filter(kind=kind, source_id=source_id).exists():
        return None
    try:
        with locks.atomic():  # a savepoint, so the outer transaction survives
            return RatingPeriod.objects.create(
                kind=kind, source_id=source_id, variant=variant, cadence=cadence
            )
    except IntegrityError:
        return None  # the unique constraint: someone rated it between our check and insert


def _apply(
    *, rating: Rating, period: RatingPeriod, result: PeriodResult, games: int, held: int
) -> RatingChange:
    """Add the period's change, reckoned at the rating `held` (REI art. 4), to the rating as
    it is now (locked) and record both."""
    before = rating.value
    rating.value = before + result.delta
    rating.games += games
    rating.peak = max(rating.peak, rating.value)
    rating.last_change = result.delta
    rating.save(update_fields=["value", "games", "peak", "last_change", "updated_at"])
    return RatingChange.objects.create(
        period=period,
        rating=rating,
        before=before,
        after=rating.value,
        held=held,
        delta=result.delta,
        games=games,
        score=result.score,
        expected=result.expected,
        k=result.k,
        first_protected=result.first_protected,
    )


def game_rate(*, game: FinishedGame) -> RatingOutcome:
    """Rate one finished challenge or arena game on its own (RULES 7.1).

    Idempotent and safe under concurrency (module docstring). Both players' changes are
    computed from the ratings the players held as the game opened (REI art. 4) and added to
    their ratings read under lock, before either is written.
    """
    reason = game_not_rated_reason(game)
    if reason is None and game.with_event:
        reason = NotRatedReason.WITH_EVENT  # counted once, by tournament_rate
    if reason is not None:
        return RatingOutcome(Status.NOT_RATED, reason)
    cadence = game.time_control.cadence.value
    kind = RatingPeriod.Kind.GAME
    with locks.atomic():
        if RatingPeriod.objects.filter(kind=kind, source_id=game.game_id).exists():
            return RatingOutcome(Status.ALREADY_RATED)
        ratings = _lock_ratings(
            [game.white_id, game.black_id], variant=game.variant, cadence=cadence
        )
        # Checked again under the lock: a concurrent run of this same game has committed.
        period = _open_period(
            kind=kind, source_id=game.game_id, variant=game.variant, cadence=cadence
        )
        if period is None:
            return RatingOutcome(Status.ALREADY_RATED)
        white, black = ratings[game.white_id], ratings[game.black_id]
        # REI art. 4: the period's ratings are those held at its start, the game's opening;
        # each change is then added to the rating as it is now (as a tournament's, below).
        held = {
            game.white_id: white.value if game.white_rating is None else game.white_rating,
            game.black_id: black.value if game.black_rating is None else game.black_rating,
        }
        results = {
            player.player_id: rate_period(
                held[player.player_id],
                [held[opponent.player_id]],
                Decimal(game.halves_of(player.player_id)) / 2,
            )
            for player, opponent in ((white, black), (black, white))
        }
        changes = tuple(
            _apply(
                rating=r,
                period=period,
                result=results[r.player_id],
                games=1,
                held=held[r.player_id],
            )
            for r in (white, black)
        )
    logger.info("rated game %s: %s", game.game_id, [(c.before, c.after) for c in changes])
    return RatingOutcome(Status.RATED, changes=changes)


def tournament_rate(*, tournament: FinishedTournament) -> RatingOutcome:
    """Rate a finished tournament as one period (RULES 7.1; REI art. 4 and 11).

    Every player's change is computed over all their rated games in it, with everybody's
    ratings frozen at the start (`start_ratings`), and added to their rating as it is now (they
    may have played challenges since the start). Players in `first_place` never receive a
    negative change (art. 11). Idempotent and safe under concurrency (module docstring).
    """
    if not tournament.rated:
        return RatingOutcome(Status.NOT_RATED, NotRatedReason.UNRATED_EVENT)
    cadence = tournament.time_control.cadence.value
    opponents: dict[int, list[int]] = defaultdict(list)
    halves: dict[int, int] = defaultdict(int)
    for game in tournament.games:
        if game.variant != tournament.variant or game.time_control.cadence.value != cadence:
            raise ValueError(f"game {game.game_id} is not of the tournament's variant/cadence")
        if game_not_rated_reason(game) is not None:
            continue
        for player, opponent in ((game.white_id, game.black_id), (game.black_id, game.white_id)):
            try:
                opponents[player].append(tournament.start_ratings[opponent])
            except KeyError:
                raise ValueError(f"no start rating for player {opponent}") from None
            halves[player] += game.halves_of(player)
    if not opponents:
        return RatingOutcome(Status.NOT_RATED, NotRatedReason.NO_RATED_GAMES)

    results = {
        player: rate_period(
            tournament.start_ratings[player],
            opponents[player],
            Decimal(halves[player]) / 2,
            first=player in tournament.first_place,  # REI art. 11, ex aequo included
        )
        for player in opponents
    }
    kind = RatingPeriod.Kind.TOURNAMENT
    with locks.atomic():
        if RatingPeriod.objects.filter(kind=kind, source_id=tournament.tournament_id).exists():
            return RatingOutcome(Status.ALREADY_RATED)
        ratings = _lock_ratings(results, variant=tournament.variant, cadence=cadence)
        period = _open_period(
            kind=kind,
            source_id=tournament.tournament_id,
            variant=tournament.variant,
            cadence=cadence,
        )
        if period is None:
            return RatingOutcome(Status.ALREADY_RATED)
        changes = tuple(
            _apply(
                rating=ratings[player],
                period=period,
                result=results[player],
                games=len(opponents[player]),
                held=tournament.start_ratings[player],
            )
            for player in sorted(results)
        )
    logger.info("rated tournament %s: %d players", tournament.tournament_id, len(changes))
    return RatingOutcome(Status.RATED, changes=changes)


def player_ratings_recompute(*, player_id: int) -> list[Rating]:
    """Rebuild a player's rating rows from their history (the admin's repair action).

    Each rating becomes its first recorded `before` (the rating it started from) plus the sum
    of its changes; games, peak and last change are recounted the same way. The history itself
    is never rewritten. A rating without history is reset to the initial rating.
    """
    with locks.atomic():
        ratings = list(
            Rating.objects.select_for_update()
            .filter(player_id=player_id)
            .order_by("variant", "cadence")
        )
        for rating in ratings:
            history = list(rating.history.order_by("created_at", "id"))
            value = history[0].before if history else initial_rating()
            peak, games, last_change = value, 0, 0
            for change in history:
                value += change.delta
                peak = max(peak, value)
                games += change.games
                last_change = change.delta
            rating.value, rating.peak, rating.games = value, peak, games
            rating.last_change = last_change
            rating.save(update_fields=["value", "games", "peak", "last_change", "updated_at"])
    return ratings
