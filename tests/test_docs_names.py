"""docs/architecture.md walks the code by its names: every file it cites exists, and every name
that looks like code (a dotted name, one with an underscore or an inner capital) is a word of
the project's code. A renamed function leaves the walk pointing at nothing (it once cited a
`move_push` no file had); this fails then, naming it."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE_SUFFIXES = {".py", ".js", ".html", ".txt", ".sh", ".conf", ".service", ".css", ".toml"}
SKIPPED_DIRS = {".venv", ".git", "staticfiles", "var", "node_modules", "__pycache__"}
CODE_LIKE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
PATH_LIKE = re.compile(r"[\w.-]+(?:/[\w.-]+)+\.(?:py|js|html|txt|md|sh|conf|css|toml)")


def _project_files() -> list[Path]:
    return [
        p
        for p in ROOT.rglob("*")
        if p.suffix in CODE_SUFFIXES
        and p.is_file()
        and not SKIPPED_DIRS.intersection(p.relative_to(ROOT).parts)
        and p != Path(__file__).resolve()  # its own example names nothing real
    ]


@cache
def _words() -> frozenset[str]:
    found: set[str] = set()
    for path in _project_files():
        found.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", path.read_text(errors="replace")))
    return frozenset(found)


def _path_exists(cited: str) -> bool:
    """A path from the root, or from an app's templates/ or static/ folder (how Django and the
    pages name them)."""
    if (ROOT / cited).exists():
        return True
    return any(ROOT.glob(f"*/templates/{cited}")) or any(ROOT.glob(f"*/static/{cited}"))


def cited_but_missing(text: str) -> list[str]:
    missing = []
    for quoted in re.findall(r"`([^`\n]+)`", text):
        for part in re.split(r"[\s(),→=]+", quoted):
            part = part.strip(".:;")
            if "/" in part:
                if PATH_LIKE.fullmatch(part) and not _path_exists(part):
                    missing.append(part)
                continue
            if not CODE_LIKE.fullmatch(part):
                continue
            if not ("_" in part or "." in part or re.search(r"[a-z][A-Z]", part)):
                continue  # a plain word: English as much as code
            components = [c for c in part.split(".") if c not in {"py", "js", "html"}]
            if any(c not in _words() for c in components):
                missing.append(part)
    return sorted(set(missing))


def test_architecture_cites_only_what_exists():
    assert cited_but_missing((ROOT / "docs/architecture.md").read_text()) == []


def test_the_check_finds_a_name_nothing_defines():
    text = "`games/services/state.py` `push_move_on_commit` → `move_push`, `games/nothing.py`"
    assert cited_but_missing(text) == ["games/nothing.py", "move_push"]
