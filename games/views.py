"""Lobby, challenges and the game page. Thin: forms parse, services write, selectors read."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games import selectors, services
from games.forms import ChallengeForm
from games.models import EndReason, Game


def _to(request: HttpRequest, url: str) -> HttpResponse:
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)


def lobby(request: HttpRequest) -> HttpResponse:
    """`/play/`: open challenges, your own, live games; the form to post a challenge."""
    user = request.user if request.user.is_authenticated else None
    form = ChallengeForm(user=user)
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
            except services.GameError:
                form.add_error("opponent", _("Questo giocatore non può essere sfidato."))
            else:
                return _to(request, reverse("games:lobby"))
    live_game_id = selectors.live_game_id_of(user.pk) if user else None
    context = {
        "form": form,
        "open_challenges": selectors.open_challenges(),
        "my_challenges": selectors.challenges_of(user.pk) if user else [],
        "live_games": selectors.live_games(),
        "live_game_id": live_game_id,
    }
    if request.htmx and request.method == "GET":
        if live_game_id and request.GET.get("follow"):
            # A challenge of mine was accepted while I was waiting: go to the board.
            return _to(request, reverse("games:game", args=[live_game_id]))
        return render(request, "games/lobby.html#challenge-list", context)
    return render(request, "games/lobby.html", context)


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
    return _to(request, request.POST.get("next") or reverse("games:lobby"))


def notices(request: HttpRequest) -> HttpResponse:
    """The fragment of challenges addressed to the visitor, shown on every page."""
    challenges = (
        selectors.challenges_addressed_to(request.user.pk) if request.user.is_authenticated else []
    )
    return render(request, "games/_notices.html", {"addressed": challenges})


def game(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        game = selectors.game_get(pk)
    except Game.DoesNotExist:
        raise Http404 from None
    user_id = request.user.pk if request.user.is_authenticated else None
    color = game.player_color(user_id)
    event = game.event  # the tournament or arena it belongs to, if any (generic: no import)
    context = {
        "game": game,
        "event": event,
        "event_kind": event._meta.model_name if event is not None else "",
        "event_label": event._meta.verbose_name if event is not None else "",
        "my_color": color.value if color else "",
        "geometry": selectors.board_geometry(game.variant),
        "initial_state": services.game_state(game),
        "reasons": EndReason.choices[1:],
    }
    return render(request, "games/game.html", context)


def game_export(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        game = selectors.game_get(pk)
    except Game.DoesNotExist:
        raise Http404 from None
    ext = "pgn" if game.variant == "chess" else "pdn"
    response = HttpResponse(selectors.game_export(game), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="circolo-{game.pk}.{ext}"'
    return response
