"""Chess opening names in Italian, where Italian players have an established name (pure).

The table (`chess_openings`) names positions in English: "Family: Variation, Subvariation".
An opening gets an Italian name only when its family has one in common use (the names of the
Italian manuals and of it.wikipedia's opening pages: "Difesa siciliana", "Partita spagnola");
its variations are then written the Italian way around ("Najdorf Variation" becomes "variante
Najdorf", "Marshall Attack" "attacco Marshall"), a few standing words are translated
("Exchange" di cambio, "Closed" chiusa), and any part not covered by these rules stays as it
is: a proper name is the same in both languages, and a guess would be worse than English.
Families named after a person, a place or a people, and the systems, are written the Italian
way around too ("London System" Sistema Londra, "Van Geet Opening" Apertura Van Geet); a family
followed by a move ("Queen's Indian Defense, with e3") keeps it after "con". Only nicknames
with no Italian of their own ("Rat Defense") keep their English name whole (`italian` gives
None).
"""

from __future__ import annotations

import re

# English family -> Italian (it.wikipedia's spelling: only proper names capitalized).
FAMILIES = {
    "Alekhine Defense": "Difesa Alekhine",
    "Benko Gambit": "Gambetto Benko",
    "Benko Gambit Accepted": "Gambetto Benko accettato",
    "Benko Gambit Declined": "Gambetto Benko rifiutato",
    "Benoni Defense": "Difesa Benoni",
    "Bird Opening": "Apertura Bird",
    "Bishop's Opening": "Partita d'alfiere",
    "Blackmar-Diemer Gambit": "Gambetto Blackmar-Diemer",
    "Blackmar-Diemer Gambit Accepted": "Gambetto Blackmar-Diemer accettato",
    "Blackmar-Diemer Gambit Declined": "Gambetto Blackmar-Diemer rifiutato",
    "Bogo-Indian Defense": "Difesa bogo-indiana",
    "Caro-Kann Defense": "Difesa Caro-Kann",
    "Catalan Opening": "Apertura catalana",
    "Center Game": "Partita del centro",
    "Danish Gambit": "Gambetto danese",
    "Danish Gambit Accepted": "Gambetto danese accettato",
    "Danish Gambit Declined": "Gambetto danese rifiutato",
    "Dutch Defense": "Difesa olandese",
    "Elephant Gambit": "Gambetto dell'elefante",
    "English Opening": "Apertura inglese",
    "Englund Gambit": "Gambetto Englund",
    "Four Knights Game": "Partita dei quattro cavalli",
    "French Defense": "Difesa francese",
    "Grob Opening": "Apertura Grob",
    "Grünfeld Defense": "Difesa Grünfeld",
    "Hungarian Opening": "Apertura ungherese",
    "Indian Defense": "Difesa indiana",
    "Italian Game": "Partita italiana",
    "King's Gambit": "Gambetto di re",
    "King's Gambit Accepted": "Gambetto di re accettato",
    "King's Gambit Declined": "Gambetto di re rifiutato",
    "King's Indian Attack": "Attacco est-indiano",
    "King's Indian Defense": "Difesa est-indiana",
    "King's Pawn Game": "Partita di pedone di re",
    "Latvian Gambit": "Gambetto lettone",
    "Latvian Gambit Accepted": "Gambetto lettone accettato",
    "Modern Defense": "Difesa moderna",
    "Neo-Grünfeld Defense": "Difesa neo-Grünfeld",
    "Nimzo-Indian Defense": "Difesa nimzo-indiana",
    "Nimzo-Larsen Attack": "Attacco Nimzo-Larsen",
    "Nimzowitsch Defense": "Difesa Nimzowitsch",
    "Old Indian Defense": "Difesa vecchio-indiana",
    "Owen Defense": "Difesa Owen",
    "Petrov's Defense": "Difesa Petrov",
    "Philidor Defense": "Difesa Philidor",
    "Pirc Defense": "Difesa Pirc",
    "Polish Opening": "Apertura polacca",
    "Ponziani Opening": "Apertura Ponziani",
    "Queen's Gambit": "Gambetto di donna",
    "Queen's Gambit Accepted": "Gambetto di donna accettato",
    "Queen's Gambit Declined": "Gambetto di donna rifiutato",
    "Queen's Indian Defense": "Difesa ovest-indiana",
    "Queen's Pawn Game": "Partita di pedone di donna",
    "Réti Opening": "Apertura Réti",
    "Richter-Veresov Attack": "Attacco Richter-Veresov",
    "Ruy Lopez": "Partita spagnola",
    "Scandinavian Defense": "Difesa scandinava",
    "Scotch Game": "Partita scozzese",
    "Semi-Slav Defense": "Difesa semi-slava",
    "Sicilian Defense": "Difesa siciliana",
    "Slav Defense": "Difesa slava",
    "Tarrasch Defense": "Difesa Tarrasch",
    "Three Knights Opening": "Partita dei tre cavalli",
    "Torre Attack": "Attacco Torre",
    "Trompowsky Attack": "Attacco Trompowsky",
    "Vienna Game": "Partita viennese",
    "Zukertort Opening": "Apertura Zukertort",
    # The families named after a person, a place or a people, and the systems: their Italian
    # names say the same words the Italian way around.
    "Amar Opening": "Apertura Amar",
    "Amsterdam Attack": "Attacco Amsterdam",
    "Anderssen's Opening": "Apertura Anderssen",
    "Australian Defense": "Difesa australiana",
    "Barnes Defense": "Difesa Barnes",
    "Barnes Opening": "Apertura Barnes",
    "Basque Opening": "Apertura basca",
    "Blumenfeld Countergambit": "Controgambetto Blumenfeld",
    "Blumenfeld Countergambit Accepted": "Controgambetto Blumenfeld accettato",
    "Borg Defense": "Difesa Borg",
    "Carr Defense": "Difesa Carr",
    "Center Game Accepted": "Partita del centro accettata",
    "Clemenz Opening": "Apertura Clemenz",
    "Colle System": "Sistema Colle",
    "Czech Defense": "Difesa ceca",
    "Döry Defense": "Difesa Döry",
    "Dresden Opening": "Apertura Dresda",
    "Duras Gambit": "Gambetto Duras",
    "English Defense": "Difesa inglese",
    "Englund Gambit Declined": "Gambetto Englund rifiutato",
    "Goldsmith Defense": "Difesa Goldsmith",
    "Gunderam Defense": "Difesa Gunderam",
    "Horwitz Defense": "Difesa Horwitz",
    "Irish Gambit": "Gambetto irlandese",
    "Kádas Opening": "Apertura Kádas",
    "King's Knight Opening": "Partita di cavallo di re",
    "King's Pawn Opening": "Partita di pedone di re",
    "London System": "Sistema Londra",
    "Marienbad System": "Sistema Marienbad",
    "Mexican Defense": "Difesa messicana",
    "Mieses Opening": "Apertura Mieses",
    "Mikenas Defense": "Difesa Mikenas",
    "Montevideo Defense": "Difesa Montevideo",
    "Polish Defense": "Difesa polacca",
    "Portuguese Opening": "Apertura portoghese",
    "Rapport-Jobava System": "Sistema Rapport-Jobava",
    "Robatsch Defense": "Difesa Robatsch",
    "Rubinstein Opening": "Apertura Rubinstein",
    "Saragossa Opening": "Apertura Saragozza",
    "Semi-Slav Defense Accepted": "Difesa semi-slava accettata",
    "St. George Defense": "Difesa San Giorgio",
    "Valencia Opening": "Apertura Valencia",
    "Van Geet Opening": "Apertura Van Geet",
    "Wade Defense": "Difesa Wade",
    "Ware Defense": "Difesa Ware",
    "Ware Opening": "Apertura Ware",
    "Yusupov-Rubinstein System": "Sistema Yusupov-Rubinstein",
    "Zukertort Defense": "Difesa Zukertort",
}

# Whole variation names with a name of their own in Italian.
NAMES = {
    "Main Line": "linea principale",
    "Closed": "chiusa",
    "Open": "aperta",
    "Fried Liver Attack": "attacco Fegatello",
    "Giuoco Piano": "Giuoco piano",
    "Giuoco Pianissimo": "Giuoco pianissimo",
    "Two Knights Defense": "difesa dei due cavalli",
    "Berlin Defense": "difesa berlinese",
    "Dragon Variation": "variante del dragone",
    "Accelerated Dragon": "dragone accelerato",
    "Hyperaccelerated Dragon": "dragone iperaccelerato",
    "Evans Gambit": "gambetto Evans",
    "Evans Gambit Accepted": "gambetto Evans accettato",
    "Evans Gambit Declined": "gambetto Evans rifiutato",
    "Yugoslav Attack": "attacco jugoslavo",
    "Scotch Variation": "variante scozzese",
    "Scotch Gambit": "gambetto scozzese",
    "Vienna Gambit": "gambetto viennese",
    "Belgrade Gambit": "gambetto di Belgrado",
    "Normal": "normale",
    "Modern Variations": "varianti moderne",
}

# Standing words before "Variation", "Defense", "Attack", "Gambit": their Italian adjective.
WORDS = {
    "Exchange": "di cambio",
    "Advance": "di spinta",
    "Classical": "classica",
    "Modern": "moderna",
    "Normal": "normale",
    "Symmetrical": "simmetrica",
    "Fianchetto": "del fianchetto",
    "Orthodox": "ortodossa",
    "Spanish": "spagnola",
    "Closed": "chiusa",
    "Open": "aperta",
    "Accelerated": "accelerata",
    "Retreat": "della ritirata",
}
# The kinds of variation, and whether the Italian noun is feminine (its adjective agrees).
KINDS = {
    "Variation": ("variante", True),
    "Defense": ("difesa", True),
    "Attack": ("attacco", False),
    "Gambit": ("gambetto", False),
    "Countergambit": ("controgambetto", False),
}
_MASCULINE = {"classica": "classico", "moderna": "moderno", "simmetrica": "simmetrico",
              "ortodossa": "ortodosso", "spagnola": "spagnolo", "chiusa": "chiuso",
              "aperta": "aperto", "accelerata": "accelerato"}  # fmt: skip
_SUFFIX = re.compile(
    r"^(?P<what>.+?) (?P<kind>Variation|Defense|Attack|Gambit|Countergambit)"
    r"(?: (?P<taken>Accepted|Declined))?$"
)


# English words that make a variation's name a description rather than a proper name
# ("King's English Variation", "Two Knights Variation"): such a name stays in English.
_DESCRIBING = {"King's", "Queen's", "Knight", "Knights", "Bishop", "Bishop's", "Pawn", "Pawns",
               "Two", "Three", "Four", "Wing", "Center", "Counter", "Double", "Old", "New",
               "Main", "Deferred", "Anti", "English", "Indian", "Line", "Early", "Long", "Short",
               "Quiet", "Reversed", "Delayed", "Declined", "Accepted", "System", "Fork", "Trap"}  # fmt: skip


def _part(english: str) -> str:
    """One variation name the Italian way around, or as it is."""
    if english in NAMES:
        return NAMES[english]
    match = _SUFFIX.match(english)
    if match is None:
        return english
    noun, feminine = KINDS[match["kind"]]
    what = match["what"]
    words = what.split()
    if what not in WORDS and any(w in _DESCRIBING or not w[:1].isupper() for w in words):
        return english
    if what in WORDS:
        adjective = WORDS[what]
        what = adjective if feminine else _MASCULINE.get(adjective, adjective)
    taken = {"Accepted": " accettato", "Declined": " rifiutato", None: ""}[match["taken"]]
    return f"{noun} {what}{taken}"


def italian(name: str) -> str | None:
    """The Italian name of an opening named `name` in the table, or None when its family has
    no established Italian name."""
    family, _, rest = name.partition(": ")
    base, with_, extra = family.partition(", with ")  # "Queen's Indian Defense, with e3"
    if base in FAMILIES:
        italian_family = FAMILIES[base]
    elif with_ and base in NAMES:  # "Vienna Gambit, with Max Lange Defense"
        italian_family = NAMES[base][:1].upper() + NAMES[base][1:]
    else:
        return None
    if with_:
        italian_family += ", con " + ", ".join(_part(part) for part in extra.split(", "))
    if not rest:
        return italian_family
    return f"{italian_family}: " + ", ".join(_part(part) for part in rest.split(", "))
