"""A ZIP written a piece at a time by one process after another (accounts/zipstream.py): any
ZIP reader reads it whole, whatever a killed writer left past the saved length."""

from __future__ import annotations

import json
import random
import zipfile
from datetime import datetime

from accounts import zipstream


def test_pieces_from_many_processes_make_one_zip(tmp_path):
    path, rng = tmp_path / "a.zip", random.Random(7)
    state = zipstream.new_state(datetime(2026, 12, 6, 10, 30, 12))
    zipstream.resume(path, state)
    written = {}
    for name in ("account.json", "games.pdn", "games.pgn"):
        zipstream.entry_open(path, state, name)
        pieces = [
            "" if name == "games.pdn" else f"{name} {i} " + "é♟" * rng.randint(0, 3000)
            for i in range(12)
        ]
        for piece in pieces:
            # Each piece by "another process": the state went through JSON, and the one
            # before it was killed after writing, before its state was saved.
            state = json.loads(json.dumps(state))
            with path.open("ab") as file:
                file.write(b"half of a piece")
            zipstream.resume(path, state)
            zipstream.entry_write(path, state, piece)
        zipstream.entry_close(path, state)
        written[name] = "".join(pieces)
    size = zipstream.finish(path, state)
    assert size == path.stat().st_size
    archive = zipfile.ZipFile(path)
    assert archive.testzip() is None
    assert archive.namelist() == ["account.json", "games.pdn", "games.pgn"]
    for name, text in written.items():
        assert archive.read(name).decode() == text
    assert archive.getinfo("games.pgn").date_time == (2026, 12, 6, 10, 30, 12)
