"""The options every event shares, in words a player understands (RULES 6, 7.2, 7.3)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from events.options import RANDOM_PLIES, OpeningMode


def opening_line(event, *, per_game: bool = False) -> str:
    """RULES 6: how the openings are chosen. A tournament draws once per round for every board;
    an arena once per game (`per_game`, RULES 8 Decision)."""
    mode = OpeningMode(event.opening_mode)
    if mode is OpeningMode.THEMATIC and event.opening is not None:
        o = event.opening
        return _("Apertura tematica n. %(n)d (%(moves)s, classe %(cls)s) in tutte le partite.") % {
            "n": o.number,
            "moves": " ".join(o.moves(event.variant)),
            "cls": o.class_label(event.variant),
        }
    if mode is OpeningMode.FREE:
        return _("Mossa libera: si parte dalla posizione iniziale.")
    label = {"mode": event.get_opening_mode_display()}
    if mode in RANDOM_PLIES:
        if per_game:
            return _("A ogni partita si sorteggiano le prime mosse (%(mode)s).") % label
        return (
            _(
                "A ogni turno si sorteggiano le prime mosse (%(mode)s), uguali su tutte le scacchiere."
            )
            % label
        )
    if per_game:
        return _("%(mode)s: un'apertura sorteggiata a ogni partita.") % label
    return (
        _(
            "%(mode)s: un'apertura sorteggiata a ogni turno, uguale su tutte le scacchiere e mai "
            "ripetuta."
        )
        % label
    )


def rating_line(event) -> str:
    """RULES 7.2-7.3: rated (with its floor) or casual, and why when the openings decided."""
    if event.rated:
        if event.floor:
            return _("Valutato, con sbarramento a %(floor)d punti (%(variant)s, %(cadence)s).") % {
                "floor": event.floor,
                "variant": event.get_variant_display(),
                "cadence": event.get_cadence_display(),
            }
        if event.is_private:
            return _("Valutato, su invito o con password.")
        return _("Valutato, aperto a tutti.")
    if event.is_private:
        return _("Amichevole, su invito o con password: le partite non cambiano il punteggio.")
    return _("Amichevole: le partite non cambiano il punteggio.")
