"""The computer analysis's writes (RULES 14): a request, and the worker's run.

Locking contract: a request locks the asking player's row (`USER`: two requests of one player
are counted one after the other against ANALYSIS_DAILY) and then the game's analysis row
(`GAME` rank, one row per game, made under a unique constraint if it is not there); an event's
request (its organizer's, from the fair-play report) locks the same way its games' analysis
rows one after the other, in the games' order, so two such requests never wait on each other
crosswise. The run locks only the analysis row, twice, briefly: to take it (queued ->
running, so a second task for it does nothing) and to write its result (only if the run that
took it is still the one recorded: an analysis taken again after it was thought lost is not
overwritten by the old run). The engine runs between the two, outside any transaction, for as
long as it takes.
Every push is sent after commit (STYLE 4).
"""

from __future__ import annotations

import importlib.util
import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from accounts.models import User
from analysis import selectors, stockfish
from analysis.judgement import judge
from analysis.models import AnalysisRequest, GameAnalysis
from events import kinds
from games.models import Game
from games.models import Status as GameStatus
from games.rules import variant
from live import pushes
from live.locks import Rank, atomic, lock_one

log = logging.getLogger(__name__)
DAY = timedelta(days=1)
State = GameAnalysis.State
NEWS = "analysis"  # the site socket's news: a game's analysis changed (analysis/receivers.py)


class AnalysisRefused(Exception):
    """Why an analysis may not be asked for now; `code` says which rule: "unavailable" (no
    engine, or none for the variant yet), "not_allowed", "not_finished", "no_moves",
    "throttled"."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True)
class Asked:
    analysis: GameAnalysis
    new: bool  # queued by this request (False: it was there already, done or on its way)


def draughts_check_available() -> bool:
    """The draughts tactical check (`analysis.draughts.check`) is part of this install."""
    try:
        return importlib.util.find_spec("analysis.draughts.check") is not None
    except ModuleNotFoundError:
        return False


def analysis_request(*, user: User, game_id: int, now: datetime | None = None) -> Asked:
    """Ask for the computer analysis of a finished game (RULES 14.6, 14.7). An analysis
    already done or on its way is returned as it is (asking twice costs nothing); a failed one,
    or one whose worker was lost, is queued again. Raises AnalysisRefused."""
    now = now or timezone.now()
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise AnalysisRefused(_("Partita inesistente."), "not_allowed")
    _check_may_ask(user, game)
    with atomic():
        lock_one(User, user.pk, Rank.USER)
        analysis = _analysis_row(game, user, now)
        if analysis.state == State.DONE:
            return Asked(analysis, False)
        if analysis.state in (State.QUEUED, State.RUNNING) and not _lost(analysis, now):
            return Asked(analysis, False)
        _check_daily(user, now)
        _queue(analysis, game, user, now, counted=True)
    return Asked(analysis, True)


def _queue(analysis: GameAnalysis, game: Game, user: User, now: datetime, *, counted: bool) -> None:
    """Queue the locked analysis row for `user`'s request, sent to the worker after commit."""
    analysis.state = State.QUEUED
    analysis.requested_by = user
    analysis.requested_at = now
    analysis.started_at = analysis.finished_at = None
    analysis.error = ""
    analysis.done = 0
    analysis.save()
    AnalysisRequest.objects.create(player=user, analysis=analysis, asked_at=now, counted=counted)
    _changed_on_commit(analysis, game)
    transaction.on_commit(lambda: _send(analysis.pk))


# RULES 14.7: the games one organizer's request queues at most. The request locks each row it
# queues in one transaction and the worker runs them one after the other: a bound keeps that
# transaction short (a worker's progress write on a row it holds would wait for it) and the
# queue's backlog in front of the players' own requests to an evening's work, not a week's.
EVENT_BATCH = 100


@dataclass(frozen=True)
class EventAsked:
    queued: int  # queued by this request
    left: int  # still to ask for after it (beyond EVENT_BATCH): the next request's


def event_analyses_request(
    *, user: User, kind: str, event_id: int, now: datetime | None = None
) -> EventAsked:
    """The organizer of an event, or the staff, asks for the analysis of the finished chess
    games of the event with moves that have none done or on its way (RULES 14.7, 15.2: the
    fair-play report's engine figures read them), EVENT_BATCH at most, in the games' order.

    **Decision** (RULES 14.6): these requests do not count towards ANALYSIS_DAILY. Each game
    is analysed once whatever is asked, so the work is bounded by the games the event had, and
    the analysis worker yields to live play (RULES 14.5). Raises AnalysisRefused ("not_allowed"
    for anyone else, "unavailable" without an engine)."""
    now = now or timezone.now()
    event_kind = kinds.by_code(kind)
    event = event_kind.model.objects.filter(pk=event_id).first() if event_kind else None
    if event is None or not user.is_authenticated:
        raise AnalysisRefused(_("Evento inesistente."), "not_allowed")
    if not (user.is_staff or event.opened_by_id == user.pk):
        raise AnalysisRefused(
            _(
                "Solo chi organizza l'evento e lo staff possono chiedere l'analisi delle sue partite."
            ),
            "not_allowed",
        )
    if not stockfish.engine_found(settings.STOCKFISH_PATH):
        raise AnalysisRefused(
            _("L'analisi al computer non è disponibile ora: riprova più tardi."), "unavailable"
        )
    chess = list(
        Game.objects.filter(
            event_type=ContentType.objects.get_for_model(event_kind.model),
            event_id=event.pk,
            variant="chess",
            status=GameStatus.FINISHED,
        )
        .exclude(moves=[])
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    states = dict(GameAnalysis.objects.filter(game_id__in=chess).values_list("game_id", "state"))
    lost = selectors.lost_analyses(chess, now)
    wanted = [pk for pk in chess if states.get(pk, State.FAILED) == State.FAILED or pk in lost]
    batch = Game.objects.filter(pk__in=wanted[:EVENT_BATCH]).only("pk", "white_id", "black_id")
    queued = 0
    with atomic():
        lock_one(User, user.pk, Rank.USER)
        for game in batch.order_by("pk"):
            analysis = _analysis_row(game, user, now)  # read again under its lock
            if analysis.state == State.DONE:
                continue
            if analysis.state in (State.QUEUED, State.RUNNING) and not _lost(analysis, now):
                continue
            _queue(analysis, game, user, now, counted=False)
            queued += 1
    return EventAsked(queued=queued, left=max(0, len(wanted) - EVENT_BATCH))


def _check_may_ask(user: User, game: Game) -> None:
    if not user.is_authenticated:
        raise AnalysisRefused(_("Accedi per chiedere un'analisi."), "not_allowed")
    if game.is_live:
        raise AnalysisRefused(_("La partita non è ancora finita."), "not_finished")
    if not game.moves:
        raise AnalysisRefused(_("La partita non ha mosse da analizzare."), "no_moves")
    if not selectors.may_ask(user, game):
        raise AnalysisRefused(
            _(
                "Solo i giocatori della partita e chi organizza il suo evento possono chiederne l'analisi."
            ),
            "not_allowed",
        )
    if game.variant == "chess":
        if not stockfish.engine_found(settings.STOCKFISH_PATH):
            raise AnalysisRefused(
                _("L'analisi al computer non è disponibile ora: riprova più tardi."),
                "unavailable",
            )
    elif not draughts_check_available():
        raise AnalysisRefused(
            _("L'analisi al computer non è ancora disponibile per questa variante."),
            "unavailable",
        )


def _analysis_row(game: Game, user: User, now: datetime) -> GameAnalysis:
    """The game's analysis row, locked; made (queued) if there is none. Two players asking at
    once: one makes it, the other finds it under the lock."""
    existing = GameAnalysis.objects.filter(game=game).values_list("pk", flat=True).first()
    if existing is None:
        # Made as "failed" (nothing run, nothing counted), so the request queues it as it
        # queues a failed one again.
        try:
            with transaction.atomic():
                existing = GameAnalysis.objects.create(
                    game=game, requested_by=user, requested_at=now, state=State.FAILED
                ).pk
        except IntegrityError:  # made meanwhile by another request
            existing = GameAnalysis.objects.get(game=game).pk
    return lock_one(GameAnalysis, existing, Rank.GAME)


def _lost(analysis: GameAnalysis, now: datetime) -> bool:
    """A run that started longer ago than ANALYSIS_STALE_SECONDS lost its worker."""
    since = analysis.started_at or analysis.requested_at
    return now - since > timedelta(seconds=settings.ANALYSIS_STALE_SECONDS)


def _check_daily(user: User, now: datetime) -> None:
    """RULES 14.6: ANALYSIS_DAILY requests a day (the last 24 hours); failed ones aside."""
    times = sorted(
        AnalysisRequest.objects.filter(
            player=user, counted=True, asked_at__gt=now - DAY
        ).values_list("asked_at", flat=True)
    )
    if len(times) >= settings.ANALYSIS_DAILY:
        again = times[len(times) - settings.ANALYSIS_DAILY] + DAY
        raise AnalysisRefused(
            _(
                "Hai già chiesto %(count)d analisi nelle ultime 24 ore: potrai chiederne "
                "un'altra dal %(when)s."
            )
            % {
                "count": settings.ANALYSIS_DAILY,
                "when": formats.date_format(timezone.localtime(again), "j F, H:i"),
            },
            "throttled",
        )


def _send(analysis_id: int) -> None:
    try:
        current_app.tasks["analysis.run"].apply_async((analysis_id,), retry=False)
    except Exception as error:  # the row is the promise; the page says it is queued
        log.warning("analysis task not sent: %s", error)


def _changed_on_commit(analysis: GameAnalysis, game: Game) -> None:
    """The pages of whoever asked and of the players learn that the analysis moved on."""
    users = [analysis.requested_by_id, game.white_id, game.black_id]
    pushes.user_changed_on_commit(users, NEWS, game=game.pk)


# --- the worker's run --------------------------------------------------------------------------


def analysis_run(*, analysis_id: int, now: datetime | None = None) -> GameAnalysis | None:
    """Run a queued analysis (the `analysis.run` task). Safe to run twice: an analysis that is
    not queued (done, failed, running in another worker) is left alone, unless its run was
    lost (ANALYSIS_STALE_SECONDS)."""
    now = now or timezone.now()
    with atomic():
        rows = GameAnalysis.objects.filter(pk=analysis_id)
        if not rows.exists():
            return None
        analysis = lock_one(GameAnalysis, analysis_id, Rank.GAME)
        running_lost = analysis.state == State.RUNNING and _lost(analysis, now)
        if analysis.state != State.QUEUED and not running_lost:
            return analysis
        game = Game.objects.get(pk=analysis.game_id)
        analysis.state = State.RUNNING
        analysis.started_at = now
        analysis.total = len(game.moves) + 1
        analysis.done = 0
        analysis.save(update_fields=["state", "started_at", "total", "done"])
        _changed_on_commit(analysis, game)
    started = analysis.started_at
    try:
        if game.variant == "chess":
            result = _chess(analysis, game)
        else:
            result = _draughts(game)
    except (stockfish.EngineUnavailable, stockfish.EngineFailed, ValueError) as error:
        log.warning("analysis %s failed: %s", analysis_id, error)
        return _finish(analysis_id, started, game, failed=str(error)[:200])
    return _finish(analysis_id, started, game, result=result)


def _chess(analysis: GameAnalysis, game: Game) -> dict:
    nodes = settings.ANALYSIS_NODES

    def progress(done: int) -> None:
        if done % 10 == 0:
            GameAnalysis.objects.filter(pk=analysis.pk, started_at=analysis.started_at).update(
                done=done
            )

    evals = stockfish.evaluate_line(
        settings.STOCKFISH_PATH, game.start_fen, game.moves, nodes, progress=progress
    )
    white_first = variant("chess").side_to_move(game.start_fen).value == "white"
    verdict = judge([e.score for e in evals], white_first)
    positions = [{"cp": e.score.cp, "mate": e.score.mate, "best": list(e.best)} for e in evals]
    moves = [
        {
            "mark": m.mark.value if m.mark else "",
            "drop": round(m.drop, 1),
            "accuracy": round(m.accuracy, 1),
        }
        for m in verdict.moves
    ]
    return {
        "engine": "stockfish",
        "nodes": nodes,
        "positions": positions,
        "moves": moves,
        "white_accuracy": verdict.white_accuracy,
        "black_accuracy": verdict.black_accuracy,
    }


def _draughts(game: Game) -> dict:
    """The draughts tactical check (RULES 14, its own points): marks of moves that lose
    material within its horizon, with the refutation; no evaluation and no accuracy."""
    from analysis.draughts.check import check_game  # present: draughts_check_available()

    nodes = settings.ANALYSIS_DRAUGHTS_NODES
    start = game.start_fen if game.start_fen != variant(game.variant).start_fen() else None
    checks = check_game(game.variant, list(game.moves), node_budget=nodes, start_fen=start)
    by_ply = {check.ply: check for check in checks}
    moves = []
    for ply in range(1, len(game.moves) + 1):
        check = by_ply.get(ply)
        moves.append(
            {
                "mark": (check.mark or "") if check else "",
                "loss": check.loss if check else 0,
                "best": list(check.best) if check else [],
                "refutation": list(check.refutation) if check else [],
            }
        )
    return {
        "engine": "draughts-check",
        "nodes": nodes,
        "positions": [],
        "moves": moves,
        "white_accuracy": None,
        "black_accuracy": None,
    }


def _finish(
    analysis_id: int,
    started: datetime | None,
    game: Game,
    *,
    result: dict | None = None,
    failed: str = "",
) -> GameAnalysis | None:
    with atomic():
        analysis = lock_one(GameAnalysis, analysis_id, Rank.GAME)
        if analysis.state != State.RUNNING or analysis.started_at != started:
            return analysis  # taken again since: that run writes the result
        analysis.finished_at = timezone.now()
        if result is None:
            analysis.state = State.FAILED
            analysis.error = failed
            # RULES 14.6: a failed analysis costs nobody a request of the day.
            AnalysisRequest.objects.filter(analysis=analysis, counted=True).update(counted=False)
        else:
            analysis.state = State.DONE
            analysis.done = analysis.total
            for key, value in result.items():
                setattr(analysis, key, value)
        analysis.save()
        _changed_on_commit(analysis, game)
    return analysis


# --- the free analysis board's question about one position -------------------------------------

POSITION_SECONDS = 120  # the page asks for its answer this long at most


def _position_key(token: str) -> str:
    return f"analysis:position:{token}"


def position_ask(*, fen: str) -> str:
    """Queue the engine's look at one chess position (RULES 14.9: ANALYSIS_BOARD_NODES nodes,
    on the analysis worker): the token under which the page reads the answer. Raises
    AnalysisRefused when there is no engine, ValueError for a position that cannot be played."""
    normal = variant("chess").normalize_fen(fen)  # InvalidPosition (a ValueError) if impossible
    if not stockfish.engine_found(settings.STOCKFISH_PATH):
        raise AnalysisRefused(
            _("L'analisi al computer non è disponibile ora: riprova più tardi."), "unavailable"
        )
    token = secrets.token_urlsafe(16)
    cache.set(_position_key(token), {"state": "queued", "fen": normal}, POSITION_SECONDS)
    try:
        current_app.tasks["analysis.position"].apply_async((token, normal), retry=False)
    except Exception as error:
        cache.delete(_position_key(token))
        raise AnalysisRefused(
            _("L'analisi al computer non è disponibile ora: riprova più tardi."), "unavailable"
        ) from error
    return token


def position_evaluate(*, token: str, fen: str) -> None:
    """The `analysis.position` task: the answer, or why there is none, into the cache."""
    key = _position_key(token)
    if cache.get(key) is None:
        return  # the page stopped waiting: nothing to do
    try:
        found = stockfish.evaluate_position(
            settings.STOCKFISH_PATH, fen, settings.ANALYSIS_BOARD_NODES
        )
    except (stockfish.EngineUnavailable, stockfish.EngineFailed, ValueError) as error:
        log.warning("position analysis failed: %s", error)
        cache.set(key, {"state": "failed", "fen": fen}, POSITION_SECONDS)
        return
    answer = {
        "state": "done",
        "fen": fen,
        "cp": found.score.cp,
        "mate": found.score.mate,
        "best": list(found.best),
        "nodes": found.nodes,
    }
    cache.set(key, answer, POSITION_SECONDS)


def position_answer(token: str) -> dict | None:
    return cache.get(_position_key(token))
