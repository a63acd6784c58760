"""The arbiter's table, the pure part (STYLE 1, no Django): what a typed result means, the
players' CSV, the judgement of an edited pairing, the federations' rating report (RULES 13).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from events.pairing.checker import rule_of
from events.pairing.checks import hard_rule_violations
from events.pairing.model import DRAW_POINTS, WIN_POINTS, Pairing, PlayerState, RoundSpec
from ratings.elo_italia import rate_period
from ratings.performance import performance

# -- results typed on the round sheet (RULES 13.8) -------------------------------------------

# What the arbiter types -> the result stored. `+` and `-` are forfeits from White's side, as
# the TRF writes them; `00` neither player came.
TYPED = {
    "1": "1-0",
    "0": "0-1",
    "=": "½-½",
    "½": "½-½",
    "5": "½-½",  # the numeric pad has no "=": "5" as in ",5"
    "1/2": "½-½",
    "+": "+-",
    "-": "-+",
    "00": "--",
}

# result -> (White's points, Black's points, played over the board), platform units (RULES 4.6)
POINTS = {
    "1-0": (WIN_POINTS, 0, True),
    "0-1": (0, WIN_POINTS, True),
    "½-½": (DRAW_POINTS, DRAW_POINTS, True),
    "+-": (WIN_POINTS, 0, False),
    "-+": (0, WIN_POINTS, False),
    "--": (0, 0, False),
}


def parse_typed(text: str) -> str | None:
    """The result a typed key means, or None ("" clears a result)."""
    text = text.strip().replace(" ", "")
    if text == "":
        return ""
    return TYPED.get(text) or (text if text in POINTS else None)


# -- the players' CSV (RULES 13.3) -----------------------------------------------------------

CSV_COLUMNS = (
    "cognome",
    "nome",
    "sesso",
    "anno_nascita",
    "tessera_fsi",
    "tessera_fid",
    "fide_id",
    "circolo",
    "provincia",
    "famiglia",
    "elo_italia",
    "elo_fide",
    "utente",
)
MAX_CSV_PLAYERS = 1000
# The TRF-16 writes a FIDE id in 11 columns (RULES 13.10): a longer one is refused, not cut.
MAX_FIDE_ID = 10**11 - 1
# A round number: at most 999 rounds (a round robin of the 1000 players a tournament takes).
MAX_ROUNDS = 999
MAX_CSV_CHARS = 300_000


class CsvError(ValueError):
    """A line of the CSV that cannot be read: nothing of the file is imported."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"riga {line}: {message}")
        self.line = line
        self.message = message


@dataclass(frozen=True)
class PlayerRow:
    line: int
    last_name: str
    first_name: str = ""
    sex: str = ""
    birth_year: int | None = None
    fsi_card: str = ""
    fid_card: str = ""
    fide_id: int | None = None
    club: str = ""
    province: str = ""
    family: str = ""
    national_rating: int | None = None
    fide_rating: int | None = None
    username: str = ""


def csv_template() -> str:
    """The downloadable template: the header and one example line."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    writer.writerow(
        [
            "Rossi",
            "Mario",
            "M",
            "1980",
            "123456",
            "",
            "",
            "Circolo Esempio",
            "MI",
            "",
            "1650",
            "",
            "",
        ]
    )
    return out.getvalue()


def _number(
    value: str, line: int, column: str, low: int, high: int, *, big: bool = False
) -> int | None:
    if value == "":
        return None
    if not (value.isascii() and value.isdigit()):  # "²".isdigit(), but int("²") fails
        raise CsvError(line, f"{column}: «{value}» non è un numero")
    number = int(value)
    if not low <= number <= high:
        raise CsvError(line, f"{column}: {number} non è tra {low} e {high}")
    return number


def read_players_csv(text: str) -> list[PlayerRow]:
    """Every player of the file, or CsvError naming the first line that is wrong (RULES 13.3:
    nothing is imported then). The separator is `;` (what Italian spreadsheets write) or `,`;
    the header names the columns, in any order; only `cognome` is required."""
    if len(text) > MAX_CSV_CHARS:
        raise CsvError(1, f"il file supera {MAX_CSV_CHARS:,} caratteri".replace(",", "."))
    text = text.lstrip("\ufeff")  # the byte-order mark spreadsheets write
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise CsvError(1, "manca l'intestazione (cognome;nome;…)")
    delimiter = ";" if lines[0].count(";") >= lines[0].count(",") else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header = [h.strip().lower() for h in next(reader)]
    unknown = [h for h in header if h not in CSV_COLUMNS]
    if unknown:
        raise CsvError(1, f"colonna sconosciuta «{unknown[0]}» (colonne: {', '.join(CSV_COLUMNS)})")
    if "cognome" not in header:
        raise CsvError(1, "manca la colonna «cognome»")
    if len(set(header)) != len(header):
        raise CsvError(1, "una colonna compare due volte")
    rows: list[PlayerRow] = []
    for values in reader:
        line = reader.line_num
        if not any(v.strip() for v in values):
            continue
        if len(values) > len(header):
            raise CsvError(line, f"{len(values)} campi, l'intestazione ne ha {len(header)}")
        cell = dict(zip(header, (v.strip() for v in values), strict=False))

        def get(name: str, cell: dict[str, str] = cell) -> str:
            return cell.get(name, "")

        if not get("cognome"):
            raise CsvError(line, "manca il cognome")
        for name in ("cognome", "nome", "circolo", "famiglia"):
            if len(get(name)) > 60 or any(ord(c) < 32 for c in get(name)):
                raise CsvError(line, f"{name}: troppo lungo o con caratteri di controllo")
        sex = get("sesso").upper()
        if sex not in ("", "M", "F"):
            raise CsvError(line, f"sesso: «{get('sesso')}» (M o F)")
        province = get("provincia").upper()
        if province and (len(province) != 2 or not province.isalpha()):
            raise CsvError(line, f"provincia: «{get('provincia')}» (la sigla, due lettere)")
        for name in ("tessera_fsi", "tessera_fid"):
            if len(get(name)) > 20:
                raise CsvError(line, f"{name}: troppo lunga")
        rows.append(
            PlayerRow(
                line=line,
                last_name=get("cognome"),
                first_name=get("nome"),
                sex={"M": "m", "F": "w", "": ""}[sex],
                birth_year=_number(get("anno_nascita"), line, "anno_nascita", 1900, 2100),
                fsi_card=get("tessera_fsi"),
                fid_card=get("tessera_fid"),
                fide_id=_number(get("fide_id"), line, "fide_id", 1, MAX_FIDE_ID),
                club=get("circolo"),
                province=province,
                family=get("famiglia"),
                national_rating=_number(get("elo_italia"), line, "elo_italia", 0, 3000),
                fide_rating=_number(get("elo_fide"), line, "elo_fide", 0, 3000),
                username=get("utente"),
            )
        )
        if len(rows) > MAX_CSV_PLAYERS:
            raise CsvError(line, f"più di {MAX_CSV_PLAYERS} giocatori")
    if not rows:
        raise CsvError(2, "nessun giocatore")
    return rows


# -- an edited pairing, judged (RULES 13.6) --------------------------------------------------


def judge_pairing(
    states: Sequence[PlayerState],
    spec: RoundSpec,
    pairing: Pairing,
    prohibited: Iterable[tuple[int, int, str]] = (),
) -> list[str]:
    """Every absolute rule the pairing breaks, worded as the checker words it ("Lim 2: rematch
    3-7"), and every prohibited pairing it makes (RULES 13.7). Empty: nothing broken."""
    broken = [f"{rule_of(v)}: {v}" for v in hard_rule_violations(states, spec, pairing)]
    forbidden = {frozenset((a, b)): why for a, b, why in prohibited}
    for game in pairing.games:
        why = forbidden.get(frozenset((game.white, game.black)))
        if why:
            broken.append(f"regola 13.7: {game.white}-{game.black} {why}")
    return broken


def prohibited_pairs(
    players: Iterable[tuple[int, str, str]], *, club: bool
) -> list[tuple[int, int, str]]:
    """(a, b, why) for every two players of one family, or of one club when `club` (RULES
    13.7); `players` are (number, family, club)."""
    listed = sorted(players)
    pairs = []
    for i, (a, family_a, club_a) in enumerate(listed):
        for b, family_b, club_b in listed[i + 1 :]:
            if family_a and family_a.casefold() == family_b.casefold():
                pairs.append((a, b, "stessa famiglia"))
            elif club and club_a and club_a.casefold() == club_b.casefold():
                pairs.append((a, b, "stesso circolo"))
    return pairs


# -- the federations' rating report (RULES 13.10) -------------------------------------------

# RULES 13.10 Decision: a player without an Elo Italia counts as 1440, the rating FSI gives at
# a first Elo Italia tournament.
UNRATED_ELO_ITALIA = 1440


@dataclass(frozen=True)
class RatedGame:
    """A game played over the board: forfeits, byes and double forfeits are not games."""

    white: int
    black: int
    white_halves: int  # White's score in half points: 2 a win, 1 a draw, 0 a loss


@dataclass(frozen=True)
class ReportLine:
    number: int
    name: str
    rating: int | None  # as typed (None: unrated)
    rating_used: int  # the regulation's: the typed rating, or UNRATED_ELO_ITALIA
    games: int
    score: Decimal
    opponents: tuple[int, ...]
    expected: Decimal | None
    k: int | None
    change: Decimal | None  # V = K(P - PA), before rounding
    new_rating: int | None
    first_protected: bool = False
    fide_rating: int | None = None
    fide_games: int = 0
    fide_score: Decimal = Decimal(0)
    fide_average: int | None = None
    performance: int | None = None
    notes: tuple[str, ...] = field(default=())


def rating_report(
    players: Sequence[tuple[int, str, int | None, int | None]],
    games: Sequence[RatedGame],
    first: Iterable[int] = (),
    *,
    unrated: int | None = UNRATED_ELO_ITALIA,
) -> list[ReportLine]:
    """Each player's Elo Italia variation over the tournament as one period (REI; RULES 7.1,
    13.10) and FIDE performance over the games against FIDE-rated opponents (FIDE B.02 8.1,
    6.4). `players` are (number, name, national rating, FIDE rating); `first` the players
    level with the winner (REI art. 11). With `unrated=None` (draughts: no initial figure is
    given here) an unrated player's variation is not computed and such opponents are left out.
    """
    by_number = {p[0]: p for p in players}
    first = set(first)
    lines = []
    for number, name, rating, fide in players:
        used = rating if rating else unrated
        opponents: list[int] = []
        halves = 0
        fide_opponents: list[int] = []
        fide_halves = 0
        for g in games:
            if number not in (g.white, g.black):
                continue
            other = g.black if number == g.white else g.white
            mine = g.white_halves if number == g.white else 2 - g.white_halves
            _, _, other_rating, other_fide = by_number[other]
            other_used = other_rating if other_rating else unrated
            if other_used is not None:
                opponents.append(other_used)
                halves += mine
            if fide and other_fide:
                fide_opponents.append(other_fide)
                fide_halves += mine
        period = None
        if used is not None and opponents:
            period = rate_period(used, opponents, Decimal(halves) / 2, first=number in first)
        fide_score = Decimal(fide_halves) / 2
        lines.append(
            ReportLine(
                number=number,
                name=name,
                rating=rating or None,
                rating_used=used or 0,
                games=len(opponents),
                score=Decimal(halves) / 2,
                opponents=tuple(opponents),
                expected=period.expected if period else None,
                k=period.k if period else None,
                change=period.change if period else None,
                new_rating=period.new_rating if period else None,
                first_protected=bool(period and period.first_protected),
                fide_rating=fide or None,
                fide_games=len(fide_opponents),
                fide_score=fide_score,
                # Rounded half up, as the performance (ratings.performance): Python's round()
                # goes to even, and an average of 2000.5 beside a performance of 2001 at 50 %
                # would disagree.
                fide_average=(
                    int(
                        (Decimal(sum(fide_opponents)) / len(fide_opponents)).quantize(
                            Decimal(1), rounding=ROUND_HALF_UP
                        )
                    )
                    if fide_opponents
                    else None
                ),
                performance=performance(fide_opponents, fide_score) if fide_opponents else None,
            )
        )
    return lines
