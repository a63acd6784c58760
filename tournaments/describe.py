"""The opener's choices in words a player understands (RULES 4.4–4.5, 6, 7.2–7.3)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from events.describe import opening_line, rating_line
from tournaments.models import Tournament


def describe(t: Tournament) -> list[str]:
    lines: list[str] = []
    # RULES 4.4
    lines.append(
        _(
            "Svizzero da %(t)d giocatori in su, girone all'italiana sotto i %(t)d "
            "(con 4 giocatori sempre andata e ritorno)."
        )
        % {"t": t.threshold}
    )
    if t.extra_round:
        lines.append(
            _("Nello svizzero si gioca un turno in più, se il numero di giocatori lo consente.")
        )
    if t.double_games:  # RULES 4.5
        lines.append(
            _(
                "Andata e ritorno: ogni accoppiamento gioca due partite di fila a colori "
                "invertiti, con la stessa apertura."
            )
        )
    lines.append(
        _(
            "Parte con almeno %(min)d iscritti, al massimo %(seats)d posti; sotto il minimo "
            "all'ora d'inizio il torneo si annulla."
        )
        % {"min": t.minimum, "seats": t.seats}
    )
    lines.append(opening_line(t))
    lines.append(rating_line(t))
    return lines


def outcome_line(t: Tournament) -> str:
    """How a tournament ended, in one sentence ("" while it is scheduled or running)."""
    from tournaments.models import EndReason

    if t.status == Tournament.Status.FINISHED:
        return {
            EndReason.ROUNDS_DONE: _("Torneo concluso: si sono giocati tutti i turni."),
            EndReason.TIME_UP: _("Torneo concluso alla fine annunciata."),
            EndReason.NO_PAIRING: _(
                "Torneo concluso: non c'era più un accoppiamento possibile (Lim 11)."
            ),
        }.get(t.end_reason, _("Torneo concluso."))
    if t.status == Tournament.Status.CANCELLED:
        return {
            EndReason.BELOW_MINIMUM: _(
                "Torneo annullato: all'ora d'inizio gli iscritti erano meno del minimo "
                "(%(minimum)d)."
            )
            % {"minimum": t.minimum},
            EndReason.BY_STAFF: _("Torneo annullato dallo staff."),
        }.get(t.end_reason, _("Torneo annullato da chi l'ha aperto."))
    return ""
