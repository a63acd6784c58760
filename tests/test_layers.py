"""Dependencies point one way (STYLE 6): the import-linter contracts in pyproject.toml
([tool.importlinter]), checked by `lint-imports` on every import of every module, top-level or
inside a function, direct or through other modules. `make lint` runs it too; here it is part of
the suite, and so are the two ways it could stop seeing what it should:

- an app that is not one of its root packages is not read at all, and one that no floor names
  is bound by nothing: every directory with an `apps.py` must be both;
- a contract that can no longer fail: a forbidden import written into a copy of the tree breaks
  each contract.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def lint_imports(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [LINT_IMPORTS, "--no-cache", "--no-logo", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def importlinter_config(root: Path) -> dict:
    with open(root / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["importlinter"]


def apps(root: Path) -> list[str]:
    return sorted(path.parent.name for path in root.glob("*/apps.py"))


def floors(config: dict) -> set[str]:
    """Every package named on a floor of the "floors" contract."""
    (contract,) = (c for c in config["contracts"] if c["id"] == "floors")
    names = set()
    for layer in contract["layers"]:
        for name in layer.replace(":", "|").split("|"):
            names.add(name.strip().strip("()"))
    return names


def unplaced_apps(root: Path) -> list[str]:
    config = importlinter_config(root)
    placed = set(config["root_packages"]) & floors(config)
    return [app for app in apps(root) if app not in placed]


def test_the_contracts_are_kept():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_app_is_a_root_package_on_a_floor():
    assert "games" in apps(ROOT)
    assert unplaced_apps(ROOT) == [], (
        "add the app to root_packages and to a floor of the 'floors' contract in pyproject.toml"
    )


def test_every_installed_app_of_ours_has_an_apps_module():
    """The apps are found by their `apps.py`: an app of ours installed without one would be
    missed by the check above."""
    ours = {name.split(".")[0] for name in settings.INSTALLED_APPS}
    ours = {name for name in ours if (ROOT / name).is_dir()}
    assert ours == set(apps(ROOT))


def copy_of_the_tree(tmp_path: Path) -> Path:
    for package in importlinter_config(ROOT)["root_packages"]:
        for path in (ROOT / package).rglob("*.py"):
            target = tmp_path / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    shutil.copyfile(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


# Per contract: a file of the copy, the code appended to it (an import inside a function) and
# the import the report must name.
PROBES = {
    "floors": ("games/probe.py", "from ratings.selectors import x", "games.probe -> ratings"),
    "config-root": ("config/settings.py", "import games.models", "config.settings -> games"),
    "selectors-read": (
        "ratings/selectors.py",
        "from ratings.services import x",
        "ratings.selectors -> ratings.services",
    ),
    "harness-apart": ("live/probe.py", "import harness", "live.probe -> harness"),
}


@pytest.mark.parametrize("contract", sorted(PROBES))
def test_a_forbidden_import_breaks_the_contract(tmp_path, contract):
    config = importlinter_config(ROOT)
    assert {c["id"] for c in config["contracts"]} == set(PROBES), "a probe per contract"
    root = copy_of_the_tree(tmp_path)
    assert lint_imports(root, "--contract", contract).returncode == 0
    where, statement, expected = PROBES[contract]
    with open(root / where, "a") as f:
        f.write(f"\n\ndef _probe():\n    {statement}\n")
    result = lint_imports(root, "--contract", contract)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "0 kept, 1 broken" in result.stdout
    assert expected in result.stdout


# The clubs' floor (docs/architecture.md): above ratings, below events. Events, the kinds and
# the chat import it; it imports no event, and games (below it) never import it.
CLUB_PROBES = [
    ("clubs/probe.py", "from events.models import x", "clubs.probe -> events"),
    ("games/probe.py", "from clubs.models import x", "games.probe -> clubs"),
]


@pytest.mark.parametrize(("where", "statement", "expected"), CLUB_PROBES)
def test_clubs_sit_between_ratings_and_events(tmp_path, where, statement, expected):
    root = copy_of_the_tree(tmp_path)
    with open(root / where, "a") as f:
        f.write(f"\n\ndef _probe():\n    {statement}\n")
    result = lint_imports(root, "--contract", "floors")
    assert result.returncode == 1, result.stdout + result.stderr
    assert expected in result.stdout


def test_a_new_app_must_be_placed(tmp_path):
    root = copy_of_the_tree(tmp_path)
    (root / "puzzles").mkdir()
    (root / "puzzles" / "apps.py").write_text("")
    assert unplaced_apps(root) == ["puzzles"]


def test_the_arbiters_table_sits_above_the_events_alone():
    """otb (RULES 13) uses the pairing engine and the rating maths, so it is above tournaments
    and ratings; alone on its floor under config, so no app below may import it."""
    (contract,) = (c for c in importlinter_config(ROOT)["contracts"] if c["id"] == "floors")
    layers = [layer.replace(" ", "") for layer in contract["layers"]]
    assert layers[:2] == ["config", "otb"]
    assert (
        layers.index("otb")
        < layers.index("tournaments|arena|teams|chat|fairplay")
        < layers.index("ratings")
    )


# Fair play beside the kinds of event, the computer analysis below them (docs/architecture.md):
# the report reads the analyses of an event's games; the analysis never reads the report, and
# fair play knows no kind of event (it finds one through the kinds' registry, events.kinds).
FAIRPLAY_PROBES = [
    ("analysis/probe.py", "from fairplay.models import x", "analysis.probe -> fairplay"),
    ("fairplay/probe.py", "from tournaments.models import x", "fairplay.probe -> tournaments"),
    ("analysis/probe.py", "from arena.models import x", "analysis.probe -> arena"),
]


def test_fair_play_sits_above_the_analysis_and_beside_the_kinds(tmp_path):
    """Every probe in one copy of the tree (one run of the linter): each must be reported."""
    root = copy_of_the_tree(tmp_path)
    for n, (where, statement, _expected) in enumerate(FAIRPLAY_PROBES):
        with open(root / where, "a") as f:
            f.write(f"\n\ndef _probe_{n}():\n    {statement}\n")
    result = lint_imports(root, "--contract", "floors")
    assert result.returncode == 1, result.stdout + result.stderr
    for _where, _statement, expected in FAIRPLAY_PROBES:
        assert expected in result.stdout
