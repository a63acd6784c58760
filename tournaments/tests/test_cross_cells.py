"""A cross table's row of cells (`{% cross_cells %}`): what the template loop wrote, written
in Python for speed (bench/tournament.py)."""

from __future__ import annotations

from types import SimpleNamespace

from django.utils import translation

from tournaments.selectors import Mark
from tournaments.templatetags.tournaments_tags import cross_cells


def test_a_swiss_row_names_each_opponent_and_escapes_what_it_writes():
    row = SimpleNamespace(
        number=3,
        cells=[
            [Mark("2", "win", "w", 7)],
            [Mark("1", "draw", "b", 12), Mark("0", "loss", "w", 12)],
            [Mark("R", "bye", "", None)],
            [Mark("<b>", 'x"y', "w", None)],
        ],
    )
    with translation.override("it"):
        html = cross_cells(row, "swiss")
    assert html == (
        '<td class="cell"><span class="mark win w" title="contro il n. 7"><small>7</small>2</span></td>'
        '<td class="cell"><span class="mark draw b" title="contro il n. 12"><small>12</small>1</span>'
        '<span class="mark loss w" title="contro il n. 12"><small>12</small>0</span></td>'
        '<td class="cell"><span class="mark bye ">R</span></td>'
        '<td class="cell"><span class="mark x&quot;y w">&lt;b&gt;</span></td>'
    )
    with translation.override("en"):
        assert 'title="against no. 7"' in cross_cells(row, "swiss")


def test_a_round_robin_row_crosses_out_its_own_column_and_shows_no_numbers():
    row = SimpleNamespace(
        number=2, cells=[[Mark("2", "win", "w", 1)], [], [Mark("0", "loss", "b", 3)]]
    )
    html = cross_cells(row, "round_robin")
    assert '<td class="cell self" aria-hidden="true">×</td>' in html
    assert "<small>" not in html and html.count("<td") == 3
