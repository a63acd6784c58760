"""FIDE TRF-16 and TRF-2026 (Tournament Report File) reading and writing.

What we read and write:
- `012` tournament name; `001` player lines (start rank, name, rating, points, rank and one
  10-column block per round: opponent, colour, result);
- `XXR` total rounds and `XXC white1|black1` (colour of #1 in round 1), the JaVaFo/bbpPairings
  extensions, and the same as TRF-2026 writes them: `142` the number of rounds, `152` the
  colour of #1 in round 1 (`W` or `B`); lines starting `###` are comments;
- the point system: JaVaFo's and bbpPairings' `BBW` win, `BBD` draw, `BBL` loss, `BBZ`
  zero-point bye, `BBF` forfeit loss, `BBU` pairing-allocated bye, or a `162` line with `W`,
  `D`, `L`, `A` (zero-point bye and forfeit loss) and `P` (pairing-allocated bye) values, e.g.
  `162 W 2.0 D 1.0`. Undeclared values are the FIDE defaults: win 1.0, draw 0.5, nothing for a
  loss, a zero-point bye or a forfeit loss, a pairing-allocated bye worth a win. We write the
  platform's 2/1/0 scoring (RULES 4.6) both ways: TRF-2026's `162` line (`W 2.0`, `D 1.0`,
  `L 0.0`, `A 0.0`, `P 2.0`, each code in its column) and `BBW  2.0`, `BBD  1.0`;
- `013` team lines (a league of team matches, RULES 16.8): a team's name and the start ranks of
  its players in board order (`Team`; the columns are at `TEAM_NAME_COLUMNS`).

Internally every score is in platform units (win 2, draw 1), whatever the file's system. That
is exact only for point systems that are 2/1/0 scaled (1/0.5/0, 2/1/0, 4/2/0...): the Lim
system (its score groups, the median) is defined on them, and another system such as 3/1/0
orders the players differently. **Decision**: such a file is refused (TrfError, exit 3 from
the command line) naming the line that declares the point system; it is not re-scored.

Size: at most `MAX_TRF_PLAYERS` player lines (1,000: big opens exist, though the platform
seats 200, RULES 4.1; a 1,000-player round pairs in about 0.4 s, 1.2 s at worst, measured
over 11 rounds of two random opens) and `MAX_TRF_CHARS` characters; a larger input is refused
before it is paired.

Points (columns 81-84 of a 001 line, in the file's own point system) are checked against the
results, as bbpPairings does: **Decision** the column must equal the player's total over the
rounds played, or that total plus a bye already announced for the round to pair (`0000 - H`
or `F`: a requested bye is scored when it is announced, and programs differ on whether the
column includes it). A file whose column says otherwise is refused (TrfError naming the line,
the player and the rounds). A blank column is a number not given, and not checked.

Rounds, as bbpPairings reads them: every round before the last one listed was held, also one
in which nobody played (everyone absent or on a requested bye); the last one listed was held
if it has a game or a pairing-allocated bye, and otherwise announces the absences of the round
to pair (TRF(x)).

Start ranks are the pairing numbers, as in JaVaFo and bbpPairings. Double games (RULES 4.5)
have no TRF form; such a tournament cannot be exported.
"""

from __future__ import annotations

from .model import (
    BYE_FULL,
    BYE_HALF,
    BYE_PAIRING_ALLOCATED,
    BYE_ZERO,
    DRAW_POINTS,
    WHITE,
    WIN_POINTS,
    Bye,
    Entrant,
    GameResult,
    Team,
    Tournament,
)

MAX_TRF_PLAYERS = 1000
MAX_TRF_CHARS = 1_000_000  # 1,000 players with 90 rounds each, 200 with 199 rounds

BLACK_LOT = "B"
ROUND_COLUMN = 91  # 0-based start of round 1's block (column 92 in the spec)
BLOCK = 10

# The team record, `013`: FIDE, "Format of Tournament Report File (TRF16)", Team Section
# (handbook C.04 Annex 2, approved Elista 2015); TRF-2026 keeps it as it is, "to be phased out"
# for its new `310` record, which we do not write. The FIDE tie-break checker reads it by the
# same columns (Otto Milvang's TieBreakServer, trf2json.parse_trf_team: name `line[4:36]`,
# ranks `line[36:40]`, `line[41:45]`...).
#   columns 1-3    013
#   columns 5-36   the team name (32 columns)
#   columns 37-40  the start rank (a 001 line's columns 5-8) of the team's 1st player,
#   columns 42-45  of the 2nd, 47-50 of the 3rd, ... 72-75 of the 8th, 102-105 of the 14th
#                  and so on: four columns each, right-aligned, one blank column between.
# The 1st player is mandatory, the others optional. **Decision** (the format is silent): a team
# has a name and at least one player, no two teams share a name (a team is known by it), a
# player is in at most one team, and the boards have no gap (a blank field between two ranks is
# refused, not read as an empty board). A name longer than its 32 columns is refused on writing,
# not cut: two cut names could become one.
TEAM_NAME_COLUMNS = 32
TEAM_COLUMN = 36  # 0-based start of the 1st player's start rank (column 37)
TEAM_FIELD = 5  # a start rank's four columns and the blank after them

# TRF-16 result codes -> (points for this player, game actually played)
GAME_CODES = {
    "1": (WIN_POINTS, True),
    "=": (DRAW_POINTS, True),
    "0": (0, True),
    "W": (WIN_POINTS, True),  # played, not rated
    "D": (DRAW_POINTS, True),
    "L": (0, True),
    "+": (WIN_POINTS, False),  # forfeit win
    "-": (0, False),  # forfeit loss
}
BYE_CODES = {
    "U": BYE_PAIRING_ALLOCATED,
    "+": BYE_PAIRING_ALLOCATED,  # some programs write a pairing-allocated bye as "0000 - +"
    "F": BYE_FULL,
    "H": BYE_HALF,
    "Z": BYE_ZERO,
    "-": BYE_ZERO,
    " ": BYE_ZERO,
}
BYE_POINTS = {BYE_PAIRING_ALLOCATED: WIN_POINTS, BYE_FULL: WIN_POINTS, BYE_HALF: 1, BYE_ZERO: 0}


class TrfError(ValueError):
    """A malformed TRF file; the message names the line."""

    def __init__(self, line_number: int, message: str) -> None:
        super().__init__(f"line {line_number}: {message}")
        self.line_number = line_number


class _Entry:
    """One round block of a 001 line. (A plain class: a dataclass costs start-up time.)"""

    __slots__ = ("line_number", "player", "round", "opponent", "colour", "result")

    def __init__(
        self, line_number: int, player: int, round: int, opponent: int, colour: str, result: str
    ) -> None:
        self.line_number = line_number
        self.player = player
        self.round = round
        self.opponent = opponent  # 0 for none
        self.colour = colour  # "w", "b" or "-"
        self.result = result


def read_trf(text: str) -> Tournament:
    """Parse a TRF-16 file. Raises TrfError naming the offending line."""
    if len(text) > MAX_TRF_CHARS:
        raise TrfError(1, f"the file is larger than {MAX_TRF_CHARS:,} characters")
    points = _PointSystem()
    name = ""
    total_rounds: int | None = None
    rounds_line = 1
    first_colour = WHITE
    entrants: dict[int, Entrant] = {}
    entry_lines: dict[int, int] = {}
    stated_points: dict[int, str] = {}  # columns 81-84, as written
    entries: list[_Entry] = []
    team_records: list[tuple[int, Team]] = []
    # Lines end with \n, \r\n or \r (bbpPairings writes \r) and nothing else: str.splitlines
    # would also split inside a name at \x0b, \x1c, \x85, U+2028...
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for line_number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        code = line[:3]
        if code == "012":
            name = line[4:].strip()
        elif code == "001":
            if len(entrants) == MAX_TRF_PLAYERS:
                raise TrfError(line_number, f"more than {MAX_TRF_PLAYERS:,} players")
            entrant, round_entries = _read_player(line, line_number)
            if entrant.number in entrants:
                raise TrfError(line_number, f"start rank {entrant.number} appears twice")
            entrants[entrant.number] = entrant
            entry_lines[entrant.number] = line_number
            stated_points[entrant.number] = line[80:84].strip()
            entries.extend(round_entries)
        elif code in ("XXR", "142"):  # the number of rounds: JaVaFo's tag, TRF-2026's
            rounds = _integer(line[3:].strip(), line_number, f"{code} needs a number of rounds")
            if rounds < 1:
                raise TrfError(line_number, f"{code} must be at least 1")
            if total_rounds is not None and rounds != total_rounds:
                raise TrfError(
                    line_number,
                    f"{code} says {rounds} rounds but line {rounds_line} says {total_rounds}",
                )
            total_rounds, rounds_line = rounds, line_number
        elif code == "XXC":
            words = line[3:].split()
            if "black1" in words:
                first_colour = BLACK_LOT
            elif "white1" in words:
                first_colour = WHITE
        elif code == "152":  # TRF-2026: the colour of #1 in round 1
            colour = line[3:].strip().upper()
            if colour not in ("W", "B"):
                raise TrfError(line_number, f"152 needs W or B (found {colour!r})")
            first_colour = WHITE if colour == "W" else BLACK_LOT
        elif code in _POINT_LINES or code == "162":
            points.read(code, line, line_number)
        elif code == "013":
            team_records.append((line_number, _read_team(line, line_number)))
        # Other lines (022 city, 042 dates, 102 arbiter, ...) are not needed.

    if not entrants:
        raise TrfError(1, "no player lines (001)")
    teams = _check_teams(team_records, entrants)
    points.check()
    games, byes, absent = _build_rounds(entries, entrants)
    # Every listed round was held, but a last one with no game and no pairing-allocated bye:
    # its byes announce absences for the round to pair (TRF(x)). A round before it in which
    # nobody played still counts (Lim 3: the median, the next round's number).
    listed = max((e.round for e in entries), default=0)
    paired = {g.round for g in games} | {b.round for b in byes if b.kind == BYE_PAIRING_ALLOCATED}
    played = listed if listed in paired or not listed else listed - 1
    announced = [b for b in byes if b.round == played + 1]
    absent_next = frozenset(b.player for b in announced) | absent
    byes = [b for b in byes if b.round <= played]
    _check_points(stated_points, entry_lines, points, games, byes, announced, played)
    if total_rounds is None:
        total_rounds = max(played + 1, 1)
    if total_rounds < played:
        raise TrfError(rounds_line, f"XXR says {total_rounds} rounds but {played} were played")
    return Tournament(
        entrants=tuple(entrants[n] for n in sorted(entrants)),
        total_rounds=total_rounds,
        games=tuple(sorted(games, key=lambda g: (g.round, g.white))),
        byes=tuple(sorted(byes, key=lambda b: (b.round, b.player))),
        first_colour=first_colour,
        absent_next=absent_next,
        name=name,
        rounds_held=played,
        teams=teams,
    )


def _read_team(line: str, line_number: int) -> Team:
    """One `013` line, its columns as TEAM_NAME_COLUMNS says."""
    line = line.rstrip()
    name = line[4:TEAM_COLUMN].strip()
    if not name:
        raise TrfError(line_number, "team line (013): no team name in columns 5-36")
    players: list[int] = []
    for start in range(TEAM_COLUMN, len(line), TEAM_FIELD):
        board = len(players) + 1
        where = f"team {name!r}, board {board} (columns {start + 1}-{start + 4})"
        text = line[start : start + 4].strip(" ")
        if not text:
            raise TrfError(line_number, f"{where}: blank, but a later board is given")
        if not (text.isascii() and text.isdigit()) or int(text) < 1:
            hint = " (the team name has columns 5-36, 32 characters)" if board == 1 else ""
            raise TrfError(line_number, f"{where}: {text!r} is not a start rank{hint}")
        if line[start + 4 : start + 5] not in ("", " "):
            raise TrfError(
                line_number,
                f"{where}: column {start + 5} must be blank (start ranks are in columns "
                "37-40, 42-45, 47-50...)",
            )
        players.append(int(text))
    if not players:
        raise TrfError(line_number, f"team {name!r}: no player (start rank in columns 37-40)")
    return Team(name=name, players=tuple(players))


def _check_teams(records: list[tuple[int, Team]], entrants: dict[int, Entrant]) -> tuple[Team, ...]:
    """The teams of the file, refused if one names a player the file does not have, or one
    already in a team, or a name already taken (TEAM_NAME_COLUMNS, Decision)."""
    named: dict[str, int] = {}
    placed: dict[int, tuple[str, int, int]] = {}  # start rank -> team, its line, board
    for line_number, team in records:
        if team.name in named:
            raise TrfError(line_number, f"team {team.name!r} is already on line {named[team.name]}")
        named[team.name] = line_number
        for board, number in enumerate(team.players, start=1):
            where = f"team {team.name!r}, board {board}: start rank {number}"
            if number not in entrants:
                raise TrfError(line_number, f"{where} has no 001 line")
            if number in placed:
                other, other_line, other_board = placed[number]
                raise TrfError(
                    line_number,
                    f"{where} is already on board {other_board} of team {other!r}"
                    f" (line {other_line})",
                )
            placed[number] = (team.name, line_number, board)
    return tuple(team for _, team in records)


def _check_points(
    stated: dict[int, str],
    lines: dict[int, int],
    points: _PointSystem,
    games: list[GameResult],
    byes: list[Bye],
    announced: list[Bye],
    played: int,
) -> None:
    """Refuse a points column that contradicts the results (module docstring, Decision)."""
    total = dict.fromkeys(stated, 0)  # platform units
    for g in games:
        total[g.white] += g.white_points
        total[g.black] += g.black_points
    for b in byes:
        total[b.player] += b.points
    ahead = {b.player: b.points for b in announced}
    unit = float(points.written["draw"])  # a platform point (a draw) in the file's units
    for number, text in stated.items():
        if not text:
            continue
        value = _points_value(text)
        given = [total[number]] + ([total[number] + ahead[number]] if ahead.get(number) else [])
        if value is not None and any(abs(value - g * unit) < 1e-9 for g in given):
            continue
        rounds = f"rounds 1-{played}" if played > 1 else "round 1"
        results = (
            f"the results of {rounds} give {_points_text(given[0] * unit)}"
            if played
            else f"no round has been played ({_points_text(0)})"
        )
        message = f"player {number}: the points column (columns 81-84) says {text}, but {results}"
        if len(given) > 1:
            message += (
                f" ({_points_text(given[1] * unit)} with the bye announced for round {played + 1})"
            )
        raise TrfError(lines[number], message)


def _points_value(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0 <= value < float("inf") else None


def _points_text(value: float) -> str:
    """Points as a TRF file writes them: one decimal ("2.5", "3.0"), more only if needed."""
    return f"{value:.1f}" if abs(round(value, 1) - value) < 1e-9 else f"{value:g}"


def _integer(text: str, line_number: int, message: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise TrfError(line_number, f"{message} (found {text!r})") from None


# The values a point system gives, with FIDE's defaults (in the file's own units).
# The values a point system gives, with FIDE's defaults (in the file's own units, as written).
_POINT_DEFAULTS = {
    "win": "1.0",
    "draw": "0.5",
    "loss": "0",
    "zero-point bye": "0",
    "forfeit loss": "0",
}
_POINT_LINES = {  # JaVaFo / bbpPairings
    "BBW": ("win",),
    "BBD": ("draw",),
    "BBL": ("loss",),
    "BBZ": ("zero-point bye",),
    "BBF": ("forfeit loss",),
    "BBU": ("pairing-allocated bye",),
}
_162_CODES = {
    "W": ("win",),
    "D": ("draw",),
    "L": ("loss",),
    "A": ("zero-point bye", "forfeit loss"),
    "P": ("pairing-allocated bye",),
}


class _PointSystem:
    """What the file declares a result is worth, and on which line (for the message).

    Values are compared as floats: doubling is exact in binary, so for the short decimals of a
    TRF file `win == 2 * draw` holds exactly when it holds for the numbers as written.
    """

    def __init__(self) -> None:
        self.written: dict[str, str] = dict(_POINT_DEFAULTS)
        self.where: dict[str, tuple[int, str]] = {}  # line number, its words

    def read(self, code: str, line: str, line_number: int) -> None:
        words = line[3:].replace("=", " ").split()
        if code in _POINT_LINES:
            if len(words) != 1:
                raise TrfError(line_number, f"{code} needs one number of points")
            pairs = [(code, words[0], _POINT_LINES[code])]
        else:
            if not words or len(words) % 2:
                raise TrfError(line_number, "162 needs pairs of a code and points (W 2.0 D 1.0)")
            pairs = []
            for letter, value in zip(words[::2], words[1::2], strict=True):
                if letter not in _162_CODES:
                    raise TrfError(
                        line_number, f"162: point code {letter!r} is not W, D, L, A or P"
                    )
                pairs.append((f"162 {letter}", value, _162_CODES[letter]))
        for label, value, keys in pairs:
            try:
                points = float(value)
            except ValueError:
                points = -1.0
            if not 0 <= points < float("inf"):  # also refuses NaN
                raise TrfError(line_number, f"{label}: {value!r} is not a number of points")
            for key in keys:
                self.written[key] = value
                self.where[key] = (line_number, f"{label} {value}")

    def check(self) -> None:
        """Refuse a point system that is not 2/1/0 scaled (see the module docstring)."""
        written = self.written
        written.setdefault("pairing-allocated bye", written["win"])  # a bye is worth a win
        value = {key: float(text) for key, text in written.items()}
        win, draw = value["win"], value["draw"]
        supported = "only point systems in which a win is worth two draws (1/0.5/0, 2/1/0)"
        if win <= 0 or win != 2 * draw:
            key = "win" if "win" in self.where else "draw"
            self._refuse(
                key,
                f"a win worth {written['win']} and a draw worth {written['draw']}: "
                f"the Lim system pairs {supported}",
            )
        for key in ("loss", "zero-point bye", "forfeit loss"):
            if value[key] != 0:
                self._refuse(key, f"a {key} worth {written[key]}: it must be worth nothing")
        if value["pairing-allocated bye"] != win:
            self._refuse(
                "pairing-allocated bye",
                f"a pairing-allocated bye worth {written['pairing-allocated bye']}: "
                f"it must be worth a win ({written['win']})",
            )

    def _refuse(self, key: str, reason: str) -> None:
        line_number, declared = self.where.get(key, (1, key))
        raise TrfError(line_number, f"{declared}: {reason}; the file cannot be paired as it is")


def _read_player(line: str, line_number: int) -> tuple[Entrant, list[_Entry]]:
    if len(line) < 84:
        raise TrfError(line_number, "player line (001) shorter than the 84 columns it needs")
    number = _integer(line[4:8].strip(), line_number, "start rank (columns 5-8) is not a number")
    if number < 1:
        raise TrfError(line_number, "start rank must be at least 1")
    rating_text = line[48:52].strip()
    rating = None
    if rating_text:
        rating = _integer(rating_text, line_number, "rating (columns 49-52) is not a number")
        rating = rating or None
    entrant = Entrant(number=number, name=line[14:47].strip(), rating=rating)
    entries = []
    round_number = 0
    for start in range(ROUND_COLUMN, len(line), BLOCK):
        round_number += 1
        block = line[start : start + 8].ljust(8)
        if not block.strip():
            continue
        opponent_text, colour, result = block[0:4].strip(), block[5], block[7]
        where = f"round {round_number} (column {start + 1})"
        opponent = 0
        if opponent_text:
            opponent = _integer(opponent_text, line_number, f"{where}: opponent is not a number")
        if colour.lower() not in ("w", "b", "-", " "):
            raise TrfError(line_number, f"{where}: colour {colour!r} is not w, b or -")
        if opponent and result not in GAME_CODES:
            raise TrfError(line_number, f"{where}: result {result!r} is not a game result")
        if not opponent and result not in BYE_CODES:
            raise TrfError(line_number, f"{where}: result {result!r} is not valid without opponent")
        if opponent == number:
            raise TrfError(line_number, f"{where}: a player cannot meet themselves")
        entries.append(_Entry(line_number, number, round_number, opponent, colour.lower(), result))
    return entrant, entries


def _build_rounds(
    entries: list[_Entry], entrants: dict[int, Entrant]
) -> tuple[list[GameResult], list[Bye], frozenset[int]]:
    by_key = {(e.player, e.round): e for e in entries}
    games: list[GameResult] = []
    byes: list[Bye] = []
    for e in entries:
        if not e.opponent:
            kind = BYE_CODES[e.result]
            byes.append(Bye(e.round, e.player, kind, BYE_POINTS[kind]))
            continue
        if e.opponent not in entrants:
            raise TrfError(e.line_number, f"round {e.round}: opponent {e.opponent} has no 001 line")
        other = by_key.get((e.opponent, e.round))
        if other is None or other.opponent != e.player:
            raise TrfError(
                e.line_number,
                f"round {e.round}: {e.player} meets {e.opponent}, but {e.opponent}'s line disagrees",
            )
        if e.player > e.opponent:
            continue  # the pair is built once, from its lower start rank
        if {e.colour, other.colour} == {"w", "b"}:
            white, black = (e, other) if e.colour == "w" else (other, e)
        elif e.colour == other.colour == "-" and e.result in "+-" and other.result in "+-":
            white, black = e, other  # unplayed, colours never given
        else:
            raise TrfError(
                e.line_number, f"round {e.round}: {e.player} and {e.opponent} colours clash"
            )
        white_points, white_played = GAME_CODES[white.result]
        black_points, black_played = GAME_CODES[black.result]
        if white_played != black_played or (
            white_played and white_points + black_points != WIN_POINTS
        ):
            raise TrfError(
                e.line_number,
                f"round {e.round}: results of {e.player} and {e.opponent} do not match",
            )
        games.append(
            GameResult(
                round=e.round,
                white=white.player,
                black=black.player,
                white_points=white_points,
                black_points=black_points,
                played=white_played and black_played,
            )
        )
    return games, byes, frozenset()


def write_trf(tournament: Tournament) -> str:
    """Write the tournament as TRF-16 with 2/1/0 scoring (BBW/BBD).

    Every field stays in its columns and on its line, whatever a name holds: names go through
    `one_line` (no control character, line separator or format character can start a line
    or hide text) and are cut to their 33 columns; a number too large for its columns raises
    ValueError rather than shift the ones after it.
    """
    if tournament.double_games:
        raise ValueError("double games have no TRF-16 form")
    scores = tournament.scores_after(tournament.rounds_played)
    order = sorted(tournament.entrants, key=lambda e: (-scores[e.number], e.number))
    rank = {e.number: i for i, e in enumerate(order, start=1)}
    blocks: dict[tuple[int, int], str] = {}
    for g in tournament.games:
        codes = _game_codes(g)
        blocks[(g.white, g.round)] = f"{g.black:4d} w {codes[0]}"
        blocks[(g.black, g.round)] = f"{g.white:4d} b {codes[1]}"
    bye_code = {BYE_PAIRING_ALLOCATED: "U", BYE_FULL: "F", BYE_HALF: "H", BYE_ZERO: "Z"}
    for b in tournament.byes:
        blocks[(b.player, b.round)] = f"0000 - {bye_code[b.kind]}"
    next_round = tournament.rounds_played + 1
    for number in tournament.absent_next:
        blocks[(number, next_round)] = "0000 - Z"
    last = max([r for _, r in blocks], default=0)
    lines = [f"012 {one_line(tournament.name)}".rstrip()]
    for e in sorted(tournament.entrants, key=lambda e: e.number):
        rating = e.rating or 0
        # TRF-16 columns: start rank 5-8, rating 49-52, points 81-84 ("11.5"), rank 86-89.
        if not (1 <= e.number <= 9999 and 0 <= rating <= 9999 and 0 <= scores[e.number] < 100):
            raise ValueError(f"player {e.number}: a number does not fit its TRF-16 columns")
        name = one_line(e.name)[:33].rstrip()
        head = (
            f"001 {e.number:4d}      {name:<33} {rating:4d}"
            f"{'':28}{scores[e.number]:4.1f} {rank[e.number]:4d}"
        )
        rounds = "".join(f"  {blocks.get((e.number, r), ''):<8}" for r in range(1, last + 1))
        lines.append((head + rounds).rstrip())
    lines.extend(team_lines(tournament))
    # TRF-2026: the number of rounds, the colour of #1 in round 1, the point system (a code
    # every nine columns from column 6, its points in the four after it).
    lines.append(f"142 {tournament.total_rounds}")
    lines.append(f"152 {'W' if tournament.first_colour == WHITE else 'B'}")
    points = {"W": WIN_POINTS, "D": DRAW_POINTS, "L": 0, "A": 0, "P": WIN_POINTS}
    lines.append("162 " + "   ".join(f" {code}{value:4.1f}" for code, value in points.items()))
    # The same for JaVaFo and bbpPairings, which read their own tags.
    lines.append(f"XXR {tournament.total_rounds}")
    lines.append("XXC white1" if tournament.first_colour == WHITE else "XXC black1")
    lines.append(f"BBW {WIN_POINTS:4.1f}")
    lines.append(f"BBD {DRAW_POINTS:4.1f}")
    return "\n".join(lines) + "\n"


def team_lines(tournament: Tournament) -> list[str]:
    """The `013` line of each team of the tournament, in its order (TEAM_NAME_COLUMNS).

    Raises ValueError, naming the team, for a name empty or longer than its 32 columns (after
    `one_line`), a name already taken, a team without players, a start rank that is not one of
    the tournament's entrants or a player already in a team.
    """
    numbers = {e.number for e in tournament.entrants}
    named: set[str] = set()
    placed: dict[int, str] = {}
    lines = []
    for team in tournament.teams:
        name = one_line(team.name)
        if not name:
            raise ValueError("a team needs a name (TRF-16 013, columns 5-36)")
        if len(name) > TEAM_NAME_COLUMNS:
            raise ValueError(
                f"team {name!r}: the name has {len(name)} characters, "
                f"TRF-16 gives it {TEAM_NAME_COLUMNS} (013, columns 5-36)"
            )
        if name in named:
            raise ValueError(f"two teams are named {name!r}")
        named.add(name)
        if not team.players:
            raise ValueError(f"team {name!r} has no player")
        for board, number in enumerate(team.players, start=1):
            if number not in numbers:
                raise ValueError(
                    f"team {name!r}, board {board}: start rank {number} is not a player"
                )
            if number in placed:
                raise ValueError(
                    f"team {name!r}, board {board}: player {number} is already in team "
                    f"{placed[number]!r}"
                )
            placed[number] = name
        lines.append(f"013 {name:<{TEAM_NAME_COLUMNS}}" + " ".join(f"{n:4d}" for n in team.players))
    return lines


def one_line(text: str) -> str:
    """A TRF field's text: control characters and line or paragraph separators become spaces
    (each would end the line for a reader: `str.splitlines` splits on \\x0b, \\x1c, \\x85,
    U+2028...), format characters such as the bidirectional override U+202E and lone
    surrogates are removed, runs of white space become one space and the ends are trimmed.
    The same rule as `games.rules.base.plain_text`, restated: the engine imports no app."""
    import unicodedata

    kept = []
    for char in text:
        category = unicodedata.category(char)
        if category in ("Cc", "Zl", "Zp"):
            kept.append(" ")
        elif category not in ("Cf", "Cs"):
            kept.append(char)
    return " ".join("".join(kept).split())


def _game_codes(g: GameResult) -> tuple[str, str]:
    if not g.played:
        return ("+" if g.white_points else "-", "+" if g.black_points else "-")
    points_code = {WIN_POINTS: "1", DRAW_POINTS: "=", 0: "0"}
    return (points_code[g.white_points], points_code[g.black_points])
