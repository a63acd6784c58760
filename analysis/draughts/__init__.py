"""The draughts tactical check ("controllo tattico", RULES 14.10): a small search of our own on
`games.rules.draughts`, pure Python (STYLE 1). `check.check_game` is the interface."""

from .check import PlyCheck, check_game

__all__ = ["PlyCheck", "check_game"]
