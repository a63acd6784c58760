"""No product module patches another package or reads its private attributes.

Speed comes from our own code and public APIs: a renamed private attribute upstream would be an
error on every socket, a new state flag a silent divergence. This scan reads every product
module's source (not the tests, benchmarks or migrations) and fails on:

- an assignment (`=`, `+=`, `setattr`, `delattr`, `del`) to an attribute of a name bound by an
  import of another package (a module, or a class or function imported from one), e.g.
  `autobahn.util.xor = …`, `tcp.Connection.write = …`;
- a method bound onto an object by hand (`types.MethodType`), the way a loop's `close` was
  replaced;
- a read or write of a private attribute (`x._name`, not a dunder) on anything but `self` or
  `cls`, when no module of ours defines that name — so the attribute is another package's —
  except the few underscore names Django documents as public API (`Model._meta`,
  `Model._state`).

Internals are not always underscored: `test_no_framework_internals_but_those_still_listed`
also finds, by name, the reads of Django's, channels' and psycopg's internals that have none
(a connection's `atomic_blocks`, `savepoint_ids`, `run_on_commit`, `wrap_database_errors`;
channels' `real_send` and a bound method's `__self__`; `prepare_threshold` set on the database
driver's connection; a model made with `__new__` and `ModelState` instead of by Django). The
few still in the move path are listed there, each by file and name, until it is rebuilt: the
list must shrink, never grow.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The product: every app of ours, found by its `apps.py` (tests/test_layers.py checks that every
# app of INSTALLED_APPS has one), so a new app is scanned without being named here.
PRODUCT = tuple(sorted(path.parent.name for path in ROOT.glob("*/apps.py")))
OURS = set(PRODUCT) | {"tests", "bench"}
# Underscore names Django documents as public API.
DOCUMENTED = {"_meta", "_state", "_default_manager", "_base_manager"}
# namedtuple's documented methods (a urlsplit result's `_replace`).
DOCUMENTED |= {"_replace", "_asdict", "_fields", "_make"}
# Modules allowed past the scan (see the module docstring): none.
ALLOWED: set[str] = set()
# Framework internals with no underscore, found by name.
INTERNAL_NAMES = {
    "atomic_blocks",
    "savepoint_ids",
    "run_on_commit",
    "wrap_database_errors",
    "real_send",
    "__self__",
    "prepare_threshold",
    "ModelState",
}


def product_files() -> list[Path]:
    files = []
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).parts
            if "tests" in parts or "migrations" in parts:
                continue
            files.append(path)
    return files


def _third_party(module: str | None) -> bool:
    if not module:
        return False  # a relative import: ours
    top = module.split(".")[0]
    return top not in OURS and top not in sys.stdlib_module_names


def _imported_names(tree: ast.Module) -> set[str]:
    """Names this module binds to another package's modules, classes or functions."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _third_party(alias.name):
                    names.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _third_party(node.module):
            for alias in node.names:
                names.add(alias.asname or alias.name)
    return names


def _root(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _assigned(target: ast.expr):
    """The attribute and subscript chain a target writes through (not the index or slice
    expressions inside it: `board.occupied_co[chess.WHITE] = …` writes `board`'s)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _assigned(element)
    elif isinstance(target, ast.Starred):
        yield from _assigned(target.value)
    elif isinstance(target, (ast.Attribute, ast.Subscript)):
        yield target
        yield from _assigned(target.value)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _defined_names(trees: list[ast.Module]) -> set[str]:
    """Every name our own code defines: functions, classes, assignments, attributes it sets on
    `self`/`cls` or on anything, parameters and keywords."""
    names = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                if _root(node.value) in ("self", "cls"):
                    names.add(node.attr)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.alias):
                names.add((node.asname or node.name).split(".")[-1])
    return names


def violations(files: list[Path], allowed: set[str] = ALLOWED) -> list[str]:
    trees = {path: ast.parse(path.read_text(), str(path)) for path in files}
    ours = _defined_names(list(trees.values()))
    found = []
    for path, tree in trees.items():
        where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
        if where in allowed:
            continue
        imported = _imported_names(tree)

        def report(node: ast.AST, what: str, where=where) -> None:
            found.append(f"{where}:{node.lineno}: {what}")

        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = node.targets
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("setattr", "delattr")
                and node.args
                and _root(node.args[0]) in imported
            ):
                report(node, f"{node.func.id} on {_root(node.args[0])}, another package's")
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "MethodType"
                and _root(node.value) == "types"
            ):
                report(node, "a method bound onto an object by hand (types.MethodType)")
            for target in targets:
                for part in _assigned(target):
                    if isinstance(part, ast.Attribute) and _root(part) in imported:
                        report(part, f"assigns {ast.unparse(part)}, another package's")
            if (
                isinstance(node, ast.Attribute)
                and _private(node.attr)
                and node.attr not in DOCUMENTED
                and node.attr not in ours
                and _root(node.value) not in ("self", "cls")
            ):
                report(node, f"{ast.unparse(node)}: another package's private attribute")
    return found


def test_no_product_module_patches_or_reads_another_packages_internals():
    assert {"config", "games", "live"} <= set(PRODUCT)
    assert violations(product_files()) == []


def test_the_scan_finds_each_kind_of_patch(tmp_path):
    """The scan can fail: each kind of patch the product once held, written again, is found."""
    cases = {
        "module.py": "import autobahn.websocket.protocol\n"
        "autobahn.websocket.protocol.WebSocketProtocol.dataReceived = lambda self, d: None\n",
        "klass.py": "from twisted.internet import tcp\n\ntcp.Connection.write = print\n",
        "bound.py": "import types\n\ndef close(loop):\n    loop.close = types.MethodType(print, loop)\n",
        "private.py": "def f(board, p):\n    return board._algebraic_without_suffix(p)\n",
        "reads.py": "def f(proto):\n    return proto._perMessageCompress is None\n",
        "sets.py": "import chess\n\nsetattr(chess.Board, 'push', print)\n",
    }
    files = []
    for name, source in cases.items():
        path = tmp_path / name
        path.write_text(source)
        files.append(path)
    found = violations(files)
    for name in cases:
        assert any(line.startswith(str(tmp_path / name)) for line in found), (name, found)
    # Our own private names on our own objects, and Django's documented ones, are fine.
    fine = tmp_path / "fine.py"
    fine.write_text(
        "class A:\n    def __init__(self):\n        self._x = 1\n\n"
        "def f(a, model):\n    return a._x, model._meta.db_table, model._state.adding\n"
    )
    assert violations([fine]) == []


def internals(files: list[Path]) -> set[tuple[str, str]]:
    """(file, name) of every read of a framework internal with no underscore: an attribute or
    imported name of INTERNAL_NAMES, `getattr(x, "<name>")`, and a model class's `__new__`
    (a class imported from a `models` module)."""
    found = set()
    for path in files:
        tree = ast.parse(path.read_text(), str(path))
        where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
        models = {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and "models" in node.module
            for alias in node.names
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in INTERNAL_NAMES:
                found.add((where, node.attr))
            elif isinstance(node, ast.alias) and node.name.split(".")[-1] in INTERNAL_NAMES:
                found.add((where, node.name.split(".")[-1]))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "getattr"
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value in INTERNAL_NAMES
            ):
                found.add((where, node.args[1].value))
            elif (
                isinstance(node, ast.Attribute)
                and node.attr == "__new__"
                and isinstance(node.value, ast.Name)
                and node.value.id in models
            ):
                found.add((where, f"{node.value.id}.__new__"))
    return found


# None left: a name found here is a new one (the list may only shrink).
STILL_TO_GO: set[tuple[str, str]] = set()


def test_no_framework_internals_but_those_still_listed():
    assert internals(product_files()) == STILL_TO_GO


def test_the_internals_scan_finds_each_kind(tmp_path):
    source = tmp_path / "m.py"
    source.write_text(
        "from django.db.models.base import ModelState\n"
        "from games.models import Game\n"
        "def f(connection, send):\n"
        "    connection.atomic_blocks, connection.run_on_commit\n"
        "    getattr(send, '__self__').real_send\n"
        "    return Game.__new__(Game)\n"
    )
    names = {name for _where, name in internals([source])}
    assert names == {
        "ModelState",
        "atomic_blocks",
        "run_on_commit",
        "__self__",
        "real_send",
        "Game.__new__",
    }
