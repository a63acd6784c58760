"""Engines for the failure tests: a UCI engine that answers the handshake and a few searches,
then dies (a crash mid-game), written as an executable script in a test's folder."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

CRASHING = """
import sys
searches = 0
for line in sys.stdin:
    command = line.strip()
    if command == "uci":
        print("id name crashing", flush=True)
        print("uciok", flush=True)
    elif command == "isready":
        print("readyok", flush=True)
    elif command.startswith("go"):
        searches += 1
        if searches > {survive}:
            sys.exit(3)
        print("info depth 1 score cp 10 nodes 1 pv e2e4", flush=True)
        print("bestmove e2e4", flush=True)
    elif command == "quit":
        break
"""


def crashing_engine(folder: Path, survive: int = 1) -> str:
    """The path of an engine that dies at its search number `survive + 1` (its answers are
    the start position's: let it survive only searches of that)."""
    script = folder / "crashing_engine.py"
    script.write_text(CRASHING.replace("{survive}", str(survive)))
    launcher = folder / "crashing-engine"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {script}\n")
    launcher.chmod(launcher.stat().st_mode | stat.S_IXUSR)
    return str(launcher)
