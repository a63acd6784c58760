"""Tournament pages (RULES 4): what every kind of event has is `events.views.EventPages`; here
are the tournament's words, its page's entrants, rounds and standings, and the run's pages (a
round, a player, the printout, the TRF and game files, the banner of one's game)."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from accounts import player_badges
from events import shared_part
from events.forms import use_zone
from events.pairing.trf import write_trf
from events.top_boards import top_boards
from events.views import EventPages, EventWords, render_page
from games.models import Game
from games.selectors import games_export
from tournaments import selectors, services, why
from tournaments.broadcast import group_name
from tournaments.describe import describe, outcome_line
from tournaments.forms import TournamentForm
from tournaments.models import Participant, Tournament
from tournaments.selectors import engine_tournament

RUN_STATUSES = (Tournament.Status.RUNNING, Tournament.Status.FINISHED)


class TournamentPages(EventPages):
    model = Tournament
    form_class = TournamentForm
    words = EventWords(
        no_bots=_("I bot non possono aprire tornei."),
        opened=_("Torneo aperto. Per giocare, iscriviti anche tu."),
        not_organizer=_("Solo chi ha aperto il torneo può modificarlo, fino all'inizio."),
        updated=_("Torneo aggiornato."),
        invited=_("Sei stato invitato a questo torneo privato."),
        cancelled=_("Torneo annullato."),
        ended=_("Conclusi"),
    )
    sections = staticmethod(selectors.tournament_list)
    describe = staticmethod(describe)
    outcome = staticmethod(outcome_line)
    create = staticmethod(services.tournament_create)
    update = staticmethod(services.tournament_update)
    cancel_event = staticmethod(services.tournament_cancel)
    regenerate_invite = staticmethod(services.invite_regenerate)
    join_event = staticmethod(services.registration_join)

    def players_count(self, tournament: Tournament) -> int:
        return tournament.registrations.count()

    def detail_context(self, request: HttpRequest, tournament: Tournament, now) -> dict:
        context = {
            # The list of those registered shows until the start, and on a cancelled one.
            "players": selectors.registered_players(tournament)
            if not tournament.has_started(now) or tournament.status == Tournament.Status.CANCELLED
            else [],
            # Asked only before the start (a callable: the template calls it when it shows).
            "registered": lambda: selectors.is_registered(tournament, request.user),
        }
        if tournament.status in RUN_STATUSES:
            # The rounds, standings and top boards are the same for every viewer: rendered once
            # per change (events/shared_part.py); the viewer's own game is asked apart.
            after_push = shared_part.answers_push(request)
            context["run_part"] = shared_part.shared_html(
                group_name(tournament.pk),
                "run",
                lambda: render_run(tournament),
                after_push=after_push,
            )
            # The viewer's game, from the map of every player's, read once per change too:
            # a game opens and ends with a change of the tournament (its round, its result).
            context["my_game_id"] = (
                shared_part.shared(
                    group_name(tournament.pk),
                    "live-games",
                    lambda: selectors.live_game_ids(tournament),
                    after_push=after_push,
                ).get(request.user.pk)
                if request.user.is_authenticated
                else None
            )
        return context

    @method_decorator([require_POST, login_required])
    def withdraw(self, request: HttpRequest, pk: int) -> HttpResponse:
        done = _("Ti sei ritirato.")
        return self.player_action(request, pk, services.registration_withdraw, done)


pages = TournamentPages()


def render_run(tournament: Tournament) -> str:
    """A started tournament's run as every viewer sees it (tournaments/_run.html): the current
    round in full, the others listed and read when opened (the round view), the standings and,
    while it runs, the top boards."""
    rounds = selectors.run_rounds(tournament, pairings_of=tournament.current_round)
    context = {
        "tournament": tournament,
        "current": rounds[-1] if rounds else None,
        "past_rounds": list(reversed(rounds[:-1])),
        "standings": selectors.run_standings(tournament),
    }
    # RULES 12.9: the club beside each name (one query).
    context["badges"] = player_badges.badges(s.player_id for s in context["standings"])
    if tournament.status == Tournament.Status.RUNNING:
        context["top_boards"] = top_boards(
            kind="tournament",
            event_id=tournament.pk,
            variant=tournament.variant,
            rank_of={s.player_id: s.rank for s in context["standings"]},
        )
    return render_to_string("tournaments/_run.html", context)


# --- the run (RULES 4.3-4.10): the pages of a started tournament ------------------------------


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
    return render_page(request, "tournaments/player.html", context, "player-games")


def tournament_round(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """One round's pairings and results: a page of its own with a stable address, and for
    htmx (the tournament page's list of rounds, a live refresh) the table alone."""
    tournament = get_object_or_404(Tournament, pk=pk, status__in=RUN_STATUSES)
    rnd = selectors.round_pairings(tournament, number)
    if rnd is None:
        raise Http404
    context = {"tournament": tournament, "rnd": rnd}
    if not request.htmx:  # the page's "why these pairings"; the list of rounds wants the table
        context["reasons"] = why.round_reasons(tournament, number)
    return render_page(request, "tournaments/round.html", context, "round-pairings")


def tournament_print(request: HttpRequest, pk: int) -> HttpResponse:
    """The standings and cross table on paper (or as they stand, while running)."""
    use_zone(request)
    tournament = get_object_or_404(
        Tournament.objects.select_related("opened_by"), pk=pk, status__in=RUN_STATUSES
    )
    context = {
        "tournament": tournament,
        "standings": selectors.run_standings(tournament),
        "rounds": selectors.run_rounds(tournament),
        "outcome": outcome_line(tournament),
        "description": describe(tournament),
    }
    return render(request, "tournaments/print.html", context)


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
    # Each game's URL as its Site tag, on the host the request came to.
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
        found = None  # already on that game's page: nothing to point to
    cancelled = None if found else selectors.recently_cancelled_for(request.user)
    return render(request, "tournaments/_banner.html", {"found": found, "cancelled": cancelled})
