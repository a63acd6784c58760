"""Moves as players type them (the game page's text mode), read into the machine form.

Pure, no Django (STYLE 1). The reader never decides legality itself: it matches what was typed
against the position's legal moves (`Variant.legal_moves`), so the rules stay those of
`chess_variant` and `draughts`.

Chess (RULES 2, notation): SAN with Italian (R, D, T, A, C) or English (K, Q, R, B, N) piece
letters, with or without `x`, `=`, `+`, `#`, `e.p.`; coordinates (`g1f3`, `e7e8q`, `e7-e8=D`);
castling `O-O` / `0-0` / `O-O-O`. `R` is the Italian king and the English rook: both readings are
tried, and when both fit a legal move the player's language decides.
Draughts (RULES 2, notation): the federation's square numbers of the variant (`22-18`, `22x13`,
or the whole path `22x13x6`); a start and an end shared by several capture paths is ambiguous
and the paths are the choices.

Deliberate readings: a move with the piece letter left out is a pawn move, as in SAN; a
promotion typed without its piece is ambiguous (the four pieces are the choices), never a queen;
a small piece letter that is no file (`nf3`, `tb1`, `re2`) is the piece, while `b`, `a`, `c`,
`d` are files, as SAN writes them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import chess

from .base import Language, Variant
from .chess_variant import Chess, algebraic

Problem = Literal["", "unreadable", "illegal", "ambiguous"]


@dataclass(frozen=True, slots=True)
class Reading:
    """What was typed: one legal move (`move`, machine form), or the `problem` with it;
    `choices` are the moves it could mean, as the player writes them, when ambiguous."""

    move: str | None = None
    problem: Problem = ""
    choices: tuple[str, ...] = ()


# A piece letter of either language, to python-chess's piece types. `R` is read both ways.
_PIECES_IT = {
    "R": chess.KING,
    "D": chess.QUEEN,
    "T": chess.ROOK,
    "A": chess.BISHOP,
    "C": chess.KNIGHT,
}
_PIECES_EN = {
    "K": chess.KING,
    "Q": chess.QUEEN,
    "R": chess.ROOK,
    "B": chess.BISHOP,
    "N": chess.KNIGHT,
}
# A promotion piece: the Italian king cannot be one, so `R` is only the rook here.
_PROMOTIONS = {
    **{k: v for k, v in _PIECES_EN.items() if v != chess.KING},
    **{k: v for k, v in _PIECES_IT.items() if v != chess.KING},
    "R": chess.ROOK,
}
_SAN = re.compile(r"([KQRBNDTAC])?([a-h])?([1-8])?([a-h][1-8])([KQRBNDTACqrbndtac])?\Z")
_CASTLE = re.compile(r"[O0o]{2,3}\Z")
# ASCII digits only, as the machine form's (`draughts`): `\d` would also take "٢٢" or "２２",
# which `int()` reads as 22 (docs/protocol.md, "Typed moves": one rule for typed and machine moves).
_DRAUGHTS = re.compile(r"[0-9]{1,3}([-x][0-9]{1,3})+\Z")


def read_move(rules: Variant, fen: str, text: str, language: Language = "it") -> Reading:
    """`text` read in the position `fen` of `rules`' variant (see the module's docstring)."""
    # By the rules, not the code: a chess variant under another code reads chess moves.
    if isinstance(rules, Chess):
        return _read_chess(fen, text, language)
    return _read_draughts(rules.legal_moves(fen), text)


def _squeeze(text: str) -> str:
    # Decorations that change nothing: spaces, check and mate marks, annotations, "e.p.".
    text = text.strip().replace("e.p.", "").replace("ep", "") if text else ""
    return re.sub(r"[\s+#!?]", "", text)


def _read_chess(fen: str, text: str, language: Language) -> Reading:
    board = chess.Board(fen)
    plain = _squeeze(text)
    legal = list(board.legal_moves)
    if _CASTLE.match(plain.replace("-", "")):
        long = len(plain.replace("-", "")) == 3
        found = [
            m for m in legal if board.is_castling(m) and board.is_queenside_castling(m) == long
        ]
        return _one(board, found, language)
    plain = re.sub(r"[-x:=]", "", plain)
    # A piece letter typed small (`nf3`, `tb1`) when it cannot be a file: a to h are files.
    if plain[:1] in ("k", "q", "r", "n", "t"):
        plain = plain[0].upper() + plain[1:]
    match = _SAN.match(plain)
    if not match:
        return Reading(problem="unreadable")
    letter, file, rank, dest, promotion = match.groups()
    # Both full squares typed: coordinates (`g1f3`), whatever stands there.
    coordinates = letter is None and file is not None and rank is not None
    readings = []
    tables = [_PIECES_IT, _PIECES_EN] if language == "it" else [_PIECES_EN, _PIECES_IT]
    for table in tables:
        if letter is not None and letter not in table:
            continue
        piece = table[letter] if letter else (None if coordinates else chess.PAWN)
        readings.append(
            [
                m
                for m in legal
                if chess.square_name(m.to_square) == dest
                # Castling is typed as castling: `Rg1` is not 0-0.
                and (coordinates or not board.is_castling(m))
                and (piece is None or board.piece_type_at(m.from_square) == piece)
                and (file is None or chess.square_name(m.from_square)[0] == file)
                and (rank is None or chess.square_name(m.from_square)[1] == rank)
                and (promotion is None or m.promotion == _PROMOTIONS[promotion.upper()])
            ]
        )
    # The player's language first: `Rf1` is their reading when both fit.
    found = next((r for r in readings if r), [])
    return _one(board, found, language)


def _one(board: chess.Board, found: list[chess.Move], language: Language) -> Reading:
    if not found:
        return Reading(problem="illegal")
    if len(found) > 1:
        choices = sorted(algebraic(board, m, language) for m in found)
        return Reading(problem="ambiguous", choices=tuple(choices))
    return Reading(move=found[0].uci())


def _read_draughts(legal: list[str], text: str) -> Reading:
    plain = re.sub(r"\s", "", text or "").lower().replace(":", "x")
    if not _DRAUGHTS.match(plain):
        return Reading(problem="unreadable")
    squares = [int(n) for n in re.split(r"[-x]", plain)]
    path = lambda move: [int(n) for n in re.split(r"[-x]", move)]  # noqa: E731
    if len(squares) == 2:
        # The short form names the start and the end: a capture by its ends too (PDN's `22x6`).
        found = [m for m in legal if path(m)[0] == squares[0] and path(m)[-1] == squares[1]]
    else:
        found = [m for m in legal if path(m) == squares]
    if not found:
        return Reading(problem="illegal")
    if len(found) > 1:
        return Reading(problem="ambiguous", choices=tuple(found))
    return Reading(move=found[0])
