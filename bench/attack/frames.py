"""Scenario 2: socket fuzzing. Thousands of hostile frames to every socket of the site — a
game's as a player (chess and Italian draughts), as a spectator and as a guest, the lobby's, the
site socket `/ws/me/`, a tournament's and an arena's — each followed by a `ping`.

docs/protocol.md: every client frame but `ping` gets an `error` reply (`malformed` on a
push-only socket), and the socket stays open. So each hostile frame must be answered with an
error before the pong of the ping after it: a frame without its error is *unanswered*, a socket
the server closed is *closed* (it is opened again and the attack goes on).

Probes: the origin check (a victim's cookie sent from another origin: another port, scheme or
host must be refused), the documented close codes (4401 for a guest on `/ws/me/`, 4404 for an
unknown game), and a draughts move written in non-ASCII digits (parsed strictly, it is illegal).
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from dataclasses import dataclass

from bench.attack import fixtures, hostile
from bench.attack.client import AttackSocket, HandshakeRefused
from bench.attack.figures import Figures

SHOWN = ("requests", "unanswered", "closed", "tracebacks", "probes")
# This scenario sends its frames as fast as they are answered, far above what a socket may
# send (live/budget.py): the daphnes serve it with budgets no frame meets. The flood scenario
# checks the budgets themselves.
ROOMY_BUDGETS = {
    name: "1000000/1000000"
    for name in (
        "SOCKET_BUDGET_GAME",
        "SOCKET_BUDGET_PAGE",
        "SOCKET_BUDGET_PLAYER",
        "SOCKET_BUDGET_GUEST",
        "SOCKET_ABUSE",
    )
}
REPLY_SECONDS = 5.0


@dataclass
class Target:
    label: str
    path: str
    cookie: str
    port: int
    game: bool = False
    legal: frozenset[str] = frozenset()


async def first_state(sock: AttackSocket) -> dict | None:
    while True:
        message = await sock.next(REPLY_SECONDS)
        if message is None:
            return None
        if isinstance(message, dict) and message.get("type") == "state":
            return message


async def open_target(target: Target) -> AttackSocket:
    for attempt in range(5):
        try:
            sock = await AttackSocket.open(target.port, target.path, target.cookie)
            if target.game:
                state = await first_state(sock)
                if state is not None and not target.legal:
                    target.legal = frozenset(state.get("legal_moves", []))
            return sock
        except (OSError, TimeoutError, HandshakeRefused):
            if attempt == 4:
                raise
            await asyncio.sleep(0.5 * (attempt + 1))
    raise AssertionError("unreachable")


async def hammer(
    target: Target, n: int, rng: random.Random, figures: Figures, codes: Counter
) -> None:
    try:
        sock = await open_target(target)
    except (OSError, TimeoutError, HandshakeRefused) as error:
        figures.add("closed", detail=f"{target.label}: could not connect ({error})")
        return
    for i in range(n):
        label, kind, payload = hostile.frame(rng, game=target.game, legal=target.legal)
        sent_as, data = hostile.encode(kind, payload)
        if sent_as == "binary":
            sock.send_binary(data)
        else:
            sock.send_text(data)
        ping_id = f"after-{i}"
        sock.send({"type": "ping", "id": ping_id})
        await sock.drain()
        figures.add("requests")
        errored = ponged = False
        deadline = asyncio.get_running_loop().time() + REPLY_SECONDS
        while not ponged:
            left = deadline - asyncio.get_running_loop().time()
            try:
                message = await sock.next(max(0.01, left))
            except TimeoutError:
                break
            if message is None:
                break
            if not isinstance(message, dict):
                continue
            if message.get("type") == "error":
                errored = True
                codes[message.get("code")] += 1
            elif message.get("type") == "pong" and message.get("id") == ping_id:
                ponged = True
        if not errored:
            figures.add("unanswered", detail=f"{target.label}: {label} got no error reply")
        if not ponged:
            if sock.closed:
                figures.add(
                    "closed", detail=f"{target.label}: {label} (close code {sock.close_code})"
                )
            else:
                figures.add("unanswered", detail=f"{target.label}: the ping after {label}")
            sock.abort()
            try:
                sock = await open_target(target)
            except (OSError, TimeoutError, HandshakeRefused) as error:
                figures.add("closed", detail=f"{target.label}: could not connect again ({error})")
                return
    sock.close()


async def probe_origins(port: int, path: str, cookie: str, figures: Figures) -> int:
    failed = 0
    for origin in ("http://127.0.0.1:9999", f"https://127.0.0.1:{port}", "http://evil.example",
                   "null"):  # fmt: skip
        figures.add("requests")
        try:
            sock = await AttackSocket.open(port, path, cookie, origin=origin)
        except HandshakeRefused:
            continue
        state = await first_state(sock)
        sock.close()
        if state is not None:
            failed += 1
            figures.add(
                "probes",
                detail=f"{path} accepted Origin {origin} with a player's cookie (and sent the game)",
            )
    return failed


async def probe_close_code(port: int, path: str, cookie: str, want: int, figures: Figures) -> int:
    figures.add("requests")
    try:
        sock = await AttackSocket.open(port, path, cookie)
    except HandshakeRefused as error:
        figures.add("probes", detail=f"{path}: handshake refused ({error.status!r}), not {want}")
        return 1
    try:
        while (await sock.next(REPLY_SECONDS)) is not None:
            pass
    except TimeoutError:
        sock.abort()
        figures.add("probes", detail=f"{path}: stayed open, expected close code {want}")
        return 1
    if sock.close_code != want:
        figures.add("probes", detail=f"{path}: close code {sock.close_code}, expected {want}")
        return 1
    return 0


async def probe_digits(port: int, game_id: int, cookie: str, figures: Figures) -> int:
    """A draughts move in Arabic-Indic digits ("٢٢-١٨" is 22-18 to int()) must be illegal."""
    sock = await AttackSocket.open(port, f"/ws/game/{game_id}/", cookie)
    await first_state(sock)
    sock.send({"type": "move", "ply": 0, "move": "٢٢-١٨"})
    figures.add("requests")
    played = False
    try:
        while (message := await sock.next(REPLY_SECONDS)) is not None:
            if isinstance(message, dict) and message.get("type") == "error":
                break
            if isinstance(message, dict) and message.get("type") in ("state", "played"):
                if message.get("ply") == 1:
                    played = True
                    break
    except TimeoutError:
        pass
    sock.close()
    if played:
        figures.add(
            "probes", detail='draughts move "٢٢-١٨" (Arabic-Indic digits) was played as 22-18'
        )
    return int(played)


def cast(ports: list[int]) -> dict:
    """Players of a chess and two Italian draughts games, a spectator, an event of each kind."""
    names = [fixtures.name("sk", i) for i in range(8)]
    p = fixtures.users(names)
    chess = fixtures.live_game(p[0], p[1])
    italian = fixtures.live_game(p[2], p[3], variant="italian")
    digits = fixtures.live_game(p[4], p[5], variant="italian")
    spectator, opener = p[6], p[7]
    tournament = fixtures.tournament(opener)
    cookies = {u.pk: fixtures.session_cookie(u) for u in p}
    return {
        "chess": chess.pk,
        "italian": italian.pk,
        "digits": digits.pk,
        "tournament": tournament.pk,
        "arena": fixtures.arena(fixtures.user(fixtures.name("ska"))).pk,
        "white": cookies[p[0].pk],
        "italian_white": cookies[p[2].pk],
        "digits_white": cookies[p[4].pk],
        "spectator": cookies[spectator.pk],
        "user": cookies[opener.pk],
        "ports": ports,
    }


async def run(c: dict, figures: Figures, frames: int, seed: int) -> None:
    a, b = c["ports"][0], c["ports"][-1]
    chess, italian = c["chess"], c["italian"]
    targets = [
        Target("game (player)", f"/ws/game/{chess}/", c["white"], a, game=True),
        Target("game (draughts player)", f"/ws/game/{italian}/", c["italian_white"], b, game=True),
        Target("game (spectator)", f"/ws/game/{chess}/", c["spectator"], b, game=True),
        Target("game (guest)", f"/ws/game/{chess}/", "", a, game=True),
        Target("lobby (guest)", "/ws/lobby/", "", a),
        Target("lobby", "/ws/lobby/", c["user"], b),
        Target("me", "/ws/me/", c["user"], a),
        Target("tournament", f"/ws/tournaments/{c['tournament']}/", c["user"], b),
        Target("arena", f"/ws/arenas/{c['arena']}/", c["user"], a),
    ]
    each = max(1, frames // len(targets))
    codes: Counter = Counter()
    await asyncio.gather(
        *(
            hammer(t, each, random.Random(seed * 100 + i), figures, codes)
            for i, t in enumerate(targets)
        )
    )
    failed = await probe_origins(a, f"/ws/game/{chess}/", c["white"], figures)
    failed += await probe_close_code(a, "/ws/me/", "", 4401, figures)
    failed += await probe_close_code(b, "/ws/game/2147483647/", c["white"], 4404, figures)
    failed += await probe_digits(a, c["digits"], c["digits_white"], figures)
    figures.info.append(
        f"{each} hostile frames (each then a ping) on each of {len(targets)} sockets; error "
        f"replies: {', '.join(f'{k} {v}' for k, v in codes.most_common())}; probes: {failed} of 7 "
        "failed"
    )
