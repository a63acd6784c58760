"""Dependencies point one way (STYLE 6), checked on the source: every import of every module,
top-level or inside a function, read with `ast`.

- `config/` (but its root URL and socket routes) and the live layer import no app;
- `games` knows nothing of events, tournaments, arenas or ratings;
- `ratings` knows nothing of events, tournaments or arenas;
- `events` knows no kind of event;
- one kind of event never imports another;
- selectors never import services (services read through selectors).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = {"accounts", "games", "ratings", "events", "tournaments", "arena"}


def imported_packages(path: Path) -> set[str]:
    """Every module named by an import in the file (`a.b.c` for `from a.b import c` too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def sources(package: str, *, tests: bool = False) -> list[Path]:
    files = sorted((ROOT / package).rglob("*.py"))
    return [
        f
        for f in files
        if "migrations" not in f.parts and (tests or "tests" not in f.relative_to(ROOT).parts)
    ]


def offenders(files: list[Path], forbidden: set[str]) -> list[str]:
    found = []
    for path in files:
        for name in imported_packages(path):
            if name.split(".")[0] in forbidden:
                found.append(f"{path.name} imports {name}")
    return found


def test_config_is_the_root_not_a_library():
    files = [f for f in sources("config") if f.name not in ("urls.py", "routing.py")]
    assert offenders(files, APPS) == []


def test_the_live_layer_imports_no_app():
    assert sources("live")
    assert offenders(sources("live"), APPS | {"config"}) == []


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("games", {"ratings", "events", "tournaments", "arena"}),
        ("ratings", {"events", "tournaments", "arena"}),
        ("events", {"tournaments", "arena"}),
        ("tournaments", {"arena"}),
        ("arena", {"tournaments"}),
        ("accounts", {"games", "ratings", "events", "tournaments", "arena"}),
    ],
)
def test_apps_depend_one_way(package, forbidden):
    assert offenders(sources(package), forbidden) == []


def test_selectors_never_import_services():
    found = []
    for path in ROOT.glob("*/selectors.py"):
        for name in imported_packages(path):
            parts = name.split(".")
            if "services" in parts or "running" in parts:
                found.append(f"{path.relative_to(ROOT)} imports {name}")
    assert found == []


def test_the_check_sees_a_forbidden_import(tmp_path):
    """The checker itself: an import hidden in a function is found."""
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from tournaments.running import x\n")
    assert offenders([module], {"tournaments"})
