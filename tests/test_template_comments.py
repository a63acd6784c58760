"""Django's `{# … #}` comments end on their own line: one left open is printed on the page
(a round's page once showed its comment to every visitor). `{% comment %}` spans lines."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_template_leaves_a_one_line_comment_open():
    open_ones = []
    for template in ROOT.glob("**/templates/**/*.html"):
        if ".venv" in template.parts:
            continue
        for number, line in enumerate(template.read_text(encoding="utf-8").splitlines(), 1):
            if line.count("{#") != line.count("#}"):
                open_ones.append(f"{template.relative_to(ROOT)}:{number}")
    assert open_ones == []
