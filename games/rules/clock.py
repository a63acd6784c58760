"""Fischer clocks kept by the server, from timestamps, in integer milliseconds (pure).

A ``Clock`` is an immutable snapshot: the time each side had left at the instant ``since_ms``,
and which side's clock has been running since then. Time left at any later instant is computed,
never stored, so nothing drifts: no floats, no ticking.

- RULES §3: the clock of the side to move starts the moment the game is opened (``start``).
- Fischer increment: a player who completes a move in time gets the increment added, then the
  opponent's clock starts (``after_move``).
- A flag falls when the running side's time reaches zero (``flag_instant`` / ``flagged``).
- RULES §8 arena boost (``boost``): the booster loses their whole increment for the rest of the
  game; when the base is at least 60 s their remaining time becomes at most half the base — read
  as ``min(remaining, base // 2)``, so time already used before boosting stays used and never
  comes back. With a base under 60 s only the increment goes; with no base time boost is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .base import Color

BOOST_HALVES_BASE_FROM_MS = 60_000  # RULES §8 Decision: halve only bases of at least 60 s


class ClockError(ValueError):
    """The clock operation makes no sense in this state (e.g. moving after one's flag fell)."""


@dataclass(frozen=True, slots=True)
class Clock:
    base_ms: int
    white_increment_ms: int
    black_increment_ms: int
    white_ms: int  # time White had left at since_ms
    black_ms: int  # time Black had left at since_ms
    running: Color | None  # whose clock runs since since_ms; None when stopped
    since_ms: int  # the instant of this snapshot (epoch milliseconds)

    def increment_ms(self, color: Color) -> int:
        return self.white_increment_ms if color is Color.WHITE else self.black_increment_ms

    def left_at_snapshot(self, color: Color) -> int:
        return self.white_ms if color is Color.WHITE else self.black_ms


def start(*, base_ms: int, increment_ms: int, to_move: Color, now_ms: int) -> Clock:
    """The clock of a game opened at ``now_ms``: the side to move's clock starts at once."""
    if base_ms < 0 or increment_ms < 0:
        raise ClockError("base and increment cannot be negative")
    if base_ms == 0 and increment_ms == 0:
        raise ClockError("a clock needs a base time or an increment")
    # With no base time (0+inc), a player starts with one increment so the first move is
    # possible at all; the usual convention of servers offering "0+N".
    initial = base_ms if base_ms > 0 else increment_ms
    return Clock(base_ms, increment_ms, increment_ms, initial, initial, to_move, now_ms)


def remaining_ms(clock: Clock, color: Color, now_ms: int) -> int:
    """Time ``color`` has left at ``now_ms`` (never below zero)."""
    left = clock.left_at_snapshot(color)
    if clock.running is color:
        left -= max(0, now_ms - clock.since_ms)
    return max(0, left)


def flag_instant(clock: Clock) -> int | None:
    """The instant the running side's flag falls if nobody moves; None if stopped."""
    if clock.running is None:
        return None
    return clock.since_ms + clock.left_at_snapshot(clock.running)


def flagged(clock: Clock, now_ms: int) -> Color | None:
    """The side whose flag has fallen by ``now_ms``, if any."""
    instant = flag_instant(clock)
    if instant is not None and now_ms >= instant:
        return clock.running
    return None


def after_move(clock: Clock, now_ms: int) -> Clock:
    """The running side completed a move at ``now_ms``: add its increment, start the other.

    Raises ClockError if the mover's flag had already fallen (the move came too late) or the
    clock is stopped.
    """
    mover = clock.running
    if mover is None:
        raise ClockError("the clock is stopped")
    if now_ms < clock.since_ms:
        raise ClockError("time cannot run backwards")
    if flagged(clock, now_ms) is not None:
        raise ClockError(f"{mover} flag fell at {flag_instant(clock)}")
    left = remaining_ms(clock, mover, now_ms) + clock.increment_ms(mover)
    other = remaining_ms(clock, mover.opponent, now_ms)
    white, black = (left, other) if mover is Color.WHITE else (other, left)
    # Built whole rather than by `dataclasses.replace`, which costs several times more (on
    # every move, bench/live.py).
    return Clock(
        clock.base_ms,
        clock.white_increment_ms,
        clock.black_increment_ms,
        white,
        black,
        mover.opponent,
        now_ms,
    )


def stop(clock: Clock, now_ms: int) -> Clock:
    """Freeze both clocks at ``now_ms`` (game over)."""
    return replace(
        clock,
        white_ms=remaining_ms(clock, Color.WHITE, now_ms),
        black_ms=remaining_ms(clock, Color.BLACK, now_ms),
        running=None,
        since_ms=now_ms,
    )


def boost(clock: Clock, color: Color, now_ms: int) -> Clock:
    """RULES §8: ``color`` boosts at ``now_ms`` (the caller checks it is before their first
    move). The increment goes; with a base of at least 60 s the time left is capped at half the
    base."""
    if clock.base_ms == 0:
        raise ClockError("boost is not offered without base time")
    snapshot = replace(
        clock,
        white_ms=remaining_ms(clock, Color.WHITE, now_ms),
        black_ms=remaining_ms(clock, Color.BLACK, now_ms),
        since_ms=now_ms if clock.running is not None else clock.since_ms,
    )
    left = snapshot.left_at_snapshot(color)
    if clock.base_ms >= BOOST_HALVES_BASE_FROM_MS:
        left = min(left, clock.base_ms // 2)
    if color is Color.WHITE:
        return replace(snapshot, white_ms=left, white_increment_ms=0)
    return replace(snapshot, black_ms=left, black_increment_ms=0)


def _snapshot(clock: Clock, now_ms: int) -> Clock:
    """The same clock as a snapshot taken at ``now_ms`` (a stopped clock stays as it was)."""
    if clock.running is None:
        return clock
    return replace(
        clock,
        white_ms=remaining_ms(clock, Color.WHITE, now_ms),
        black_ms=remaining_ms(clock, Color.BLACK, now_ms),
        since_ms=now_ms,
    )


def give_time(clock: Clock, color: Color, ms: int, now_ms: int) -> Clock:
    """RULES 3 (casual games, "+15 s"): ``ms`` more for ``color``, at once, at ``now_ms``. Raises
    ClockError if a flag has fallen by then (that ends the game instead) or the clock is
    stopped."""
    if clock.running is None:
        raise ClockError("the clock is stopped")
    if flagged(clock, now_ms) is not None:
        raise ClockError(f"{clock.running} flag fell at {flag_instant(clock)}")
    snapshot = _snapshot(clock, now_ms)
    if color is Color.WHITE:
        return replace(snapshot, white_ms=snapshot.white_ms + ms)
    return replace(snapshot, black_ms=snapshot.black_ms + ms)


def turn_to(clock: Clock, color: Color, now_ms: int) -> Clock:
    """RULES 3 (a takeback): ``color`` is to move again from ``now_ms``; the times left stay
    what they are then (no time comes back). Raises ClockError on a stopped clock."""
    if clock.running is None:
        raise ClockError("the clock is stopped")
    return replace(_snapshot(clock, now_ms), running=color)
