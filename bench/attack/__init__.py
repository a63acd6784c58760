"""`make attack`: attack a private copy of the site and count what broke.

Starts the site on loopback only and free ports — two daphne processes, a Celery worker and
beat, on the PostgreSQL and Redis of scripts/with-services.sh, migrated — and attacks it with
bounded loops, one scenario after another:

1. forms (`bench.attack.forms`): a few thousand hostile submissions to every form, and the
   probes of the log-in, password, redirect and challenge findings;
2. sockets (`bench.attack.frames`): thousands of hostile frames to every socket, each followed
   by a ping, and the probes of the origin check, the close codes, strict move parsing;
3. presence (`bench.attack.presence`): many players' sockets closed at once while moves are
   pushed; ghost rows after the stale window;
4. faults (`bench.attack.faults`): kill -9 of the worker, beat and a daphne, Redis and
   PostgreSQL stopped for 10 s, mid-game; lost or doubled results and ratings, unsettled
   games, acknowledged moves missing, unanswered moves;
5. flood (`bench.attack.flood`): guests and a signed-in user flooding every kind of socket for
   20 s while 100 games are played; the daphnes' memory, the players' move latency and how
   often the flooders are answered, against targets;
6. archive (`bench.attack.archive`): players of thousands of games ask for their data archives
   at once and again and again; asks beyond the bound refused, each archive ready in time,
   another visitor's page p99 under twice its quiet one, the worker's tick not starved.

Each prints one line of figures (and what each non-zero figure points at), then a total line.
Target: every figure but the number of requests is zero (the flood's "targets missed" counts
its targets not met); the run exits 1 otherwise. The
servers' logs stay in the directory printed at the end.
"""
