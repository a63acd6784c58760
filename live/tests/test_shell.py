"""`{% shell %}` (live/templatetags/shell.py): a part rendered once per process, per language and
keys, and served as it was rendered."""

from __future__ import annotations

from django.template import Context, Template
from django.test import override_settings
from django.utils import translation

from live.templatetags import shell

PAGE = Template(
    '{% load shell i18n %}{% shell "part" kind %}{{ kind }} {{ viewer }} {% translate "Abbandona" %}'
    "{% endshell %}|{{ viewer }}"
)


def render(**context) -> str:
    return PAGE.render(Context(context))


def test_a_shell_is_rendered_once_per_language_and_keys():
    shell.forget()
    # What the shell holds of the first viewer is served to the next: nothing of a viewer
    # belongs inside one (its docstring); outside it, each viewer is their own.
    assert render(kind="chess", viewer="anna") == "chess anna Abbandona|anna"
    assert render(kind="chess", viewer="bruno") == "chess anna Abbandona|bruno"
    assert render(kind="italian", viewer="bruno") == "italian bruno Abbandona|bruno"
    with translation.override("en"):
        assert render(kind="chess", viewer="carla") == "chess carla Resign|carla"
    assert shell.kept_count() == 3
    shell.forget()
    assert render(kind="chess", viewer="dario") == "chess dario Abbandona|dario"


def test_shells_off_render_every_time():
    shell.forget()
    with override_settings(SHELLS=False):
        assert render(kind="chess", viewer="anna") == "chess anna Abbandona|anna"
        assert render(kind="chess", viewer="bruno") == "chess bruno Abbandona|bruno"
    assert shell.kept_count() == 0


def test_too_many_shells_are_dropped_and_made_anew():
    shell.forget()
    for n in range(shell.KEEP + 1):
        render(kind=str(n), viewer="anna")
    assert shell.kept_count() == 1  # the last one, after the others were dropped
    shell.forget()
