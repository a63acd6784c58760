"""A fabricated event for the fair-play report (RULES §15): finished games whose stored clocks
give each player the think times the test chooses."""

from __future__ import annotations

import math
import random

from accounts.tests.factories import UserFactory
from arena.models import Arena
from arena.tests.factories import ArenaFactory
from games.models import Game
from games.services import game_open
from games.tests.factories import T0

BASE_S, INC_S = 1800, 5  # long enough for any time drawn


def finished_game(event, white, black, white_times, black_times) -> Game:
    game = game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code="chess",
        base_seconds=BASE_S,
        increment_seconds=INC_S,
        rated=False,
        event=event,
        at_ms=T0,
    )
    clocks = clocks_of(white_times, black_times, BASE_S * 1000, INC_S * 1000)
    Game.objects.filter(pk=game.pk).update(
        status="finished", result="1-0", reason="resignation", clocks=clocks, ply=len(clocks)
    )
    return game


def fabricated_event(players: int = 12, games_each: int = 6, moves: int = 30):
    """An arena of `players` players, each playing `games_each` games: every one thinks like
    a person (log-normal times, each their own pace and spread) except the last, whose every
    move takes two seconds give or take 60 ms."""
    rng = random.Random(2026)
    arena = ArenaFactory(status=Arena.Status.FINISHED)
    people = [UserFactory() for _ in range(players)]
    machine = people[-1]
    paces = {p.pk: (math.log(rng.uniform(2000, 9000)), rng.uniform(0.6, 1.1)) for p in people}

    def times(player) -> list[int]:
        if player == machine:
            return [2000 + rng.randint(-60, 60) for _ in range(moves)]
        mu, sigma = paces[player.pk]
        return [int(rng.lognormvariate(mu, sigma)) for _ in range(moves)]

    for round_number in range(games_each):
        for i in range(0, players, 2):
            a = people[(i + round_number) % players]
            b = people[(i + 1 + 3 * round_number) % players]
            if a == b:
                continue
            finished_game(arena, a, b, times(a), times(b))
    return arena, people, machine


def clocks_of(white: list[int], black: list[int], base_ms: int, inc_ms: int) -> list[int]:
    """The stored clocks of a game where White thinks `white[i]` ms on its move i and Black
    `black[i]` (White moving first): each side's time left after its move."""
    left = {"w": base_ms, "b": base_ms}
    out = []
    for w, b in zip(white, black, strict=True):
        for side, spent in (("w", w), ("b", b)):
            left[side] = left[side] + inc_ms - spent
            out.append(left[side])
    return out


def with_analyses(event, rng: random.Random, engine_player=None, *, games: int | None = None):
    """Gives the first `games` (all by default) finished games of `event` moves and a finished
    computer analysis, as the analysis stores it (RULES 14.1: each position's evaluation and
    the engine's best line): people play the engine's move 30-50 % of the time and lose 10-80
    cp otherwise; `engine_player` plays it 90 % of the time and loses 5-15. The moves are
    stand-ins ("m0", "m1", …): the report reads them, it does not replay them."""
    from analysis.models import GameAnalysis

    rates: dict[int, float] = {}
    done = []
    for game in event_games(event).order_by("pk")[:games]:
        plies = len(game.clocks)
        moves = [f"m{ply}" for ply in range(plies)]
        cps, best = [20], []
        for ply in range(plies):
            mover = game.white_id if ply % 2 == 0 else game.black_id
            is_engine = engine_player is not None and mover == engine_player.pk
            rate = 0.9 if is_engine else rates.setdefault(mover, rng.uniform(0.3, 0.5))
            agreed = rng.random() < rate
            best.append(moves[ply] if agreed else "other")
            worst = 15 if is_engine else 80
            loss = rng.randint(0, 5) if agreed else rng.randint(worst // 8, worst)
            before = cps[-1]
            behind = before < -150 if ply % 2 == 0 else before > 150
            # The side well behind finds a way back (a gain, no loss): the game stays in play.
            cps.append(0 if behind else before - loss if ply % 2 == 0 else before + loss)
        best.append(None)
        Game.objects.filter(pk=game.pk).update(moves=moves)
        done.append(
            GameAnalysis.objects.create(
                game=game,
                state=GameAnalysis.State.DONE,
                engine="stockfish",
                requested_at=game.created_at,
                positions=[
                    {"cp": cp, "mate": None, "best": [b] if b else []}
                    for cp, b in zip(cps, best, strict=True)
                ],
            )
        )
    return done


def event_games(event):
    """The games of `event` (of its kind: a tournament and an arena may share an id)."""
    from django.contrib.contenttypes.models import ContentType

    return Game.objects.filter(
        event_type=ContentType.objects.get_for_model(type(event)), event_id=event.pk
    )
