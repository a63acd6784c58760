"""The opener's choices in words a player understands (issue 7, RULES 4.4–4.5, 6, 7.2–7.3)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from events.options import OpeningMode
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
    # RULES 6
    mode = OpeningMode(t.opening_mode)
    if mode is OpeningMode.THEMATIC and t.opening is not None:
        o = t.opening
        lines.append(
            _("Apertura tematica n. %(n)d (%(moves)s, classe %(cls)s) in tutte le partite.")
            % {
                "n": o.number,
                "moves": " ".join(o.moves(t.variant)),
                "cls": o.class_label(t.variant),
            }
        )
    elif mode is OpeningMode.FREE:
        lines.append(_("Mossa libera: si parte dalla posizione iniziale."))
    elif mode in (OpeningMode.RANDOM_1, OpeningMode.RANDOM_2, OpeningMode.RANDOM_3):
        lines.append(
            _(
                "A ogni turno si sorteggiano le prime mosse (%(mode)s), uguali su tutte "
                "le scacchiere."
            )
            % {"mode": t.get_opening_mode_display()}
        )
    else:
        lines.append(
            _(
                "%(mode)s: un'apertura sorteggiata a ogni turno, uguale su tutte le "
                "scacchiere e mai ripetuta."
            )
            % {"mode": t.get_opening_mode_display()}
        )
    # RULES 7.2-7.3
    if t.rated:
        if t.floor:
            lines.append(
                _("Valutato, con sbarramento a %(floor)d punti (%(variant)s, %(cadence)s).")
                % {
                    "floor": t.floor,
                    "variant": t.get_variant_display(),
                    "cadence": t.get_cadence_display(),
                }
            )
        else:
            lines.append(_("Valutato, aperto a tutti."))
    else:
        lines.append(_("Amichevole: le partite non cambiano il punteggio."))
    return lines
