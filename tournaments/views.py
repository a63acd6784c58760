"""Tournament pages before the start (issue 7). Thin: forms check, services write, selectors
read; each view renders the whole page or, for htmx, the named partial (STYLE 7)."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.throttle import client_address
from events.forms import remember_zone, use_zone
from events.kinds import open_live_event
from events.services import private_throttled_until
from games.models import Game
from games.selectors import games_export
from ratings.models import CadenceChoice, Variant
from tournaments import selectors, services
from tournaments.describe import describe, outcome_line
from tournaments.engine.trf import write_trf
from tournaments.forms import JoinForm, TournamentForm
from tournaments.models import Participant, Tournament
from tournaments.selectors import engine_tournament

RUN_STATUSES = (Tournament.Status.RUNNING, Tournament.Status.FINISHED)


def _invite_key(pk: int) -> str:
    return f"tournament_invite_{pk}"


def tournament_list(request: HttpRequest) -> HttpResponse:
    use_zone(request)
    variant = request.GET.get("variant", "")
    cadence = request.GET.get("cadence", "")
    variant = variant if variant in Variant.values else ""
    cadence = cadence if cadence in CadenceChoice.values else ""
    context = {
        "sections": selectors.tournament_list(variant=variant, cadence=cadence),
        "variants": Variant.choices,
        "cadences": CadenceChoice.choices,
        "variant": variant,
        "cadence": cadence,
        "now": timezone.now(),
    }
    template = "tournaments/list.html"
    if request.htmx:
        template += "#rows"
    return render(request, template, context)


def _refuse_opener(request: HttpRequest) -> HttpResponse | None:
    if request.user.is_bot:  # RULES 1
        messages.error(request, _("I bot non possono aprire tornei."))
        return redirect("tournaments:list")
    return None


def _is_hint(request: HttpRequest) -> bool:
    """The RULES 7.3 live hint (it also refreshes the thematic picker for the variant)."""
    return bool(request.htmx) and request.headers.get("HX-Target") == "rated-hint"


def _form_page(request, form, *, tournament=None, live=None) -> HttpResponse:
    template = "tournaments/form.html"
    if _is_hint(request):
        template += "#opening-section"
    hint = TournamentForm.rated_hint(request.POST if request.method == "POST" else None)
    return render(
        request,
        template,
        {"form": form, "tournament": tournament, "live_event": live, "hint": hint},
    )


@login_required
def tournament_new(request: HttpRequest) -> HttpResponse:
    use_zone(request)
    refused = _refuse_opener(request)
    if refused:
        return refused
    live = open_live_event(request.user.pk)
    if request.method != "POST":
        return _form_page(request, TournamentForm(), live=live)
    if _is_hint(request):  # RULES 7.3 live hint: nothing validated, nothing saved
        return _form_page(request, TournamentForm.echo(request.POST))
    form = TournamentForm(request.POST)
    if form.is_valid():
        remember_zone(request, form)
        try:
            tournament = services.tournament_create(opener=request.user, data=form.to_options())
        except services.TournamentError as error:
            form.add_error(None, error.message)
            return _form_page(request, form, live=error.event)
        messages.success(request, _("Torneo aperto. Per giocare, iscriviti anche tu."))
        return redirect("tournaments:detail", pk=tournament.pk)
    return _form_page(request, form, live=live)


@login_required
def tournament_edit(request: HttpRequest, pk: int) -> HttpResponse:
    use_zone(request)
    tournament = get_object_or_404(Tournament, pk=pk)
    if tournament.opened_by_id != request.user.pk or tournament.has_started():
        messages.error(request, _("Solo chi ha aperto il torneo può modificarlo, fino all'inizio."))
        return redirect("tournaments:detail", pk=pk)
    if request.method != "POST":
        return _form_page(request, TournamentForm(instance=tournament), tournament=tournament)
    if _is_hint(request):
        form = TournamentForm.echo(request.POST, instance=tournament)
        return _form_page(request, form, tournament=tournament)
    form = TournamentForm(request.POST, instance=tournament)
    if form.is_valid():
        remember_zone(request, form)
        try:
            services.tournament_update(tournament_id=pk, by=request.user, data=form.to_options())
        except services.TournamentError as error:
            # Beside the field it is about (seats, floor), else on top of the form.
            form.add_error(error.code if error.code in form.fields else None, error.message)
            return _form_page(request, form, tournament=tournament)
        messages.success(request, _("Torneo aggiornato."))
        return redirect("tournaments:detail", pk=pk)
    return _form_page(request, form, tournament=tournament)


def tournament_detail(request: HttpRequest, pk: int) -> HttpResponse:
    use_zone(request)
    tournament = get_object_or_404(Tournament.objects.select_related("opened_by"), pk=pk)
    invite = request.session.get(_invite_key(pk), "")
    is_opener = request.user.is_authenticated and tournament.opened_by_id == request.user.pk
    started = tournament.has_started()
    context = {
        "tournament": tournament,
        "players": selectors.registered_players(tournament),
        "registered": selectors.is_registered(tournament, request.user),
        "is_opener": is_opener,
        "started": started,
        # Organiser's controls only until the start (RULES 4.1): a refreshed fragment drops them.
        "organizing": is_opener and not started and tournament.is_live,
        "has_invite": bool(invite) and invite == tournament.invite_token,
        "join_form": JoinForm(),
        "description": describe(tournament),
        "outcome": outcome_line(tournament),
        "invite_url": request.build_absolute_uri(
            reverse("tournaments:invite", args=[pk, tournament.invite_token])
        ),
        "login_url": reverse("accounts:login") + "?" + urlencode({"next": request.path}),
        # Password tries stopped for everyone: its organizer is told until when.
        "private_throttled_until": private_throttled_until(tournament)
        if is_opener and tournament.is_private
        else None,
    }
    if tournament.status in RUN_STATUSES:
        # The current round in full; the others are listed and read when opened (round view).
        rounds = selectors.run_rounds(tournament, pairings_of=tournament.current_round)
        context.update(
            rounds=rounds,
            current=rounds[-1] if rounds else None,
            past_rounds=list(reversed(rounds[:-1])),
            standings=selectors.run_standings(tournament),
            my_game_id=selectors.my_live_game_id(tournament, request.user),
        )
    template = "tournaments/detail.html"
    if request.htmx:
        template += "#live"
    return render(request, template, context)


def tournament_round(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """One round's pairings and results, opened from the list of rounds (htmx fragment)."""
    tournament = get_object_or_404(Tournament, pk=pk, status__in=RUN_STATUSES)
    rnd = selectors.round_pairings(tournament, number)
    if rnd is None:
        raise Http404
    return render(request, "tournaments/_round.html", {"tournament": tournament, "rnd": rnd})


def tournament_print(request: HttpRequest, pk: int) -> HttpResponse:
    """The standings and cross table on paper (or as they stand, while running)."""
    use_zone(request)
    tournament = get_object_or_404(
        Tournament.objects.select_related("opened_by"), pk=pk, status__in=RUN_STATUSES
    )
    context = {
        "tournament": tournament,
        "standings": selectors.run_standings(tournament),
        "outcome": outcome_line(tournament),
        "description": describe(tournament),
    }
    return render(request, "tournaments/print.html", context)


def tournament_invite(request: HttpRequest, pk: int, token: str) -> HttpResponse:
    """The secret link: remembered in the session, it lets the holder join without the
    password (issue 7). A wrong or old token is simply not remembered."""
    tournament = get_object_or_404(Tournament, pk=pk)
    if token == tournament.invite_token:
        request.session[_invite_key(pk)] = token
        messages.info(request, _("Sei stato invitato a questo torneo privato."))
    else:
        messages.error(request, _("Questo link d'invito non è più valido."))
    return redirect("tournaments:detail", pk=pk)


def _back(request: HttpRequest, pk: int) -> HttpResponse:
    if request.htmx:
        return tournament_detail(request, pk)
    return redirect("tournaments:detail", pk=pk)


@require_POST
def tournament_join(request: HttpRequest, pk: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect(
            reverse("accounts:login") + "?next=" + reverse("tournaments:detail", args=[pk])
        )
    form = JoinForm(request.POST)
    form.is_valid()
    try:
        services.registration_join(
            tournament_id=pk,
            player=request.user,
            password=form.cleaned_data.get("password", ""),
            invite_token=request.session.get(_invite_key(pk), ""),
            address=client_address(request),
        )
    except services.TournamentError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Sei iscritto."))
    return _back(request, pk)


@require_POST
@login_required
def tournament_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.registration_withdraw(tournament_id=pk, player=request.user)
    except services.TournamentError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Ti sei ritirato."))
    return _back(request, pk)


@require_POST
@login_required
def tournament_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.tournament_cancel(tournament_id=pk, by=request.user)
    except services.TournamentError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Torneo annullato."))
    return redirect("tournaments:detail", pk=pk)


@require_POST
@login_required
def tournament_invite_regenerate(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.invite_regenerate(tournament_id=pk, by=request.user)
    except services.TournamentError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Nuovo link d'invito creato; il vecchio non vale più."))
    return redirect("tournaments:detail", pk=pk)


# --- the run (issue 8) -------------------------------------------------------------------------


def tournament_player(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """One player's games in the tournament."""
    tournament = get_object_or_404(Tournament, pk=pk)
    participant = get_object_or_404(
        Participant.objects.select_related("player"), tournament=tournament, number=number
    )
    context = {
        "tournament": tournament,
        "participant": participant,
        "rows": selectors.player_pairings(tournament, number),
    }
    template = "tournaments/player.html"
    if request.htmx:
        template += "#player-games"
    return render(request, template, context)


def tournament_trf(request: HttpRequest, pk: int) -> HttpResponse:
    """The FIDE TRF-16 report (the engine's writer); double games have no TRF form."""
    tournament = get_object_or_404(Tournament, pk=pk, status__in=RUN_STATUSES)
    try:
        text = write_trf(engine_tournament(tournament))
    except ValueError:
        raise Http404(_("Con andata e ritorno il TRF non esiste.")) from None
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="torneo-{pk}.trf"'
    return response


def tournament_games(request: HttpRequest, pk: int) -> HttpResponse:
    """PGN (chess) or PDN (draughts) of every game of the tournament."""
    tournament = get_object_or_404(Tournament, pk=pk, status__in=RUN_STATUSES)
    ids = selectors.tournament_game_ids(tournament)
    games = list(Game.objects.filter(pk__in=ids).select_related("white", "black").order_by("pk"))
    # Issue 24: each game's URL as its Site, on the host the request came to.
    text = games_export(
        games,
        site=request.build_absolute_uri("/"),
        event=tournament.name,
        rounds=tournament.game_rounds(),
    )
    ext = tournament.variant_info.export_format
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="torneo-{pk}.{ext}"'
    return response


def _current_path(request: HttpRequest) -> str:
    """The path of the page an htmx request comes from (its HX-Current-URL header)."""
    return urlsplit(request.headers.get("HX-Current-URL", "")).path


def tournament_banner(request: HttpRequest) -> HttpResponse:
    """ "Your game": shown on every page while the visitor has a tournament game open."""
    found = selectors.live_tournament_game(request.user)
    if found and _current_path(request) == reverse("games:game", args=[found[0]]):
        found = None  # already on that game's page: nothing to point to (issue 16)
    cancelled = None if found else selectors.recently_cancelled_for(request.user)
    return render(request, "tournaments/_banner.html", {"found": found, "cancelled": cancelled})
