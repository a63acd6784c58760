"""A Lim checker anyone can run on a played Swiss: `python -m events.pairing check FILE.trf`.

Every round of the file is paired again by this engine from the state before it — the file's
own earlier rounds, its absences of that round — and compared with the pairing the file says
was played; independently of that, the file's pairing is judged against LIM.md's absolute rules
(`checks.hard_rule_violations`, which restates them without calling the pairing code). A round
is reported when its pairing breaks an absolute rule (named by its LIM.md number) or differs
from ours. Each round is judged on the file's own history, so one round that differs does not
make every later one differ.

Pure: no Django; the file is read by `trf.read_trf`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .checks import hard_rule_violations
from .lim import NoLegalPairing, pair_round
from .model import BYE_PAIRING_ALLOCATED, Game, Pairing, PlayerState, Tournament

# LIM.md's number for each kind of absolute-rule violation `hard_rule_violations` reports (by
# the start of its message).
_RULE_OF = (
    ("rematch", "Lim 2"),  # never a rematch
    ("not every player", "Lim 1"),  # each player once: paired, or the one bye
    ("second bye", "Lim 1"),
    ("bye for", "Lim 1"),  # a forfeit winner never rests (FIDE C.04.1)
    ("bye to", "Lim 1"),  # the bye in the lowest group that can give it
    ("bye with an even", "Lim 1"),
    ("odd number", "Lim 1"),
)


def rule_of(violation: str) -> str:
    """The LIM.md rule a violation breaks (the colour limits are rule 2)."""
    for start, rule in _RULE_OF:
        if violation.startswith(start):
            return rule
    return "Lim 2"  # "n cannot have White/Black": rule 2's colour limits (and 10.1)


@dataclass(frozen=True)
class RoundFinding:
    round: int
    played: Pairing  # what the file says was paired
    ours: Pairing | None  # this engine's pairing of the same state; None if it found none
    broken: tuple[str, ...]  # "Lim 2: rematch 3-7", …

    @property
    def differs(self) -> bool:
        return self.ours is None or not _same(self.played, self.ours)

    @property
    def agrees(self) -> bool:
        return not self.broken and not self.differs


def _same(a: Pairing, b: Pairing) -> bool:
    return set(a.games) == set(b.games) and a.bye == b.bye


def _before(tournament: Tournament, number: int) -> Tournament:
    """The tournament as it stood before round `number`: earlier rounds only, and the players
    the file shows absent in that round (not paired: a requested bye, or no game at all)."""
    paired = {p for g in tournament.games if g.round == number for p in (g.white, g.black)}
    paired |= {
        b.player for b in tournament.byes if b.round == number and b.kind == BYE_PAIRING_ALLOCATED
    }
    absent = frozenset(e.number for e in tournament.entrants) - paired
    return replace(
        tournament,
        games=tuple(g for g in tournament.games if g.round < number),
        byes=tuple(b for b in tournament.byes if b.round < number),
        absent_next=absent,
        rounds_held=number - 1,  # also a round before it in which nobody played (Lim 3)
    )


def _played(tournament: Tournament, number: int) -> Pairing:
    games = tuple(
        Game(g.white, g.black) for g in tournament.games if g.round == number and g.leg == 1
    )
    bye = next(
        (
            b.player
            for b in tournament.byes
            if b.round == number and b.kind == BYE_PAIRING_ALLOCATED
        ),
        None,
    )
    return Pairing(games=games, bye=bye)


def check_round(tournament: Tournament, number: int) -> RoundFinding:
    """Round `number` of a played tournament, judged (module docstring)."""
    before = _before(tournament, number)
    states: list[PlayerState] = before.player_states()
    spec = before.next_round_spec()
    played = _played(tournament, number)
    broken = tuple(f"{rule_of(v)}: {v}" for v in hard_rule_violations(states, spec, played))
    try:
        ours: Pairing | None = pair_round(states, spec)
    except NoLegalPairing:
        ours = None
    return RoundFinding(number, played, ours, broken)


def check_tournament(tournament: Tournament) -> list[RoundFinding]:
    """Every played round, judged."""
    return [check_round(tournament, n) for n in range(1, tournament.rounds_played + 1)]


def _describe(pairing: Pairing | None) -> str:
    if pairing is None:
        return "no legal pairing (Lim 11)"
    boards = [f"{g.white}-{g.black}" for g in sorted(pairing.games, key=lambda g: g.white)]
    if pairing.bye is not None:
        boards.append(f"bye {pairing.bye}")
    return " ".join(boards)


def format_findings(findings: list[RoundFinding]) -> str:
    """One line per round: "agrees", or what the file's pairing breaks and how it differs."""
    lines = []
    for f in findings:
        if f.agrees:
            lines.append(f"round {f.round}: agrees")
            continue
        lines.append(f"round {f.round}:")
        lines.extend(f"  breaks {item}" for item in f.broken)
        if f.differs:
            lines.append(f"  file:  {_describe(f.played)}")
            lines.append(f"  ours:  {_describe(f.ours)}")
    return "\n".join(lines)
