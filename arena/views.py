"""Arena pages (RULES 8). Thin: forms check, services write, selectors read; each view renders
the whole page or, for htmx, the named partial (STYLE 7)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.throttle import client_address
from arena import selectors, services
from arena.describe import describe, outcome_line
from arena.forms import ArenaForm, EnterForm
from arena.models import Arena, Entry, EntryState, PauseReason
from events.forms import remember_zone, use_zone
from events.kinds import open_live_event
from events.services import private_throttled_until
from ratings.models import CadenceChoice, Variant


def _invite_key(pk: int) -> str:
    return f"arena_invite_{pk}"


def arena_list(request: HttpRequest) -> HttpResponse:
    use_zone(request)
    variant = request.GET.get("variant", "")
    cadence = request.GET.get("cadence", "")
    variant = variant if variant in Variant.values else ""
    cadence = cadence if cadence in CadenceChoice.values else ""
    context = {
        "sections": selectors.arena_list(variant=variant, cadence=cadence),
        "variants": Variant.choices,
        "cadences": CadenceChoice.choices,
        "variant": variant,
        "cadence": cadence,
    }
    template = "arena/list.html"
    if request.htmx:
        template += "#rows"
    return render(request, template, context)


def _is_hint(request: HttpRequest) -> bool:
    return bool(request.htmx) and request.headers.get("HX-Target") == "rated-hint"


def _form_page(request, form, *, arena=None, live=None) -> HttpResponse:
    template = "arena/form.html"
    if _is_hint(request):
        template += "#opening-section"
    hint = ArenaForm.rated_hint(request.POST if request.method == "POST" else None)
    return render(
        request, template, {"form": form, "arena": arena, "live_event": live, "hint": hint}
    )


@login_required
def arena_new(request: HttpRequest) -> HttpResponse:
    use_zone(request)
    if request.user.is_bot:  # RULES 1
        messages.error(request, _("I bot non possono aprire arene né entrarvi."))
        return redirect("arena:list")
    live = open_live_event(request.user.pk)
    if request.method != "POST":
        return _form_page(request, ArenaForm(), live=live)
    if _is_hint(request):  # RULES 7.3 live hint: nothing validated, nothing saved
        return _form_page(request, ArenaForm.echo(request.POST))
    form = ArenaForm(request.POST)
    if form.is_valid():
        remember_zone(request, form)
        try:
            arena = services.arena_create(opener=request.user, data=form.to_options())
        except services.ArenaError as error:
            form.add_error(None, error.message)
            return _form_page(request, form, live=error.event)
        messages.success(request, _("Arena aperta. Per giocare, entra anche tu."))
        return redirect("arena:detail", pk=arena.pk)
    return _form_page(request, form, live=live)


@login_required
def arena_edit(request: HttpRequest, pk: int) -> HttpResponse:
    use_zone(request)
    arena = get_object_or_404(Arena, pk=pk)
    if arena.opened_by_id != request.user.pk or arena.has_started():
        messages.error(request, _("Solo chi ha aperto l'arena può modificarla, fino all'inizio."))
        return redirect("arena:detail", pk=pk)
    if request.method != "POST":
        return _form_page(request, ArenaForm(instance=arena), arena=arena)
    if _is_hint(request):
        return _form_page(request, ArenaForm.echo(request.POST, instance=arena), arena=arena)
    form = ArenaForm(request.POST, instance=arena)
    if form.is_valid():
        remember_zone(request, form)
        try:
            services.arena_update(arena_id=pk, by=request.user, data=form.to_options())
        except services.ArenaError as error:
            form.add_error(error.code if error.code in form.fields else None, error.message)
            return _form_page(request, form, arena=arena)
        messages.success(request, _("Arena aggiornata."))
        return redirect("arena:detail", pk=pk)
    return _form_page(request, form, arena=arena)


def _page_number(request: HttpRequest) -> int:
    try:
        return max(1, int(request.GET.get("page", "1")))
    except ValueError:
        return 1


def arena_detail(request: HttpRequest, pk: int) -> HttpResponse:
    use_zone(request)
    arena = get_object_or_404(Arena.objects.select_related("opened_by"), pk=pk)
    entry = selectors.my_entry(arena, request.user)
    now = timezone.now()
    rows, pages = selectors.leaderboard(arena, _page_number(request))
    waiting_now = (
        selectors.waiting_entries(arena, selectors.ms(now))
        if arena.status == Arena.Status.RUNNING and now < arena.ends_at
        else []
    )
    invite = request.session.get(_invite_key(pk), "")
    is_opener = request.user.is_authenticated and arena.opened_by_id == request.user.pk
    context = {
        "arena": arena,
        "entry": entry,
        "is_opener": is_opener,
        "started": arena.has_started(now),
        # Organiser's controls only until the start: a refreshed fragment drops them.
        "organizing": is_opener and not arena.has_started(now) and arena.is_live,
        "outcome": outcome_line(arena),
        "ended": now >= arena.ends_at or not arena.is_live,
        "rows": rows,
        "page": _page_number(request),
        "pages": range(1, pages + 1) if pages > 1 else (),
        "waiting": len(waiting_now),
        # RULES 8: everybody waiting has just played them: say so, and until when (issue 25.7).
        "next_opponent_at": selectors.next_opponent_at(
            arena, entry, waiting_now, selectors.ms(now)
        ),
        "live_games": selectors.live_games(arena),
        "stats": selectors.stats(arena),
        "podium": selectors.podium(arena) if arena.status == Arena.Status.FINISHED else [],
        "description": describe(arena),
        "enter_form": EnterForm(),
        "has_invite": bool(invite) and invite == arena.invite_token,
        "invite_url": request.build_absolute_uri(
            reverse("arena:invite", args=[pk, arena.invite_token])
        ),
        "login_url": reverse("accounts:login") + "?" + urlencode({"next": request.path}),
        # Password tries stopped for everyone: its organizer is told until when.
        "private_throttled_until": private_throttled_until(arena)
        if is_opener and arena.is_private
        else None,
        "my_game_id": next(
            (r.playing_game_id for r in rows if entry and r.entry.pk == entry.pk), None
        ),
        "paused_absent": entry is not None
        and entry.state == EntryState.PAUSED
        and entry.pause_reason == PauseReason.ABSENT,
    }
    template = "arena/detail.html"
    if request.htmx:
        template += "#live"
    return render(request, template, context)


def arena_invite(request: HttpRequest, pk: int, token: str) -> HttpResponse:
    """The secret link: remembered in the session, it lets the holder in without the password."""
    arena = get_object_or_404(Arena, pk=pk)
    if token == arena.invite_token:
        request.session[_invite_key(pk)] = token
        messages.info(request, _("Sei stato invitato a questa arena privata."))
    else:
        messages.error(request, _("Questo link d'invito non è più valido."))
    return redirect("arena:detail", pk=pk)


def _back(request: HttpRequest, pk: int) -> HttpResponse:
    if request.htmx:
        return arena_detail(request, pk)
    return redirect("arena:detail", pk=pk)


@require_POST
def arena_enter(request: HttpRequest, pk: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect(reverse("accounts:login") + "?next=" + reverse("arena:detail", args=[pk]))
    form = EnterForm(request.POST)
    form.is_valid()
    try:
        services.entry_enter(
            arena_id=pk,
            player=request.user,
            password=form.cleaned_data.get("password", ""),
            invite_token=request.session.get(_invite_key(pk), ""),
            address=client_address(request),
        )
    except services.ArenaError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Sei in gara: aspetta l'avversario su questa pagina."))
    return _back(request, pk)


def _state_change(request: HttpRequest, pk: int, service, done: str) -> HttpResponse:
    try:
        service(arena_id=pk, player=request.user)
    except services.ArenaError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, done)
    return _back(request, pk)


@require_POST
@login_required
def arena_pause(request: HttpRequest, pk: int) -> HttpResponse:
    return _state_change(request, pk, services.entry_pause, _("In pausa: non ti accoppiamo più."))


@require_POST
@login_required
def arena_leave(request: HttpRequest, pk: int) -> HttpResponse:
    return _state_change(
        request, pk, services.entry_leave, _("Sei uscito dall'arena; i tuoi punti restano.")
    )


@require_POST
@login_required
def arena_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.arena_cancel(arena_id=pk, by=request.user)
    except services.ArenaError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Arena annullata."))
    return redirect("arena:detail", pk=pk)


@require_POST
@login_required
def arena_invite_regenerate(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.invite_regenerate(arena_id=pk, by=request.user)
    except services.ArenaError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Nuovo link d'invito creato; il vecchio non vale più."))
    return redirect("arena:detail", pk=pk)


def arena_player(request: HttpRequest, pk: int, username: str) -> HttpResponse:
    """One player's games in the arena."""
    arena = get_object_or_404(Arena, pk=pk)
    entry = get_object_or_404(
        Entry.objects.select_related("player"), arena=arena, player__username__iexact=username
    )
    context = {
        "arena": arena,
        "entry": entry,
        "rank": selectors.entry_ranks(arena).get(entry.pk),
        "rows": selectors.player_games(arena, entry),
    }
    template = "arena/player.html"
    if request.htmx:
        template += "#player-games"
    return render(request, template, context)
