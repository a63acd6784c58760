"""Fair play's reads (STYLE 2): who may read an event's report, the report itself (RULES 15.2,
15.3), and the marks the standings show (RULES 15.4)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.db.models import Count

from events import kinds
from fairplay import figures
from fairplay.models import FocusLoss, Review
from games.models import Game
from games.models import Status as GameStatus
from games.rules import variant
from games.rules.base import Color


def event_of(kind: str, pk: int) -> Any | None:
    """The event of kind `kind` ("tournament", "arena") with this id, or None."""
    event_kind = kinds.by_code(kind)
    if event_kind is None:
        return None
    return event_kind.model.objects.filter(pk=pk).first()


def may_read_report(user: Any, event: Any) -> bool:
    """RULES 15.1: the event's organizer (its opener) and the staff; never anyone else."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    return bool(user.is_staff) or event.opened_by_id == user.pk


def _event_games(event: Any):
    return Game.objects.filter(
        event_type=ContentType.objects.get_for_model(type(event)), event_id=event.pk
    )


def event_player_ids(event: Any) -> set[int]:
    """Everybody who played a game of the event."""
    ids: set[int] = set()
    for white_id, black_id in _event_games(event).values_list("white_id", "black_id"):
        ids.update((white_id, black_id))
    return ids


def under_review_ids(kind: str, event_id: int) -> frozenset[int]:
    """RULES 15.4: the players of this event the staff marked "under review" (one query)."""
    return frozenset(
        Review.objects.filter(kind=kind, event_id=event_id, under_review=True).values_list(
            "player_id", flat=True
        )
    )


@dataclass(frozen=True)
class ReportRow:
    player_id: int
    username: str
    games: int
    report: figures.PlayerReport
    under_review: bool
    annulled: bool = False

    def scored(self, figure: str) -> figures.Scored | None:
        return self.report.scored.get(figures.Figure(figure))


@dataclass(frozen=True)
class EventReport:
    rows: list[ReportRow]
    games: int  # finished games read
    compared: int  # players set against the field (RULES 15.3)
    can_annul: bool = False  # RULES 15.5: the kind annuls, and the event is not rated yet

    @property
    def flagged(self) -> int:
        return sum(row.report.flagged for row in self.rows)


def event_report(kind: str, event: Any) -> EventReport:
    """RULES 15.2, 15.3: every player's figures over the event's finished games, set against
    the event's own field; flagged players first, then by name. Four queries."""
    games = list(
        _event_games(event)
        .filter(status=GameStatus.FINISHED)
        .exclude(clocks=[])
        .values_list(
            "pk",
            "variant",
            "start_fen",
            "white_id",
            "black_id",
            "clocks",
            "base_seconds",
            "white_increment_ms",
            "black_increment_ms",
        )
    )
    times: dict[int, list[list[int]]] = defaultdict(list)
    turns: dict[int, int] = defaultdict(int)
    played: dict[int, int] = defaultdict(int)
    first_movers: dict[tuple[str, str], bool] = {}
    for _pk, code, start_fen, white, black, clocks, base, white_inc, black_inc in games:
        key = (code, start_fen)
        if key not in first_movers:
            first_movers[key] = variant(code).side_to_move(start_fen) == Color.WHITE
        white_first = first_movers[key]
        game = figures.GameClocks(
            white=white,
            black=black,
            clocks=clocks,
            base_ms=base * 1000,
            white_increment_ms=white_inc,
            black_increment_ms=black_inc,
            white_first=white_first,
        )
        for player, player_times in figures.think_times(game).items():
            times[player].append(player_times)
        first, second = (white, black) if white_first else (black, white)
        turns[first] += (len(clocks) + 1) // 2
        turns[second] += len(clocks) // 2
        played[white] += 1
        played[black] += 1
    focus = dict(
        FocusLoss.objects.filter(game_id__in=[g[0] for g in games])
        .values_list("player_id")
        .annotate(n=Count("id"))
        .values_list("player_id", "n")
    )
    names = dict(get_user_model().objects.filter(pk__in=list(played)).values_list("pk", "username"))
    marks = {
        player: (under_review, annulled_at is not None)
        for player, under_review, annulled_at in Review.objects.filter(
            kind=kind, event_id=event.pk
        ).values_list("player_id", "under_review", "annulled_at")
    }
    players = sorted(played, key=lambda p: names.get(p, "").lower())
    reports = figures.field_report(
        [
            figures.player_figures(
                p, times[p], turns=turns[p], focus_lost=min(focus.get(p, 0), turns[p])
            )
            for p in players
        ]
    )
    rows = [
        ReportRow(
            r.figures.player,
            names.get(r.figures.player, "?"),
            played[r.figures.player],
            r,
            *marks.get(r.figures.player, (False, False)),
        )
        for r in reports
    ]
    rows.sort(key=lambda row: (not row.report.flagged, not row.report.weak_signal))
    event_kind = kinds.by_code(kind)
    return EventReport(
        rows=rows,
        games=len(games),
        compared=sum(r.compared for r in reports),
        # RULES 15.5: before the event is rated, i.e. while it runs, for a kind that annuls.
        can_annul=bool(event_kind and event_kind.annul) and event.status == "running",
    )
