"""Scenario 4: faults mid-game. Pairs of players (`--tables`) play rated challenge games one
after another over real sockets (each player of a game on a different daphne), and end them
every way the site knows: resignation, agreed draw, abandonment (a player leaves for good,
the tick ends the game 30 s later), a flag (0+5 games where the side to move stops). Meanwhile
a visitor keeps loading pages and logging in over HTTP. The faults come one after another, each
followed by more play:

- kill -9 of the Celery worker, restarted 2 s later;
- kill -9 of Celery beat, restarted 2 s later;
- kill -9 of one daphne, restarted 2 s later (its clients reconnect, to it or the other);
- Redis shut down (`redis-cli shutdown nosave`: everything it held is gone, as in a crash) for
  10 s, then started again with the command line of scripts/test-services.sh;
- PostgreSQL stopped (`pg_ctl stop -m fast`) for 10 s, then started on the same data directory
  with the options it was first started with (its postmaster.opts).

Then everybody resigns, the sockets close, and the site gets time to settle (the tick settles a
game whose settle task was lost ten seconds after its end) and to sweep presence. Checked, and
charged to the phase in which it happened:

- *unanswered*: a move (or resignation, draw offer or acceptance) that got neither its state
  nor an error within the site's stated bound, SOCKET_ANSWER_SECONDS (6 s) from its sending,
  PostgreSQL down or not (no `sync` is sent while an action waits: the answer must come by
  itself, docs/protocol.md); a move whose own state (the one with its ply) never came
  although a later one did (committed, but the mover was never told); an action on a socket
  the server closed instead of answering (except the daphne being killed);
- *results lost*: a game whose end a player saw but the database does not hold (or holds
  another result), a game still live after both players resigned, a rated game (RULES 7.1:
  both sat, not 0-0) without its rating period (`ratings_ratingperiod`, kind 'game');
- *results doubled*: a game whose players saw two different results, a result the database
  holds but nobody saw while someone saw another, more than one rating period or not exactly
  two rating changes, a period for a game that is not to be rated;
- *games unsettled*: `games_game.settled` false with `finished_at` older than 30 s;
- *acked moves missing*: a move a player saw acknowledged (a state whose `moves` hold it at its
  ply) that is not in the game's moves in the database;
- *ghost presence rows*: rows of these games in `live_connection` after every socket closed
  and the stale window passed;
- HTTP 500s of the visitor, and tracebacks in the site's logs.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from bench.attack import fixtures
from bench.attack.client import AttackSocket, Browser, HandshakeRefused
from bench.attack.figures import Figures
from bench.attack.servers import Site, describe

SHOWN = (
    "requests",
    "restarted",
    "http_500",
    "tracebacks",
    "unanswered",
    "lost",
    "doubled",
    "unsettled",
    "missing_moves",
    "ghosts",
)
UNSETTLED_AFTER_SECONDS = 30.0
BASELINE = "before any fault"
KILL_DAPHNE = "kill -9 daphne"
WIND_DOWN = "after the last fault"


@dataclass
class Phase:
    name: str
    action: Callable[[], None] | None
    play_seconds: float
    figures: Figures = field(init=False)
    started: float = 0.0  # wall clock
    log_sizes: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.figures = Figures(f"faults: {self.name}", SHOWN)


@dataclass
class Book:
    """What the players saw, shared by every table."""

    phases: list[Phase]
    current: Phase | None = None
    stopping: bool = False  # no new games
    finishing: bool = False  # resign now
    games: list[int] = field(default_factory=list)
    seen: dict[int, set[tuple[str, str]]] = field(default_factory=dict)  # game -> results
    ended_in: dict[int, Phase] = field(default_factory=dict)
    acked: dict[tuple[int, int], tuple[str, Phase]] = field(default_factory=dict)
    errors: dict[str, Counter] = field(default_factory=dict)  # phase -> error codes
    killed_port: int = 0
    actions: dict[str, Counter] = field(default_factory=dict)  # phase -> how actions went
    slowest: dict[str, float] = field(default_factory=dict)  # phase -> slowest answer, seconds
    plans: Counter = field(default_factory=Counter)
    latest_game: int = 0
    over: bool = False  # the run is over: nobody reconnects
    # The site's stated bound on an answer (SOCKET_ANSWER_SECONDS, read as the site reads it).
    answer_seconds: float = 6.0

    @property
    def phase(self) -> Phase:
        assert self.current is not None
        return self.current

    journal: list[str] = field(default_factory=list)

    def note(self, game: int, color: str, text: str) -> None:
        """A line of the clients' journal (written beside the logs: what each player did)."""
        stamp = time.strftime("%H:%M:%S") + f".{int(time.time() * 1000) % 1000:03d}"
        self.journal.append(f"{stamp} [{self.phase.name}] game {game} {color}: {text}")

    def count(self, phase: Phase, what: str) -> None:
        self.actions.setdefault(phase.name, Counter())[what] += 1

    def answered(self, pending: Pending, how: str) -> None:
        """An action answered (by a state or an error): counted, its time kept."""
        self.count(pending.phase, how)
        took = time.monotonic() - pending.sent
        name = pending.phase.name
        self.slowest[name] = max(self.slowest.get(name, 0.0), took)

    def phase_at(self, wall: float) -> Phase:
        found = self.phases[0]
        for phase in self.phases:
            if phase.started and phase.started <= wall:
                found = phase
        return found


@dataclass
class Table:
    white: int
    black: int
    cookies: dict[str, str]
    ports: dict[str, int]


@dataclass
class Pending:
    kind: str
    ply: int
    move: str
    sent: float
    phase: Phase


class GameRun:
    def __init__(self, game_id: int, plan: str, rng: random.Random) -> None:
        self.id, self.plan, self.rng = game_id, plan, rng
        self.end_at_ply = rng.randint(16, 60)  # most games span a fault
        self.ended = asyncio.Event()
        self.offered = False


def choose_plan(rng: random.Random) -> tuple[str, int, int]:
    """(plan, base seconds, increment seconds)."""
    roll = rng.random()
    if roll < 0.5:
        return "resign", 180, 2
    if roll < 0.7:
        return "draw", 180, 2
    if roll < 0.85:
        return "abandon", 180, 2
    return "flag", 0, 5


async def connect(ports: list[int], path: str, cookie: str, book: Book) -> AttackSocket | None:
    """Open the socket, trying the player's own daphne first, then the other, with a back-off
    like the site's client; None when the run is over."""
    delay = 0.5
    while not book.over:
        for port in ports:
            try:
                return await AttackSocket.open(port, path, cookie, timeout=5)
            except HandshakeRefused:
                book.count(book.phase, "handshakes refused")
            except (OSError, TimeoutError, asyncio.IncompleteReadError):
                book.count(book.phase, "connections failed")
        await asyncio.sleep(delay)
        delay = min(delay * 2, 4.0)
    return None


async def player(table: Table, color: str, run: GameRun, book: Book) -> None:
    me, other = color, "black" if color == "white" else "white"
    own = table.ports[color]
    ports = [own] + [p for p in set(table.ports.values()) if p != own]
    path = f"/ws/game/{run.id}/"
    rng = random.Random(f"{run.id}{color}")
    sock = await connect(ports, path, table.cookies[color], book)
    if sock is None:
        return
    version = -1
    acted_at_ply = -1  # the ply this player last acted at (no second action at one ply)
    pending: Pending | None = None
    heard = time.monotonic()
    quiet_until = 0.0  # after an error, wait a little before asking again
    resigned_at = 0.0
    left = False

    def send(kind: str, ply: int, move: str = "") -> None:
        nonlocal pending
        message: dict[str, Any] = {"type": kind, "ply": ply}
        if move:
            message["move"] = move
        sock.send(message)
        book.note(run.id, me, f"sends {message}")
        pending = Pending(kind, ply, move, time.monotonic(), book.phase)
        book.phase.figures.add("requests")
        book.count(book.phase, "sent")

    # Moves whose own state (the one with their ply) has not come although a later one did:
    # the push of the mover's own state was lost (ply -> the move as sent).
    owed: dict[int, Pending] = {}

    def unanswered(p: Pending, why: str) -> None:
        p.phase.figures.add(
            "unanswered",
            detail=f"{p.kind} sent {p.phase.name}: {why}",
            example=f"game {run.id} ply {p.ply} {p.move}".strip(),
        )
        book.count(p.phase, "unanswered")
        book.note(run.id, me, f"unanswered {p.kind} at ply {p.ply}: {why}")

    def ack(p: Pending, state: dict) -> None:
        if state.get("type") == "played":  # a move's delta names the move it played
            if state["ply"] == p.ply + 1 and state["move"] == p.move:
                book.acked[(run.id, p.ply)] = (p.move, p.phase)
            return
        moves = state["moves"]
        if len(moves) > p.ply and moves[p.ply] == p.move:
            book.acked[(run.id, p.ply)] = (p.move, p.phase)

    def on_state(state: dict) -> None:
        """What a state (however old) answers: the pending action, an owed own state."""
        nonlocal pending
        ply, over = state["ply"], state["status"] != "live"
        for owed_ply in [p for p in owed if p + 1 == ply or over]:
            ack(owed.pop(owed_ply), state)
        if pending is None:
            return
        if pending.kind == "move":
            if ply == pending.ply + 1 or over:
                book.answered(pending, "answered by a state")
                ack(pending, state)
                pending = None
            elif ply > pending.ply + 1:  # a later state came first: its own must still come
                owed[pending.ply] = pending
                ack(pending, state)
                pending = None
        elif over or (pending.kind == "draw_offer" and state["draw_offer"] == me):
            book.answered(pending, "answered by a state")
            pending = None

    try:
        while not run.ended.is_set():
            now = time.monotonic()
            bound = book.answer_seconds
            if pending is not None and now - pending.sent > bound:
                unanswered(pending, f"no state, no error in {bound:g} s")
                pending, acted_at_ply = None, -1
                sock.send({"type": "sync"})
            for owed_ply in [p for p, o in owed.items() if now - o.sent > bound]:
                unanswered(
                    owed.pop(owed_ply),
                    "its own state never came (a later one did, so it was committed)",
                )
            if book.finishing and now - resigned_at > 2 and not left:
                resigned_at = now
                sock.send({"type": "resign"})  # any time, no ply: the run is over
            if pending is None and now - heard > 4 and now > quiet_until and not left:
                heard = now
                sock.send({"type": "sync"})  # silence in a live game: ask (the page does)
                book.note(run.id, me, "silence: sends sync")
            try:
                message = await sock.next(0.5)
            except TimeoutError:
                continue
            if message is None:  # closed: its daphne died, or the server closed it
                if left:
                    return
                killed = book.phase.name == KILL_DAPHNE and sock.port == book.killed_port
                for p in [pending, *owed.values()]:
                    if p is None:
                        continue
                    if killed:  # no answer can come from a dead process
                        book.count(p.phase, "lost with its killed daphne")
                    else:
                        unanswered(
                            p,
                            f"the server closed the socket (code {sock.close_code}) instead "
                            "of answering",
                        )
                pending, acted_at_ply = None, -1
                owed.clear()
                book.count(book.phase, "sockets closed" + (" (killed daphne)" if killed else ""))
                book.note(run.id, me, f"socket closed (code {sock.close_code}), reconnects")
                sock = await connect(ports, path, table.cookies[color], book)
                if sock is None:
                    return
                continue
            if not isinstance(message, dict):
                continue
            heard = time.monotonic()
            kind = message.get("type")
            if kind == "error":
                book.note(run.id, me, f"error {message.get('code')}: {message.get('message')}")
                book.errors.setdefault(book.phase.name, Counter())[message.get("code", "?")] += 1
                if pending is not None:
                    book.answered(pending, "answered by an error")
                    pending, acted_at_ply = None, -1
                quiet_until = time.monotonic() + 1.0
                continue
            if kind not in ("state", "played"):  # a move travels as its delta (protocol.md)
                continue
            on_state(message)
            if message.get("version", 0) <= version:
                continue  # an older state overtaken by a newer one (docs/protocol.md)
            state = message
            version = state["version"]
            book.note(
                run.id,
                me,
                f"state v{version} ply {state['ply']} {state['status']} {state['result']}".strip(),
            )
            if state["status"] != "live":
                book.seen.setdefault(run.id, set()).add((state["result"], state["reason"]))
                book.ended_in.setdefault(run.id, book.phase)
                run.ended.set()
                return
            if left or pending is not None or book.finishing:
                continue
            my_turn = state["turn"] == me
            ply = state["ply"]
            if run.plan == "draw" and state["draw_offer"] == other and ply > acted_at_ply:
                acted_at_ply = ply
                send("draw_accept", ply)
                continue
            if not my_turn or ply <= acted_at_ply or not state["legal_moves"]:
                continue
            if run.plan == "resign" and ply >= run.end_at_ply:
                acted_at_ply = ply
                send("resign", ply)
                continue
            if run.plan == "draw" and ply >= run.end_at_ply and not run.offered:
                run.offered = True
                acted_at_ply = ply
                send("draw_offer", ply)
                continue
            if run.plan == "flag" and ply >= 4:
                continue  # the side to move stops: its flag falls (the tick)
            if run.plan == "abandon" and me == "black" and ply >= 3:
                left = True  # gone for good after its first move: abandonment in 30 s
                sock.close()
                return
            await asyncio.sleep(0.2 + 0.4 * rng.random())
            acted_at_ply = ply
            send("move", ply, rng.choice(state["legal_moves"]))
    finally:
        if not left:
            sock.close()


async def table_loop(table: Table, book: Book, seed: int) -> None:
    rng = random.Random(seed)
    while not book.stopping:
        plan, base, increment = choose_plan(rng)
        try:
            game_id = await asyncio.to_thread(
                fixtures.db,
                fixtures.challenge_game,
                table.white,
                table.black,
                base_seconds=base,
                increment_seconds=increment,
            )
        except Exception as error:  # an outage, or the last game not over yet: try again
            book.errors.setdefault(book.phase.name, Counter())[
                f"opening a game: {type(error).__name__}"
            ] += 1
            await asyncio.sleep(1.0)
            continue
        book.games.append(game_id)
        book.latest_game = game_id
        book.note(game_id, "-", f"opened ({plan}, {base}+{increment})")
        book.plans[plan] += 1
        run = GameRun(game_id, plan, rng)
        await asyncio.gather(player(table, "white", run, book), player(table, "black", run, book))


def visitor(port: int, cookie: str, book: Book, stop: threading.Event, login_user: str) -> None:
    """Pages and log-ins over HTTP all along (on the daphne that is never killed)."""
    key, _, value = cookie.partition("=")
    browser = Browser(port, cookies={key: value}, timeout=20)
    n = 0
    while not stop.is_set():
        n += 1
        phase = book.phase
        if n % 3 == 0:
            b = Browser(port, source=f"127.0.1.{n % 250 + 1}", timeout=20)
            b.ensure_csrf("/accounts/login/")
            r = b.post(
                "/accounts/login/", [("username", login_user), ("password", fixtures.PASSWORD)]
            )
            what = "POST /accounts/login/ (right password)"
            b.close()
        elif n % 3 == 1:
            r = browser.get("/play/")
            what = "GET /play/"
        else:
            r = browser.get(f"/games/{book.latest_game}/")
            what = "GET /games/<id>/"
        phase.figures.add("requests")
        if r.status == 500:
            phase.figures.add("http_500", detail=what)
        elif r.status == 0:
            phase.figures.add("no_response", detail=f"{what} ({r.error})")
        stop.wait(0.5)


def cast(tables: int, ports: list[int]) -> tuple[list[Table], str, str]:
    whites = fixtures.users([fixtures.name("fw", i) for i in range(tables)])
    blacks = fixtures.users([fixtures.name("fb", i) for i in range(tables)])
    found = []
    for i, (w, b) in enumerate(zip(whites, blacks, strict=True)):
        a, z = ports[i % len(ports)], ports[(i + 1) % len(ports)]
        found.append(
            Table(
                w.pk,
                b.pk,
                {"white": fixtures.session_cookie(w), "black": fixtures.session_cookie(b)},
                {"white": a, "black": z},
            )
        )
    looker = fixtures.user(fixtures.name("look"))
    login = fixtures.user(fixtures.name("flog"))
    return found, fixtures.session_cookie(looker), login.username


def phases(site: Site, quick: bool) -> list[Phase]:
    play = 8.0 if quick else 15.0

    def bounce(name: str) -> Callable[[], None]:
        def act() -> None:
            site.kill(name)
            time.sleep(2)
            site.restart(name)

        return act

    def redis() -> None:
        site.redis_stop()
        time.sleep(10)
        site.redis_start()

    def postgres() -> None:
        site.pg_stop()
        time.sleep(10)
        site.pg_start()

    found = [
        Phase(BASELINE, None, play),
        Phase("kill -9 worker", bounce("worker"), play),
        Phase("kill -9 beat", bounce("beat"), play),
        Phase(KILL_DAPHNE, bounce("daphne-b"), play + 5),
    ]
    if site.can_stop_services():
        found += [
            Phase("Redis down 10 s", redis, play + 5),
            Phase("PostgreSQL down 10 s", postgres, play + 5),
        ]
    return found + [Phase(WIND_DOWN, None, 0)]


def check(book: Book) -> None:
    """The database against what the players saw (the site has settled)."""
    from django.utils import timezone

    from games.models import Game, Status
    from live.models import Connection
    from ratings.models import RatingChange, RatingPeriod
    from ratings.services import finished_game_of, game_not_rated_reason

    games = {g.pk: g for g in Game.objects.filter(pk__in=book.games)}
    periods = Counter(
        RatingPeriod.objects.filter(
            kind=RatingPeriod.Kind.GAME, source_id__in=book.games
        ).values_list("source_id", flat=True)
    )
    changes = Counter(
        RatingChange.objects.filter(
            period__kind=RatingPeriod.Kind.GAME, period__source_id__in=book.games
        ).values_list("period__source_id", flat=True)
    )
    for pk in book.games:
        game = games[pk]
        seen = book.seen.get(pk, set())
        ended = game.finished_at.timestamp() if game.finished_at else time.time()
        phase = book.ended_in.get(pk) or book.phase_at(ended)
        f = phase.figures
        if game.status != Status.FINISHED or not game.result:
            if seen:
                f.add(
                    "lost",
                    detail=f"game {pk}: players saw {sorted(seen)}, the database has status {game.status!r} result {game.result!r}",
                )
            else:
                f.add("lost", detail=f"game {pk}: still {game.status} after both players resigned")
            continue
        results = {r for r, _ in seen}
        if len(results) > 1:
            f.add("doubled", detail=f"game {pk}: players saw results {sorted(seen)}")
        elif results and game.result not in results:
            f.add(
                "lost",
                detail=f"game {pk}: players saw {sorted(seen)}, the database holds {game.result} ({game.reason})",
            )
        rated = game_not_rated_reason(finished_game_of(game)) is None and not game.rated_with_event
        n = periods.get(pk, 0)
        if rated and n == 0:
            f.add(
                "lost",
                detail=f"game {pk} ({game.result} {game.reason}, rated) has no rating period",
            )
        elif n > 1 or (n and not rated):
            f.add("doubled", detail=f"game {pk}: {n} rating periods, to be rated: {rated}")
        elif n == 1 and changes.get(pk, 0) != 2:
            f.add("doubled", detail=f"game {pk}: {changes.get(pk, 0)} rating changes in its period")
    for (pk, ply), (move, phase) in book.acked.items():
        moves = games[pk].moves
        if len(moves) <= ply or moves[ply] != move:
            phase.figures.add(
                "missing_moves",
                detail=f"game {pk} ply {ply}: {move} acknowledged, the database has "
                f"{moves[ply] if len(moves) > ply else 'nothing'} there",
            )
    stuck = Game.objects.filter(
        status=Status.FINISHED,
        settled=False,
        finished_at__lt=timezone.now() - timedelta(seconds=UNSETTLED_AFTER_SECONDS),
    )
    for game in stuck:
        book.phase_at(game.finished_at.timestamp()).figures.add(
            "unsettled", detail=f"game {game.pk} finished {game.finished_at:%H:%M:%S}, not settled"
        )
    topics = [f"game:{pk}" for pk in book.games]
    for row in Connection.objects.filter(topic__in=topics):
        book.phases[-1].figures.add(
            "ghosts", detail=f"{row.topic} user {row.user_id}: row left after every socket closed"
        )


# The deployment's units start a process that exits by itself again 2 s later
# (deploy/systemd/: Restart=always, RestartSec=2); so does this run, and says so.
UNIT_RESTART_SECONDS = 2


async def restarted_as_units_do(site: Site, book: Book, stop: asyncio.Event) -> None:
    """A server process (daphne, the worker, beat) that exits by itself during the run is
    started again as its unit would start it, and the phase reports it: a crash is a finding
    even when the service manager heals it. A process the run itself stops (the kill phases) is
    no longer among the running ones, and is not counted."""
    while not stop.is_set():
        for name, proc in list(site.procs.running.items()):
            if proc.poll() is None:
                continue
            phase = book.current
            await asyncio.sleep(UNIT_RESTART_SECONDS)
            if site.procs.running.get(name) is not proc:
                continue  # the run restarted it meanwhile
            await asyncio.to_thread(site.restart, name)
            if phase is not None:
                phase.figures.add("restarted")
                phase.figures.info.append(
                    f"{name} exited by itself (code {proc.returncode}); started again "
                    f"{UNIT_RESTART_SECONDS} s later, as its unit's Restart=always does"
                )
        await asyncio.sleep(0.5)


async def run(site: Site, tables: list[Table], cookie: str, login_user: str, quick: bool,
              seed: int) -> list[Figures]:  # fmt: skip
    from django.conf import settings  # the attacker's Django reads the site's environment

    plan = phases(site, quick)
    book = Book(
        plan, killed_port=site.ports["daphne-b"], answer_seconds=settings.SOCKET_ANSWER_SECONDS
    )
    loop = asyncio.get_running_loop()

    def begin(phase: Phase) -> None:
        site.mark(f"faults: {phase.name}")
        phase.started = time.time()
        phase.log_sizes = site.log_sizes()
        book.current = phase

    begin(plan[0])
    stop = threading.Event()
    port = site.ports["daphne-a"]
    looker = loop.run_in_executor(None, visitor, port, cookie, book, stop, login_user)
    workers = [
        asyncio.create_task(table_loop(t, book, seed * 1000 + i)) for i, t in enumerate(tables)
    ]
    units_stop = asyncio.Event()
    units = asyncio.create_task(restarted_as_units_do(site, book, units_stop))
    for i, phase in enumerate(plan[:-1]):
        if i:
            begin(phase)
        if phase.action is not None:
            await asyncio.to_thread(phase.action)
        await asyncio.sleep(phase.play_seconds)
    begin(plan[-1])
    book.stopping = True
    book.finishing = True
    try:
        await asyncio.wait_for(asyncio.gather(*workers, return_exceptions=True), 60)
    except TimeoutError:
        book.over = True
        for task in workers:
            task.cancel()
    book.over = True
    closed_at = time.monotonic()
    # Settling: the tick settles a game whose task was lost 10 s after its end; presence rows
    # of dead processes go after the 30 s stale window.
    deadline = closed_at + 60
    while time.monotonic() < deadline:
        left = await asyncio.to_thread(fixtures.db, _unsettled, book.games, attempts=3)
        if not left and time.monotonic() - closed_at > 35:
            break
        await asyncio.sleep(2)
    stop.set()
    units_stop.set()
    await looker
    await units
    await asyncio.to_thread(fixtures.db, check, book)
    (site.log_dir / "attack-clients.txt").write_text("\n".join(book.journal) + "\n")
    sizes = [p.log_sizes for p in plan] + [site.log_sizes()]
    for phase, (start, end) in zip(plan, zip(sizes, sizes[1:], strict=False), strict=False):
        for tb in site.tracebacks_between(start, end):
            detail, example = describe(tb)
            phase.figures.add("tracebacks", detail=detail, example=example)
    for phase in plan:
        errors = book.errors.get(phase.name)
        bits = []
        if errors:
            bits.append("error replies " + ", ".join(f"{k} {v}" for k, v in errors.most_common(6)))
        if book.actions.get(phase.name):
            bits.append(
                "client: " + ", ".join(f"{k} {v}" for k, v in book.actions[phase.name].items())
            )
        if phase.name in book.slowest:
            bits.append(
                f"slowest answer {book.slowest[phase.name]:.2f} s (bound {book.answer_seconds:g} s)"
            )
        if bits:
            phase.figures.info.append("; ".join(bits))
    plan[0].figures.info.append(
        f"{len(tables)} tables, {len(book.games)} games ({', '.join(f'{k} {v}' for k, v in book.plans.items())}), "
        f"{len(book.acked)} moves acknowledged"
    )
    if not site.can_stop_services():
        plan[0].figures.info.append(
            "Redis and PostgreSQL outages skipped: DATABASE_URL was given, not private servers"
        )
    return [p.figures for p in plan]


def _unsettled(game_ids: list[int]) -> int:
    from games.models import Game, Status

    return Game.objects.filter(pk__in=game_ids, status=Status.FINISHED, settled=False).count()
