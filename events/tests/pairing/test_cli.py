"""The command line is a stable interface: formats and exit codes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from events.pairing.berger import berger_schedule
from events.pairing.cli import main
from events.pairing.model import Entrant, GameResult, Tournament
from events.pairing.trf import write_trf

DATA = Path(__file__).parent / "data"
C5 = DATA / "bbppairings_dutch_2025_C5.trf"
ROOT = Path(__file__).resolve().parents[3]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_berger_json(capsys):
    code, out, _ = run(capsys, "berger", "5")
    data = json.loads(out)
    assert code == 0 and data["players"] == 5 and len(data["rounds"]) == 5
    assert data["rounds"][0] == {"round": 1, "pairs": [[2, 5], [3, 4]], "bye": 1}
    assert data["rounds"][1]["pairs"] == [list(p) for p in berger_schedule(5)[1].pairs]
    assert json.loads(run(capsys, "berger", "6")[1])["rounds"][0]["bye"] is None


def test_rounds_json(capsys):
    code, out, _ = run(capsys, "rounds", "200", "--threshold", "7", "--extra")
    assert code == 0
    assert json.loads(out) == {"format": "swiss", "rounds": 11, "double": False}
    out = run(capsys, "rounds", "4", "--threshold", "7")[1]
    assert json.loads(out) == {"format": "round_robin", "rounds": 3, "double": True}
    code, _, err = run(capsys, "rounds", "300", "--threshold", "7")
    assert code == 2 and "between 4 and 200" in err


def test_pair_prints_the_javafo_format(capsys):
    code, out, _ = run(capsys, "pair", str(C5))
    lines = out.split()
    assert code == 0
    count = int(lines[0])
    pairs = [tuple(map(int, line.split())) for line in out.strip().splitlines()[1:]]
    assert count == len(pairs) == 3
    # Five present players (4 is absent): two games and the bye as "player 0".
    assert sorted(n for p in pairs for n in p if n) == [1, 2, 3, 5, 6]
    assert sum(1 for p in pairs if p[1] == 0) == 1


def test_pair_exit_1_when_no_legal_pairing(tmp_path, capsys):
    # Four players who have all met: round 4 cannot be paired (Lim 11).
    rounds = {
        1: "     2 w 1     3 b 0     4 w =",
        2: "     1 b 0     4 w 1     3 w =",
        3: "     4 w =     1 w 1     2 b =",
        4: "     3 b =     2 b 0     1 b =",
    }
    points = {1: 1.5, 2: 1.5, 3: 2.0, 4: 1.0}  # columns 81-84
    lines = ["012 stuck"]
    for n, blocks in rounds.items():
        head = f"001 {n:4d}      Player{n:<27} {2000:4d}{'':28}{points[n]:4.1f} {n:4d}"
        lines.append(head + blocks)
    lines.append("XXR 5")
    path = tmp_path / "stuck.trf"
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "pair", str(path))
    assert code == 1 and out == "" and "no legal pairing" in err


def test_pair_exit_3_names_the_line(tmp_path, capsys):
    lines = C5.read_text().splitlines()
    lines[3] = lines[3].replace("6 w 1", "6 w ?")
    path = tmp_path / "bad.trf"
    path.write_text("\n".join(lines))
    code, out, err = run(capsys, "pair", str(path))
    assert code == 3 and out == ""
    assert "line 4" in err and "Traceback" not in err
    code, _, err = run(capsys, "pair", str(tmp_path / "missing.trf"))
    assert code == 3 and "cannot read" in err


def test_malformed_file_end_to_end_has_no_traceback(tmp_path):
    path = tmp_path / "bad.trf"
    path.write_bytes(b"012 x\n001    1      A\xff\n")
    result = subprocess.run(
        [sys.executable, "-m", "events.pairing", "pair", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 3
    assert "line 2" in result.stderr and "Traceback" not in result.stderr


def test_standings_json(capsys):
    code, out, _ = run(capsys, "standings", str(C5))
    table = json.loads(out)
    assert code == 0
    assert [row["player"] for row in table][:2] == [1, 3]  # 4 points each, 1 has more BH
    assert set(table[0]) == {
        "rank",
        "player",
        "name",
        "points",
        "buchholz_cut1",
        "sonneborn_berger",
        "wins",
    }
    code, out, _ = run(capsys, "standings", str(C5), "--format", "round_robin")
    assert code == 0 and len(json.loads(out)) == 6


def test_simulate_reports_no_violations(capsys):
    code, out, _ = run(capsys, "simulate", "--players", "25", "--rounds", "7", "--seed", "4")
    assert code == 0
    total = next(line for line in out.splitlines() if line.startswith("total"))
    assert int(total.split()[2]) == 0


@pytest.mark.parametrize("command", ["berger", "rounds", "pair", "standings", "simulate"])
def test_every_subcommand_has_help(command, capsys):
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    assert "usage" in capsys.readouterr().out


def test_pair_refuses_another_point_system_with_exit_3(tmp_path, capsys):
    # A 3/1/0 file is refused, naming the line, not scored 2/1/0 (the engine scores 2/1/0).
    path = tmp_path / "football.trf"
    lines = C5.read_text().splitlines() + ["BBW 3.0", "BBD 1.0"]
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "pair", str(path))
    assert code == 3 and out == ""
    assert f"line {len(lines) - 1}: BBW 3.0" in err
    code, out, _ = run(capsys, "standings", str(path))
    assert code == 3 and out == ""


def test_pair_refuses_files_over_the_size_cap_with_exit_3(tmp_path):
    # 10,000 players pair for minutes: the 1,001st player line is refused.
    many = tmp_path / "many.trf"
    many.write_text(
        "012 Many\n"
        + "".join(
            f"001 {n:4d}      {'P' + str(n):<33} {2000:4d}{'':28}{0.0:4.1f} {n:4d}\n"
            for n in range(1, 10_001)
        )
        + "XXR 9\n"
    )
    huge = tmp_path / "huge.trf"
    huge.write_bytes(b"012 x\n" + b"x" * 5_000_000)
    for path, words in ((many, "line 1002: more than 1,000 players"), (huge, "larger than")):
        result = subprocess.run(
            [sys.executable, "-m", "events.pairing", "pair", str(path)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        assert result.returncode == 3 and result.stdout == ""
        assert words in result.stderr and "Traceback" not in result.stderr


def test_pair_imports_only_what_it_needs():
    # `pair FILE` builds no argument parser and loads no other subcommand (its start-up is
    # under 40 ms byte-compiled, docs/benchmarks.md).
    script = (
        "import sys\n"
        "from events.pairing.cli import main\n"
        f"code = main(['pair', {str(C5)!r}])\n"
        "print(code, ' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True
    )
    code, *modules = result.stderr.split()
    assert code == "0" and result.stdout.startswith("3\n")
    assert "events.pairing.lim" in modules and "events.pairing.trf" in modules
    unwanted = {"argparse", "json", "decimal"} | {
        f"events.pairing.{name}" for name in ("berger", "checks", "rounds", "simulate", "standings")
    }
    assert unwanted.isdisjoint(modules)


def test_standings_a_forfeit_win_adds_nothing_to_sonneborn_berger(tmp_path, capsys):
    # RULES 4.10 Decision: #1 won round 1 by forfeit against #2 and drew #3, so
    # #1's SB is half of #3's points (engine units: win 2, draw 1), #2 still an opponent.
    path = tmp_path / "forfeit.trf"
    path.write_text(
        "012 Forfeit and draw\n"
        "001    1      Test0001 Player0001               2720"
        "                             1.5    1     2 w +     3 b =\n"
        "001    2      Test0002 Player0002               2701"
        "                             0.5    3     1 b -     4 w =\n"
        "001    3      Test0003 Player0003               2697"
        "                             1.5    2     4 w 1     1 w =\n"
        "001    4      Test0004 Player0004               2689"
        "                             0.5    4     3 b 0     2 b =\n"
        "XXR 2\n"
    )
    code, out, err = run(capsys, "standings", str(path))
    assert code == 0, err
    table = {row["player"]: row for row in json.loads(out)}
    assert table[3]["points"] == 3
    assert table[1]["sonneborn_berger"] == table[3]["points"] / 2 == 1.5
    assert table[1]["wins"] == 0
    assert table[1]["buchholz_cut1"] == 3 + 1 - 1  # #2 (1 point) counts as an opponent


def test_check_output_is_stable(tmp_path, capsys):
    # The exact lines of `check`: a round that agrees, and one that breaks a rule and differs.
    assert run(capsys, "check", str(C5)) == (0, "round 1: agrees\nround 2: agrees\n", "")
    games = [(1, 1, 3, 2, 0), (1, 2, 4, 2, 0), (2, 3, 1, 0, 2), (2, 2, 4, 1, 1)]
    rematch = Tournament(
        entrants=tuple(Entrant(n, f"p{n}", 2000 - 10 * n) for n in range(1, 5)),
        total_rounds=3,
        games=tuple(GameResult(*g) for g in games),
    )
    path = tmp_path / "rematch.trf"
    path.write_text(write_trf(rematch))
    assert run(capsys, "check", str(path)) == (
        1,
        "round 1:\n"
        "  file:  1-3 2-4\n"
        "  ours:  1-3 4-2\n"
        "round 2:\n"
        "  breaks Lim 2: rematch 2-4\n"
        "  breaks Lim 2: rematch 3-1\n"
        "  file:  2-4 3-1\n"
        "  ours:  2-1 4-3\n",
        "",
    )
