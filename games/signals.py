"""The one signal of the codebase (STYLE 6).

`game_finished(sender=Game, game=<Game>)` is sent once per game, after the transaction that
ended it has committed. Receivers (ratings, tournaments, arenas) run outside that transaction
and must be idempotent: the same game is never sent twice by `games`, but a receiver may be
retried.
"""

from __future__ import annotations

from django.dispatch import Signal

game_finished = Signal()
