"""Why a round was paired as it was ("Perché questi abbinamenti"): the engine's own decisions,
kept with the round as it paired it (`Round.pairing_trace`, `events.pairing.lim.Step`),
put in words an arbiter and a player can read, each with the rule that decided it (docs/lim.md,
docs/rules.md). Nothing is reconstructed afterwards."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext


@dataclass(frozen=True)
class Reason:
    kind: str  # the step's kind: "order", "bye", "float", "pair", "colour", …
    text: str
    rule: str


def _score(points: int | None) -> str:
    """A score group as players read it: 2 points a win."""
    return "" if points is None else str(points)


def reasons(trace: list[dict], names: Mapping[int, str]) -> list[Reason]:
    """The trace of a round in words; `names` gives each pairing number's player."""

    def who(number: int) -> str:
        return f"{names.get(number, '?')} ({number})"

    said = []
    for step in trace:
        kind, rule = step.get("kind", ""), step.get("rule", "")
        players = [who(n) for n in step.get("players", [])]
        detail = step.get("detail", "")
        words = detail.split()
        score = _score(step.get("score"))
        text = ""
        if kind == "berger":
            n, row = (words + ["?", "?"])[:2]
            text = _(
                "Girone all'italiana: tabella di Berger per %(n)s giocatori, turno %(row)s."
            ) % {
                "n": n,
                "row": row,
            }
        elif kind == "order":
            groups = [f"{w[:-1]} {'↓' if w.endswith('d') else '↑'}" for w in words]
            text = _(
                "Gruppi di punteggio abbinati in quest'ordine: %(groups)s; il gruppo mediano "
                "(%(median)s punti) per ultimo."
            ) % {"groups": ", ".join(groups), "median": score}
        elif kind == "bye":
            why = {
                "round-one": _("al primo turno riposa il giocatore con il punteggio più basso"),
                "lowest": _(
                    "è il più basso in classifica del gruppo di punteggio più basso che può "
                    "riposare lasciando abbinabili tutti gli altri"
                ),
            }.get(detail, detail)
            text = _("Riposo a %(player)s: %(why)s.") % {"player": players[0], "why": why}
        elif kind == "skip":
            why = {
                "had-bye": _("ha già riposato"),
                "forfeit-win": _("ha già vinto a tavolino"),
                "rest": _("senza di lui gli altri non si sarebbero potuti abbinare"),
            }.get(detail, detail)
            text = _("%(player)s non riposa: %(why)s.") % {"player": players[0], "why": why}
        elif kind == "float":
            direction = words[0] if words else ""
            cause = words[1] if len(words) > 1 else ""
            came = cause.startswith("came-")
            cause = cause.removeprefix("came-")
            why = {
                "met-all": _("ha già incontrato tutti gli altri del gruppo"),
                "colours": _("nessuno del gruppo può giocare con lui rispettando i colori"),
                "alone": _("è l'unico del gruppo"),
            }.get(cause) or (
                _("non trova avversario nel gruppo")
                if rule == "Lim 8.5"
                else _("il gruppo era dispari e, tra chi poteva lasciarlo, tocca a lui")
            )
            points = int(score or 0)
            if direction == "up":
                move = ngettext(
                    "%(player)s sale dal gruppo di %(score)s punto: %(why)s.",
                    "%(player)s sale dal gruppo di %(score)s punti: %(why)s.",
                    points,
                )
            else:
                move = ngettext(
                    "%(player)s scende dal gruppo di %(score)s punto: %(why)s.",
                    "%(player)s scende dal gruppo di %(score)s punti: %(why)s.",
                    points,
                )
            text = move % {"player": players[0], "score": score, "why": why}
            if came:
                text += " " + _("Vi era arrivato da un altro gruppo.")
        elif kind == "pair":
            how = words[0] if words else ""
            passed_why = {
                "incompatible": _("non possono incontrarsi"),
                "rest": _("il resto del gruppo non si sarebbe potuto abbinare"),
            }.get(words[1] if len(words) > 1 else "", "")
            values = {
                "a": players[0],
                "b": players[1],
                "c": players[2] if len(players) > 2 else "",
                "why": passed_why,
            }
            text = {
                "proposed": _("%(a)s – %(b)s: l'abbinamento proposto.")
                if rule == "Lim 7"
                else _("%(a)s – %(b)s: chi arriva da un altro gruppo è abbinato per primo."),
                "colour": _("%(a)s – %(b)s: preferito a %(c)s perché dovuto al colore opposto."),
                "transposition": _(
                    "%(a)s – %(b)s: trasposizione nella metà bassa, invece di %(c)s (%(why)s)."
                ),
                "exchange": _(
                    "%(a)s – %(b)s: scambio con la metà alta, invece di %(c)s (%(why)s)."
                ),
                "floater": _("%(a)s – %(b)s, invece di %(c)s (%(why)s)."),
            }.get(how, "%(a)s – %(b)s") % values
        elif kind == "colour":
            why = {
                "limits": _("l'altro colore violerebbe i limiti della regola 2"),
                "lot": _("primo turno: il colore del n. 1 è sorteggiato, gli altri alternano"),
                "due": _("il colore dovuto"),
                "history": _(
                    "entrambi dovuti allo stesso colore: decide l'ultimo turno in cui ebbero "
                    "colori diversi"
                ),
                "rank": _("entrambi dovuti allo stesso colore: decide la posizione in classifica"),
            }.get(detail, detail)
            text = _("%(white)s col Bianco contro %(black)s: %(why)s.") % {
                "white": players[0],
                "black": players[1],
                "why": why,
            }
        elif kind == "crack":
            text = ngettext(
                "Il gruppo mediano non si poteva abbinare: disfatto l'abbinamento del gruppo di "
                "%(score)s punto, i cui giocatori lo raggiungono.",
                "Il gruppo mediano non si poteva abbinare: disfatto l'abbinamento del gruppo di "
                "%(score)s punti, i cui giocatori lo raggiungono.",
                int(score or 0),
            ) % {"score": score}
        elif kind == "guard":
            text = ngettext(
                "Gruppo di %(score)s punto: abbinato guardando l'intero turno, perché il resto "
                "restasse abbinabile.",
                "Gruppo di %(score)s punti: abbinato guardando l'intero turno, perché il resto "
                "restasse abbinabile.",
                int(score or 0),
            ) % {"score": score}
        if text:
            said.append(Reason(kind, text, rule))
    return said


def round_reasons(tournament, number: int) -> list[Reason]:
    """The reasons of round `number` of `tournament` (two queries)."""
    from tournaments.models import Round

    trace = (
        Round.objects.filter(tournament=tournament, number=number)
        .values_list("pairing_trace", flat=True)
        .first()
    )
    names = dict(tournament.participants.values_list("number", "player__username"))
    return reasons(trace or [], names)
