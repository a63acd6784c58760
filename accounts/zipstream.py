"""A ZIP file written a piece at a time, by one process after another (the data archive's
chunks, accounts/archive.py): pure Python, no Django (STYLE 1).

Each piece of an entry is deflated on its own and ended with a sync flush (zlib's
Z_SYNC_FLUSH: the blocks end on a byte boundary and none is marked final), so the pieces
written by different processes, one after the other, are one valid deflate stream; the entry is
closed by an empty final block. This is how pigz writes one stream from many threads. The
local header says its sizes and CRC follow the data (general purpose flag bit 3, a data
descriptor after the data), so nothing written is ever rewritten, and the central directory is
written last. What a process must hand to the next (where each entry starts, its CRC and sizes
so far) is a small JSON-able dict, `state`.

A file that grew past what `state` says (a process killed after writing a piece but before its
state was saved) is cut back to `state["length"]` before the next piece (`resume`).

No ZIP64: an entry, and the whole file, stay under 4 GiB (`TooLarge`), far above what a player's
data could be (a thousand games are about a megabyte of PGN).
"""

from __future__ import annotations

import struct
import zlib
from datetime import datetime
from pathlib import Path
from typing import Any

LIMIT = 0xFFFFFFFF
_LOCAL = 0x04034B50
_CENTRAL = 0x02014B50
_END = 0x06054B50
_DESCRIPTOR = 0x08074B50
_VERSION = 20  # 2.0: deflate
_FLAGS = 0x0008 | 0x0800  # sizes in a data descriptor; names in UTF-8
_DEFLATED = 8
_LEVEL = 6


class TooLarge(Exception):
    """The file would pass ZIP's 4 GiB without ZIP64."""


def new_state(moment: datetime) -> dict[str, Any]:
    return {"length": 0, "entries": [], "open": None, "dos": list(_dos_time(moment))}


def _dos_time(moment: datetime) -> tuple[int, int]:
    year = max(moment.year, 1980)
    date = (year - 1980) << 9 | moment.month << 5 | moment.day
    time = moment.hour << 11 | moment.minute << 5 | moment.second // 2
    return time, date


def resume(path: Path, state: dict[str, Any]) -> None:
    """The file as `state` left it: created empty at the start, cut back to its length after."""
    if state["length"] == 0:
        path.write_bytes(b"")
        return
    with path.open("r+b") as file:
        file.truncate(state["length"])


def _append(path: Path, state: dict[str, Any], data: bytes) -> None:
    if state["length"] + len(data) > LIMIT:
        raise TooLarge(str(path))
    with path.open("ab") as file:
        file.write(data)
    state["length"] += len(data)


def entry_open(path: Path, state: dict[str, Any], name: str) -> None:
    """Start the entry `name` (its local header); the one open before must be closed."""
    assert state["open"] is None, state["open"]
    encoded = name.encode()
    time, date = state["dos"]
    header = struct.pack(
        "<IHHHHHIIIHH",
        _LOCAL,
        _VERSION,
        _FLAGS,
        _DEFLATED,
        time,
        date,
        0,  # CRC, compressed and uncompressed sizes: in the data descriptor
        0,
        0,
        len(encoded),
        0,
    )
    offset = state["length"]
    _append(path, state, header + encoded)
    state["open"] = {"name": name, "offset": offset, "crc": 0, "size": 0, "compressed": 0}


def entry_write(path: Path, state: dict[str, Any], text: str) -> None:
    """Append `text` (UTF-8) to the open entry: one piece of its deflate stream."""
    entry = state["open"]
    data = text.encode()
    if not data:
        return
    compressor = zlib.compressobj(_LEVEL, zlib.DEFLATED, -15)
    piece = compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)
    if entry["size"] + len(data) > LIMIT:
        raise TooLarge(entry["name"])
    _append(path, state, piece)
    entry["crc"] = zlib.crc32(data, entry["crc"])
    entry["size"] += len(data)
    entry["compressed"] += len(piece)


def entry_close(path: Path, state: dict[str, Any]) -> None:
    """End the open entry: the final (empty) deflate block, then its data descriptor."""
    entry = state["open"]
    final = zlib.compressobj(_LEVEL, zlib.DEFLATED, -15).flush(zlib.Z_FINISH)
    entry["compressed"] += len(final)
    descriptor = struct.pack("<IIII", _DESCRIPTOR, entry["crc"], entry["compressed"], entry["size"])
    _append(path, state, final + descriptor)
    state["entries"].append(entry)
    state["open"] = None


def finish(path: Path, state: dict[str, Any]) -> int:
    """Write the central directory and its end record; return the file's size."""
    assert state["open"] is None, state["open"]
    time, date = state["dos"]
    start = state["length"]
    directory = b""
    for entry in state["entries"]:
        encoded = entry["name"].encode()
        directory += (
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                _CENTRAL,
                _VERSION,
                _VERSION,
                _FLAGS,
                _DEFLATED,
                time,
                date,
                entry["crc"],
                entry["compressed"],
                entry["size"],
                len(encoded),
                0,
                0,
                0,
                0,
                0o100644 << 16,  # a regular file, rw-r--r--
                entry["offset"],
            )
            + encoded
        )
    count = len(state["entries"])
    end = struct.pack("<IHHHHIIH", _END, 0, 0, count, count, len(directory), start, 0)
    _append(path, state, directory + end)
    return state["length"]
