from __future__ import annotations

from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "games.core"
    label = "core"
    verbose_name = "Matches"

    def ready(self) -> None:
        from games.core import registry

        registry.load_games()
