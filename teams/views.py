"""The match page (RULES §16): the line-ups before the start, the boards and the running score
after it, re-fetched when the match's socket says "changed" (STYLE 7); the captain's line-up
form and a member's availability. Thin: reads through `teams.selectors`, writes through
`teams.services` (STYLE 2)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs import selectors as clubs
from clubs.models import OFFICERS
from events.forms import use_zone
from events.views import refresh_spread_ms, render_page
from teams import selectors, services
from teams.forms import LineupForm, TeamMatchForm
from teams.models import TeamMatch


def _match(match_id: int) -> TeamMatch:
    match = (
        TeamMatch.objects.select_related(
            "first_club", "second_club", "first_team", "second_team", "league_round__league"
        )
        .filter(pk=match_id)
        .first()
    )
    if match is None:
        raise Http404
    return match


def _viewer(match: TeamMatch, user) -> dict:
    """The viewer's sides in the match (their club's: both when two of its teams meet, RULES
    16.8), whether they captain them, may still change things, and said they are available."""
    membership = clubs.current_membership(user_id=getattr(user, "pk", None))
    sides = match.sides_of_club(getattr(membership, "club_id", None))
    open_ = match.status == TeamMatch.Status.SCHEDULED and timezone.now() < match.lineup_deadline
    return {
        "my_club_id": membership.club_id if sides else None,
        "my_sides": sides,
        "is_captain": bool(sides) and membership.role in OFFICERS,
        "lineups_open": open_,
        "available": bool(sides) and match.availabilities.filter(player_id=user.pk).exists(),
        "captain_sides": [(side, match.side_name(side)) for side in sides]
        if len(sides) == 2
        else [],
        # RULES 16.1 Decision: a friendly match not started, its organizer or a captain.
        "may_cancel": match.status == TeamMatch.Status.SCHEDULED
        and match.league_round_id is None
        and (
            (bool(sides) and membership.role in OFFICERS)
            or getattr(user, "pk", None) == match.opened_by_id
        ),
    }


def _lineups_shown(
    match: TeamMatch, my_sides: tuple[int, ...], lineups_open: bool, is_captain: bool
) -> list:
    """RULES 16.2 Decision: before the deadline a side's line-up is its own club's members'
    only; after it, both sides' orders as they will play, for everyone. A captain also sees
    who of their club said they are available (`available`, None for anyone else: the line-up
    is the officers' to make)."""
    shown = []
    for side in TeamMatch.SIDES:
        club = match.first_club if side == 1 else match.second_club
        if lineups_open and side not in my_sides:
            continue
        if lineups_open:
            names = [e.player.username for e in selectors.saved_lineup(match, side)]
        else:
            order = selectors.side_order(match, side)
            users = dict(
                get_user_model().objects.filter(pk__in=order).values_list("pk", "username")
            )
            names = [users[pk] for pk in order]
        shown.append(
            {
                "club": club,
                "name": match.side_name(side),
                "boards": names[: match.boards],
                "reserves": names[match.boards :],
                "available": [name for _pk, name in selectors.available_players(match, side)]
                if is_captain and side in my_sides
                else None,
            }
        )
    return shown


def detail(request: HttpRequest, match_id: int) -> HttpResponse:
    match = _match(match_id)
    boards = selectors.match_boards(match)
    viewer = _viewer(match, request.user)
    context = {
        "match": match,
        "boards": boards,
        "spread": refresh_spread_ms(2 * match.boards),
        # The sides' names: the teams' in a league (two of one club may meet, RULES 16.8).
        "side_names": (match.side_name(1), match.side_name(2)),
        **viewer,
    }
    if match.status == TeamMatch.Status.SCHEDULED:
        context["lineups"] = _lineups_shown(
            match, viewer["my_sides"], viewer["lineups_open"], viewer["is_captain"]
        )
    if match.status == TeamMatch.Status.RUNNING:
        context["top_boards"] = selectors.live_boards(match, boards)
        context["top_boards_title"] = _("Le partite in corso")
    return render_page(request, "teams/detail.html", context, "live")


@login_required
def lineup(request: HttpRequest, match_id: int) -> HttpResponse:
    """RULES 16.2: the captain's form; a refusal re-renders it with the reason, nothing saved."""
    match = _match(match_id)
    viewer = _viewer(match, request.user)
    if not viewer["is_captain"]:
        messages.error(
            request, _("Solo i consiglieri dei due circoli possono schierarne la formazione.")
        )
        return redirect(match.get_absolute_url())
    # RULES 16.8: when two teams of the captain's club meet, `?parte=` says whose line-up; a
    # page that does not say sends them back to choose (the match page's two buttons).
    side = viewer["my_sides"][0]
    if len(viewer["my_sides"]) == 2:
        chosen = (request.POST or request.GET).get("parte")
        if chosen not in ("1", "2"):
            messages.error(
                request, _("Scegli di quale delle due squadre del circolo è la formazione.")
            )
            return redirect(match.get_absolute_url())
        side = int(chosen)
    club_id = match.club_of_side(side)
    members = selectors.members_rated(match, side)
    saved = [e.player_id for e in selectors.saved_lineup(match, side)]
    available = selectors.available_players(match, side)  # RULES 16.2
    form = LineupForm(
        request.POST or None,
        boards=match.boards,
        members=members,
        available={pk for pk, _name in available},
        initial=LineupForm.initial_from(saved),
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.lineup_set(
                match_id=match.pk, by=request.user, player_ids=form.player_ids(), side=side
            )
        except services.TeamError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("Formazione salvata."))
            return redirect(match.get_absolute_url())
    status = 400 if request.method == "POST" else 200
    return render(
        request,
        "teams/lineup.html",
        {
            "match": match,
            "form": form,
            "club": clubs.clubs_by_id([club_id])[club_id],
            "side": side,
            "side_name": match.side_name(side),
            "captain_sides": viewer["captain_sides"],
            "available": [name for _pk, name in available],
        },
        status=status,
    )


@login_required
def cancel(request: HttpRequest, match_id: int) -> HttpResponse:
    """RULES 16.1 Decision: before the start its organizer or an officer of either club cancels
    the match (asked first); the service says who may."""
    match = _match(match_id)
    if request.method == "POST":
        try:
            services.match_cancel(match_id=match.pk, by=request.user)
        except services.TeamError as error:
            messages.error(request, error.message)
        else:
            messages.success(request, _("Incontro annullato."))
        return redirect(match.get_absolute_url())
    return render(request, "teams/match_confirm.html", {"match": match})


@login_required
@require_POST
def availability(request: HttpRequest, match_id: int) -> HttpResponse:
    """RULES 16.2: a member says they are available, or no longer."""
    match = _match(match_id)
    available = request.POST.get("available") == "1"
    try:
        services.availability_set(match_id=match.pk, user=request.user, available=available)
    except services.TeamError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request,
            _("Ti sei detto disponibile.") if available else _("Non sei più disponibile."),
        )
    return redirect(match.get_absolute_url())


@login_required
def new(request: HttpRequest) -> HttpResponse:
    """RULES 16.1: an officer opens a match of their club against another; a refusal re-renders
    the form with the reason, nothing saved."""
    membership = clubs.current_membership(user_id=request.user.pk)
    if membership is None or membership.role not in OFFICERS:
        messages.error(request, _("Solo i consiglieri di un circolo aprono un incontro a squadre."))
        return redirect("clubs:list")
    use_zone(request)
    form = TeamMatchForm(request.POST or None, first_club_id=membership.club_id)
    if request.method == "POST" and form.is_valid():
        try:
            match = services.match_create(
                by=request.user, first_club_id=membership.club_id, data=form.to_data()
            )
        except services.TeamError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("Incontro aperto: ora i capitani schierano le formazioni."))
            return redirect(match.get_absolute_url())
    status = 400 if request.method == "POST" else 200
    return render(
        request, "teams/form.html", {"form": form, "club": membership.club}, status=status
    )
