"""Pages of the arbiter's table (RULES 13): thin views over `otb.services` and
`otb.selectors`. The desk, the round sheets, the TRF and the rating report are for the
organizer and the co-arbiters; the public page and the venue's printouts are for everyone."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from events.views import refresh_spread_ms, render_page
from otb import forms, selectors, services
from otb.models import OtbRound, OtbTournament
from otb.rules import csv_template
from otb.services import OtbError, OtbOptions
from otb.trf import otb_trf


def _int(text: str | None) -> int:
    try:
        return int(text or 0)
    except ValueError:
        return 0


def _tournament(pk: int) -> OtbTournament:
    return get_object_or_404(OtbTournament.objects.select_related("organizer"), pk=pk)


def _arbitrated(request: HttpRequest, pk: int) -> OtbTournament:
    tournament = _tournament(pk)
    if not selectors.may_arbitrate(tournament, request.user):
        raise Http404(_("Solo l'organizzatore e i coarbitri del torneo vedono questa pagina."))
    return tournament


@login_required
def otb_list(request: HttpRequest) -> HttpResponse:
    return render(request, "otb/list.html", {"tournaments": selectors.tournaments_of(request.user)})


@login_required
def otb_new(request: HttpRequest) -> HttpResponse:
    form = forms.OtbForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            tournament = services.otb_create(
                organizer=request.user, data=OtbOptions(**form.cleaned_data)
            )
        except OtbError as error:
            form.add_error(None, str(error))
        else:
            return redirect("otb:desk", tournament.pk)
    return render(request, "otb/new.html", {"form": form})


def csv_model(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(csv_template(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="giocatori.csv"'
    return response


def _desk_context(tournament: OtbTournament, **forms_given) -> dict:
    players = list(tournament.players.all())
    choices = forms.player_choices(players)
    withdraw = forms_given.get("withdraw") or forms.WithdrawForm(prefix="w")
    bye = forms_given.get("bye") or forms.ByeForm(prefix="b")
    withdraw.fields["player"].choices = choices
    bye.fields["player"].choices = choices
    rounds = list(tournament.rounds.all())
    last = rounds[-1] if rounds else None
    return {
        "tournament": tournament,
        "players": players,
        "byes": {
            (b.player_id, b.round_number): b
            for b in selectors.OtbBye.objects.filter(player__tournament=tournament)
        },
        "requested": selectors.OtbBye.objects.filter(player__tournament=tournament)
        .select_related("player")
        .order_by("round_number", "player__number"),
        "rounds": rounds,
        "may_pair": last is None or selectors.round_complete(last),
        "next_round": (last.number + 1) if last else 1,
        "player_form": forms_given.get("player") or forms.PlayerForm(prefix="p"),
        "import_form": forms.ImportForm(),
        "withdraw_form": withdraw,
        "bye_form": bye,
        "arbiter_form": forms.ArbiterForm(prefix="a"),
        "arbiters": list(tournament.arbiters.all()),
    }


def desk(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _arbitrated(request, pk)
    return render(request, "otb/desk.html", _desk_context(tournament))


@require_POST
def desk_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    tournament = _arbitrated(request, pk)
    user = request.user
    done = ""
    try:
        if action == "giocatore":
            form = forms.PlayerForm(request.POST, prefix="p")
            if not form.is_valid():
                return render(
                    request, "otb/desk.html", _desk_context(tournament, player=form), status=400
                )
            try:
                player = services.player_add(tournament_id=pk, by=user, row=form.row())
            except OtbError as error:  # a late entry refused: what was typed stays in the form
                form.add_error(None, str(error))
                return render(
                    request, "otb/desk.html", _desk_context(tournament, player=form), status=400
                )
            done = _("%(name)s iscritto.") % {"name": player.full_name}
            if player.entered_round > 1:
                done += " " + _("Entra dal turno %(n)d con il numero %(m)d.") % {
                    "n": player.entered_round,
                    "m": player.number,
                }
        elif action == "importa":
            form = forms.ImportForm(request.POST, request.FILES)
            if not form.is_valid():
                raise OtbError(_("Scegli un file CSV."))
            raw = form.cleaned_data["file"].read(400_000)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = raw.decode("cp1252", errors="replace")  # what older spreadsheets write
            count = services.players_import(tournament_id=pk, by=user, text=text)
            done = _("%(n)d giocatori importati.") % {"n": count}
        elif action == "ritiro":
            form = forms.WithdrawForm(request.POST, prefix="w")
            form.fields["player"].choices = forms.player_choices(tournament.players.all())
            if not form.is_valid():
                return render(
                    request, "otb/desk.html", _desk_context(tournament, withdraw=form), status=400
                )
            services.player_withdraw(
                tournament_id=pk,
                by=user,
                player_id=form.cleaned_data["player"],
                from_round=form.cleaned_data["from_round"],
            )
            done = _("Ritiro registrato.")
        elif action == "rientro":
            services.player_return(
                tournament_id=pk, by=user, player_id=_int(request.POST.get("player"))
            )
            done = _("Il giocatore torna in gara.")
        elif action == "riposo":
            form = forms.ByeForm(request.POST, prefix="b")
            form.fields["player"].choices = forms.player_choices(tournament.players.all())
            if not form.is_valid():
                return render(
                    request, "otb/desk.html", _desk_context(tournament, bye=form), status=400
                )
            services.bye_request(
                tournament_id=pk,
                by=user,
                player_id=form.cleaned_data["player"],
                round_number=form.cleaned_data["round_number"],
                kind=form.cleaned_data["kind"],
            )
            done = _("Riposo registrato.")
        elif action == "annulla-riposo":
            services.bye_cancel(
                tournament_id=pk,
                by=user,
                player_id=_int(request.POST.get("player")),
                round_number=_int(request.POST.get("round")),
            )
            done = _("Riposo annullato.")
        elif action == "coarbitro":
            form = forms.ArbiterForm(request.POST, prefix="a")
            if form.is_valid():
                services.arbiter_add(
                    tournament_id=pk, by=user, username=form.cleaned_data["username"]
                )
                done = _("Coarbitro aggiunto.")
        elif action == "togli-coarbitro":
            services.arbiter_remove(
                tournament_id=pk, by=user, user_id=_int(request.POST.get("user"))
            )
            done = _("Coarbitro tolto.")
        elif action == "abbina":
            round_ = services.round_pair(tournament_id=pk, by=user)
            if round_ is None:
                messages.warning(request, _ended_early(tournament_id=pk))
                return redirect("otb:desk", pk)
            messages.success(
                request, _("Turno %(n)d abbinato: controllalo e pubblicalo.") % {"n": round_.number}
            )
            return redirect("otb:round", pk, round_.number)
        else:
            raise Http404
    except (OtbError, ValueError) as error:
        messages.error(request, str(error))
    else:
        if done:
            messages.success(request, done)
    return redirect("otb:desk", pk)


def _ended_early(*, tournament_id: int) -> str:
    rounds = OtbTournament.objects.values_list("total_rounds", flat=True).get(pk=tournament_id)
    return _(
        "Nessun abbinamento rispetta le regole assolute (Lim 11): il torneo è finito dopo il "
        "turno %(n)d."
    ) % {"n": rounds}


def _round(tournament: OtbTournament, number: int) -> OtbRound:
    return get_object_or_404(OtbRound, tournament=tournament, number=number)


def _sheet_context(tournament: OtbTournament, round_: OtbRound, **extra) -> dict:
    return {
        "tournament": tournament,
        "rnd": round_,
        "rows": selectors.board_rows(round_),
        "absent": selectors.not_playing(tournament, round_.number),
        "record": selectors.round_record(round_),
        "exchange_form": extra.pop("exchange_form", None) or forms.ExchangeForm(),
        "later": tournament.rounds.filter(number__gt=round_.number).exists(),
        **extra,
    }


def round_sheet(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    tournament = _arbitrated(request, pk)
    round_ = _round(tournament, number)
    return render(request, "otb/round.html", _sheet_context(tournament, round_))


@require_POST
def round_action(request: HttpRequest, pk: int, number: int, action: str) -> HttpResponse:
    tournament = _arbitrated(request, pk)
    user = request.user
    if action == "risultato":
        return _result(request, tournament, number)
    try:
        if action == "scambia":
            form = forms.ExchangeForm(request.POST)
            if not form.is_valid():
                round_ = _round(tournament, number)
                return render(
                    request,
                    "otb/round.html",
                    _sheet_context(tournament, round_, exchange_form=form),
                    status=400,
                )
            judgement = services.round_exchange(
                tournament_id=pk, by=user, number=number, **form.cleaned_data
            )
            if not judgement.applied:
                messages.error(request, judgement.refusal)
            elif judgement.broken:
                messages.warning(
                    request,
                    _("Scambio forzato, nel verbale: %(rules)s")
                    % {"rules": "; ".join(judgement.broken)},
                )
            else:
                messages.success(request, _("Scambio fatto: nessuna regola assoluta violata."))
        elif action == "pubblica":
            services.round_publish(tournament_id=pk, by=user, number=number)
            messages.success(request, _("Turno %(n)d pubblicato.") % {"n": number})
        elif action == "annulla":
            services.round_unpair(tournament_id=pk, by=user, number=number)
            messages.success(request, _("Abbinamento del turno %(n)d annullato.") % {"n": number})
            return redirect("otb:desk", pk)
        else:
            raise Http404
    except OtbError as error:
        messages.error(request, str(error))
    return redirect("otb:round", pk, number)


def _result(request: HttpRequest, tournament: OtbTournament, number: int) -> HttpResponse:
    """RULES 13.8: one board's result; for htmx its row alone (the sheet stays in place)."""
    error = warning = ""
    board = _int(request.POST.get("board"))
    try:
        saved = services.result_set(
            tournament_id=tournament.pk,
            by=request.user,
            number=number,
            board=board,
            typed=request.POST.get("typed", ""),
        )
        warning = saved.warning
    except OtbError as exc:
        error = str(exc)
    round_ = _round(tournament, number)
    if not request.htmx:
        if error:
            messages.error(request, error)
        if warning:
            messages.warning(request, warning)
        return redirect("otb:round", tournament.pk, number)
    row = next((r for r in selectors.board_rows(round_) if r.board == board), None)
    if row is None:
        return HttpResponse(f'<p class="error" role="alert">{error}</p>', status=422)
    context = _sheet_context(tournament, round_, row=row, error=error, warning=warning)
    return render(request, "otb/round.html#board-row", context)


def public(request: HttpRequest, pk: int) -> HttpResponse:
    """The page players open on their phones: the current round and the standings, re-fetched
    whenever the arbiter types a result (STYLE 7)."""
    tournament = _tournament(pk)
    current = tournament.rounds.filter(status=OtbRound.Status.PUBLISHED).order_by("-number").first()
    context = {
        "tournament": tournament,
        "rnd": current,
        "rows": selectors.board_rows(current) if current else [],
        "standings": selectors.standings(tournament),
        "spread": refresh_spread_ms(tournament.players.count()),
        "may_arbitrate": selectors.may_arbitrate(tournament, request.user),
    }
    return render_page(request, "otb/public.html", context, "live")


def _published(tournament: OtbTournament, number: int) -> OtbRound:
    return get_object_or_404(
        OtbRound, tournament=tournament, number=number, status=OtbRound.Status.PUBLISHED
    )


def print_pairings(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """RULES 13.9: the pairings by board and in alphabetical order."""
    tournament = _tournament(pk)
    round_ = _published(tournament, number)
    rows = selectors.board_rows(round_)
    alphabetical = []
    for r in rows:
        alphabetical.append((r.white, r.board, "B", r.black))
        if r.black is not None:
            alphabetical.append((r.black, r.board, "N", r.white))
    alphabetical.sort(
        key=lambda item: (item[0].last_name.casefold(), item[0].first_name.casefold())
    )
    context = {
        "tournament": tournament,
        "rnd": round_,
        "rows": rows,
        "alphabetical": alphabetical,
        "absent": selectors.not_playing(tournament, number),
    }
    return render(request, "otb/print_pairings.html", context)


def print_standings(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _tournament(pk)
    return render(
        request,
        "otb/print_standings.html",
        {"tournament": tournament, "standings": selectors.standings(tournament)},
    )


def print_cross(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _tournament(pk)
    numbers, rows = selectors.cross_table(tournament)
    return render(
        request,
        "otb/print_cross.html",
        {"tournament": tournament, "numbers": numbers, "rows": rows},
    )


def print_labels(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Board labels: the board number and its two players, one label a board."""
    tournament = _arbitrated(request, pk)
    round_ = _round(tournament, number)
    return render(
        request,
        "otb/print_labels.html",
        {"tournament": tournament, "rnd": round_, "rows": selectors.board_rows(round_)},
    )


def print_slips(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Result slips: the players sign the result and bring the slip to the arbiter."""
    tournament = _arbitrated(request, pk)
    round_ = _round(tournament, number)
    return render(
        request,
        "otb/print_slips.html",
        {
            "tournament": tournament,
            "rnd": round_,
            "rows": [r for r in selectors.board_rows(round_) if r.black],
        },
    )


def trf(request: HttpRequest, pk: int) -> HttpResponse:
    """RULES 13.10: the TRF-16 report with the 2026 tags, for FIDE's and FSI's procedures."""
    tournament = _arbitrated(request, pk)
    if not tournament.rounds.exists():
        raise Http404(_("Nessun turno ancora: il TRF non c'è."))
    response = HttpResponse(otb_trf(tournament), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="tavolino-{pk}.trf"'
    return response


def rating_report_page(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _arbitrated(request, pk)
    return render(
        request,
        "otb/elo.html",
        {"tournament": tournament, "lines": selectors.rating_lines(tournament)},
    )
