"""A round (RULES 4.5-4.8, 5, 6): its pairings from the engine, its games opened leg by leg,
forfeits and byes scored, and whether it is over."""

from __future__ import annotations

import random
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db.models import Q

from events.openings import draw_opening as draw_event_opening
from events.pairing import lim, model
from events.pairing.berger import berger_schedule
from games import selectors as game_selectors
from games import services as games
from games.models import EndReason as GameEndReason
from games.models import Game, GameResult
from games.models import Status as GameStatus
from live import locks
from tournaments.broadcast import (
    game_opened_on_commit,
    players_changed_on_commit,
)
from tournaments.models import Format, Pairing, Round, Tournament
from tournaments.selectors import engine_tournament

from .common import POINTS, _ms


def _pairs_of(
    tournament: Tournament, number: int
) -> tuple[list[tuple[int, int]], int | None, list[dict]]:
    """(white, black) pairing numbers in board order, the bye, and how the pairing was made
    (the engine's trace, kept with the round). Raises lim.NoLegalPairing."""
    if tournament.format == Format.ROUND_ROBIN:  # RULES 5.1
        n = tournament.participants.count()
        berger = berger_schedule(n)[number - 1]
        row = lim.Step("berger", "RULES 5.1", (), None, f"{n} {number}")
        return list(berger.pairs), berger.bye, [row.as_dict()]
    state = engine_tournament(tournament)  # RULES 5.2, LIM.md
    spec = model.RoundSpec(
        number=number,
        total_rounds=tournament.total_rounds,
        first_colour=tournament.first_colour,
        double_games=tournament.legs == 2,
    )
    notes = lim.PairingNotes(trace=[])
    pairing = lim.pair_round(state.player_states(), spec, notes=notes)
    trace = [step.as_dict() for step in notes.trace]
    return [(g.white, g.black) for g in pairing.games], pairing.bye, trace


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
    pairs, bye, trace = _pairs_of(tournament, number)
    table_number, moves, fen = draw_opening(tournament, number)
    rnd = Round.objects.create(
        tournament=tournament,
        number=number,
        opening_number=table_number,
        opening_moves=moves,
        start_fen=fen,
        started_at=now,
        pairing_trace=trace,
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
            # bye) takes both players' open pages to the board.
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
