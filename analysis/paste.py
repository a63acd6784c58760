"""What a player pastes on the free analysis board (RULES 14.9): a FEN, a PGN (chess) or a PDN
(draughts), read into a start position and the moves of its main line. Pure (STYLE 1): the
rules of `games.rules` decide what is legal; nothing pasted is trusted.

Bounds, checked before anything is read: at most MAX_PASTE characters, at most MAX_MOVES moves.
Variations and comments of a pasted game are not kept (the board's own are made on it); its
moves are read with `games.rules.typed.read_move`, so a PDN's `22-18`, `22x13` or a capture by
its ends, and a PGN's SAN in English or Italian letters, are all read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from games.rules import variant
from games.rules.base import RulesError
from games.rules.typed import read_move

MAX_PASTE = 20_000  # characters: a long game's PGN with its clocks is under 10,000
MAX_MOVES = 500  # the analysis board's export cap by default (ANALYSIS_MAX_POSITIONS)


class BadPaste(ValueError):
    """The text cannot be read; the message says why (in English, for the log; the page
    shows its own words with `code`)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code  # "empty", "too_long", "position", "move", "too_many"


@dataclass(frozen=True)
class Pasted:
    start_fen: str
    moves: tuple[str, ...]  # machine form


_TAG = re.compile(r'^\s*\[(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$', re.MULTILINE)
_COMMENT = re.compile(r"\{[^}]*\}|;[^\n]*")
_NUMBER = re.compile(r"^\d+\.(\.\.)?$|^\d+\.\.\.$")
_RESULTS = {"1-0", "0-1", "1/2-1/2", "*", "2-0", "0-2", "1-1", "0-0"}


def read_paste(code: str, text: str) -> Pasted:
    """The start position and main-line moves of `text` for variant `code`. Raises BadPaste."""
    rules = variant(code)
    text = (text or "").strip()
    if not text:
        raise BadPaste("nothing pasted", "empty")
    if len(text) > MAX_PASTE:
        raise BadPaste(f"longer than {MAX_PASTE} characters", "too_long")
    tags = dict(_TAG.findall(text))
    body = _TAG.sub(" ", text).strip()
    if not tags and "\n" not in text and not re.search(r"\d+\.", text):
        return Pasted(_position(rules, text), ())  # a FEN alone
    start = _position(rules, tags["FEN"]) if tags.get("FEN") else rules.start_fen()
    return Pasted(start, tuple(_moves(rules, start, body)))


def _position(rules, fen: str) -> str:
    try:
        return rules.normalize_fen(fen.strip())
    except RulesError as error:
        raise BadPaste(f"not a {rules.code} position: {error}", "position") from None


def _strip_variations(body: str) -> str:
    out, depth = [], 0
    for char in body:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(char)
    return "".join(out)


def _moves(rules, fen: str, body: str) -> list[str]:
    body = _strip_variations(_COMMENT.sub(" ", body))
    moves: list[str] = []
    for token in body.split():
        token = re.sub(r"^\d+\.+", "", token)  # "12.e4", "3...Nf6": the number glued on
        token = re.sub(r"[!?]+$|\$\d+$", "", token)  # symbols and NAGs after a move
        if not token or _NUMBER.match(token) or token in _RESULTS or token.startswith("$"):
            continue
        if len(moves) >= MAX_MOVES:
            raise BadPaste(f"more than {MAX_MOVES} moves", "too_many")
        reading = read_move(rules, fen, token, "en")  # English letters first, then Italian
        if reading.move is None:
            raise BadPaste(f"move {len(moves) + 1} ({token[:20]!r}) cannot be played", "move")
        moves.append(reading.move)
        fen = rules.apply(fen, reading.move)
    return moves
