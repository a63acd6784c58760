"""Where an arena's waits go, one log line per step: what operators read of a pairing pass's
cost, and how bench/arena.py follows a game's end to the next game (its parser reads these
lines: keep their wording). The steps only say when they began and what they did; the arithmetic
and the wording are here.

The instants are wall-clock (`time.time()`), like a game's `finished_at`, so a game's end, its
settle task starting, the arena's lock taken and the pass that paired its players are on one
clock across processes; a pass's own cost is measured with the monotonic clock."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction

log = logging.getLogger("arena.running")


@dataclass
class PassTimer:
    """A pairing pass, timed from its start: `done` writes its line."""

    arena_id: int
    due: datetime | None  # when the pass was due (None: asked for now)
    began: float = field(default_factory=time.perf_counter)
    wall: float = field(default_factory=time.time)

    def done(self, *, waiting: int, opened: list) -> None:
        """The pass's line: how many waited, how many games it opened and in how long, how late
        it ran after it was due (queued behind other tasks or the arena's lock), and how long
        the players it paired had waited since they became waiting (for most, their game's
        end); then, after the commit, when the games' `mygame` pushes left (on_commit callbacks
        run in order, after those of the games)."""
        waited = sorted(
            self.wall - entry.waiting_since.timestamp()
            for game in opened
            for entry in (game.white, game.black)
            if entry.waiting_since is not None
        )
        log.info(
            "arena %s: pairing pass, %d waiting, %d games opened in %.1f ms; ran %.0f ms after"
            " due; paired players waited p50 %.0f ms, max %.0f ms",
            self.arena_id,
            waiting,
            len(opened),
            (time.perf_counter() - self.began) * 1000,
            (self.wall - self.due.timestamp()) * 1000 if self.due else 0,
            waited[len(waited) // 2] * 1000 if waited else 0,
            waited[-1] * 1000 if waited else 0,
        )
        if opened:
            arena_id, count, wall = self.arena_id, len(opened), self.wall
            transaction.on_commit(
                lambda: log.info(
                    "arena %s: %d games pushed (mygame) %.0f ms after the pass began",
                    arena_id,
                    count,
                    (time.time() - wall) * 1000,
                )
            )


def now() -> float:
    """A step's instant on the clock of these lines."""
    return time.time()


def game_scored(
    *,
    arena_id: int,
    game_id: int,
    finished_at: datetime,
    asked: float,
    locked: float,
    pass_due: datetime | None,
) -> None:
    """A game's end reached the arena: how long after the end its settle began, how long it
    waited for the arena's lock, and when the pass it asked for is due (-1: none)."""
    log.info(
        "arena %s: game %s scored; settle began %.0f ms after its end, waited %.0f ms for"
        " the arena's lock; pass due %.0f ms after its end",
        arena_id,
        game_id,
        (asked - finished_at.timestamp()) * 1000,
        (locked - asked) * 1000,
        (pass_due.timestamp() - finished_at.timestamp()) * 1000 if pass_due else -1,
    )
