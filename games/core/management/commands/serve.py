from __future__ import annotations

import logging
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

log = logging.getLogger(__name__)


class Command(BaseCommand):
    help = "Serve the site with Daphne; by default this process also runs the deadline scheduler."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--no-scheduler",
            action="store_true",
            help="do not fire deadlines in this process (another process does)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        from daphne.endpoints import build_endpoint_description_strings
        from daphne.server import Server, twisted_loop

        from games.core.scheduler import run_forever
        from gemsite.asgi import application

        def when_ready() -> None:
            if not options["no_scheduler"]:
                twisted_loop.create_task(run_forever())
            self.stdout.write(
                f"Gem Arena is serving on http://{options['host']}:{options['port']}/",
            )
            self.stdout.flush()

        server = Server(
            application=application,
            endpoints=build_endpoint_description_strings(
                host=options["host"], port=options["port"]
            ),
            ready_callable=when_ready,
            websocket_max_message_size=64 * 1024,
            websocket_max_frame_size=64 * 1024,
            verbosity=0,
        )
        server.run()
