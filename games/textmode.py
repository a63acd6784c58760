"""The text mode's commands: the one table the game page's move box reads
(`static/js/textmode.js`, through the page's data) and the guide page lists.

A command is typed as one of its words, Italian or English whatever the page's language
(a leading `/` is allowed, as in the FIDE disability commission's list), then an argument for
`scan`. Anything else typed in the box is a move, read by the server (`games.rules.typed`).
No word here can be a move: no square, no number, no piece letter followed by a square.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True, slots=True)
class Command:
    key: str  # what the page does (textmode.js)
    italian: tuple[str, ...]
    english: tuple[str, ...]
    argument: Promise | str  # what may follow the word, shown in the guide
    does: Promise  # what it says or does, shown in the guide and by `help`
    boost_only: bool = False  # where the boost is offered (RULES 8: an arena's games)


COMMANDS: tuple[Command, ...] = (
    Command("clocks", ("orologi", "tempo", "t"), ("clocks", "time", "c"), "",
            _("il tempo che resta a ciascuno e chi ha l'orologio in moto")),
    Command("last", ("ultima", "u"), ("last", "l"), "", _("l'ultima mossa giocata")),
    Command("opponent", ("avversario", "avv"), ("opponent", "o"), "",
            _("chi è l'avversario, il suo punteggio e se è connesso")),
    Command("position", ("posizione", "pos"), ("position", "board", "b"), "",
            _("la posizione intera e chi deve muovere")),
    Command("pieces", ("pezzi", "p"), ("pieces", "p"), _("bianco o nero (facoltativo)"),
            _("dove sono i pezzi, per tipo e colore")),
    Command("scan", ("scorri", "s"), ("scan", "s"),
            _("scacchi: una colonna (e), una traversa (4) o una casella (e4: le sue diagonali); "
              "dama: una casella (22: la sua riga e le sue diagonali)"),
            _("le caselle di una riga, colonna o diagonale, una per una, con ciò che c'è sopra")),
    Command("moves", ("mosse", "m"), ("moves", "m"), "", _("le mosse giocate, numerate")),
    Command("draw", ("patta",), ("draw",), "",
            _("propone la patta, o accetta quella dell'avversario")),
    Command("resign", ("abbandona",), ("resign",), "", _("abbandona la partita")),
    Command("boost", ("boost",), ("boost",), "",
            _("prende il boost, prima della tua prima mossa"), boost_only=True),
    Command("help", ("aiuto", "?"), ("help", "h"), "", _("l'elenco dei comandi")),
)  # fmt: skip


def commands_for_page() -> list[dict]:
    """The table as the game page's script reads it (translated to the request's language)."""
    return [
        {
            "key": c.key,
            "words": [*c.italian, *c.english],
            "shown": c.italian[0] if _is_italian() else c.english[0],
            "does": str(c.does),
            "boost_only": c.boost_only,
        }
        for c in COMMANDS
    ]


def _is_italian() -> bool:
    return not (get_language() or "it").startswith("en")


def page_texts() -> dict[str, str]:
    """What the game page's announcements, board names and text mode say, in the request's
    language (`{name}` marks what the script puts in)."""
    return {key: str(text) for key, text in _TEXTS.items()}


_TEXTS = {
        # Pieces as a move names them (RULES 2: Italian names in the Italian interface).
        "k": _("Re"), "q": _("Donna"), "r": _("Torre"), "b": _("Alfiere"), "n": _("Cavallo"),
        "p": _("Pedone"),
        # Pieces on a square, with their colour.
        "K": _("re bianco"), "Q": _("donna bianca"), "R": _("torre bianca"),
        "B": _("alfiere bianco"), "N": _("cavallo bianco"), "P": _("pedone bianco"),
        "k_": _("re nero"), "q_": _("donna nera"), "r_": _("torre nera"),
        "b_": _("alfiere nero"), "n_": _("cavallo nero"), "p_": _("pedone nero"),
        # More than one of a kind, in the list of where the pieces are.
        "pl_Q": _("donne bianche"), "pl_R": _("torri bianche"), "pl_B": _("alfieri bianchi"),
        "pl_N": _("cavalli bianchi"), "pl_P": _("pedoni bianchi"),
        "pl_q_": _("donne nere"), "pl_r_": _("torri nere"), "pl_b_": _("alfieri neri"),
        "pl_n_": _("cavalli neri"), "pl_p_": _("pedoni neri"),
        "pl_man_white": _("pedine bianche"), "pl_man_black": _("pedine nere"),
        "pl_king_white": _("dame bianche"), "pl_king_black": _("dame nere"),
        "man_white": _("pedina bianca"), "man_black": _("pedina nera"),
        "king_white": _("dama bianca"), "king_black": _("dama nera"),
        "white": _("bianco"), "black": _("nero"), "White": _("Bianco"), "Black": _("Nero"),
        "empty": _("vuota"),
        "square": _("casella {n}"),
        "to": _("{piece} in {to}"), "takes": _("{piece} prende in {to}"),
        "takes_piece": _("{piece} prende {taken} in {to}"),
        "taken_q": _("la donna"), "taken_r": _("la torre"), "taken_b": _("l'alfiere"),
        "taken_n": _("il cavallo"), "taken_p": _("il pedone"),
        "short_castle": _("arrocco corto"), "long_castle": _("arrocco lungo"),
        "promotes": _(", promuove a {piece}"), "check": _(", scacco"),
        "mate": _(", scacco matto"), "en_passant": _(", en passant"),
        "d_to": _("{from} per {to}"), "d_takes": _("{from} prende {to}"), "d_then": _("prende {to}"),
        "you_played": _("Hai giocato {move}"), "side_played": _("{side}: {move}"),
        "low_time": _("Poco tempo: ti restano meno di {s} secondi."),
        "start_mine": _("Partita contro {name}: giochi col {color}."),
        "start_watch": _("Partita {white} contro {black}."),
        "your_turn": _("Tocca a te."), "their_turn": _("Tocca all'avversario."),
        "turn_of": _("Muove il {color}."),
        "selected": _("{what}: scelto. Scegli la casella di arrivo, Esc per annullare."),
        "unselected": _("Scelta annullata."),
        "board": _("Scacchiera"),
        "text_on": _("Modalità testo attiva."), "text_off": _("Modalità testo spenta."),
        "clocks": _("Bianco {white}, nero {black}. Orologio in moto: {running}."),
        "clocks_stopped": _("Bianco {white}, nero {black}. Orologi fermi."),
        "minutes": _("{m} min {s} s"), "seconds": _("{s} secondi"),
        "last": _("Ultima mossa: {move}."), "no_moves": _("Nessuna mossa ancora."),
        "opponent": _("Avversario: {name}, {rating}, {presence}."),
        "no_opponent": _("Stai guardando: {white} col bianco, {black} col nero."),
        "connected": _("connesso"), "not_connected": _("non connesso"),
        "rating": _("punteggio {r}"), "no_rating": _("senza punteggio"),
        "nothing": _("nessun pezzo"),
        "file": _("Colonna {f}"), "rank": _("Traversa {r}"), "diagonal": _("Diagonale"),
        "row": _("Riga"),
        "scan_how": _("Cosa scorrere? Ad esempio: s e, s 4, s e4; nella dama: s 22."),
        "unknown": _("Non capisco «{text}». Scrivi una mossa, o aiuto per i comandi."),
        "help": _("Comandi: {list}."),
        "help_moves_chess": _("Mosse: Cf3 o Nf3, exd5, g1f3, e8=D, O-O."),
        "help_moves_draughts": _("Mosse: 22-18, 22x13 o il percorso intero 22x13x6."),
        "not_player": _("Stai guardando la partita: non puoi muovere."),
        "over": _("La partita è finita."),
        "unreadable": _("Non è una mossa: «{text}». Ad esempio Cf3, g1f3 o 22-18."),
        "illegal": _("«{text}» non è valida in questa posizione."),
        "ambiguous": _("Quale mossa? {choices}. Scrivine una."),
        "or": _(" o "),
        "draw_sent": _("Proposta di patta inviata."),
        "no_boost": _("Il boost c'è solo nelle partite delle arene."),
}  # fmt: skip
