from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ArenaConfig(AppConfig):
    name = "arena"
    verbose_name = _("Arene")

    def ready(self) -> None:
        # One kind of event (events.kinds): its games' ends come through the events router.
        from arena.models import Arena
        from events.kinds import EventKind, register

        def game_finished(*, game_id: int) -> bool:
            from arena.running import arena_game_finished

            return arena_game_finished(game_id=game_id)

        from arena import personal

        register(EventKind(model=Arena, game_finished=game_finished, entrants=personal.entrants))

        # What is personal to a player (accounts.personal).
        from accounts import personal as account_data

        account_data.register_section("arenas", personal.arenas_section)
        account_data.register_blocker(personal.live_arena_blocker)
