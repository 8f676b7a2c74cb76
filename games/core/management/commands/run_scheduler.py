from __future__ import annotations

import asyncio
import os

from django.conf import settings
from django.core.management.base import BaseCommand

from games.core.live.scheduler import run_forever
from games.core.management.commands.serve import log_garbage_collections, settle_garbage_collector


class Command(BaseCommand):
    help = "Fire match deadlines and move bots, forever. Safe to run beside other schedulers."

    def handle(self, *args: object, **options: object) -> None:
        # What the process loaded out of the collector's sight, as a worker does (serve.py): a
        # full collection over it stopped the clocks' loop for 100-230 ms, a few times a
        # minute while a cast played.
        settle_garbage_collector(settings.GC_GEN0_THRESHOLD)
        if os.environ.get("GC_PAUSE_LOG"):
            log_garbage_collections(os.environ["GC_PAUSE_LOG"])
        self.stdout.write("Scheduler started.")
        asyncio.run(run_forever())
