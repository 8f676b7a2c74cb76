from __future__ import annotations

import asyncio

from django.core.management.base import BaseCommand

from games.core.live.scheduler import run_forever


class Command(BaseCommand):
    help = "Fire match deadlines and move bots, forever. Safe to run beside other schedulers."

    def handle(self, *args: object, **options: object) -> None:
        self.stdout.write("Scheduler started.")
        asyncio.run(run_forever())
