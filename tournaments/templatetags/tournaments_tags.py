"""`{% load tournaments_tags %}`: the home page's tournaments; a cross table's cells; the
"your game" banner written into a game's page."""

from __future__ import annotations

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext

from tournaments import selectors

register = template.Library()


@register.inclusion_tag("tournaments/_home.html", takes_context=True)
def home_tournaments(context, limit: int = 5):
    """Running and upcoming tournaments, and the visitor's own (playing or joined)."""
    user = context.get("user")
    sections = selectors.tournament_list()
    return {
        "running": list(sections["running"][:limit]),
        "upcoming": list(sections["upcoming"][:limit]),
        "mine": selectors.tournaments_of(user) if user is not None else [],
    }


@register.inclusion_tag("tournaments/_banner.html", takes_context=True)
def tournament_banner(context, game):
    """The banner of `tournaments/_site_notices.html` as its fragment would say it, written into
    the page of `game` (one request per game page: a round start sends every player there at
    once). On that game's own page it points to no game of that game's; and a player of that
    game while it is live has no other live game (RULES 1: one board at a time), so none is
    looked for — the round start's case. **Decision**: nor is a tournament of theirs cancelled
    in the last hour looked for then (its query was an eighth of the page's work): the banner
    says it on their next page, and a cancellation while they play is pushed to this page
    ("mytournament") and its banner re-fetched, as on any page."""
    user = context.get("user")
    if user is None or not user.is_authenticated:
        return {"found": None, "cancelled": None}
    if game.is_live and user.pk in (game.white_id, game.black_id):
        return {"found": None, "cancelled": None}
    found = selectors.live_tournament_game(user, besides=game.pk)
    cancelled = None if found else selectors.recently_cancelled_for(user)
    return {"found": found, "cancelled": cancelled}


@register.simple_tag
def cross_cells(row, format_code: str):
    """A row's cells of the cross table ("Turno per turno" / "Tabellone"): each game's mark,
    its outcome and colour as classes, the opponent's number said in the title (and shown in a
    Swiss). Written here rather than as a loop of the template: 200 players × 10 rounds are
    2,000 cells, and the template's nodes made them most of the live part's time
    (bench/tournament.py, the standings at round 10)."""
    against = gettext("contro il n. %(n)s")
    swiss = format_code == "swiss"
    cells = []
    for index, cell in enumerate(row.cells, start=1):
        if format_code == "round_robin" and index == row.number:
            cells.append('<td class="cell self" aria-hidden="true">×</td>')
            continue
        marks = []
        for mark in cell:
            title = small = ""
            if mark.opponent:
                title = f' title="{escape(against % {"n": mark.opponent})}"'
                if swiss:
                    small = f"<small>{escape(mark.opponent)}</small>"
            marks.append(
                f'<span class="mark {escape(mark.outcome)} {escape(mark.colour)}"{title}>'
                f"{small}{escape(mark.text)}</span>"
            )
        cells.append(f'<td class="cell">{"".join(marks)}</td>')
    return mark_safe("".join(cells))  # every value escaped above
