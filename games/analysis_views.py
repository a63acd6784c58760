"""The analysis board of a finished game: its page, the move endpoint the page asks whether a
move is legal (the browser never decides it: `games.rules.analysis.step`), and the PGN / PDN
with the variations played on it. Thin, like every view: the rules decide, selectors read;
nothing here writes.

Both endpoints are stateless: the page sends the position (and the earlier positions, for the
repetition rules) with each move, so any daphne process answers. They are POSTs checked for
Django's CSRF token like every form of the site.

What a request costs the server grows with what it sends: the positions it makes the rules
read or replay (a move tried: its own two and the earlier ones `step` reads, at most
HISTORY_WINDOW; an export: every move of its tree). So each request takes from its owner's
bucket (`ANALYSIS_BUDGET`: the signed-in player, else the address) one token per
POSITIONS_PER_TOKEN positions, at least one, and a tree of more than ANALYSIS_MAX_POSITIONS
moves is refused (413) as it is read, before any move is played. The bound (docs/operations.md,
"The analysis board's cost"): a position costs at most ~40 µs of CPU (a chess move replayed and
written in SAN; an earlier position read), so one request at most 40 ms (the biggest tree,
500 chess moves at the default cap, ~20 ms measured with its reading and its query; a move
tried, 200 earlier positions read, ~10 ms; both tested in test_analysis_views.py), and one
owner at most the budget's rate times POSITIONS_PER_TOKEN positions a second (150 at the
default 6 tokens a second: ~6 ms of CPU a second) after a burst of 60 tokens, three biggest
trees.

The buckets are per daphne process, as the sockets' budgets are (live/budget.py): with N
processes behind nginx an owner gets N times as much in all, but no process gives any owner
more than the bound above, and it is each process's other visitors a flood would slow.
nginx's `circolo_analysis` zone (deploy/nginx/) bounds the requests of an address in all.
"""

from __future__ import annotations

import json
import threading
import time

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.throttle import client_address
from games import selectors
from games.models import Game
from games.rules.analysis import (
    BadAnalysis,
    TreeTooLarge,
    game_line,
    main_line,
    positions_read,
    read_line,
    step,
)
from live.budget import Budget, TokenBucket, owner_key

MAX_BODY = 256 * 1024  # a request body, at most (a long game's tree fits in a tenth of it)
# Positions (read or replayed) a token of ANALYSIS_BUDGET pays for: a move tried early in a
# game costs one token, one at ply 200 nine, the biggest export at the default cap (500) 20.
POSITIONS_PER_TOKEN = 25

_buckets: dict[str, TokenBucket] = {}
_buckets_lock = threading.Lock()  # views run in daphne's thread pool


def _tokens(positions: int) -> int:
    """The tokens a request that makes the server read or replay `positions` costs."""
    return max(1, -(-positions // POSITIONS_PER_TOKEN))


def _charge(request: HttpRequest, tokens: int) -> float:
    """Takes `tokens` from the requester's bucket: 0 when taken, else the seconds until they
    would be there (none is taken). A request never costs more than a whole burst, so the
    biggest tree the cap lets through passes on a full bucket. Full buckets are forgotten now
    and then (a full bucket is no different from a new one)."""
    user_id = request.user.pk if request.user.is_authenticated else None
    owner = owner_key(user_id, client_address(request))
    budget = Budget(*settings.ANALYSIS_BUDGET)
    tokens = min(tokens, budget.burst)
    now = time.monotonic()
    with _buckets_lock:
        bucket = _buckets.get(owner)
        if bucket is None:
            if len(_buckets) >= 10_000:
                for key in [k for k, b in _buckets.items() if b.is_full(now)]:
                    del _buckets[key]
            bucket = _buckets[owner] = TokenBucket.full(budget, now)
        if bucket.take(now, tokens):
            return 0.0
        return (tokens - bucket.tokens) / budget.rate


def _refused(message: str, status: int = 400) -> JsonResponse:
    """A refusal. What the page sent wrong is said in English (for whoever wrote the request:
    the page shows its own translated words for a refused move); what a person using the page
    can meet (the budget, a tree over the cap) is translated, and the page shows it as it is."""
    return JsonResponse({"error": message}, status=status)


def _over_budget(wait: float) -> JsonResponse:
    response = _refused(_("Troppe richieste: aspetta un momento."), 429)
    response["Retry-After"] = str(max(1, round(wait + 0.5)))
    return response


def _finished(pk: int) -> Game:
    """The game to analyse: it exists and is over (a live game is not analysed: the players
    would have a board to try their moves on)."""
    try:
        game = selectors.game_get(pk)
    except Game.DoesNotExist:
        raise Http404 from None
    if game.is_live:
        raise Http404
    return game


def analysis(request: HttpRequest, pk: int) -> HttpResponse:
    game = _finished(pk)
    # A player sees their own side at the bottom, as on the game page; anyone else White.
    color = game.player_color(request.user.pk if request.user.is_authenticated else None)
    page = {
        "variant": game.variant,
        "first_to_move": game.variant_info.rules.first_to_move.value,
        "line": game_line(game.variant, game.start_fen, game.moves),
        "orientation": color.value if color else "white",
    }
    context = {
        "game": game,
        "geometry": selectors.board_geometry(game.variant),
        "analysis_page": page,
    }
    return render(request, "games/analysis.html", context)


@require_POST
def analysis_move(request: HttpRequest) -> JsonResponse:
    """A move tried on the analysis board. JSON in: `variant`, `fen`, `move` (machine form;
    left out, the position alone is described) and `positions` (the earlier positions of the
    line, oldest first; only the last HISTORY_WINDOW are read). JSON out: `fen`, `to_move`,
    `legal_moves`, `outcome`, and for a move `move` and `notation` {"it", "en"}; or a 400
    `{"error": ...}` saying what was wrong, a 429 over the budget.

    Costs one token to be read, then one per POSITIONS_PER_TOKEN positions `step` reads (its
    own two and the earlier ones it looks back at): at most 40 ms of CPU, ~10 ms measured (200
    chess positions read at ~45 µs each)."""
    if wait := _charge(request, 1):
        return _over_budget(wait)
    if len(request.body) > MAX_BODY:
        return _refused("the request body is too long")
    try:
        data = json.loads(request.body)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past Python's stack
        return _refused("the request body is not valid JSON")
    if not isinstance(data, dict):
        return _refused("the request body must be a JSON object")
    positions = data.get("positions", [])
    if wait := _charge(request, _tokens(2 + positions_read(positions)) - 1):
        return _over_budget(wait)
    try:
        answer = step(data.get("variant"), data.get("fen"), data.get("move"), positions)
    except BadAnalysis as error:
        return _refused(str(error))
    return JsonResponse(answer)


@require_POST
def analysis_export(request: HttpRequest, pk: int) -> HttpResponse:
    """The game's PGN / PDN with the variations of the analysis: the form's `tree` is the
    main line as `read_line` reads it, which must start with the game's own moves.

    Costs one token to be read, then one per POSITIONS_PER_TOKEN moves of the tree (each a
    position replayed and written). A tree of more than ANALYSIS_MAX_POSITIONS moves is refused
    (413) as it is read, before any is played: a request costs at most ~40 µs of CPU a move,
    40 ms at the default cap of 500 (docs/operations.md, "The analysis board's cost")."""
    # The budget first: a refused request costs no query.
    if wait := _charge(request, 1):
        return _over_budget(wait)
    game = _finished(pk)
    text = request.POST.get("tree", "")
    if len(text) > MAX_BODY:
        return _refused("the request body is too long")
    counted = [0]
    try:
        line = read_line(json.loads(text), limit=settings.ANALYSIS_MAX_POSITIONS, counted=counted)
    except TreeTooLarge as error:
        message = _(
            "L'analisi ha più di %(limit)s mosse, il massimo che il sito scrive in un file: "
            "elimina qualche variante e riprova."
        )
        return _refused(message % {"limit": error.limit}, 413)
    except BadAnalysis as error:
        return _refused(str(error))
    except (ValueError, RecursionError):  # not JSON, or nested past Python's stack
        return _refused("tree is not JSON")
    if wait := _charge(request, _tokens(counted[0]) - 1):
        return _over_budget(wait)
    # The game's moves stay the main line; it may go on past the game's end.
    if main_line(line)[: len(game.moves)] != list(game.moves):
        return _refused("the main line must start with the game's moves")
    try:
        pgn = selectors.game_export(game, site=request.build_absolute_uri("/"), analysed=line)
    except ValueError as error:  # IllegalMove: a variation's move is not legal where it stands
        return _refused(f"illegal variation: {error}")
    ext = game.variant_info.export_format
    response = HttpResponse(pgn, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="circolo-{game.pk}-analisi.{ext}"'
    return response
