"""The command line ``python -m games.rules`` (a stable interface)."""

import subprocess
import sys
from pathlib import Path

import pytest

from games.rules import variant
from games.rules.__main__ import main

REPO = Path(__file__).resolve().parents[3]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_perft(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["perft", "international", "3"], capsys) == (0, "658\n", "")
    fen = variant("italian").replay(["21-17", "10-14", "17-13"])[-1]
    code, out, _ = run(["perft", "italian", "1", "--fen", fen], capsys)
    assert (code, out) == (0, f"{len(variant('italian').legal_moves(fen))}\n")


def test_moves_in_notation(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["moves", "english", variant("english").start_fen()], capsys)
    assert code == 0
    assert out.split() == ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    _, out, _ = run(["moves", "chess", fen], capsys)
    assert "0-0" in out.split("\n") and "0-0-0" in out.split("\n") and "Td1" in out.split()
    _, out, _ = run(["moves", "chess", fen, "--lang", "en"], capsys)
    assert "Rd1" in out.split()


def test_play(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["play", "italian", "21-17", "10-14", "17-13", "14x21"], capsys)
    assert code == 1  # 14x21 is not legal: Black must capture 9x18
    code, out, _ = run(["play", "italian", "21-17", "10-14", "17-13", "9x18"], capsys)
    assert code == 0
    assert out.strip() == variant("italian").replay(["21-17", "10-14", "17-13", "9x18"])[-1]
    code, out, _ = run(["play", "chess", "e4", "e7e5", "Nf3"], capsys)
    assert code == 0 and out.startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b")


def test_illegal_move_is_named_with_exit_status_1() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "games.rules", "play", "chess", "e4", "e4"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert "ply 2: e4" in result.stderr
