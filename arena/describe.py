"""The arena's options in words a player understands (RULES 6, 7, 8)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from arena.forms import duration_label
from arena.models import Arena
from events.describe import opening_line, rating_line


def describe(a: Arena) -> list[str]:
    lines = [
        _(
            "Dura %(duration)s: chi finisce una partita viene accoppiato di nuovo appena "
            "possibile, senza aspettare gli altri. Si entra e si esce quando si vuole."
        )
        % {"duration": duration_label(a.duration_minutes)},
        _(
            "Vittoria 2 punti, patta 1, sconfitta 0; dalla terza vittoria di fila ogni vittoria "
            "ne vale 3. Il boost, preso prima della propria prima mossa, raddoppia i punti di "
            "una vittoria e costa l'incremento e, con almeno un minuto di base, metà del tempo."
        ),
        _(
            "Con lo stesso avversario si aspetta 5 minuti per ogni partita già giocata insieme. "
            "Alla fine si chiude la classifica: le partite ancora in corso hanno 10 minuti."
        ),
        opening_line(a, per_game=True),
        rating_line(a),
    ]
    return lines


def outcome_line(a: Arena) -> str:
    """How an arena ended, in one sentence ("" while it is scheduled or running)."""
    from arena.models import EndReason

    if a.status == Arena.Status.FINISHED:
        return _("Arena conclusa.")
    if a.status == Arena.Status.CANCELLED:
        return {
            EndReason.BY_STAFF: _("Arena annullata dallo staff."),
        }.get(a.end_reason, _("Arena annullata da chi l'ha aperta."))
    return ""
