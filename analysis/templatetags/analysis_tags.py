"""`{% computer_analysis game %}`: a finished game's computer analysis panel (RULES 14), on its
analysis board; `{% computer_analysis_button game %}`: the request on the game's page. The
games app's templates load them by name; games imports nothing of the analysis (pyproject.toml's
floors), as with the chat's panel."""

from __future__ import annotations

from django import template

from analysis.views import button_context, panel_context

register = template.Library()


@register.inclusion_tag("analysis/_panel.html", takes_context=True)
def computer_analysis(context, game):
    return panel_context(context["request"], game)


@register.inclusion_tag("analysis/_button.html", takes_context=True)
def computer_analysis_button(context, game):
    return button_context(context["request"], game)
