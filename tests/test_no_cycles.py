"""No app's modules import one another in a circle (docs/architecture.md, "Layers"): within an
app, what is above imports what is below, and a lower module reaches an upper one only through a
registry (a signal, a task sent by name, a hook), so each module can be read, and tested, from
the bottom up. Imports inside functions count."""

from __future__ import annotations

from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
APPS = sorted(path.parent.name for path in ROOT.glob("*/apps.py"))


def circles(graph, app: str) -> list[tuple[str, str]]:
    """Pairs (a, b) of the app's modules where a imports b and b leads back to a."""
    modules = [m for m in graph.modules if m.split(".")[0] == app and ".tests" not in m]
    found = set()
    for module in modules:
        for imported in graph.find_modules_directly_imported_by(module):
            if imported.split(".")[0] != app or ".tests" in imported:
                continue
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back and all(m.split(".")[0] == app for m in back):
                found.add(tuple(sorted((module, imported))))
    return sorted(found)


def test_no_module_of_an_app_leads_back_to_itself():
    graph = grimp.build_graph(*APPS, cache_dir=None)
    assert {app: circles(graph, app) for app in APPS} == {app: [] for app in APPS}


def test_the_check_sees_a_circle(tmp_path, monkeypatch):
    package = tmp_path / "circ"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from circ import b\n")
    (package / "b.py").write_text("from circ import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("circ", cache_dir=None)
    assert circles(graph, "circ") == [("circ.a", "circ.b")]
