"""The export flood: a guest address and a signed-in player ask the analysis board for its
costliest answers as fast as nginx would let one address through, while another visitor loads
a game page on the same daphne.

Each attacker alternates the PGN of the biggest analysis tree the site accepts
(ANALYSIS_MAX_POSITIONS moves of chess, the costliest variant a position, variations on every
move of a 40-ply game) with a move tried on it sending the most earlier positions the endpoint
takes (MAX_POSITIONS, of which the rules read HISTORY_WINDOW), at NGINX_RATE requests a second
after a burst of NGINX_BURST (deploy/nginx/circolo.conf's `circolo_analysis` zone, which
stands in front of the site but not of this private copy). Probes first: a tree one move over
the cap is refused 413 with its message; a move with more positions than the endpoint takes
400 with its message.

Targets (each missed is a "targets missed"): the bystander's game page p99 during the flood
under twice its quiet p99 (bench.attack.bystander); every answer a 200, or a refusal 400 / 413
/ 429 carrying the site's message (`{"error": ...}`); no 500, none unanswered; the big exports
served to each attacker no more than the budget lets through (its burst, then its rate, each
costing the whole burst: docs/operations.md, "The analysis board's cost").
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from bench.attack import fixtures
from bench.attack.bystander import Bystander
from bench.attack.client import Browser, Response
from bench.attack.figures import Figures

SHOWN = ("requests", "http_500", "no_response", "tracebacks", "probes", "missed")

NGINX_RATE = 10.0  # circolo_analysis: 10r/s per address
NGINX_BURST = 60
GAME_PLIES = 40


@dataclass
class Cast:
    port: int
    game: int  # the finished game analysed
    moves: list[str]
    other_game: int  # the bystander's page
    player_cookie: str
    tree: list  # the biggest tree the site accepts
    too_big: list  # one move more
    history: list[str]  # earlier positions for the moves' flood
    history_fen: str  # the position after them, where the move is tried
    history_move: str
    max_positions: int
    budget: tuple[float, float]
    tokens_per_tree: int


def _finished_game(white: Any, black: Any, moves: list[str]) -> int:
    from games.models import Game
    from games.services import game_move, game_resign

    game = fixtures.live_game(white, black)
    Game.objects.filter(pk=game.pk).update(white_sat=True, black_sat=True)
    for ply, move in enumerate(moves):
        mover = white.pk if ply % 2 == 0 else black.pk
        game_move(game_id=game.pk, user_id=mover, expected_ply=ply, move=move)
    game_resign(game_id=game.pk, user_id=white.pk)
    return game.pk


def _line(rules: Any, fen: str, plies: int, shift: int) -> list[str]:
    moves = []
    for ply in range(plies):
        legal = rules.legal_moves(fen)
        if not legal:
            break
        moves.append(legal[(ply * 7 + shift) % len(legal)])
        fen = rules.apply(fen, moves[-1])
    return moves


def _tree(rules: Any, moves: list[str], size: int) -> list:
    """A legal tree of `size` moves: the game's, then variations of ten moves on each of its
    positions in turn (a variation's first move differs from the game's)."""
    fens = rules.replay(moves)
    tree: list = [{"move": move, "variations": []} for move in moves]
    count, shift = len(moves), 0
    while count < size:
        at = shift % len(moves)
        shift += 1
        others = [m for m in rules.legal_moves(fens[at]) if m != moves[at]]
        first = others[shift % len(others)]
        rest = _line(rules, rules.apply(fens[at], first), min(10, size - count) - 1, shift)
        tree[at]["variations"].append([first, *rest])
        count += 1 + len(rest)
    return tree


def cast(port: int) -> Cast:
    from django.conf import settings

    from games import analysis_views
    from games.rules import variant
    from games.rules.analysis import HISTORY_WINDOW, MAX_POSITIONS

    rules = variant("chess")
    white, black, other_w, other_b, player = fixtures.users(
        [fixtures.name("xw"), fixtures.name("xb"), fixtures.name("ow"), fixtures.name("ob")]
        + [fixtures.name("xp")]
    )
    moves = _line(rules, rules.start_fen(), GAME_PLIES, 0)
    size = settings.ANALYSIS_MAX_POSITIONS
    tree = _tree(rules, moves, size)
    too_big = json.loads(json.dumps(tree))
    too_big[0]["variations"][0].append(rules.legal_moves(rules.start_fen())[0])
    # MAX_POSITIONS earlier positions: the game's, again and again (only the last
    # HISTORY_WINDOW are read); the move is tried at the game's end.
    fens = rules.replay(moves)
    history = (fens[:-1] * (MAX_POSITIONS // len(fens) + 1))[:MAX_POSITIONS]
    assert len(history) >= HISTORY_WINDOW
    return Cast(
        port=port,
        game=_finished_game(white, black, moves),
        moves=moves,
        other_game=_finished_game(other_w, other_b, moves[:10]),
        player_cookie=fixtures.session_cookie(player),
        tree=tree,
        too_big=too_big,
        history=history,
        history_fen=fens[-1],
        history_move=rules.legal_moves(fens[-1])[0],
        max_positions=size,
        budget=settings.ANALYSIS_BUDGET,
        tokens_per_tree=min(
            int(settings.ANALYSIS_BUDGET[0]), -(-size // analysis_views.POSITIONS_PER_TOKEN)
        ),
    )


@dataclass
class Attacker:
    """One owner of a bucket: a guest address, or a signed-in player."""

    name: str
    browser: Browser
    statuses: dict[int, int] = field(default_factory=dict)
    patient: bool = False  # waits a 429's Retry-After
    exports_served: int = 0
    started: float = 0.0
    stopped: float = 0.0


def _message(response: Response) -> str:
    try:
        answer = json.loads(response.body)
    except ValueError:
        return ""
    return answer.get("error", "") if isinstance(answer, dict) else ""


def _judge_answer(c: Cast, who: str, response: Response, figures: Figures, what: str) -> None:
    figures.add("requests")
    if response.status == 0:
        figures.add("no_response", detail=f"{what} of {who}: {response.error}")
    elif response.status >= 500:
        figures.add("http_500", detail=f"{what} of {who}: {response.status}")
    elif response.status in (400, 413, 429):
        if not _message(response):
            figures.add("missed", detail=f"{what} of {who}: {response.status} without a message")
    elif response.status != 200:
        figures.add("missed", detail=f"{what} of {who}: answered {response.status}")


def _export(c: Cast, browser: Browser, tree: list) -> Response:
    return browser.post(f"/games/{c.game}/analysis/export/", [("tree", json.dumps(tree))])


def _move(c: Cast, browser: Browser, positions: list[str]) -> Response:
    body = {
        "variant": "chess",
        "fen": c.history_fen,
        "move": c.history_move,
        "positions": positions,
    }
    return browser.post(
        "/games/analysis/move/",
        json.dumps(body).encode(),
        content_type="application/json",
        headers={"X-CSRFToken": browser.csrf},
    )


def probes(c: Cast, figures: Figures) -> None:
    """The refusals a person or a script meets, each with its message."""
    browser = Browser(c.port, source="127.0.0.60")
    browser.get(f"/games/{c.game}/analysis/")
    too_big = _export(c, browser, c.too_big)
    figures.add("requests")
    if too_big.status != 413 or f"{c.max_positions}" not in _message(too_big):
        figures.add(
            "probes",
            detail=f"a tree over the cap: {too_big.status} {_message(too_big)[:80]!r}",
        )
    too_long = _move(c, browser, [*c.history, c.history[0]])
    figures.add("requests")
    if too_long.status != 400 or "positions must be" not in _message(too_long):
        figures.add(
            "probes",
            detail=f"a move with too many positions: {too_long.status} {_message(too_long)!r}",
        )
    browser.close()


def _flood(c: Cast, attacker: Attacker, until: float, figures: Figures, lock: threading.Lock):
    """Alternately the biggest export and the costliest move, paced as nginx's zone would
    (a burst, then its rate); a patient attacker waits what a 429's Retry-After says and sends
    the same request again, so as many as the budget allows are served (the most CPU it can
    cost)."""
    browser = attacker.browser
    browser.get(f"/games/{c.game}/analysis/")  # the CSRF cookie and token, as the page has
    attacker.started = time.monotonic()
    allowance, at, n = NGINX_BURST, attacker.started, 0
    while time.monotonic() < until:
        now = time.monotonic()
        allowance = min(NGINX_BURST, allowance + (now - at) * NGINX_RATE)
        at = now
        if allowance < 1:
            time.sleep((1 - allowance) / NGINX_RATE)
            continue
        allowance -= 1
        if n % 2 == 0:
            what, response = "export", _export(c, browser, c.tree)
            if response.status == 200:
                attacker.exports_served += 1
        else:
            what, response = "move", _move(c, browser, c.history)
        if attacker.patient and response.status == 429:
            # The same request again once the tokens it lacked are back.
            wait = float(response.header("Retry-After") or 1)
            time.sleep(max(0.0, min(wait, until - time.monotonic())))
        else:
            n += 1
        with lock:
            attacker.statuses[response.status] = attacker.statuses.get(response.status, 0) + 1
            _judge_answer(c, attacker.name, response, figures, what)
    attacker.stopped = time.monotonic()
    browser.close()


def run(c: Cast, figures: Figures, *, quiet: float, seconds: float) -> None:
    probes(c, figures)
    # The probes' buckets are their own address's; the flood's start full.
    guest = Attacker("a guest address", Browser(c.port, source="127.0.0.61"))
    key, _, value = c.player_cookie.partition("=")
    player = Attacker(
        "a signed-in player (patient)",
        Browser(c.port, source="127.0.0.62", cookies={key: value}),
        patient=True,
    )
    lock = threading.Lock()
    watcher = Bystander(c.port, f"/games/{c.other_game}/")
    with watcher:
        time.sleep(quiet)
        watcher.phase = "during"
        until = time.monotonic() + seconds
        threads = [
            threading.Thread(target=_flood, args=(c, who, until, figures, lock), daemon=True)
            for who in (guest, player)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    watcher.judge(figures, "the export flood")
    burst, rate = c.budget
    for who in (guest, player):
        took = who.stopped - who.started
        # Each biggest export takes tokens_per_tree tokens: the burst's worth, then what the
        # rate gives back (the moves' tokens only lower it).
        allowed = int((burst + rate * took) / c.tokens_per_tree)
        figures.info.append(
            f"{who.name}: {sum(who.statuses.values())} requests in {took:.0f} s, statuses "
            + ", ".join(f"{k} {v}" for k, v in sorted(who.statuses.items()))
            + f"; biggest exports served {who.exports_served} (budget: at most {allowed})"
        )
        if who.exports_served > allowed:
            figures.add(
                "missed",
                detail=f"{who.name} was served {who.exports_served} biggest exports "
                f"(the budget lets {allowed} through)",
            )
