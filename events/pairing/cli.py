"""`python -m events.pairing …`: the engine's command line (a stable interface).

- `berger N`: the round-robin schedule as JSON.
- `rounds N --threshold T [--extra] [--double]`: format and number of rounds as JSON.
- `pair FILE.trf`: the next round in JaVaFo/bbpPairings output form. Exit 0 on success, 1 when
  no legal pairing exists, 3 on a malformed, unreadable or refused file (the message names the
  line).
- `standings FILE.trf [--format swiss|round_robin]`: the standings as JSON, in rank order.
- `simulate --players N --rounds R --seed S [--draws PCT]`: a whole random Swiss.
- `check FILE.trf`: every round of a played Swiss paired again from the state before it and
  judged against LIM.md's absolute rules (`checker`); exit 0 when every round agrees, 1 when
  one breaks a rule or differs from ours, 3 on an unreadable file.
- `random --players N --rounds R --seed S [--draws PCT] [--absences PCT] [--forfeits PCT]`:
  a random Swiss paired by us, as a TRF-16 file on standard output (for `check`, or any
  other program).

Start-up (under 40 ms byte-compiled, docs/benchmarks.md "bench-pairing"): a process imports
only what its subcommand needs, each handler doing its own imports, and `pair FILE` — the call
other programs make once per round — does not even build the argument parser (argparse and
what it pulls in cost several milliseconds). Every other form, `pair --help` included, goes
through argparse.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (about 2 ms)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from .model import Pairing, PlayerState, Tournament

EXIT_OK = 0
EXIT_NO_PAIRING = 1
EXIT_USAGE = 2
EXIT_BAD_FILE = 3


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        if len(arguments) == 2 and arguments[0] == "pair" and not arguments[1].startswith("-"):
            return _pair_file(arguments[1])  # the hot path: no argument parser
        args = _parser().parse_args(arguments)
        return args.handler(args)
    except BrokenPipeError:  # output piped into `head`: not an error of ours
        sys.stderr.close()
        return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m events.pairing",
        description="Pairing engine: Berger round robin, Lim Swiss, round counts, standings.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    berger = commands.add_parser("berger", help="round-robin schedule (RULES 5.1) as JSON")
    berger.add_argument("players", type=_positive, help="number of players (2 or more)")
    berger.set_defaults(handler=_berger)

    rounds = commands.add_parser("rounds", help="format and number of rounds (RULES 4.4)")
    rounds.add_argument("players", type=int, help="players present at the start (4-200)")
    rounds.add_argument("--threshold", type=int, default=7, help="threshold 7-20 (default 7)")
    rounds.add_argument("--extra", action="store_true", help="the organiser asked an extra round")
    rounds.add_argument("--double", action="store_true", help="double games (andata e ritorno)")
    rounds.set_defaults(handler=_rounds)

    pair = commands.add_parser(
        "pair",
        help="pair the next round of a TRF-16 file (Lim system)",
        description="Print the number of pairs, then 'white black' per pair (start ranks); "
        "the bye as 'player 0'. Exit 0 ok, 1 no legal pairing, 3 malformed or refused file "
        "(a point system other than 2/1/0 scaled, more than 1,000 players, points that "
        "contradict the results).",
    )
    pair.add_argument("file", help="TRF-16 file (XXR, XXC, BBW/BBD understood)")
    pair.set_defaults(handler=_pair)

    standings = commands.add_parser("standings", help="standings of a TRF-16 file as JSON")
    standings.add_argument("file", help="TRF-16 file")
    standings.add_argument(
        "--format", choices=("swiss", "round_robin"), default="swiss", help="tiebreak order"
    )
    standings.set_defaults(handler=_standings)

    check = commands.add_parser(
        "check", help="judge every round of a played Swiss (TRF-16) by the Lim rules"
    )
    check.add_argument("file", help="TRF-16 file of a played tournament")
    check.set_defaults(handler=_check)

    made = commands.add_parser("random", help="a random Swiss paired by us, as TRF-16")
    made.add_argument("--players", type=_positive, required=True)
    made.add_argument("--rounds", type=_positive, required=True)
    made.add_argument("--seed", type=int, default=1)
    made.add_argument("--draws", type=float, default=20.0, help="percent of drawn games")
    made.add_argument("--absences", type=float, default=0.0, help="percent absent per round")
    made.add_argument("--forfeits", type=float, default=0.0, help="percent of unplayed games")
    made.set_defaults(handler=_random)

    sim = commands.add_parser("simulate", help="play a random Swiss through our own pairing")
    sim.add_argument("--players", type=_positive, required=True)
    sim.add_argument("--rounds", type=_positive, required=True)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--draws", type=float, default=20.0, help="percentage of draws (20)")
    sim.set_defaults(handler=_simulate)
    return parser


def _positive(text: str) -> int:
    import argparse

    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be a positive number")
    return value


def _berger(args: argparse.Namespace) -> int:
    import json

    from .berger import berger_schedule

    try:
        schedule = berger_schedule(args.players)
    except ValueError as exc:
        print(f"berger: {exc}", file=sys.stderr)
        return EXIT_USAGE
    payload = {
        "players": args.players,
        "rounds": [
            {"round": r.number, "pairs": [list(p) for p in r.pairs], "bye": r.bye} for r in schedule
        ],
    }
    print(json.dumps(payload))
    return EXIT_OK


def _rounds(args: argparse.Namespace) -> int:
    import json

    from .rounds import plan_tournament

    try:
        plan = plan_tournament(args.players, args.threshold, args.extra, args.double)
    except ValueError as exc:
        print(f"rounds: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(json.dumps({"format": plan.format, "rounds": plan.rounds, "double": plan.double}))
    return EXIT_OK


def _read(path: str) -> str:
    """The file's text; never more than the TRF reader accepts (it refuses the rest)."""
    from .trf import MAX_TRF_CHARS, TrfError

    try:
        with open(path, "rb") as handle:
            data = handle.read(4 * MAX_TRF_CHARS + 1)  # UTF-8: up to 4 bytes a character
    except OSError as exc:
        raise TrfError(0, f"cannot read the file ({exc.strerror})") from None
    if len(data) > 4 * MAX_TRF_CHARS:
        raise TrfError(1, f"the file is larger than {MAX_TRF_CHARS:,} characters")
    return data.decode("utf-8", errors="replace")


def _read_tournament(path: str) -> Tournament | None:
    """The TRF file at `path`, or None when it cannot be read (the message on stderr)."""
    from .trf import TrfError, read_trf

    try:
        return read_trf(_read(path))
    except TrfError as exc:
        print(f"{path}: {exc}", file=sys.stderr)
        return None


def _pair(args: argparse.Namespace) -> int:
    return _pair_file(args.file)


def _pair_file(path: str) -> int:
    from .lim import NoLegalPairing, pair_round

    tournament = _read_tournament(path)
    if tournament is None:
        return EXIT_BAD_FILE
    states = tournament.player_states()
    try:
        pairing = pair_round(states, tournament.next_round_spec())
    except NoLegalPairing as exc:
        print(f"no legal pairing: {exc}", file=sys.stderr)
        return EXIT_NO_PAIRING
    print(format_pairing(pairing, states))
    return EXIT_OK


def format_pairing(pairing: Pairing, states: Sequence[PlayerState]) -> str:
    """JaVaFo's output: number of pairs, then 'white black' per board, the bye as 'n 0'."""
    score = {p.number: p.score for p in states}
    boards = sorted(
        pairing.games,
        key=lambda g: (
            -max(score[g.white], score[g.black]),
            -min(score[g.white], score[g.black]),
            min(g.white, g.black),
        ),
    )
    lines = [f"{g.white} {g.black}" for g in boards]
    if pairing.bye is not None:
        lines.append(f"{pairing.bye} 0")
    return "\n".join([str(len(lines)), *lines])


def _standings(args: argparse.Namespace) -> int:
    import json

    from .standings import round_robin_standings, swiss_standings

    tournament = _read_tournament(args.file)
    if tournament is None:
        return EXIT_BAD_FILE
    if args.format == "swiss":
        table = swiss_standings(tournament)
    else:
        table = round_robin_standings(tournament)
    print(json.dumps([s.as_dict() for s in table], indent=1))
    return EXIT_OK


def _simulate(args: argparse.Namespace) -> int:
    from .simulate import format_report, simulate

    report = simulate(args.players, args.rounds, args.seed, args.draws)
    print(format_report(report))
    return EXIT_OK if report.violations == 0 else EXIT_NO_PAIRING


def _check(args: argparse.Namespace) -> int:
    from .checker import check_tournament, format_findings

    tournament = _read_tournament(args.file)
    if tournament is None:
        return EXIT_BAD_FILE
    findings = check_tournament(tournament)
    print(format_findings(findings))
    return EXIT_OK if all(f.agrees for f in findings) else EXIT_NO_PAIRING


def _random(args: argparse.Namespace) -> int:
    from .simulate import simulate
    from .trf import write_trf

    report = simulate(
        args.players,
        args.rounds,
        args.seed,
        args.draws,
        absence_percent=args.absences,
        forfeit_percent=args.forfeits,
    )
    print(write_trf(report.tournament), end="")
    return EXIT_OK
