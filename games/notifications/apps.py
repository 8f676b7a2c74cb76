from __future__ import annotations

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "games.notifications"
    label = "notifications"
    verbose_name = "Notifications"

    def ready(self) -> None:
        from games.core.live import scheduler
        from games.core.match import signals
        from games.notifications import delivery, events

        # What a match's event tells whom (rows written in the move's transaction), and their
        # delivery by the scheduler process (mails and webhook posts, issue 23).
        signals.event_appended.connect(events.on_appended, dispatch_uid="notifications.on_event")
        scheduler.register_service(delivery.run_forever)
