from __future__ import annotations

from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "games.core"
    label = "core"
    verbose_name = "Matches"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from games.core.game import registry
        from games.core.match import replaying, signals  # noqa: F401 (replaying: Event.state)

        registry.load_games()
        user_logged_out.connect(signals.end_live_sockets, dispatch_uid="core.end_live_sockets")
