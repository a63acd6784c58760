"""`{% chat_panel game %}` / `{% chat_panel event %}`: a page's chat (RULES §9). The pages of
games and events load it by name; none of their apps imports the chat (pyproject.toml's floors).
The panel is a shell in the viewer's language; its rooms and lines come over its socket
(`chat.consumers`), so a reconnect and the first load are one path."""

from __future__ import annotations

from django import template

from games.models import Game

register = template.Library()


@register.inclusion_tag("chat/_panel.html", takes_context=True)
def chat_panel(context, place_object):
    if isinstance(place_object, Game):
        place = "game"
    else:  # an event (its kind's code names the place, events.kinds) or a club ("club")
        place = place_object._meta.model_name
    request = context.get("request")
    user = getattr(request, "user", None)
    return {
        "place": place,
        "pk": place_object.pk,
        "signed_in": bool(user is not None and user.is_authenticated),
        "login_next": request.get_full_path() if request is not None else "",
    }
