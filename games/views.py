"""Lobby, quick pairing, challenges, games to watch and the game page. Thin: forms parse,
services write, selectors read; each view renders the page or, for htmx, its fragment."""

from __future__ import annotations

from dataclasses import asdict

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.redirects import local_next
from games import player_ratings, selectors, services, textmode
from games.forms import ChallengeForm, QuickPairingForm
from games.models import EndReason, Game, Variant

OPEN_CHALLENGES_PER_PAGE = 20
GAMES_PER_PAGE = 30


def _to(request: HttpRequest, url: str) -> HttpResponse:
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)


def _page_number(request: HttpRequest) -> int:
    try:
        return max(1, int(request.GET.get("page", "1")))
    except ValueError:
        return 1


def _quick_context(request: HttpRequest, variant: str | None = None) -> dict:
    """The quick-pairing grid of one variant, with who waits where, and my own wait."""
    user = request.user if request.user.is_authenticated else None
    entry = selectors.pool_entry_of(user.pk) if user else None
    chosen = variant or request.GET.get("pool_variant") or (entry.variant if entry else "")
    if chosen not in Variant.values:
        chosen = request.session.get("pool_variant", Variant.CHESS)
    waiting = selectors.pool_counts(chosen)
    playing = selectors.playing_counts(chosen)
    cells = []
    for minutes, increment in services.QUICK_TIME_CONTROLS:
        tc = clocks_label(minutes, increment)
        cells.append(
            {
                "value": tc,
                "cadence": selectors.cadence_label(minutes * 60, increment),
                "waiting": waiting.get((minutes * 60, increment), 0),
                "playing": playing.get((minutes * 60, increment), 0),
                "mine": entry is not None
                and (entry.variant, entry.base_seconds, entry.increment_seconds)
                == (chosen, minutes * 60, increment),
            }
        )
    return {
        "pool_variant": chosen,
        "pool_variants": Variant.choices,
        "quick_cells": cells,
        "pool_entry": entry,
        "quick_casual": (not entry.rated) if entry else request.session.get("pool_casual", False),
    }


def clocks_label(minutes: int, increment: int) -> str:
    return f"{minutes}+{increment}"


def lobby(request: HttpRequest) -> HttpResponse:
    """`/play/`: quick pairing, open challenges, your own, games being played; the form to
    post a challenge."""
    user = request.user if request.user.is_authenticated else None
    opponent = request.GET.get("opponent", "")[:20]
    form = ChallengeForm(user=user, initial={"opponent": opponent} if opponent else None)
    if request.method == "POST":
        if user is None:
            return redirect(f"{reverse('accounts:login')}?next={request.path}")
        form = ChallengeForm(request.POST, user=user)
        if form.is_valid():
            data = form.cleaned_data
            try:
                services.challenge_create(
                    challenger_id=user.pk,
                    opponent_id=data["opponent"].pk if data["opponent"] else None,
                    variant_code=data["variant"],
                    base_seconds=data["base_seconds"],
                    increment_seconds=data["increment"],
                    color=data["color"],
                    rated=data["rated"],
                )
            except services.TooManyChallenges:
                form.add_error(
                    None,
                    _("Hai già %(n)d sfide aperte: annullane una per lanciarne un'altra.")
                    % {"n": services.MAX_OPEN_CHALLENGES},
                )
            except services.NotAPlayer:  # the account was closed while the form was sent
                form.add_error(None, _("Il tuo account è stato chiuso."))
            except services.GameError:
                form.add_error("opponent", _("Questo giocatore non può essere sfidato."))
            else:
                return _to(request, reverse("games:lobby"))
    if request.htmx and request.headers.get("HX-Target") == "quick-pairing":
        return render(request, "games/lobby.html#quick-pairing", _quick_context(request))
    live_game_id = selectors.live_game_id_of(user.pk) if user else None
    page = Paginator(
        selectors.open_challenges().exclude(challenger_id=user.pk if user else None),
        OPEN_CHALLENGES_PER_PAGE,
    ).get_page(_page_number(request))
    page.object_list = selectors.with_challenger_ratings(page.object_list)
    context = {
        "form": form,
        "open_page": page,
        "my_challenges": selectors.challenges_of(user.pk)[:OPEN_CHALLENGES_PER_PAGE]
        if user
        else [],
        "live_rows": selectors.watch_rows(selectors.games_being_played()[:8]),
        "live_count": selectors.live_count(),
        "live_game_id": live_game_id,
        "warnings": selectors.commitments_of(user.pk) if user else [],
    }
    if request.htmx and request.method == "GET":
        if live_game_id and request.GET.get("follow"):
            # A challenge of mine was accepted while I was waiting: go to the board.
            return _to(request, reverse("games:game", args=[live_game_id]))
        # The list alone (its re-fetch on every push): the grid re-fetches itself.
        return render(request, "games/lobby.html#challenge-list", context)
    return render(request, "games/lobby.html", {**context, **_quick_context(request)})


@login_required
@require_POST
def pool_join(request: HttpRequest) -> HttpResponse:
    """A cell of the quick-pairing grid: wait in that pool, or play at once if someone waits."""
    form = QuickPairingForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Scegli una variante e un tempo della griglia."))
        return _to(request, reverse("games:lobby"))
    data = form.cleaned_data
    request.session["pool_variant"] = data["variant"]
    request.session["pool_casual"] = not data["rated"]
    try:
        game = services.pool_join(
            player_id=request.user.pk,
            pool=services.Pool(
                data["variant"], data["base_seconds"], data["increment_seconds"], data["rated"]
            ),
        )
    except services.PlayerBusy:
        messages.error(
            request, _("Hai già una partita in corso: finiscila prima di cercarne un'altra.")
        )
        return _to(request, reverse("games:lobby"))
    except services.NotAPlayer:  # the account was closed while the request was on its way
        messages.error(request, _("Il tuo account è stato chiuso."))
        return _to(request, reverse("games:lobby"))
    if game is not None:
        return _to(request, reverse("games:game", args=[game.pk]))
    if request.htmx:
        return render(request, "games/lobby.html#quick-pairing", _quick_context(request))
    return redirect("games:lobby")


@login_required
@require_POST
def pool_leave(request: HttpRequest) -> HttpResponse:
    services.pool_leave(player_id=request.user.pk)
    if request.htmx:
        return render(request, "games/lobby.html#quick-pairing", _quick_context(request))
    return redirect("games:lobby")


@login_required
@require_POST
def challenge_accept(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        game = services.challenge_accept(challenge_id=pk, user_id=request.user.pk)
    except services.PlayerBusy:
        messages.error(request, _("Uno dei due giocatori è già impegnato in una partita."))
        return _to(request, reverse("games:lobby"))
    except services.GameError:
        messages.error(request, _("Questa sfida non è più disponibile."))
        return _to(request, reverse("games:lobby"))
    return _to(request, reverse("games:game", args=[game.pk]))


@login_required
@require_POST
def challenge_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.challenge_cancel(challenge_id=pk, user_id=request.user.pk)
    except services.GameError:
        messages.error(request, _("Questa sfida non è più disponibile."))
    # Only back to a page of this site (an open redirect otherwise).
    return _to(request, local_next(request, request.POST.get("next")) or reverse("games:lobby"))


def _notices_context(user_id: int, rematch_of: int | None = None) -> dict:
    """The challenges addressed to the player (games/_notices.html) but the rematch of the game
    `rematch_of`, offered beside its board instead; the events they are committed to (RULES
    4.7) only when there is a challenge to warn about."""
    addressed = selectors.challenges_addressed_to(user_id)
    if rematch_of is not None:
        addressed = addressed.exclude(rematch_of_id=rematch_of)
    addressed = list(addressed)
    return {
        "addressed": addressed,
        "warnings": selectors.commitments_of(user_id) if addressed else [],
    }


def notices(request: HttpRequest) -> HttpResponse:
    """The fragment of challenges addressed to the visitor, shown on every page (on a finished
    game's page, its rematch is offered beside the board instead)."""
    if not request.user.is_authenticated:
        return render(request, "games/_notices.html", {"addressed": []})
    skip = request.GET.get("rematch_of", "")
    context = _notices_context(request.user.pk, int(skip) if skip.isdigit() else None)
    return render(request, "games/_notices.html", context)


def watch(request: HttpRequest) -> HttpResponse:
    """`/games/`: every game being played now, to watch live."""
    chosen = request.GET.get("variant", "")
    chosen = chosen if chosen in Variant.values else ""
    page = Paginator(selectors.games_being_played(variant=chosen), GAMES_PER_PAGE).get_page(
        _page_number(request)
    )
    context = {
        "page": page,
        "rows": selectors.watch_rows(page.object_list),
        "variant": chosen,
        "variants": Variant.choices,
    }
    template = "games/watch.html"
    if request.htmx:
        template += "#watch-list"
    return render(request, template, context)


def _game(pk: int) -> Game:
    try:
        return selectors.game_get(pk)
    except Game.DoesNotExist:
        raise Http404 from None


def _ratings_json(game: Game) -> dict:
    shown = player_ratings.for_games([game])[game.pk]
    return {
        "white": asdict(shown[game.white_id]),
        "black": asdict(shown[game.black_id]),
        "rated": game.rated,
        "with_event": game.rated_with_event,
    }


def game(request: HttpRequest, pk: int) -> HttpResponse:
    game = _game(pk)
    user_id = request.user.pk if request.user.is_authenticated else None
    color = game.player_color(user_id)
    event = game.event  # the tournament or arena it belongs to, if any (generic: no import)
    opening = selectors.opening_shown(game)
    caption = event.game_caption(game) if event is not None else ""
    page = {
        "positions": selectors.game_positions(game),
        "opening": asdict(opening),
        "ratings": _ratings_json(game),
        # Low time: a tenth of the base, between 10 and 30 seconds.
        "low_ms": min(30_000, max(10_000, game.base_seconds * 100)),
        # A live page silent this long asks for the state (GAME_RESYNC_SECONDS).
        "resync_ms": round(settings.GAME_RESYNC_SECONDS * 1000),
        "rematch": game.event_type_id is None and color is not None,
        # The text mode: the player's switch (guests keep theirs in the browser).
        "text_mode": bool(getattr(request.user, "text_mode", False)),
        "signed_in": request.user.is_authenticated,
        # Whether the boost is offered (RULES 8), as the event's kind says (`Event.game_boost`).
        "boost": bool(getattr(event, "game_boost", False)),
        # Who moves first in the variant (English draughts: Black): move 1 is theirs.
        "first_to_move": game.variant_info.rules.first_to_move.value,
    }
    context = {
        "game": game,
        "event": event,
        "event_label": event._meta.verbose_name if event is not None else "",
        "event_caption": caption,
        "opening": opening,
        "chess_opening": selectors.chess_opening(game),  # ECO code and name
        "my_color": color.value if color else "",
        "initial_state": services.game_state(game),
        "page_data": page,
        # What the shells of the page (live/templatetags/shell.py) are rendered from, once per
        # process: read only when one is rendered (the template calls them).
        "role": "player" if color is not None else "spectator",
        "geometry": lambda: selectors.board_geometry(game.variant),
        "reasons": lambda: EndReason.choices[1:],
        "words": _page_words,
        # The notices of the site's pages, in this response (one request a view): their
        # fragments re-fetch when the site socket says something changed.
        "notices": _notices_context(user_id, rematch_of=game.pk) if user_id else None,
    }
    return render(request, "games/game.html", context)


def _page_words() -> dict:
    """What the game page's script says and reads in the request's language, the same on every
    game's page: the move box's commands (games.textmode, the one table) and the texts of the
    announcements, the board's names and the text mode."""
    return {"commands": textmode.commands_for_page(), "texts": textmode.page_texts()}


def game_positions(request: HttpRequest, pk: int) -> JsonResponse:
    """Every position of the game (move-list navigation catching up after a gap)."""
    return JsonResponse({"positions": selectors.game_positions(_game(pk))})


def game_ratings(request: HttpRequest, pk: int) -> JsonResponse:
    """The players' ratings as the game page shows them, with the change once rated."""
    return JsonResponse(_ratings_json(_game(pk)))


def rematch(request: HttpRequest, pk: int) -> HttpResponse:
    """The rematch box of a finished game of no event: offer, answer, cancel."""
    game = _game(pk)
    user_id = request.user.pk if request.user.is_authenticated else None
    if game.is_live or game.event_type_id is not None or game.player_color(user_id) is None:
        return HttpResponse("")
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "offer":
                _offer, new_game = services.rematch_offer(game_id=game.pk, user_id=user_id)
                if new_game is not None:
                    return _to(request, reverse("games:game", args=[new_game.pk]))
            elif action in ("cancel", "decline"):
                state = selectors.rematch_state(game, user_id)
                offer = state.mine if action == "cancel" else state.theirs
                if offer is not None:
                    services.challenge_cancel(challenge_id=offer.pk, user_id=user_id)
            elif action == "accept":
                state = selectors.rematch_state(game, user_id)
                if state.theirs is not None:
                    new_game = services.challenge_accept(
                        challenge_id=state.theirs.pk, user_id=user_id
                    )
                    return _to(request, reverse("games:game", args=[new_game.pk]))
        except services.PlayerBusy:
            messages.error(request, _("Uno dei due giocatori è già impegnato in una partita."))
        except services.GameError:
            messages.error(request, _("Questa rivincita non è più disponibile."))
    state = selectors.rematch_state(game, user_id)
    if state.next_game_id and request.method == "GET" and request.GET.get("follow"):
        return _to(request, reverse("games:game", args=[state.next_game_id]))
    return _rematch_box(request, game, user_id)


def _rematch_box(request: HttpRequest, game: Game, user_id: int, error: str = "") -> HttpResponse:
    """The box after a finished game of no event: "Rivincita" and "Nuovo avversario"."""
    context = {
        "game": game,
        "state": selectors.rematch_state(game, user_id),
        "new_opponent_in_pool": services.on_the_grid(game.base_seconds, game.increment_seconds),
        "error": error,
    }
    return render(request, "games/_rematch.html", context)


@login_required
@require_POST
def new_opponent(request: HttpRequest, pk: int) -> HttpResponse:
    """ "Nuovo avversario" after a finished game (`services.new_opponent_seek`): to
    the lobby, waiting in the same pool or behind the same open challenge, or straight to the
    board when someone was already waiting."""
    game = _game(pk)
    try:
        found = services.new_opponent_seek(game_id=game.pk, user_id=request.user.pk)
    except services.PlayerBusy:
        error = _("Hai già una partita in corso: finiscila prima di cercarne un'altra.")
    except services.TooManyChallenges:
        error = _("Hai già %(n)d sfide aperte: annullane una per lanciarne un'altra.") % {
            "n": services.MAX_OPEN_CHALLENGES
        }
    except services.GameError:
        error = _("Per questa partita non si cerca un nuovo avversario.")
    else:
        if found.game is not None:
            return _to(request, reverse("games:game", args=[found.game.pk]))
        if found.pool is not None:
            # The lobby shows the wait (and keeps it: a player waits while a lobby page is
            # open); its grid and "Amichevole" as the pool is.
            request.session["pool_variant"] = found.pool.variant
            request.session["pool_casual"] = not found.pool.rated
        return _to(request, reverse("games:lobby"))
    if request.htmx and game.player_color(request.user.pk) is not None and not game.is_live:
        return _rematch_box(request, game, request.user.pk, error)
    messages.error(request, error)
    return _to(request, reverse("games:game", args=[game.pk]))


def game_export(request: HttpRequest, pk: int) -> HttpResponse:
    game = _game(pk)
    ext = game.variant_info.export_format
    # The game's own URL is its Site tag, on the host the request came to (Django
    # checks it against ALLOWED_HOSTS), so a file downloaded links back to where it was played.
    text = selectors.game_export(game, site=request.build_absolute_uri("/"))
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="circolo-{game.pk}.{ext}"'
    return response


def text_guide(request: HttpRequest) -> HttpResponse:
    """ "Giocare senza vedere la scacchiera": the text mode, the move formats of each variant
    and every command of the move box (`games.textmode.COMMANDS`, the table the page reads)."""
    return render(request, "games/text_guide.html", {"commands": textmode.COMMANDS})
