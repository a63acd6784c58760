"""The event forms' select of many options writes what Django's own templates write."""

from __future__ import annotations

from datetime import date

import pytest
from django import forms
from django.utils.translation import gettext_lazy as _

from events.forms import ManyOptionsSelect, thematic_choices

CHOICES = [
    ("", "—"),
    (1, "1. a3 — <classe> & \"altro\" 'x'"),
    ("gruppo", [(2, "due"), ("tre", _("Nessuno"))]),
    (4, _("Personalizzato")),
    (5, 1.5),
    (6, date(2024, 1, 2)),
    (1.25, 1000000),
]


@pytest.mark.parametrize("value", [None, "", 1, "1", "tre", ["1", "tre"], "<script>"])
@pytest.mark.parametrize(
    "attrs",
    [
        None,
        {"id": "id_x", "required": True, "disabled": False, "data-a": 'q"<'},
        {"aria-describedby": "h", "hidden": True, "tabindex": 0},
    ],
)
def test_the_markup_is_djangos(value, attrs):
    ours, django = ManyOptionsSelect(choices=CHOICES), forms.Select(choices=CHOICES)
    assert ours.render("campo", value, attrs) == django.render("campo", value, attrs)


@pytest.mark.parametrize("variant", ["chess", "italian", "english", "international"])
def test_the_thematic_openings_read_as_with_djangos_select(variant):
    choices = [("", "—"), *thematic_choices(variant)]
    assert len(choices) > 100
    for value in (None, choices[7][0]):
        ours = ManyOptionsSelect(choices=choices).render("thematic_opening", value, {"id": "t"})
        assert ours == forms.Select(choices=choices).render("thematic_opening", value, {"id": "t"})
        assert ours.count("<option") == len(choices)
        assert ours.count(" selected>") == 1
        assert f'<option value="{value or ""}" selected>' in ours
