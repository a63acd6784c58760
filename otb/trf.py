"""The TRF-16 of an over-the-board tournament (RULES 13.10): the engine's writer
(`events.pairing.trf.write_trf`, with TRF-2026's 142/152/162 tags and JaVaFo's), and what
the federations ask besides: the header lines (012-122) and, on every 001 line, sex, federation,
FIDE id, birth date and the rank by the tiebreaks. The added columns are ones the engine's
reader does not read, so the file reads back to the same tournament."""

from __future__ import annotations

from events.pairing.trf import one_line, write_trf
from otb import selectors
from otb.models import OtbTournament
from otb.rules import MAX_FIDE_ID

FEDERATION = "ITA"  # RULES 13.10 Decision: the players of an Italian club's tournament


def _put(line: str, start: int, text: str) -> str:
    """`text` at 1-based column `start`, the line padded to reach it."""
    line = line.ljust(start - 1 + len(text))
    return line[: start - 1] + text + line[start - 1 + len(text) :]


def otb_trf(tournament: OtbTournament) -> str:
    engine = selectors.engine_tournament(tournament)
    text = write_trf(engine)
    players = {p.number: p for p in selectors.numbered_players(tournament)}
    rank = {row.player.number: row.rank for row in selectors.standings(tournament)}
    arbiters = [a.get_full_name() or a.username for a in tournament.arbiters.all()]
    chief = tournament.organizer
    rated = sum(1 for p in players.values() if selectors.pairing_rating(p))
    kind = "Round Robin (Berger)" if tournament.format == "round_robin" else "Swiss System (Lim)"
    header = [
        f"012 {one_line(tournament.name)}",
        f"022 {one_line(tournament.venue)}",
        f"032 {FEDERATION}",
        f"042 {tournament.starts_on:%Y/%m/%d}",
        f"052 {tournament.ends_on:%Y/%m/%d}",
        f"062 {len(players)}",
        f"072 {rated}",
        f"092 {kind}",
        f"102 {one_line((chief.get_full_name() or chief.username) if chief else '')}",
        f"112 {one_line(', '.join(arbiters))}",
        f"122 {one_line(tournament.time_control)}",
    ]
    lines = []
    for line in text.splitlines():
        if line.startswith("012 "):
            lines.extend(h.rstrip() for h in header)
            continue
        if line.startswith("001 "):
            p = players[int(line[4:8])]
            if p.sex:
                line = _put(line, 10, p.sex)
            line = _put(line, 54, FEDERATION)
            if p.fide_id:
                if p.fide_id > MAX_FIDE_ID:  # as the engine's writer: never cut nor shifted
                    raise ValueError(f"player {p.number}: the FIDE id does not fit its columns")
                line = _put(line, 58, f"{p.fide_id:>11d}")
            if p.birth_year:
                line = _put(line, 70, f"{p.birth_year:04d}/00/00")
            line = _put(line, 86, f"{rank.get(p.number, 0):4d}")
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"
