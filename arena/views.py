"""Arena pages (RULES 8): what every kind of event has is `events.views.EventPages`; here are
the arena's words, its page's leaderboard and its players' steps (pause, leave) and pages."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.utils.decorators import method_decorator
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from accounts import player_badges
from arena import selectors, services
from arena.describe import describe, outcome_line
from arena.forms import ArenaForm
from arena.models import Arena, Entry, EntryState, PauseReason
from arena.running import group_name
from events import shared_part
from events.top_boards import top_boards
from events.views import EventPages, EventWords, render_page


def render_board(arena: Arena, page: int, ended: bool) -> str:
    """The arena as every viewer sees it (arena/_board.html): the podium once it is over, one
    page of the leaderboard, the top boards and the games in progress while it runs, the
    figures."""
    rows, pages = selectors.leaderboard(arena, page)
    running = arena.status == Arena.Status.RUNNING
    context = {
        "arena": arena,
        "ended": ended,
        "rows": rows,
        "page": page,
        "pages": range(1, pages + 1) if pages > 1 else (),
        "live_games": selectors.live_games(arena),
        # RULES 7.1: each arena game is rated on its own; the sum shows once it is over.
        "rating_column": arena.status == Arena.Status.FINISHED and arena.rated,
        "top_boards": top_boards(
            kind="arena",
            event_id=arena.pk,
            variant=arena.variant,
            rank_of=selectors.player_ranks(arena),
        )
        if running
        else None,
        "stats": selectors.stats(arena),
        "podium": selectors.podium(arena) if arena.status == Arena.Status.FINISHED else [],
        # RULES 12.7: a club battle's clubs, live; RULES 12.9: the club beside each name.
        "battle": selectors.battle_standings(arena),
        "badges": player_badges.badges(r.entry.player_id for r in rows),
    }
    return render_to_string("arena/_board.html", context)


def _page_number(request: HttpRequest) -> int:
    try:
        return max(1, int(request.GET.get("page", "1")))
    except ValueError:
        return 1


class ArenaPages(EventPages):
    model = Arena
    form_class = ArenaForm
    # An arena is entered while it runs (RULES 8): the running ones first.
    list_order = ("running", "upcoming", "finished")
    words = EventWords(
        no_bots=_("I bot non possono aprire arene né entrarvi."),
        opened=_("Arena aperta. Per giocare, entra anche tu."),
        not_organizer=_("Solo chi ha aperto l'arena può modificarla, fino all'inizio."),
        updated=_("Arena aggiornata."),
        invited=_("Sei stato invitato a questa arena privata."),
        cancelled=_("Arena annullata."),
        ended=_("Concluse"),
    )
    sections = staticmethod(selectors.arena_list)
    describe = staticmethod(describe)
    outcome = staticmethod(outcome_line)
    create = staticmethod(services.arena_create)
    update = staticmethod(services.arena_update)
    cancel_event = staticmethod(services.arena_cancel)
    regenerate_invite = staticmethod(services.invite_regenerate)
    join_event = staticmethod(services.entry_enter)

    def players_count(self, arena: Arena) -> int:
        return Entry.objects.filter(arena=arena).count()

    def detail_context(self, request: HttpRequest, arena: Arena, now) -> dict:
        entry = selectors.my_entry(arena, request.user)
        page = _page_number(request)
        ended = now >= arena.ends_at or not arena.is_live
        at_ms = selectors.ms(now)
        waiting_now = (
            # From the sockets' presence, which no push announces: shared by the requests of
            # this process for a second (every waiting player fetches at each pairing).
            shared_part.memo(
                ("arena-waiting", arena.pk), 1.0, lambda: selectors.waiting_entries(arena, at_ms)
            )
            if arena.status == Arena.Status.RUNNING and not ended
            else []
        )
        # The leaderboard, top boards, games and figures are the same for every viewer:
        # rendered once per change (events/shared_part.py).
        board = shared_part.shared_html(
            group_name(arena.pk),
            f"board:{page}:{ended}",
            lambda: render_board(arena, page, ended),
            after_push=shared_part.answers_push(request),
        )
        return {
            "entry": entry,
            "ended": ended,
            "page": page,
            "board_part": board,
            "waiting": len(waiting_now),
            # RULES 8, the cooldown: everybody waiting has just played them, so the page says
            # until when no opponent can come.
            "next_opponent_at": selectors.next_opponent_at(arena, entry, waiting_now, at_ms),
            "my_game_id": selectors.live_game_id(arena, entry) if entry else None,
            "my_battle": selectors.my_battle_club(arena, entry),
            "paused_absent": entry is not None
            and entry.state == EntryState.PAUSED
            and entry.pause_reason == PauseReason.ABSENT,
        }

    @method_decorator([require_POST, login_required])
    def pause(self, request: HttpRequest, pk: int) -> HttpResponse:
        done = _("In pausa: non ti accoppiamo più.")
        return self.player_action(request, pk, services.entry_pause, done)

    @method_decorator([require_POST, login_required])
    def leave(self, request: HttpRequest, pk: int) -> HttpResponse:
        done = _("Sei uscito dall'arena; i tuoi punti restano.")
        return self.player_action(request, pk, services.entry_leave, done)

    def player(self, request: HttpRequest, pk: int, username: str) -> HttpResponse:
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
        return render_page(request, "arena/player.html", context, "player-games")


pages = ArenaPages()
