"""Reading ratings: what pages, pairings and floors need (RULES 5.2, 7.1, 7.2)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import F, Prefetch, QuerySet, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from ratings.chart import Chart, rating_chart
from ratings.models import (
    CadenceChoice,
    Rating,
    RatingChange,
    RatingPeriod,
    Variant,
    initial_rating,
)

LEADERBOARD_PREVIEW = 5


def rating_value(*, player_id: int, variant: str, cadence: str) -> int:
    """A player's rating in one pool; the initial rating if they have none yet (RULES 7.1).

    This is the number rating floors (RULES 7.2) and Swiss pairing numbers (RULES 5.2) use.
    """
    return ratings_snapshot(player_ids=[player_id], variant=variant, cadence=cadence)[player_id]


def ratings_snapshot(*, player_ids: Iterable[int], variant: str, cadence: str) -> dict[int, int]:
    """Current ratings of many players in one pool, in one query (initial rating if none).

    A tournament takes this at its start and hands it back to services.tournament_rate.
    """
    ids = set(player_ids)
    found = dict(
        Rating.objects.filter(player_id__in=ids, variant=variant, cadence=cadence).values_list(
            "player_id", "value"
        )
    )
    start = initial_rating()
    return {pid: found.get(pid, start) for pid in ids}


def ratings_at(
    *, player_ids: Iterable[int], variant: str, cadence: str, at: datetime
) -> dict[int, int]:
    """The ratings players held at a past instant, read back from the history ledger.

    The rating at `at` is the `before` of the first change made after it, or the current
    rating when nothing changed since. Lets a tournament that kept no snapshot rate itself with
    the ratings of its start (RULES 7.1).
    """
    ratings = ratings_snapshot(player_ids=player_ids, variant=variant, cadence=cadence)
    later = (
        RatingChange.objects.filter(
            rating__player_id__in=ratings.keys(),
            rating__variant=variant,
            rating__cadence=cadence,
            created_at__gt=at,
        )
        .order_by("-created_at", "-id")
        .values_list("rating__player_id", "before")
    )
    for player_id, before in later:  # newest first: the earliest change after `at` wins
        ratings[player_id] = before
    return ratings


@dataclass(frozen=True)
class PlayerRatingRow:
    rating: Rating
    chart: Chart
    history: list[RatingChange]


def player_rating_rows(*, player_id: int, since: datetime | None = None) -> list[PlayerRatingRow]:
    """The player page's table: every pool the player has rated games in, with its chart.

    The chart's first point is the rating held before the first change, dated `since` (when
    the player joined) or else at that change; then one point per change, at its date, in the
    current time zone so the chart's days are the reader's. Two queries whatever the number of
    pools (ratings, then their history).
    """
    ratings = (
        Rating.objects.filter(player_id=player_id, games__gt=0)
        .prefetch_related(
            Prefetch("history", queryset=RatingChange.objects.order_by("created_at", "id"))
        )
        .order_by("variant", "cadence")
    )
    variant_order = {code: i for i, code in enumerate(Variant.values)}
    cadence_order = {code: i for i, code in enumerate(CadenceChoice.values)}
    rows = []
    for rating in ratings:
        history = list(rating.history.all())
        if history:
            first = history[0].created_at
            start = min(since, first) if since is not None else first
            values = [history[0].before] + [c.after for c in history]
            dates = [start] + [c.created_at for c in history]
        else:  # rated games but no ledger (ratings set by hand): the current value alone
            values, dates = [rating.value], [rating.updated_at]
        chart = rating_chart(values, [timezone.localtime(d) for d in dates])
        rows.append(PlayerRatingRow(rating=rating, chart=chart, history=history))
    rows.sort(key=lambda r: (variant_order[r.rating.variant], cadence_order[r.rating.cadence]))
    return rows


def leaderboard(*, variant: str, cadence: str) -> QuerySet[Rating]:
    """Best first; only active human players with at least one rated game (RULES 7.1).

    Bots are left out: they cannot enter events (RULES 1) and the board ranks club members.
    """
    return (
        Rating.objects.filter(
            variant=variant,
            cadence=cadence,
            games__gt=0,
            player__is_active=True,
            player__is_bot=False,
        )
        .select_related("player")
        .order_by("-value", "player__username")
    )


@dataclass(frozen=True)
class Pool:
    variant: str
    variant_label: str
    cadence: str
    cadence_label: str
    top: list[Rating]


def leaderboard_pools() -> list[Pool]:
    """Every (variant, cadence) pool with its top players, in one query (window function)."""
    ranked = (
        Rating.objects.filter(games__gt=0, player__is_active=True, player__is_bot=False)
        .select_related("player")
        .annotate(
            place=Window(
                RowNumber(),
                partition_by=[F("variant"), F("cadence")],
                order_by=[F("value").desc(), F("player__username").asc()],
            )
        )
        .filter(place__lte=LEADERBOARD_PREVIEW)
        .order_by("variant", "cadence", "place")
    )
    top: dict[tuple[str, str], list[Rating]] = {}
    for rating in ranked:
        top.setdefault((rating.variant, rating.cadence), []).append(rating)
    return [
        Pool(
            variant=variant,
            variant_label=str(variant_label),
            cadence=cadence,
            cadence_label=str(cadence_label),
            top=top.get((variant, cadence), []),
        )
        for variant, variant_label in Variant.choices
        for cadence, cadence_label in CadenceChoice.choices
    ]


def ratings_for(keys: Iterable[tuple[int, str, str]]) -> dict[tuple[int, str, str], int]:
    """Current ratings of (player, variant, cadence) keys across pools, in one query (the
    initial rating where a player has none): what game pages and quick pairing show."""
    keys = set(keys)
    found = {
        (player_id, variant, cadence): value
        for player_id, variant, cadence, value in Rating.objects.filter(
            player_id__in={k[0] for k in keys}
        ).values_list("player_id", "variant", "cadence", "value")
    }
    start = initial_rating()
    return {k: found.get(k, start) for k in keys}


def game_rating_changes(game_ids: Iterable[int]) -> dict[int, dict[int, tuple[int, int | None]]]:
    """What rating each finished game was played at and what it changed: game id -> player id
    -> (rating, rating + change). A game rated alone has the rating of its opening and its own
    change; a game rated with its tournament as one period (RULES 7.1) has the rating of the
    tournament's start and no change of its own (None). The rating is the one the period was
    reckoned at (REI art. 4), else, in a line older than it, the one its change was added to.
    Two queries, four with tournament games."""
    from games.models import Game

    ids = list(game_ids)
    changes: dict[int, dict[int, tuple[int, int | None]]] = {}
    rows = RatingChange.objects.filter(
        period__kind=RatingPeriod.Kind.GAME, period__source_id__in=ids
    ).values_list("period__source_id", "rating__player_id", "held", "before", "delta")
    for game_id, player_id, held, before, delta in rows:
        at = before if held is None else held
        changes.setdefault(game_id, {})[player_id] = (at, at + delta)
    with_event = dict(
        Game.objects.filter(pk__in=ids, rated_with_event=True).values_list("pk", "event_id")
    )
    if with_event:
        periods = RatingChange.objects.filter(
            period__kind=RatingPeriod.Kind.TOURNAMENT,
            period__source_id__in=set(with_event.values()),
        ).values_list("period__source_id", "rating__player_id", "held", "before")
        started: dict[int, dict[int, int]] = {}
        for event_id, player_id, held, before in periods:
            started.setdefault(event_id, {})[player_id] = before if held is None else held
        for game_id, event_id in with_event.items():
            for player_id, before in started.get(event_id, {}).items():
                changes.setdefault(game_id, {})[player_id] = (before, None)
    return changes


def tournament_rating_changes(tournament_id: int) -> dict[int, int]:
    """Player id -> the change a tournament's period gave (RULES 7.1: a tournament is rated as
    one period at its end). Empty while the tournament is not rated (or never will be). One
    query."""
    return dict(
        RatingChange.objects.filter(
            period__kind=RatingPeriod.Kind.TOURNAMENT, period__source_id=tournament_id
        ).values_list("rating__player_id", "delta")
    )


def games_rating_changes_summed(game_ids) -> dict[int, int]:
    """Player id -> the sum of the changes that games rated alone gave them (RULES 7.1: an
    arena game is rated on its own), over `game_ids` (a list or a subquery). One query."""
    from django.db.models import Sum

    return dict(
        RatingChange.objects.filter(
            period__kind=RatingPeriod.Kind.GAME, period__source_id__in=game_ids
        )
        .values_list("rating__player_id")
        .annotate(total=Sum("delta"))
        .values_list("rating__player_id", "total")
    )


def ratings_by_variant(*, player_ids: Iterable[int]) -> dict[tuple[int, str], Rating]:
    """(player, variant) -> the rating of the cadence the player has the most rated games in
    (the players list). One query."""
    best: dict[tuple[int, str], Rating] = {}
    for rating in Rating.objects.filter(player_id__in=list(player_ids), games__gt=0).order_by(
        "-games", "-value"
    ):
        best.setdefault((rating.player_id, rating.variant), rating)
    return best
