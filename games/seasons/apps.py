from __future__ import annotations

from django.apps import AppConfig


class SeasonsConfig(AppConfig):
    name = "games.seasons"
    label = "seasons"
    verbose_name = "Seasons"

    def ready(self) -> None:
        from games.core import scheduler
        from games.seasons import services

        scheduler.register_clock(services.run_clocks)
