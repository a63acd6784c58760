"""STYLE 1: the engine is pure Python and imports nothing from Django."""

import ast
from pathlib import Path

import events.pairing

ENGINE = Path(events.pairing.__file__).parent


def test_the_engine_imports_nothing_from_django():
    offenders = []
    for path in sorted(ENGINE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] == "django"]
    assert len(list(ENGINE.glob("*.py"))) >= 10
    assert offenders == []
