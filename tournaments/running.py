"""Services that run a round tournament from its start to the final standings (RULES 4.3-4.10,
5, 6, 7.1). Nobody presses a button: the periodic tick calls `tournaments_due_process`, and the
`game_finished` receiver calls `tournament_game_finished`.

Locking contract
----------------
Every step runs in one transaction and first locks the tournament row (`select_for_update`);
everything it does is decided from the database state it then reads. So the tick run twice,
two workers running it at once, a worker killed and restarted, or the receiver racing the tick
never start a tournament twice, pair a round twice, open a game twice or score a game twice.
Games are opened through `games.services.game_open`, which locks the players' user rows after
ours (always tournament, then users, then games: no cycle).

Broadcast after commit (STYLE 4): `changed_on_commit(tournament, round)` for the tournament's
page, and to the players' site sockets `players_changed_on_commit` (the banner) and, for every
game opened, `game_opened_on_commit` (their pages go to the board, issue 24).

Time: each service takes `now` (an aware datetime) so tests drive a controlled clock; the
default is the wall clock. Game clocks start at the same instant.
"""

from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import timezone

from events import ending
from events.openings import draw_opening as draw_event_opening
from games import selectors as game_selectors
from games import services as games
from games.models import EndReason as GameEndReason
from games.models import Game, GameResult
from games.models import Status as GameStatus
from live import locks
from ratings.selectors import ratings_snapshot
from ratings.services import FinishedTournament, finished_game_of, tournament_rate
from tournaments.broadcast import (
    changed_on_commit,
    game_opened_on_commit,
    players_changed_on_commit,
)
from tournaments.engine import lim, model
from tournaments.engine.berger import berger_schedule
from tournaments.engine.rounds import ROUND_ROBIN, plan_tournament
from tournaments.models import EndReason, Format, Pairing, Participant, Round, Tournament
from tournaments.selectors import engine_tournament, final_standings, game_ids

log = logging.getLogger(__name__)

# RULES 4.9: after the announced end, games still open get ten more minutes.
GRACE = ending.GRACE
POINTS = {  # RULES 4.6, per game, (white, black)
    GameResult.WHITE_WINS: (2, 0),
    GameResult.BLACK_WINS: (0, 2),
    GameResult.DRAW: (1, 1),
    GameResult.NOBODY_SCORES: (0, 0),
}


def round_pause() -> timedelta:
    """RULES 4.8 Decision: 30 s between rounds, a setting."""
    return timedelta(seconds=settings.ROUND_PAUSE_SECONDS)


def round_slot(tournament: Tournament) -> timedelta:
    """RULES 4.9 Decision: 2 × the estimated duration (× 2 again with double games) + pause."""
    estimated = tournament.time_control.estimated_seconds
    return timedelta(seconds=2 * estimated * tournament.legs) + round_pause()


_ms = ending.ms


def _locked(tournament_id: int) -> Tournament:
    return locks.lock_one(Tournament, tournament_id, locks.Rank.EVENT)


def _next_due(tournament: Tournament, rnd: Round | None) -> datetime | None:
    """When the tick must look at the tournament next (`Event.next_due_at`).

    Scheduled: at its start. During a round: at the end of the grace (RULES 4.9; the round's
    own end comes from its last game, `tournament_game_finished`). After a round: at once if it
    was the last, else after the pause (RULES 4.8), or at the announced end if that comes
    first (no round starts after it). Finished or cancelled: never."""
    if tournament.status == Tournament.Status.SCHEDULED:
        return tournament.starts_at
    if tournament.status != Tournament.Status.RUNNING:
        return None
    if rnd is None or rnd.ended_at is None:
        return tournament.announced_end + GRACE
    if rnd.number >= tournament.total_rounds:
        return rnd.ended_at
    return min(rnd.ended_at + round_pause(), tournament.announced_end)


def _reschedule(tournament: Tournament, rnd: Round | None) -> None:
    tournament.next_due_at = _next_due(tournament, rnd)
    Tournament.objects.filter(pk=tournament.pk).update(next_due_at=tournament.next_due_at)


# --- the tick ----------------------------------------------------------------------------------


def tournaments_due_process(*, now: datetime | None = None) -> list[int]:
    """Start or advance every tournament that is due (the periodic tick).

    Only tournaments whose `next_due_at` has come are read (one indexed query), so a tick with
    hundreds of running tournaments and nothing due costs one query. Each is handled in its own
    transaction, so one failure does not stop the others (it stays due: the next tick retries).
    Returns the ids of the tournaments whose state changed.
    """
    now = now or timezone.now()
    changed: list[int] = []
    due = Tournament.objects.due(now).order_by("next_due_at", "pk").values_list("pk", "status")
    for tournament_id, status in list(due):
        step = tournament_start if status == Tournament.Status.SCHEDULED else tournament_advance
        try:
            if step(tournament_id=tournament_id, now=now):
                changed.append(tournament_id)
        except Exception:
            log.exception("tournament %s: %s failed", tournament_id, step.__name__)
    return changed


# --- the start (RULES 4.3) ---------------------------------------------------------------------


@locks.atomic
def tournament_start(*, tournament_id: int, now: datetime | None = None) -> bool:
    """Start the tournament if it is due and still scheduled; returns whether it did anything.

    Below the minimum it cancels itself (the page says why); otherwise it fixes format and
    rounds (RULES 4.4), numbers the players, announces the end (RULES 4.9) and pairs round 1.
    """
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    if tournament.status != Tournament.Status.SCHEDULED or now < tournament.starts_at:
        return False
    registrations = list(tournament.registrations.select_related("player").order_by("id"))
    if len(registrations) < tournament.minimum:
        tournament.status = Tournament.Status.CANCELLED
        tournament.cancelled_at = now
        tournament.end_reason = EndReason.BELOW_MINIMUM
        tournament.next_due_at = None
        tournament.save(update_fields=["status", "cancelled_at", "end_reason", "next_due_at"])
        changed_on_commit(tournament.pk, 0)
        # RULES 4.3: the players are told, and so is the opener (issue 16), joined or not.
        players_changed_on_commit([*(r.player_id for r in registrations), tournament.opened_by_id])
        return True
    plan = plan_tournament(
        len(registrations),
        threshold=tournament.threshold,
        extra=tournament.extra_round,
        double=tournament.double_games,
    )
    ratings = ratings_snapshot(  # RULES 7.1: the ratings of the start
        player_ids=[r.player_id for r in registrations],
        variant=tournament.variant,
        cadence=tournament.cadence,
    )
    lot = random.SystemRandom()
    if plan.format == ROUND_ROBIN:
        order = list(registrations)
        lot.shuffle(order)  # RULES 5.1: Berger numbers by lot
    else:  # RULES 5.2: rating descending, then username
        order = sorted(
            registrations, key=lambda r: (-ratings[r.player_id], r.player.username.lower())
        )
    Participant.objects.bulk_create(
        Participant(
            tournament=tournament,
            player_id=r.player_id,
            number=number,
            start_rating=ratings[r.player_id],
        )
        for number, r in enumerate(order, start=1)
    )
    tournament.format = plan.format
    tournament.total_rounds = plan.rounds
    tournament.legs = 2 if plan.double else 1
    if plan.double and not tournament.double_games and tournament.rated_switched_off:
        # RULES 7.3 Decision: four players force double games (RULES 4.4), which makes fair the
        # openings that had made the tournament casual: it becomes rated at the start, with no
        # floor (a casual tournament has none), and its page says so.
        tournament.rated, tournament.rated_switched_off = True, False
        tournament.rated_by_double_games = True
    tournament.first_colour = lot.choice((model.WHITE, model.BLACK))  # Lim 10.5
    tournament.seed = lot.randrange(2**62)
    tournament.started_at = now
    tournament.announced_end = now + plan.rounds * round_slot(tournament)
    tournament.status = Tournament.Status.RUNNING
    tournament.save()
    rnd = _round_open(tournament, 1, now)
    _reschedule(tournament, rnd)
    changed_on_commit(tournament.pk, 1)
    return True


# --- a round -----------------------------------------------------------------------------------


def _pairs_of(tournament: Tournament, number: int) -> tuple[list[tuple[int, int]], int | None]:
    """(white, black) pairing numbers in board order, and the bye. Raises lim.NoLegalPairing."""
    if tournament.format == Format.ROUND_ROBIN:  # RULES 5.1
        n = tournament.participants.count()
        berger = berger_schedule(n)[number - 1]
        return list(berger.pairs), berger.bye
    state = engine_tournament(tournament)  # RULES 5.2, LIM.md
    spec = model.RoundSpec(
        number=number,
        total_rounds=tournament.total_rounds,
        first_colour=tournament.first_colour,
        double_games=tournament.legs == 2,
    )
    pairing = lim.pair_round(state.player_states(), spec)
    return [(g.white, g.black) for g in pairing.games], pairing.bye


def draw_opening(tournament: Tournament, number: int) -> tuple[int | None, list[str], str]:
    """RULES 6: one draw per round for all boards; (table number, moves, start FEN or "").

    No repeats within a tournament, unless the allowed pool is used up (then anything allowed).
    Deterministic for the tournament's seed and the round, so a retried step draws the same.
    """
    earlier = tournament.rounds.filter(number__lt=number)
    drawn = draw_event_opening(
        mode=tournament.opening_mode,
        variant_code=tournament.variant,
        thematic=tournament.thematic_opening,
        rng=random.Random(f"{tournament.seed}:{number}"),
        used_numbers=[n for n in earlier.values_list("opening_number", flat=True) if n],
        used_moves=[tuple(m) for m in earlier.values_list("opening_moves", flat=True)],
    )
    return drawn.number, list(drawn.moves), drawn.fen


def _round_open(tournament: Tournament, number: int, now: datetime) -> Round:
    """Pair round `number`, draw its opening and open its games (tournament row locked)."""
    pairs, bye = _pairs_of(tournament, number)
    table_number, moves, fen = draw_opening(tournament, number)
    rnd = Round.objects.create(
        tournament=tournament,
        number=number,
        opening_number=table_number,
        opening_moves=moves,
        start_fen=fen,
        started_at=now,
    )
    participants = {p.number: p for p in tournament.participants.all()}
    player_ids = [p.player_id for p in participants.values()]
    # Every player's user row at once, in id order (live.locks), before the games open one by
    # one: a challenge accepted meanwhile for two of them then waits instead of deadlocking.
    users = get_user_model().objects.filter(pk__in=player_ids).only("pk")
    locks.lock_rows(users, locks.Rank.USER)
    # RULES 4.7: a player busy in another live game when the round is paired loses by forfeit.
    busy = set()
    for white_id, black_id in Game.objects.filter(
        Q(white_id__in=player_ids) | Q(black_id__in=player_ids), status=GameStatus.LIVE
    ).values_list("white_id", "black_id"):
        busy.update((white_id, black_id))
    pairings = [
        Pairing(
            round=rnd,
            board=board,
            white=participants[white],
            black=participants[black],
            white_forfeit=participants[white].player_id in busy,
            black_forfeit=participants[black].player_id in busy,
        )
        for board, (white, black) in enumerate(pairs, start=1)
    ]
    if bye is not None:  # RULES 4.6: the bye is worth a win per game, not a game won
        pairings.append(
            Pairing(
                round=rnd,
                board=len(pairs) + 1,
                white=participants[bye],
                white_points1=model.WIN_POINTS * tournament.legs,
                done=True,
            )
        )
    Pairing.objects.bulk_create(pairings)
    for pairing in pairings:
        if pairing.black_id is not None:
            _open_leg(tournament, rnd, pairing, 1, now)
    tournament.current_round = number
    tournament.save(update_fields=["current_round"])
    _round_end_if_done(rnd, now)
    players_changed_on_commit(player_ids)  # "your game": the banner on every page
    return rnd


def _score_forfeits(tournament: Tournament, pairing: Pairing, first_leg: int) -> None:
    """RULES 4.7: the busy player loses every game left by forfeit, the opponent scores 2 per
    game; both busy: 0-0. Never played, never rated."""
    for leg in range(first_leg, tournament.legs + 1):
        white = 0 if pairing.white_forfeit else model.WIN_POINTS
        black = 0 if pairing.black_forfeit else model.WIN_POINTS
        if pairing.white_forfeit and pairing.black_forfeit:
            white = black = 0
        setattr(pairing, f"white_points{leg}", white)
        setattr(pairing, f"black_points{leg}", black)
        setattr(pairing, f"played{leg}", False)
    pairing.done = True


def _open_leg(tournament: Tournament, rnd: Round, pairing: Pairing, leg: int, now: datetime):
    """Open game `leg` of a pairing (RULES 4.5: the second with colours reversed, same opening),
    or score it lost by forfeit for whoever is busy (RULES 4.7)."""
    if not (pairing.white_forfeit or pairing.black_forfeit):
        white, black = pairing.white, pairing.black
        if leg == 2:
            white, black = black, white
        try:
            game = games.game_open(
                white_id=white.player_id,
                black_id=black.player_id,
                variant_code=tournament.variant,
                base_seconds=tournament.base_seconds,
                increment_seconds=tournament.increment_seconds,
                rated=tournament.rated,
                rated_with_event=True,  # RULES 7.1: rated with the tournament, as one period
                start_fen=rnd.start_fen or None,
                opening_number=rnd.opening_number,  # RULES 6: shown on the game's page
                opening_moves=rnd.opening_moves,
                event=tournament,
                at_ms=_ms(now),
            )
        except games.PlayerBusy:
            # A game opened for one of them since we looked: busy all the same (RULES 4.7).
            busy = game_selectors.live_game_id_of
            pairing.white_forfeit = busy(pairing.white.player_id) is not None
            pairing.black_forfeit = busy(pairing.black.player_id) is not None
            if not (pairing.white_forfeit or pairing.black_forfeit):
                raise  # cannot happen under the user-row locks; let the tick retry
        else:
            setattr(pairing, f"game{leg}", game)
            pairing.save()
            # Every game opened here (a round's first games, the return leg, a game after a
            # bye) takes both players' open pages to the board (issue 24).
            game_opened_on_commit(game)
            return
    _score_forfeits(tournament, pairing, leg)
    pairing.save()


def _score_leg(pairing: Pairing, leg: int, game: Game) -> None:
    points = POINTS[GameResult(game.result)]
    if leg == 2:  # pairing.white had Black in the second game
        points = points[::-1]
    setattr(pairing, f"white_points{leg}", points[0])
    setattr(pairing, f"black_points{leg}", points[1])
    # RULES 4.7: a 0-0 double absence is not a game played (nor a game won, RULES 4.10).
    setattr(pairing, f"played{leg}", game.reason != GameEndReason.BOTH_ABSENT)


def _catch_up(tournament: Tournament, pairing: Pairing, now: datetime) -> bool:
    """Score every finished game of the pairing not yet scored; open the second game when the
    first has ended (RULES 4.5). Returns whether anything changed."""
    if pairing.done or pairing.black_id is None:
        return False
    changed = False
    for leg in range(1, tournament.legs + 1):
        game = getattr(pairing, f"game{leg}")
        if getattr(pairing, f"white_points{leg}") is not None:
            continue
        if game is None:
            if leg == 2 and pairing.white_points1 is not None:
                if now >= tournament.announced_end:
                    # RULES 4.9: no game starts after the announced end; the second game is
                    # scored like a game both missed: 0-0, unplayed.
                    _score_unplayed(pairing, 2)
                else:
                    _open_leg(tournament, pairing.round, pairing, 2, now)
                changed = True
            break
        if game.status != GameStatus.FINISHED:
            break
        _score_leg(pairing, leg, game)
        changed = True
    if all(
        getattr(pairing, f"white_points{leg}") is not None for leg in range(1, tournament.legs + 1)
    ):
        pairing.done = True
    if changed:
        pairing.save()
    return changed


def _round_end_if_done(rnd: Round, now: datetime) -> bool:
    """RULES 4.8: the round ends when every game in it has ended."""
    if rnd.ended_at is None and not rnd.pairings.filter(done=False).exists():
        rnd.ended_at = now
        rnd.save(update_fields=["ended_at"])
        return True
    return False


def _open_pairings(rnd: Round):
    return (
        rnd.pairings.filter(done=False)
        .select_related("round", "white", "black", "game1", "game2")
        .order_by("board")
    )


@locks.atomic
def tournament_game_finished(*, game_id: int, now: datetime | None = None) -> bool:
    """A tournament game ended (from the `game_finished` router, in a worker): score it, open
    the second game of a double pairing, end the round when it was the last. Safe to run twice.

    Without `now`, the step happens now, and never before the game ended by its own clock
    (a game's clocks may run ahead of the wall clock in tests; in production they agree)."""
    if now is None:
        ended = Game.objects.filter(pk=game_id).values_list("finished_at", flat=True).first()
        now = max(filter(None, (timezone.now(), ended)))
    found = Pairing.objects.filter(Q(game1_id=game_id) | Q(game2_id=game_id)).values_list(
        "round__tournament_id", flat=True
    )
    if not found:
        return False
    tournament = _locked(found[0])
    if tournament.status != Tournament.Status.RUNNING:
        return False
    pairing = (
        Pairing.objects.select_related("round", "white", "black", "game1", "game2")
        .filter(Q(game1_id=game_id) | Q(game2_id=game_id))
        .get()
    )
    changed = _catch_up(tournament, pairing, now)
    if _round_end_if_done(pairing.round, now):
        _reschedule(tournament, pairing.round)
        changed = True
    if changed:
        changed_on_commit(tournament.pk, pairing.round.number)
        players_changed_on_commit([pairing.white.player_id, pairing.black.player_id])
    return changed


# --- advancing (RULES 4.8, 4.9) ----------------------------------------------------------------


@locks.atomic
def tournament_advance(*, tournament_id: int, now: datetime | None = None) -> bool:
    """The tick's step for a running tournament that is due; returns whether it changed
    anything.

    Scores what was not scored yet, ends the round, pairs the next one after the pause, or
    closes the tournament: at the last round, when the announced end has passed, or at the
    announced end plus the grace (open games drawn). Then says when it is due next.
    """
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    if tournament.status != Tournament.Status.RUNNING:
        return False
    rnd = tournament.rounds.get(number=tournament.current_round)
    changed = False
    if rnd.ended_at is None:
        for pairing in _open_pairings(rnd):
            if _catch_up(tournament, pairing, now):
                players_changed_on_commit([pairing.white.player_id, pairing.black.player_id])
                changed = True
        changed = _round_end_if_done(rnd, now) or changed
    if rnd.ended_at is None:
        if ending.grace_over(tournament.announced_end, now):  # RULES 4.9: open games drawn
            ending.end_live_games(tournament, now=now)
            for pairing in _open_pairings(rnd):
                _catch_up_without_opening(tournament, pairing)
            _tournament_finish(tournament, EndReason.TIME_UP, now)
            return True
        _reschedule(tournament, rnd)
        if changed:
            changed_on_commit(tournament.pk, rnd.number)
        return changed
    if rnd.number >= tournament.total_rounds:
        _tournament_finish(tournament, EndReason.ROUNDS_DONE, now)
        return True
    if now >= tournament.announced_end:  # RULES 4.9: no round starts after the announced end
        _tournament_finish(tournament, EndReason.TIME_UP, now)
        return True
    if now < rnd.ended_at + round_pause():  # RULES 4.8: the pause to see the results
        _reschedule(tournament, rnd)
        if changed:
            changed_on_commit(tournament.pk, rnd.number)
        return changed
    try:
        with locks.atomic():
            rnd = _round_open(tournament, rnd.number + 1, now)
    except lim.NoLegalPairing:  # LIM 11: the tournament ends and says why
        _tournament_finish(tournament, EndReason.NO_PAIRING, now)
        return True
    _reschedule(tournament, rnd)
    changed_on_commit(tournament.pk, rnd.number)
    return True


def _score_unplayed(pairing: Pairing, leg: int) -> None:
    """RULES 4.9: a game never opened because the end came first scores 0-0, unplayed."""
    setattr(pairing, f"white_points{leg}", 0)
    setattr(pairing, f"black_points{leg}", 0)
    setattr(pairing, f"played{leg}", False)


def _catch_up_without_opening(tournament: Tournament, pairing: Pairing) -> None:
    """At the close: score the games that ended; a second game never opened is scored 0-0,
    unplayed (RULES 4.9: no game starts after the end)."""
    for leg in range(1, tournament.legs + 1):
        game = getattr(pairing, f"game{leg}")
        if getattr(pairing, f"white_points{leg}") is not None:
            continue
        if game is not None:
            _score_leg(pairing, leg, game)
        elif leg == 2 and pairing.white_points1 is not None:
            _score_unplayed(pairing, 2)
    pairing.done = True
    pairing.save()


# --- the end (RULES 4.9, 4.10, 7.1) -------------------------------------------------------------


def _tournament_finish(tournament: Tournament, reason: str, now: datetime) -> None:
    """Close, cache the final standings and tiebreaks, rate the tournament as one period."""
    rnd = tournament.rounds.filter(number=tournament.current_round).first()
    if rnd is not None and rnd.ended_at is None:
        rnd.ended_at = now
        rnd.save(update_fields=["ended_at"])
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = now
    tournament.end_reason = reason
    tournament.next_due_at = None
    tournament.save(update_fields=["status", "finished_at", "end_reason", "next_due_at"])
    participants = {p.number: p for p in tournament.participants.all()}
    standings = final_standings(tournament)
    for standing in standings:
        p = participants[standing.player]
        p.rank = standing.rank
        p.points = standing.points
        p.buchholz_cut1 = standing.buchholz_cut1
        p.sonneborn_berger = standing.sonneborn_berger
        p.wins = standing.wins
    Participant.objects.bulk_update(
        participants.values(), ["rank", "points", "buchholz_cut1", "sonneborn_berger", "wins"]
    )
    finished = Game.objects.filter(
        pk__in=game_ids(tournament), status=GameStatus.FINISHED
    ).order_by("pk")
    tournament_rate(
        tournament=FinishedTournament(
            tournament_id=tournament.pk,
            variant=tournament.variant,
            time_control=tournament.time_control,
            rated=tournament.rated,
            games=[finished_game_of(g) for g in finished],
            start_ratings={p.player_id: p.start_rating for p in participants.values()},
            # REI art. 11, RULES 7.1: whoever finishes first never loses points, ex aequo
            # included: every player with the winner's points, whatever the tiebreaks say.
            first_place=frozenset(
                participants[s.player].player_id
                for s in standings
                if standings and s.points == standings[0].points
            ),
        )
    )
    changed_on_commit(tournament.pk, tournament.current_round)


# --- cancelled by staff while running ------------------------------------------------------------


def cancel_running(tournament: Tournament, now: datetime) -> None:
    """Staff cancel a running tournament (the admin action); the caller holds the row lock.

    The status is written first, so `game_finished` for the games ended here (delivered after
    commit) finds the tournament no longer running and scores nothing. Every game still live is
    ended at once as a draw (`game_end_by_event`, reason event_end); no round is paired after
    this, no standings are computed and nothing is rated (only `_tournament_finish` rates).
    """
    tournament.status = Tournament.Status.CANCELLED
    tournament.cancelled_at = now
    tournament.end_reason = EndReason.BY_STAFF
    tournament.next_due_at = None
    tournament.save(update_fields=["status", "cancelled_at", "end_reason", "next_due_at"])
    ending.end_live_games(tournament, now=now, rated=False)
    rnd = tournament.rounds.filter(number=tournament.current_round, ended_at__isnull=True).first()
    if rnd is not None:
        rnd.ended_at = now
        rnd.save(update_fields=["ended_at"])
    changed_on_commit(tournament.pk, tournament.current_round)
    players_changed_on_commit(tournament.participants.values_list("player_id", flat=True))
