from __future__ import annotations

from django.apps import AppConfig


class SeasonsConfig(AppConfig):
    name = "games.seasons"
    label = "seasons"
    verbose_name = "Seasons"

    def ready(self) -> None:
        from games.core.host import console
        from games.core.live import scheduler
        from games.core.match import authority
        from games.seasons import roles, tick

        scheduler.register_clock(tick.run_clocks)
        # A season's hosts and co-hosts run its matches.
        authority.tell_seasons_hosted(roles.seasons_hosted_by)
        # The host is told, before correcting a season's match, what the season does with it.
        console.tell_correction_note(tick.correction_note)
