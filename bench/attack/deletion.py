"""The deletion scenario: a player deletes their account (the account page's form, POST) while,
from another tab at the same moment, they join a tournament, enter an arena, or write a chat
line, or while another player accepts their open challenge.

Each trial is one fresh account and one race: the delete is posted, and the other action is
sent after a delay that sweeps, trial after trial, from 0 to 100% of the time a delete takes to
be answered (measured first on an account of its own), so the action's transaction lands
before, inside and after the deletion's. Then the database says who won. Figures (each must be
0; docs/benchmarks.md):

- *targets missed*: both went through — a deleted account left registered, in an arena, with a
  game opened from its challenge or a challenge still open, or a chat line stored after its
  lines were erased; a chat socket of the deleted account not closed with 4403; the other
  visitor's page slower than twice its quiet p99 during the races (`bench.attack.bystander`);
- *HTTP 500* (any 5xx: a deadlock between the deletion and an accept was a 503), *HTTP
  unanswered*, *tracebacks* in the servers' logs.

The info line counts, per action, how often the deletion won and how often the action did.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from bench.attack import fixtures
from bench.attack.bystander import Bystander
from bench.attack.client import AttackSocket, Browser
from bench.attack.figures import Figures

SHOWN = ("requests", "http_500", "no_response", "tracebacks", "missed")
KINDS = ("join", "enter", "accept", "chat")
DELETE = "/accounts/settings/delete/"
SETTINGS = "/accounts/settings/"
QUIET_SECONDS = 3.0


@dataclass
class Trial:
    kind: str
    player_id: int  # the account deleted
    cookie: str
    target: int  # the tournament, arena or challenge
    actor_cookie: str  # who acts: the player themselves, or the accepter


def cast(trials: int) -> dict[str, Any]:
    """Per action and trial a fresh player (and an event of their own opener, or the challenge
    and its accepter); one account to time a delete; a tournament for the other visitor."""
    from games.services import challenge_create

    u, n = fixtures.users, fixtures.name
    cookie = fixtures.session_cookie
    out: dict[str, Any] = {"trials": []}
    warm = u([n("dw")])[0]
    out["warm"] = cookie(warm)
    for kind in KINDS:
        players = u([n(f"d{kind[0]}", i) for i in range(trials)])
        openers = u([n(f"o{kind[0]}", i) for i in range(trials)])
        for player, opener in zip(players, openers, strict=True):
            mine = cookie(player)
            if kind == "join":
                target, actor = fixtures.tournament(opener).pk, mine
            elif kind == "enter":
                target, actor = fixtures.arena(opener).pk, mine
            elif kind == "chat":
                target, actor = fixtures.tournament(opener).pk, mine
            else:  # the opener accepts the player's open challenge
                target = challenge_create(
                    challenger_id=player.pk,
                    variant_code="chess",
                    base_seconds=300,
                    increment_seconds=0,
                    color="random",
                    rated=False,
                ).pk
                actor = cookie(opener)
            out["trials"].append(Trial(kind, player.pk, mine, target, actor))
    watched = fixtures.tournament(u([n("dv")])[0]).pk
    out["watched"] = f"/tournaments/{watched}/"
    return out


def _browser(port: int, cookie: str, source: str) -> Browser:
    key, _, value = cookie.partition("=")
    return Browser(port, source=source, cookies={key: value})


def _delete(browser: Browser) -> Any:
    return browser.post(DELETE, [("password", fixtures.PASSWORD), ("confirm", "on")])


def _action_path(trial: Trial) -> str:
    return {
        "join": f"/tournaments/{trial.target}/join/",
        "enter": f"/arenas/{trial.target}/enter/",
        "accept": f"/play/{trial.target}/accept/",
    }[trial.kind]


def _page_of(trial: Trial) -> str:
    return {
        "join": f"/tournaments/{trial.target}/",
        "enter": f"/arenas/{trial.target}/",
        "accept": "/play/",
    }[trial.kind]


def outcome(trial: Trial) -> tuple[bool, bool, str]:
    """(deleted, the action went through, what is wrong when both did)."""
    from django.db.models import Q

    from accounts.models import User
    from arena.models import Entry
    from chat.models import Message
    from games.models import Challenge, ChallengeStatus, Game
    from tournaments.models import Registration

    deleted = User.objects.get(pk=trial.player_id).is_deleted
    player = trial.player_id
    if trial.kind == "join":
        acted = Registration.objects.filter(player_id=player).exists()
        wrong = "a deleted account left registered in a tournament"
    elif trial.kind == "enter":
        acted = Entry.objects.filter(player_id=player).exists()
        wrong = "a deleted account left in an arena"
    elif trial.kind == "accept":
        acted = Game.objects.filter(Q(white_id=player) | Q(black_id=player)).exists()
        wrong = "a game opened for a deleted account's challenge"
        open_now = Challenge.objects.filter(pk=trial.target, status=ChallengeStatus.OPEN)
        if deleted and open_now.exists():
            acted, wrong = True, "a deleted account's challenge left open"
    else:
        acted = Message.objects.filter(author_id=player).exists()
        wrong = "a chat line stored after the account's lines were erased"
    return deleted, acted, wrong


def _answered(result: Figures, response: Any, what: str) -> None:
    result.add("requests")
    if response.status == 0:
        result.add("no_response", detail=f"{what}: {response.error}")
    elif response.status >= 500:
        result.add("http_500", detail=f"HTTP {response.status} on {what}")


async def _chat_line(sock: AttackSocket, delay: float) -> str:
    """Send a line after `delay`; the reply's kind ("said", an error code, "closed")."""
    await asyncio.sleep(delay)
    sock.send({"type": "say", "part": "event", "text": "ciao a tutti", "id": 1})
    await sock.drain()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            message = await sock.next(max(deadline - time.monotonic(), 0.01))
        except TimeoutError:
            return "unanswered"
        if message is None:
            return "closed"
        if isinstance(message, dict) and message.get("id") == 1:
            return message.get("code") or message.get("type", "")
    return "unanswered"


def _verdict(deleted: bool, acted: bool) -> str:
    if deleted:
        return "both" if acted else "deletion won"
    return "action won" if acted else "neither"


async def race(trial: Trial, port: int, delay: float, source: str, result: Figures) -> str:
    """One trial; returns who won (`_verdict`)."""
    deleter = _browser(port, trial.cookie, source)
    actor = _browser(port, trial.actor_cookie, source.rsplit(".", 1)[0] + ".250")
    sock: AttackSocket | None = None
    try:
        _answered(result, await asyncio.to_thread(deleter.get, SETTINGS), "GET the account page")
        if trial.kind == "chat":
            path = f"/ws/chat/tournament/{trial.target}/"
            sock = await AttackSocket.open(port, path, trial.cookie)
            await sock.next(10)  # the chat's opening
        else:
            page = _page_of(trial)
            _answered(result, await asyncio.to_thread(actor.get, page), f"GET {page}")

        async def act() -> None:
            if sock is not None:
                await _chat_line(sock, delay)
                return
            await asyncio.sleep(delay)
            path = _action_path(trial)
            _answered(result, await asyncio.to_thread(actor.post, path, []), f"POST {path}")

        deleting, _acted = await asyncio.gather(asyncio.to_thread(_delete, deleter), act())
        _answered(result, deleting, "POST the account's deletion")
        deleted, acted, wrong = await asyncio.to_thread(fixtures.db, outcome, trial)
        if deleted and acted:
            result.add("missed", detail=wrong)
        if sock is not None and deleted:
            # Its sockets close with 4403 after the deletion's commit (docs/protocol.md).
            try:
                while (await sock.next(5)) is not None:
                    pass
            except TimeoutError:
                pass
            if sock.close_code != 4403:
                result.add(
                    "missed",
                    detail="a deleted account's chat socket not closed with 4403",
                    example=str(sock.close_code),
                )
        return _verdict(deleted, acted)
    finally:
        if sock is not None and not sock.closed:
            sock.close()
        deleter.close()
        actor.close()


async def run(cast_: dict[str, Any], port: int, result: Figures) -> None:
    from django.conf import settings  # the attacker's Django reads the site's environment

    # What a delete costs (the password's hash, the transaction), on an account of its own.
    warm = _browser(port, cast_["warm"], "127.0.2.1")
    await asyncio.to_thread(warm.get, SETTINGS)
    began = time.monotonic()
    _answered(result, await asyncio.to_thread(_delete, warm), "POST the account's deletion")
    took = time.monotonic() - began
    warm.close()
    trials: list[Trial] = cast_["trials"]
    gap = 1.0 / settings.ACCOUNT_FORM_RATE[1]
    per_kind = max(1, len(trials) // len(KINDS))
    tally: Counter[tuple[str, str]] = Counter()
    watcher = Bystander(port, cast_["watched"])
    with watcher:
        await asyncio.sleep(QUIET_SECONDS)
        watcher.phase = "during"
        for i, trial in enumerate(trials):
            step = i % per_kind
            delay = took * step / max(per_kind - 1, 1)
            # A source address per trial: the password check is counted per address.
            verdict = await race(trial, port, delay, f"127.0.3.{i + 1}", result)
            tally[(trial.kind, verdict)] += 1
            # The next delete comes when the account forms' pace has its token (config/asgi.py
            # Pace): a delete kept waiting for it would lose every race by its wait alone.
            await asyncio.sleep(gap)
    watcher.judge(result, "the deletion races")
    for kind in KINDS:
        result.info.append(
            f"{kind}: "
            + ", ".join(
                f"{what} {tally[(kind, what)]}"
                for what in ("deletion won", "action won", "both", "neither")
            )
        )
    result.info.append(
        f"a delete answered in {took * 1000:.0f} ms; each action sent 0-100% of it after"
    )
