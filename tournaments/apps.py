from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tornei")

    def ready(self) -> None:
        # One kind of event (events.kinds): its games' ends come through the events router.
        from events.kinds import EventKind, register
        from tournaments.models import Tournament

        def game_finished(*, game_id: int) -> bool:
            from tournaments.running import tournament_game_finished

            return tournament_game_finished(game_id=game_id)

        from tournaments import personal

        register(
            EventKind(model=Tournament, game_finished=game_finished, entrants=personal.entrants)
        )

        # What is personal to a player (accounts.personal).
        from accounts import personal as account_data

        account_data.register_section("tournaments", personal.tournaments_section)
        account_data.register_blocker(personal.live_tournament_blocker)

        # RULES 4.7: a player between rounds is warned before taking on another game.
        from games import commitments
        from tournaments.selectors import commitments_of

        commitments.register(commitments_of)
