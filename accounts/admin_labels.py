"""Labels the admin's tabular inlines leave out (issue 38). A tabular inline names its columns
in the table's header only: each row's boxes (and the "delete" check) have no label, which
axe-core reports as `label`, critical, and a screen reader reads as a bare "edit text"."""

from __future__ import annotations

from typing import Any

from django.forms.models import BaseInlineFormSet


class LabelledInlineFormSet(BaseInlineFormSet):
    """Every field of every row carries its column's name as its accessible name."""

    def add_fields(self, form: Any, index: Any) -> None:
        super().add_fields(form, index)
        for name, field in form.fields.items():
            field.widget.attrs.setdefault("aria-label", str(field.label or name))
