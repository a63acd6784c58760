"""`{% shell "name" key … %}…{% endshell %}`: a part of a page that is the same for every viewer
with the same keys, rendered once per process and kept.

A round start sends every player of a Swiss to their game's page at the same instant
(bench/evening.py): most of that page (its words for the script, the board's frame, the
controls, the text mode, the site's menu) is the same for every player of a variant, a role
and a language, and rendering it per request was most of the page's CPU (its templates hold
more than a hundred `{% translate %}`). Lichess serves a round start as a light page the same
way. What is the viewer's or the game's own stays outside the shells or comes as JSON.

The key is the name, the active language and the values of the keys given: they must say
everything the part depends on. Nothing of the viewer goes inside a shell (no `{% csrf_token %}`,
no user name, no game id): a shell rendered for one viewer is served to the next. A process
keeps its shells until it stops, so a deploy (new code, new templates, new translations) starts
with none; `SHELLS` off (tests) renders them every time.
"""

from __future__ import annotations

import threading

from django import template
from django.conf import settings
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

register = template.Library()

# Shells kept per process: a few per kind of page (variants × roles × languages); past this
# many something keys them by what it should not, and they are all dropped and made anew.
KEEP = 512

_kept: dict[tuple, str] = {}
_lock = threading.Lock()


def forget() -> None:
    """Drop every shell this process keeps (tests)."""
    with _lock:
        _kept.clear()


def kept_count() -> int:
    return len(_kept)


class ShellNode(template.Node):
    def __init__(self, nodelist: template.NodeList, name: str, keys: list) -> None:
        self.nodelist, self.name, self.keys = nodelist, name, keys

    def render(self, context: template.Context) -> str:
        if not getattr(settings, "SHELLS", True):
            return self.nodelist.render(context)
        key = (self.name, get_language(), *(str(k.resolve(context)) for k in self.keys))
        found = _kept.get(key)
        if found is None:
            # Two requests may render the same shell at once: both results are the same.
            found = self.nodelist.render(context)
            with _lock:
                if len(_kept) >= KEEP:
                    _kept.clear()
                _kept[key] = found
        return mark_safe(found)


@register.tag("shell")
def do_shell(parser: template.base.Parser, token: template.base.Token) -> ShellNode:
    bits = token.split_contents()
    if len(bits) < 2:
        raise template.TemplateSyntaxError("{% shell %} needs a name")
    name = bits[1].strip("\"'")
    keys = [parser.compile_filter(bit) for bit in bits[2:]]
    nodelist = parser.parse(("endshell",))
    parser.delete_first_token()
    return ShellNode(nodelist, name, keys)
