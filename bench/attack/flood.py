"""Scenario 5: flood. Guests and a signed-in user flood every kind of socket with frames while
N games are played (docs/protocol.md, "Budgets").

The games: both players of each of N live games on sockets of their own (White on one daphne,
Black on the other, so every move crosses Redis), each moving `MOVE_EVERY` seconds after the
opponent's move; a move's latency runs from its frame being sent to the mover's own socket
hearing it played.

The flooders, started after a quiet phase: sockets that send at a steady pace (about
FLOOD_FRAMES_PER_SECOND in all, what this one process pushes beside the players) to
- game sockets as guests, 8 KB `sync` frames only (just under the frame cap: the attack that
  grew a daphne from 331 to 871 MB in 25 s),
- game sockets, the site socket `/ws/me/` and the lobby as one signed-in user,
- the lobby, a tournament's and an arena's sockets as guests,
these with 8 KB syncs, small syncs, pings and frames of no known kind.
A flooder closed by the server comes back at once, to check that the budget is its owner's (the
user, or the guests' address), not its socket's: a fresh socket is no fresh burst.

Figures, and the targets that make the run fail when missed:
- each daphne's resident memory (VmRSS) before, at its peak during the flood and 30 s after:
  growth under RSS_GROWTH_MB during, and back within RSS_BACK_MB of the before-figure after;
- the players' move latency p50/p99 before and during: p99 during under MOVE_P99_MS;
- what the flooders sent and got back (states, `rate_limited` errors, other), per flooding
  socket and second: under ANSWERS_PER_SOCKET_SECOND (throttled, not answered at full rate);
  the close codes they met and the handshakes refused;
- tracebacks in the servers' logs (the harness counts them): 0.

All the clients come from 127.0.0.1, as a club behind one router: the attack's site raises the
cap of sockets per address (bench.live.server_environment), so the guests' address budget is
what they share.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.attack import fixtures
from bench.attack.client import AttackSocket, HandshakeRefused
from bench.attack.figures import Figures
from bench.attack.presence import connect

SHOWN = ("requests", "missed", "tracebacks")
MOVE_EVERY = 2.0  # seconds a player waits, on average, before answering a move
FLOOD_FRAMES_PER_SECOND = 2900
RSS_GROWTH_MB = 100
RSS_BACK_MB = 50
MOVE_P99_MS = 200.0
ANSWERS_PER_SOCKET_SECOND = 30.0
BATCH = 10  # frames written between two waits of a flooder
PAD = "x" * 8000  # a frame just under the 8 KB cap (live.sockets.MAX_FRAME_CHARS)


def cast(games: int) -> dict[str, Any]:
    whites = fixtures.users([fixtures.name("flw", i) for i in range(games)])
    blacks = fixtures.users([fixtures.name("flb", i) for i in range(games)])
    flooder = fixtures.user(fixtures.name("flooder"))
    opener = fixtures.user(fixtures.name("flopen"))
    found = []
    for white, black in zip(whites, blacks, strict=True):
        game = fixtures.live_game(white, black)
        found.append(
            {
                "id": game.pk,
                "cookies": {
                    "white": fixtures.session_cookie(white),
                    "black": fixtures.session_cookie(black),
                },
            }
        )
    return {
        "games": found,
        "flooder": fixtures.session_cookie(flooder),
        "tournament": fixtures.tournament(opener).pk,
        "arena": fixtures.arena(fixtures.user(fixtures.name("flopen2"))).pk,
    }


@dataclass
class Flooder:
    label: str
    port: int
    path: str
    cookie: str
    rate: float  # frames a second
    texts: tuple[str, ...]
    sent: int = 0
    answers: Counter = field(default_factory=Counter)
    closes: Counter = field(default_factory=Counter)
    refused: int = 0
    connects: int = 0


async def flood(f: Flooder, stop: asyncio.Event) -> None:
    """Send at `f.rate` until stopped; closed, come back at once."""
    rng = random.Random(f.label)
    while not stop.is_set():
        try:
            sock = await AttackSocket.open(f.port, f.path, f.cookie, timeout=5)
        except HandshakeRefused:
            f.refused += 1
            continue
        except (OSError, TimeoutError):
            f.refused += 1
            await asyncio.sleep(0.05)
            continue
        f.connects += 1

        async def read(sock: AttackSocket = sock) -> None:
            while (message := await sock.next(3600)) is not None:
                kind = message.get("type") if isinstance(message, dict) else "text"
                if kind == "error":
                    kind = f"error {message.get('code')}"
                f.answers[kind] += 1

        reader = asyncio.create_task(read())
        pause = BATCH / f.rate
        while not stop.is_set() and not sock.closed:
            for _ in range(BATCH):
                sock.send_text(rng.choice(f.texts))
            f.sent += BATCH
            await sock.drain()
            await asyncio.sleep(pause)
        if sock.closed:
            f.closes[sock.close_code] += 1
        else:
            sock.close()
        await asyncio.wait([reader], timeout=2)
        reader.cancel()


def flooders(cast_: dict[str, Any], ports: list[int]) -> list[Flooder]:
    games = cast_["games"]
    big = json.dumps({"type": "sync", "pad": PAD})
    small = ('{"type": "sync"}', '{"type": "ping", "id": 1}', '{"type": "nonsense"}', "[1]")
    game_texts = (big, *small)
    page_texts = (big, '{"type": "ping", "id": 1}', '{"type": "nonsense"}')
    user = cast_["flooder"]
    found = []

    def add(label: str, n: int, paths: list[str], cookie: str, texts: tuple[str, ...], rate: float):
        for i in range(n):
            found.append(
                Flooder(f"{label} {i}", ports[i % 2], paths[i % len(paths)], cookie, rate, texts)
            )

    game_paths = [f"/ws/game/{g['id']}/" for g in games[:8]]
    # Frames a second: 8 x 250 = 2,000 8 KB syncs on game sockets as guests (the attack that
    # grew a daphne by 540 MB), then 4 x 75 + 12 x 50 = 900 of every kind: 2,900 in all
    # (FLOOD_FRAMES_PER_SECOND).
    add("guest game", 8, game_paths, "", (big,), 250)
    add("user game", 4, game_paths, user, game_texts, 75)
    add("user site", 2, ["/ws/me/"], user, page_texts, 50)
    add("user lobby", 2, ["/ws/lobby/"], user, page_texts, 50)
    add("guest lobby", 4, ["/ws/lobby/"], "", page_texts, 50)
    add("guest tournament", 2, [f"/ws/tournaments/{cast_['tournament']}/"], "", page_texts, 50)
    add("guest arena", 2, [f"/ws/arenas/{cast_['arena']}/"], "", page_texts, 50)
    return found


@dataclass
class Play:
    phase: str = "warm-up"
    latencies: dict[str, list[float]] = field(default_factory=dict)
    moves: int = 0
    closed: int = 0


async def player(sock: AttackSocket, color: str, seed: int, play: Play, stop: asyncio.Event):
    rng = random.Random(seed)
    sent: dict[int, tuple[float, str]] = {}  # ply after the move -> (sent at, phase)
    moved_at = -1
    while not stop.is_set():
        try:
            message = await sock.next(1.0)
        except TimeoutError:
            continue
        if message is None:
            play.closed += 1
            return
        if not isinstance(message, dict) or message.get("type") not in ("state", "played"):
            continue
        ply = message.get("ply", -1)
        if ply in sent:
            at, phase = sent.pop(ply)
            play.latencies.setdefault(phase, []).append((time.monotonic() - at) * 1000)
        if message.get("status", "live") != "live":
            return
        turn, legal = message.get("turn"), message.get("legal_moves")
        if turn == color and legal and ply > moved_at:
            await asyncio.sleep(MOVE_EVERY * rng.uniform(0.5, 1.5))  # not all at the same instant
            moved_at = ply
            sent[ply + 1] = (time.monotonic(), play.phase)
            sock.send({"type": "move", "ply": ply, "move": rng.choice(legal)})
            play.moves += 1


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(
    cast_: dict[str, Any],
    ports: list[int],
    pids: dict[str, int],
    figures: Figures,
    *,
    quiet: float,
    seconds: float,
    after: float,
) -> None:
    gate = asyncio.Semaphore(10)
    games = cast_["games"]
    sockets = []
    for game in games:
        path = f"/ws/game/{game['id']}/"
        for color, port in (("white", ports[0]), ("black", ports[1])):
            sockets.append((await connect(port, path, game["cookies"][color], gate), color))
    figures.add("requests", len(sockets))
    play, stop_play, stop_flood = Play(), asyncio.Event(), asyncio.Event()
    players = [
        asyncio.create_task(player(sock, color, n, play, stop_play))
        for n, (sock, color) in enumerate(sockets)
    ]
    samples: dict[str, list[tuple[float, str, float]]] = {name: [] for name in pids}

    async def sample_memory() -> None:
        while not stop_play.is_set():
            for name, pid in pids.items():
                samples[name].append((time.monotonic(), play.phase, rss_mb(pid)))
            await asyncio.sleep(0.5)

    sampler = asyncio.create_task(sample_memory())
    await asyncio.sleep(5)  # every game's first moves
    play.phase = "before"
    await asyncio.sleep(quiet)
    crowd = flooders(cast_, ports)
    play.phase = "during"
    began = time.monotonic()
    floods = [asyncio.create_task(flood(f, stop_flood)) for f in crowd]
    await asyncio.sleep(seconds)
    stop_flood.set()
    await asyncio.gather(*floods, return_exceptions=True)
    flood_seconds = time.monotonic() - began
    play.phase = "after"
    await asyncio.sleep(after)
    stop_play.set()
    await asyncio.gather(sampler, *players, return_exceptions=True)
    for sock, _color in sockets:
        sock.close()

    # --- figures ---------------------------------------------------------------------------
    figures.add("requests", play.moves + sum(f.sent + f.connects + f.refused for f in crowd))
    before = play.latencies.get("before", [])
    during = play.latencies.get("during", [])
    figures.info.append(
        f"{len(games)} games, {play.moves} moves; latency before the flood p50 "
        f"{pct(before, 0.5):.1f} ms p99 {pct(before, 0.99):.1f} ms ({len(before)} moves), during "
        f"p50 {pct(during, 0.5):.1f} ms p99 {pct(during, 0.99):.1f} ms ({len(during)} moves)"
    )
    if not during or pct(during, 0.99) >= MOVE_P99_MS:
        figures.add(
            "missed",
            detail=f"players' move p99 during the flood {pct(during, 0.99):.1f} ms "
            f"(target < {MOVE_P99_MS:.0f})",
        )
    if play.closed:
        figures.add("missed", detail=f"{play.closed} players' sockets closed by the server")
    for name, rows in samples.items():
        base = [mb for _t, phase, mb in rows if phase == "before"]
        peak = max((mb for _t, phase, mb in rows if phase == "during"), default=0.0)
        last = rows[-1][2] if rows else 0.0
        start = statistics.mean(base) if base else 0.0
        figures.info.append(
            f"{name} RSS {start:.0f} MB before, {peak:.0f} MB at the flood's peak "
            f"(+{peak - start:.0f}), {last:.0f} MB {after:.0f} s after (+{last - start:.0f})"
        )
        if peak - start >= RSS_GROWTH_MB:
            figures.add(
                "missed",
                detail=f"{name} grew {peak - start:.0f} MB during the flood "
                f"(target < {RSS_GROWTH_MB})",
            )
        if last - start >= RSS_BACK_MB:
            figures.add(
                "missed",
                detail=f"{name} still {last - start:.0f} MB above its before-figure "
                f"{after:.0f} s after (target < {RSS_BACK_MB})",
            )
    by_kind: dict[str, list[Flooder]] = {}
    for f in crowd:
        by_kind.setdefault(f.label.rsplit(" ", 1)[0], []).append(f)
    for kind, group in by_kind.items():
        sent = sum(f.sent for f in group)
        answers = sum((f.answers for f in group), Counter())
        closes = sum((f.closes for f in group), Counter())
        per_socket = sum(answers.values()) / len(group) / flood_seconds
        figures.info.append(
            f"{kind} x{len(group)}: {sent / flood_seconds:.0f} frames/s sent, "
            f"{per_socket:.1f} answers/s per socket ({dict(answers.most_common())}); "
            f"{sum(f.connects for f in group)} sockets opened, closed by the server "
            f"{dict(closes.most_common())}, {sum(f.refused for f in group)} handshakes refused"
        )
        if per_socket >= ANSWERS_PER_SOCKET_SECOND:
            figures.add(
                "missed",
                detail=f"{kind}: {per_socket:.0f} answers a second per flooding socket "
                f"(target < {ANSWERS_PER_SOCKET_SECOND:.0f})",
            )
