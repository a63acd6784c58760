"""Fair play's reads (STYLE 2): who may read an event's report, the report itself (RULES 15.2,
15.3), and the marks the standings show (RULES 15.4)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.db.models import Count

from analysis.judgement import Score
from analysis.models import GameAnalysis
from analysis.selectors import analyses_of, lost_analyses
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
    chess_games: int = 0  # finished chess games with moves: those an analysis can read
    analysed: int = 0  # of them, analysed (RULES 15.2: the engine's figures read only these)

    def scored(self, figure: str) -> figures.Scored | None:
        return self.report.scored.get(figures.Figure(figure))


ON_ITS_WAY = (GameAnalysis.State.QUEUED, GameAnalysis.State.RUNNING)


@dataclass(frozen=True)
class Analyses:
    """The computer analyses of the event's finished chess games with moves (RULES 15.2)."""

    games: int = 0
    done: int = 0
    pending: int = 0  # queued or running, and not lost (analysis.selectors.lost_analyses)
    failed: int = 0

    @property
    def to_ask(self) -> int:
        """Games an organizer's request would queue: never asked, failed, or lost."""
        return self.games - self.done - self.pending


@dataclass(frozen=True)
class EventReport:
    rows: list[ReportRow]
    games: int  # finished games read
    compared: int  # players set against the field (RULES 15.3)
    can_annul: bool = False  # RULES 15.5: the kind annuls, and the event is not rated yet
    analyses: Analyses = Analyses()

    @property
    def flagged(self) -> int:
        return sum(row.report.flagged for row in self.rows)


def event_report(kind: str, event: Any) -> EventReport:
    """RULES 15.2, 15.3: every player's figures over the event's finished games, set against
    the event's own field; flagged players first, then by name. Five queries."""
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
            "moves",
        )
    )
    chess = [g[0] for g in games if g[1] == "chess" and g[9]]
    analyses = analyses_of(chess) if chess else {}
    engine: dict[int, list[figures.EngineMove]] = defaultdict(list)
    chess_games: dict[int, int] = defaultdict(int)
    analysed: dict[int, int] = defaultdict(int)
    times: dict[int, list[list[int]]] = defaultdict(list)
    turns: dict[int, int] = defaultdict(int)
    played: dict[int, int] = defaultdict(int)
    first_movers: dict[tuple[str, str], bool] = {}
    for pk, code, start_fen, white, black, clocks, base, white_inc, black_inc, moves in games:
        key = (code, start_fen)
        if key not in first_movers:
            first_movers[key] = variant(code).side_to_move(start_fen) == Color.WHITE
        white_first = first_movers[key]
        if code == "chess" and moves:
            state, positions = analyses.get(pk, ("", []))
            chess_games[white] += 1
            chess_games[black] += 1
            if state == GameAnalysis.State.DONE:
                analysed[white] += 1
                analysed[black] += 1
                for player, counted in figures.engine_moves(
                    _analysed_game(white, black, moves, positions, white_first)
                ).items():
                    engine[player].extend(counted)
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
                p,
                times[p],
                turns=turns[p],
                focus_lost=min(focus.get(p, 0), turns[p]),
                engine=engine[p],
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
            chess_games=chess_games[r.figures.player],
            analysed=analysed[r.figures.player],
        )
        for r in reports
    ]
    rows.sort(key=lambda row: (not row.report.flagged, not row.report.weak_signal))
    event_kind = kinds.by_code(kind)
    states = [analyses.get(pk, ("", []))[0] for pk in chess]
    on_way = [pk for pk, s in zip(chess, states, strict=True) if s in ON_ITS_WAY]
    # One whose worker was lost is to ask for again, not on its way (RULES 15.2): read only
    # when there is one queued or running at all.
    lost = lost_analyses(on_way) if on_way else set()
    return EventReport(
        rows=rows,
        games=len(games),
        compared=sum(r.compared for r in reports),
        # RULES 15.5: before the event is rated, i.e. while it runs, for a kind that annuls.
        can_annul=bool(event_kind and event_kind.annul) and event.status == "running",
        analyses=Analyses(
            games=len(chess),
            done=states.count(GameAnalysis.State.DONE),
            pending=len(on_way) - len(lost),
            failed=states.count(GameAnalysis.State.FAILED),
        ),
    )


def _analysed_game(
    white: int, black: int, moves: list[str], positions: list[dict], white_first: bool
) -> figures.AnalysedGame:
    """A game and its stored analysis (RULES 14.1: a position's evaluation, and its best line
    from the engine) as the figures read them."""
    return figures.AnalysedGame(
        white=white,
        black=black,
        moves=moves,
        scores=[Score(cp=p.get("cp"), mate=p.get("mate")) for p in positions],
        best=[(p.get("best") or [None])[0] for p in positions],
        white_first=white_first,
    )
