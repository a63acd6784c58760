"""The analysis board of a finished game: its page, the move endpoint the page asks whether a
move is legal (the browser never decides it: `games.rules.analysis.step`), and the PGN / PDN
with the variations played on it. Thin, like every view: the rules decide, selectors read;
nothing here writes.

Both endpoints are stateless: the page sends the position (and the earlier positions, for the
repetition rules) with each move, so any daphne process answers. They are POSTs checked for
Django's CSRF token like every form of the site, and each request takes a token from its
owner's bucket (`ANALYSIS_BUDGET`: the signed-in player, else the address), per process, as
the sockets' budgets do (live/budget.py).
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
from games.rules.analysis import BadAnalysis, game_line, main_line, read_line, step
from live.budget import Budget, TokenBucket, owner_key

MAX_BODY = 256 * 1024  # a request body, at most (a long game's tree fits in a tenth of it)

_buckets: dict[str, TokenBucket] = {}
_buckets_lock = threading.Lock()  # views run in daphne's thread pool


def _admitted(request: HttpRequest) -> bool:
    """Takes one token from the requester's bucket; False when it is empty. Full buckets are
    forgotten now and then (a full bucket is no different from a new one)."""
    user_id = request.user.pk if request.user.is_authenticated else None
    owner = owner_key(user_id, client_address(request))
    now = time.monotonic()
    with _buckets_lock:
        bucket = _buckets.get(owner)
        if bucket is None:
            if len(_buckets) >= 10_000:
                for key in [k for k, b in _buckets.items() if b.is_full(now)]:
                    del _buckets[key]
            bucket = _buckets[owner] = TokenBucket.full(Budget(*settings.ANALYSIS_BUDGET), now)
        return bucket.take(now)


def _refused(message: str, status: int = 400) -> JsonResponse:
    """A refusal. What the page sent wrong is said in English (for whoever wrote the request:
    the page shows its own translated words for a refused move); only the budget's refusal,
    which the page shows as it is, is translated."""
    return JsonResponse({"error": message}, status=status)


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
    line, oldest first). JSON out: `fen`, `to_move`, `legal_moves`, `outcome`, and for a move
    `move` and `notation` {"it", "en"}; or a 400 `{"error": ...}` saying what was wrong, a 429
    over the budget."""
    if not _admitted(request):
        return _refused(_("Troppe richieste: aspetta un momento."), 429)
    if len(request.body) > MAX_BODY:
        return _refused("the request body is too long")
    try:
        data = json.loads(request.body)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past Python's stack
        return _refused("the request body is not valid JSON")
    if not isinstance(data, dict):
        return _refused("the request body must be a JSON object")
    try:
        answer = step(
            data.get("variant"), data.get("fen"), data.get("move"), data.get("positions", [])
        )
    except BadAnalysis as error:
        return _refused(str(error))
    return JsonResponse(answer)


@require_POST
def analysis_export(request: HttpRequest, pk: int) -> HttpResponse:
    """The game's PGN / PDN with the variations of the analysis: the form's `tree` is the
    main line as `read_line` reads it, which must start with the game's own moves."""
    game = _finished(pk)
    if not _admitted(request):
        return _refused(_("Troppe richieste: aspetta un momento."), 429)
    text = request.POST.get("tree", "")
    if len(text) > MAX_BODY:
        return _refused("the request body is too long")
    try:
        line = read_line(json.loads(text))
    except BadAnalysis as error:
        return _refused(str(error))
    except (ValueError, RecursionError):  # not JSON, or nested past Python's stack
        return _refused("tree is not JSON")
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
