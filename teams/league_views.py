"""The league's pages (RULES 16.8): opening one, its page (teams, standings, cross table,
rounds, board prizes) and its print version, a team's name and roster, the organizer's start
and cancel, a team withdrawing. Thin: reads through `teams.league_tables` and
`teams.league_pages`, writes through `teams.leagues` (STYLE 2); a refusal is shown with its
reason, nothing saved."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs import selectors as clubs
from clubs.models import OFFICERS
from events.forms import remember_zone, use_zone
from events.views import refresh_spread_ms, render_page
from games.models import Variant
from teams import league_pages, leagues
from teams.league_forms import LeagueForm, LeagueTeamForm
from teams.league_tables import league_tables
from teams.league_trf import league_trf
from teams.models import League, LeagueTeam

# The htmx target of the clubs' search (the list of clubs found), and the partial drawing it.
FOUND_TARGET = "league-found-list"


def _league(league_id: int) -> League:
    found = league_pages.league_get(league_id)
    if found is None:
        raise Http404
    return found


def _team(found: League, team_id: int) -> LeagueTeam:
    team = LeagueTeam.objects.select_related("club").filter(league=found, pk=team_id).first()
    if team is None:
        raise Http404
    return team


def _described(found: League) -> dict:
    return {
        "variant_label": dict(Variant.choices).get(found.variant, found.variant),
        "cadence_label": league_pages.cadence_label(found),
        "gap_days": found.round_gap.days,
    }


def _page_context(request: HttpRequest, found: League) -> dict:
    tables = league_tables(found)
    viewer = league_pages.league_viewer(found, tables.teams, request.user)
    sizes = league_pages.roster_sizes(found)
    return {
        "league": found,
        "tables": tables,
        "viewer": viewer,
        "team_rows": [(team, sizes.get(team.pk, 0)) for team in tables.teams],
        "double": found.double_round_robin and found.system == League.System.ROUND_ROBIN,
        **_described(found),
    }


def detail(request: HttpRequest, league_id: int) -> HttpResponse:
    """The page, or for its live re-fetch (htmx) the tables alone."""
    found = _league(league_id)
    context = _page_context(request, found)
    # The pages of a league's players re-fetch spread as a match's (events/views.py).
    context["spread"] = refresh_spread_ms(found.boards * max(1, len(context["tables"].teams)))
    return render_page(request, "teams/league.html", context, "live")


def print_sheet(request: HttpRequest, league_id: int) -> HttpResponse:
    """The standings, cross table, rounds and board prizes on paper (as they stand, while
    running)."""
    use_zone(request)
    found = _league(league_id)
    return render(request, "teams/league_print.html", _page_context(request, found))


def trf(request: HttpRequest, league_id: int) -> HttpResponse:
    """RULES 16.8: the league's TRF-16, its games and its `013` team records."""
    found = _league(league_id)
    if found.status not in (League.Status.RUNNING, League.Status.FINISHED):
        raise Http404
    response = HttpResponse(league_trf(found), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="campionato-{found.pk}.trf"'
    return response


@login_required
@require_POST
def team_add(request: HttpRequest, league_id: int) -> HttpResponse:
    """RULES 16.8: an officer adds another team of their club, then names it and its roster."""
    found = _league(league_id)
    try:
        team = leagues.team_add(league_id=found.pk, by=request.user)
    except leagues.LeagueError as error:
        messages.error(request, error.message)
        return redirect(found.get_absolute_url())
    messages.success(request, _("Squadra aggiunta: dalle un nome e una rosa."))
    return redirect("teams:league_team", league_id=found.pk, team_id=team.pk)


def _form_page(request: HttpRequest, form: LeagueForm, club, *, status: int = 200) -> HttpResponse:
    context = {"form": form, "club": club}
    if request.htmx and request.headers.get("HX-Target") == FOUND_TARGET:
        return render(request, "teams/league_form.html#league-clubs", context)
    return render(request, "teams/league_form.html", context, status=status)


@login_required
def new(request: HttpRequest) -> HttpResponse:
    """RULES 16.8: an officer of a club opens a league of clubs (theirs among them); without
    JavaScript the clubs' search sends the form back drawn again, nothing checked or saved."""
    membership = clubs.current_membership(user_id=request.user.pk)
    if membership is None or membership.role not in OFFICERS:
        messages.error(request, _("Solo i consiglieri di un circolo aprono un campionato."))
        return redirect("clubs:list")
    use_zone(request)
    if request.method != "POST":
        form = LeagueForm(initial={"league_clubs": [membership.club_id]})
        return _form_page(request, form, membership.club)
    searching = "league_search" in request.POST or (
        request.htmx and request.headers.get("HX-Target") == FOUND_TARGET
    )
    if searching:
        return _form_page(request, LeagueForm.echo(request.POST), membership.club)
    form = LeagueForm(request.POST)
    if form.is_valid():
        remember_zone(request, form)
        try:
            found = leagues.league_create(by=request.user, data=form.to_data())
        except leagues.LeagueError as error:
            form.add_error(None, error.message)
        else:
            messages.success(
                request,
                _("Campionato aperto: i circoli scelgono ora il nome e la rosa della squadra."),
            )
            return redirect(found.get_absolute_url())
    return _form_page(request, form, membership.club, status=400)


@login_required
def team(request: HttpRequest, league_id: int, team_id: int) -> HttpResponse:
    """RULES 16.8: the club's officers name the team and tick its roster among the members."""
    found = _league(league_id)
    chosen_team = _team(found, team_id)
    if not clubs.is_officer(club_id=chosen_team.club_id, user_id=request.user.pk):
        messages.error(
            request,
            _("Solo i consiglieri di «%(club)s» gestiscono la sua squadra.")
            % {"club": chosen_team.club.name},
        )
        return redirect(found.get_absolute_url())
    form = LeagueTeamForm(request.POST or None, initial={"name": chosen_team.name})
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                leagues.team_set(
                    league_id=found.pk,
                    team_id=chosen_team.pk,
                    by=request.user,
                    name=form.cleaned_data["name"],
                    player_ids=form.cleaned_data["players"],
                )
            except leagues.LeagueError as error:
                form.add_error(None, error.message)
            else:
                messages.success(request, _("Squadra e rosa salvate."))
                return redirect(found.get_absolute_url())
    context = {
        "league": found,
        "team": chosen_team,
        "form": form,
        "choices": league_pages.roster_choices(found, chosen_team, form.chosen()),
        **_described(found),
    }
    return render(request, "teams/league_team.html", context, status=status)


@login_required
def withdraw(request: HttpRequest, league_id: int, team_id: int) -> HttpResponse:
    """RULES 16.8: a team withdraws; the page asks first (a form of its own, no script)."""
    found = _league(league_id)
    chosen_team = _team(found, team_id)
    if request.method == "POST":
        try:
            leagues.team_withdraw(
                league_id=found.pk,
                team_id=chosen_team.pk,
                by=request.user,
                staff=request.user.is_staff,
            )
        except leagues.LeagueError as error:
            messages.error(request, error.message)
        else:
            messages.success(
                request,
                _("La squadra «%(team)s» si è ritirata.") % {"team": chosen_team.name},
            )
        return redirect(found.get_absolute_url())
    return render(
        request,
        "teams/league_confirm.html",
        {
            "league": found,
            "title": _("Ritirare «%(team)s»?") % {"team": chosen_team.name},
            "text": _(
                "Prima dell'inizio la squadra esce dal campionato. Dopo, perde a forfait tutti "
                "gli incontri non ancora iniziati, e quello che ha giocato resta in classifica. "
                "Non si torna indietro."
            )
            if found.status == League.Status.ENTRY
            else _(
                "La squadra perde a forfait, su ogni scacchiera, tutti gli incontri non ancora "
                "iniziati; quello che ha giocato resta in classifica. Non si torna indietro."
            ),
            "action": _("Sì, ritira la squadra"),
            "testid": "league-withdraw-confirm",
        },
    )


@login_required
def cancel(request: HttpRequest, league_id: int) -> HttpResponse:
    """RULES 16.8 Decision: the organizer cancels the league before its start (asked first)."""
    found = _league(league_id)
    if request.method == "POST":
        try:
            leagues.league_cancel(league_id=found.pk, by=request.user)
        except leagues.LeagueError as error:
            messages.error(request, error.message)
        else:
            messages.success(request, _("Campionato annullato."))
        return redirect(found.get_absolute_url())
    return render(
        request,
        "teams/league_confirm.html",
        {
            "league": found,
            "title": _("Annullare «%(name)s»?") % {"name": found},
            "text": _("Il campionato non si giocherà: le squadre e le rose sono perse."),
            "action": _("Sì, annulla il campionato"),
            "testid": "league-cancel-confirm",
        },
    )


@login_required
@require_POST
def start(request: HttpRequest, league_id: int) -> HttpResponse:
    """RULES 16.8: the organizer starts the league now (numbers drawn, calendar made)."""
    found = _league(league_id)
    try:
        leagues.league_start(league_id=found.pk, by=request.user)
    except leagues.LeagueError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Campionato avviato: il calendario è fatto."))
    return redirect(found.get_absolute_url())
