from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from accounts.admin_messages import FEMININE, NamedModelAdmin, Noun
from games.models import Challenge, Game


@admin.register(Game)
class GameAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(FEMININE, _("la partita"), _("un'altra partita"))
    list_display = ["id", "white", "black", "variant", "status", "result", "reason", "created_at"]
    list_filter = ["variant", "status", "result", "rated"]
    search_fields = ["white__username", "black__username"]
    raw_id_fields = ["white", "black"]
    readonly_fields = ["move_list", "fen", "start_fen", "ply"]
    exclude = ["positions", "notation", "moves"]
    date_hierarchy = "created_at"

    @admin.display(description=_("mosse"))
    def move_list(self, game: Game) -> str:
        pairs = [pair[0] for pair in game.notation]
        return " ".join(
            f"{i // 2 + 1}. {' '.join(pairs[i : i + 2])}" for i in range(0, len(pairs), 2)
        )


@admin.register(Challenge)
class ChallengeAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(FEMININE, _("la sfida"), _("un'altra sfida"))
    list_display = ["id", "challenger", "opponent", "variant", "status", "created_at"]
    list_filter = ["variant", "status", "rated"]
    search_fields = ["challenger__username", "opponent__username"]
    raw_id_fields = ["challenger", "opponent", "game"]
