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
6. deletion (`bench.attack.deletion`): accounts deleted while, at the same moment, they join a
   tournament, enter an arena or write a chat line, or another player accepts their challenge;
   both going through (a deleted account left registered, a line stored after its erasure),
   a deadlock's 5xx, a chat socket of the deleted account left open;
7. mail (`bench.attack.mailbomb`): sign-ups, resets and "send again" with every spelling of
   two mailboxes (one verified, one not), from many addresses, while another visitor loads a
   page; a club's 30 sign-ups through its sign-up link and a script's 100 from one address.
   Targets: the mails queued to each mailbox within its daily bounds, the club in, the script
   out, the visitor's p99 under twice its quiet one;
8. export (`bench.attack.export`): a guest address and a signed-in player asking the analysis
   board for its biggest PGN and its costliest moves at nginx's rate for 20 s; another
   visitor's game page p99 against twice its quiet one, every refusal a 400 / 413 / 429 with
   its message, the big exports served within the budget;
9. archive (`bench.attack.archive`): players of thousands of games ask for their data archives
   at once and again and again; asks beyond the bound refused, each archive ready in time,
   another visitor's page p99 under twice its quiet one, the worker's tick not starved.

Each prints one line of figures (and what each non-zero figure points at), then a total line.
Target: every figure but the number of requests (and of processes restarted, each one named:
the faults scenario starts a server process that exits by itself again 2 s later, as its
systemd unit does) is zero (the flood's "targets missed" counts
its targets not met); the run exits 1 otherwise. The
servers' logs stay in the directory printed at the end.
"""
