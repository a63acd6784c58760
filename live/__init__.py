"""The live layer: the floor below every app (STYLE 6).

Pushes to channel groups after commit (`pushes`), the socket helpers every consumer shares
(`sockets`: database calls off the event loop, one frame parser), the Redis channel layer
(`layers`), the heartbeats of the background processes (`heartbeat`), who has which page open
(`presence`), the site-wide socket `/ws/me/` and its notices (`consumers`, `pushes.user_changed`),
and the row-lock helper with the lock order of the whole site (`locks`).

It imports no app of the site (accounts, games, events, tournaments, arena, ratings): apps
import it. `tests/test_layers.py` checks that.
"""
