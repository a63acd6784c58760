"""The computer analysis's pages (thin, STYLE 2): a game's analysis panel and its request, the
annotated PGN, and the free analysis board with its engine question (RULES 14)."""

from __future__ import annotations

import json
import threading
import time

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.throttle import client_address
from analysis import paste, selectors, services, stockfish
from analysis.models import GameAnalysis
from games import selectors as game_selectors
from games.models import Game
from games.rules import variant, variants
from games.rules.analysis import BadAnalysis, TreeTooLarge, game_line, read_line
from games.rules.base import RulesError
from live.budget import Budget, TokenBucket, owner_key

State = GameAnalysis.State


def _lang() -> str:
    return "en" if (get_language() or "it").startswith("en") else "it"


def _finished(pk: int) -> Game:
    game = Game.objects.select_related("white", "black").filter(pk=pk).first()
    if game is None or game.is_live:
        raise Http404
    return game


def panel_context(request: HttpRequest, game: Game) -> dict:
    """What the panel shows to this viewer: the analysis (done: its data for the board), or
    whether and how they may ask for one."""
    asked = _ask_context(request, game)
    return {**asked, "data": selectors.panel(game, asked["analysis"], _lang())}


def _ask_context(request: HttpRequest, game: Game) -> dict:
    """The analysis's state and whether this viewer may ask for one: all the game page's button
    needs (the panel's data, a replay of the game and every best line written out, is the
    analysis board's alone)."""
    analysis = selectors.analysis_of(game.pk)
    user = request.user
    may_ask = selectors.may_ask(user, game) and bool(game.moves)
    if game.variant == "chess":
        available = stockfish.engine_found(settings.STOCKFISH_PATH)
    else:
        available = services.draughts_check_available()
    state = analysis.state if analysis else ""
    waiting = state in (State.QUEUED, State.RUNNING)
    return {
        "game": game,
        "analysis": analysis,
        "state": state,
        "waiting": waiting,
        "may_ask": may_ask and available and not waiting and state != State.DONE,
        "available": available,
        "is_chess": game.variant == "chess",
        "signed_in": user.is_authenticated,
        "daily": settings.ANALYSIS_DAILY,
    }


def button_context(request: HttpRequest, game: Game) -> dict:
    """The request on the game's page: a live game's is a place held until it ends (the page
    open through the end offers it without a reload), a finished one's the button or the link
    to the analysis (RULES 14.6)."""
    if game.is_live:
        # Held for those who may ask without a query (RULES 14.7: the players, the staff); the
        # event's organizer watching reloads, as does a spectator, for whom the game's end
        # brings nothing to show yet.
        user = request.user
        later = user.is_authenticated and (
            user.is_staff or user.pk in (game.white_id, game.black_id)
        )
        return {"game": game, "shown": False, "later": later}
    if not game.moves:
        return {"shown": False}
    return {"shown": True, **_ask_context(request, game)}


@require_GET
def button(request: HttpRequest, pk: int) -> HttpResponse:
    """The game page's request, re-read when the game ends with the page open (game.js's
    `game-ended`)."""
    game = Game.objects.select_related("white", "black").filter(pk=pk).first()
    if game is None:
        raise Http404
    return render(request, "analysis/_button.html", button_context(request, game))


def panel(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the panel (re-read when the site socket says `analysis` changed, and every few
    seconds while the analysis runs). POST: ask for the analysis (RULES 14.6, 14.7)."""
    game = _finished(pk)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('accounts:login')}?next={request.path}")
        try:
            services.analysis_request(user=request.user, game_id=game.pk)
        except services.AnalysisRefused as refused:
            if not request.htmx:
                messages.error(request, refused.message)
                return redirect("games:analysis", game.pk)
            context = panel_context(request, game) | {"refused": refused.message}
            return render(request, "analysis/_panel.html", context, status=200)
        if not request.htmx:
            return redirect("games:analysis", game.pk)
    elif request.method != "GET":
        return HttpResponse(status=405)
    return render(request, "analysis/_panel.html", panel_context(request, game))


@require_GET
def annotated_pgn(request: HttpRequest, pk: int) -> HttpResponse:
    """The game's PGN with the analysis: `[%eval]` after each move, marks as NAGs and
    comments, best lines as variations (RULES 14.8)."""
    game = _finished(pk)
    analysis = selectors.analysis_of(game.pk)
    if analysis is None or analysis.state != State.DONE:
        raise Http404
    text = game_selectors.game_export(
        game,
        site=request.build_absolute_uri("/"),
        analysed=selectors.annotated_line(game, analysis),
    )
    ext = game.variant_info.export_format
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="circolo-{game.pk}-computer.{ext}"'
    return response


# --- the free analysis board (RULES 14.9) -------------------------------------------------------

PASTE_ERRORS = {
    "empty": lambda: _("Incolla una FEN, una PGN o una PDN."),
    "too_long": lambda: (
        _("Il testo è troppo lungo (al massimo %(n)s caratteri).")
        % {"n": f"{paste.MAX_PASTE:,}".replace(",", ".")}
    ),
    "position": lambda: _("La posizione non è valida per questa variante."),
    "move": lambda: _("Una mossa della partita non si può giocare: controlla il testo."),
    "too_many": lambda: _("La partita ha più di %(n)s mosse.") % {"n": paste.MAX_MOVES},
}


def board(request: HttpRequest) -> HttpResponse:
    """The free board: any variant from its start, or a pasted FEN / PGN / PDN (POST)."""
    code = request.POST.get("variant") or request.GET.get("variant") or "chess"
    if code not in variants.codes():
        code = "chess"
    rules = variant(code)
    start, moves, error, text = rules.start_fen(), (), "", ""
    if request.method == "POST":
        text = request.POST.get("text", "")[: paste.MAX_PASTE + 1]
        try:
            pasted = paste.read_paste(code, text)
            start, moves = pasted.start_fen, pasted.moves
        except paste.BadPaste as bad:
            error = PASTE_ERRORS[bad.code]()
    elif request.method != "GET":
        return HttpResponse(status=405)
    page = {
        "variant": code,
        "first_to_move": rules.first_to_move.value,
        "line": game_line(code, start, list(moves)),
        "orientation": "white",
        "free": True,
        "engine": code == "chess",
    }
    context = {
        "variant_code": code,
        "variant_choices": [(info.code, _(info.label)) for info in variants.VARIANTS],
        "geometry": game_selectors.board_geometry(code),
        "analysis_page": page,
        "paste_error": error,
        "paste_text": text if error else "",
        "export_format": variants.info(code).export_format,
        "max_paste": paste.MAX_PASTE,
    }
    return render(request, "analysis/board.html", context, status=400 if error else 200)


@require_POST
def board_export(request: HttpRequest) -> HttpResponse:
    """The free board's tree as PGN / PDN, with its comments and symbols."""
    code = request.POST.get("variant", "")
    if code not in variants.codes():
        return JsonResponse({"error": "unknown variant"}, status=400)
    rules = variant(code)
    text = request.POST.get("tree", "")
    if len(text) > 256 * 1024:
        return JsonResponse({"error": "the request body is too long"}, status=400)
    try:
        start = rules.normalize_fen(request.POST.get("start", ""))
        line = read_line(json.loads(text), limit=settings.ANALYSIS_MAX_POSITIONS)
        pgn = rules.export(line, start_fen=start, headers={"Event": "Analisi", "Site": "Circolo"})
    except TreeTooLarge as error:
        message = _(
            "L'analisi ha più di %(limit)s mosse, il massimo che il sito scrive in un file: "
            "elimina qualche variante e riprova."
        )
        return JsonResponse({"error": message % {"limit": error.limit}}, status=413)
    except (BadAnalysis, RulesError) as error:
        return JsonResponse({"error": str(error)}, status=400)
    except (ValueError, RecursionError):
        return JsonResponse({"error": "tree is not JSON"}, status=400)
    ext = variants.info(code).export_format
    response = HttpResponse(pgn, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="circolo-analisi.{ext}"'
    return response


# The engine's questions of one owner (a player, or a guest's address) per daphne process: a
# burst of 4, then one every 5 s (each costs the analysis worker up to ANALYSIS_BOARD_NODES).
ENGINE_BUDGET = Budget(4, 0.2)
_buckets: dict[str, TokenBucket] = {}
_buckets_lock = threading.Lock()


def _engine_allowed(request: HttpRequest) -> bool:
    user_id = request.user.pk if request.user.is_authenticated else None
    owner = owner_key(user_id, client_address(request))
    now = time.monotonic()
    with _buckets_lock:
        bucket = _buckets.get(owner)
        if bucket is None:
            if len(_buckets) >= 10_000:
                for key in [k for k, b in _buckets.items() if b.is_full(now)]:
                    del _buckets[key]
            bucket = _buckets[owner] = TokenBucket.full(ENGINE_BUDGET, now)
        return bucket.take(now, 1)


@require_POST
def engine_ask(request: HttpRequest) -> JsonResponse:
    """The engine's look at the chess position on the board: 202 with the token to read the
    answer by, 400 for a position that is not one, 429 over the budget, 503 without engine."""
    try:
        data = json.loads(request.body[:4096])
        fen = data["fen"]
        if not isinstance(fen, str) or len(fen) > 120:
            raise ValueError
    except (ValueError, KeyError, TypeError):
        return JsonResponse({"error": _("Posizione non valida.")}, status=400)
    if not _engine_allowed(request):
        return JsonResponse({"error": _("Troppe richieste: aspetta un momento.")}, status=429)
    try:
        token = services.position_ask(fen=fen)
    except services.AnalysisRefused as refused:
        return JsonResponse({"error": refused.message}, status=503)
    except ValueError:
        return JsonResponse({"error": _("Posizione non valida.")}, status=400)
    return JsonResponse({"token": token}, status=202)


@require_GET
def engine_answer(request: HttpRequest, token: str) -> JsonResponse:
    answer = services.position_answer(token)
    if answer is None:
        return JsonResponse({"state": "gone"}, status=404)
    if answer["state"] != "done":
        failed = answer["state"] == "failed"
        text = _("Il motore non ha risposto: riprova.") if failed else ""
        return JsonResponse({"state": answer["state"], "error": text})
    score = selectors.Score(cp=answer["cp"], mate=answer["mate"])
    best = selectors.line_notation("chess", answer["fen"], answer["best"], _lang())
    return JsonResponse(
        {
            "state": "done",
            "text": selectors.eval_text(score),
            "best": best,
            "nodes": answer["nodes"],
        }
    )
