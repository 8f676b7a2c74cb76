from __future__ import annotations

import gc
import logging
import os
import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

log = logging.getLogger(__name__)

# Daphne closes a connection (1009) that sends a websocket message larger than this before it
# reaches the consumer (which itself answers more than WS_MAX_FRAME_BYTES with an error frame and
# keeps the connection). Autobahn applies the same limit to what the server SENDS, so it must stay
# well above the largest frame a view can make (a host's full frame in a long match).
MAX_MESSAGE_BYTES = 1024 * 1024
# How long a thread holding the GIL runs before one waiting for it takes it: a worker draws frames
# in threads while its action thread holds the match row locked, and wakes from each query in the
# action to wait for the GIL; at the default 5 ms, that wait lengthened every lock behind it.
GIL_SWITCH_SECONDS = 0.001


def warm_up() -> None:
    """Load what the first frames would otherwise load while a player waits: the URL
    patterns (the host console's first drawing reverses its operations' addresses: 25-30 ms)
    and every game's panel templates."""
    from django.template.loader import get_template
    from django.urls import reverse

    from games.core.game.registry import all_games

    reverse("match", args=["warm-up"])
    get_template("core/_panels.html")
    for game in all_games():
        if game.template_dir:
            get_template(f"{game.template_dir}/_panels.html")


def settle_garbage_collector(gen0_threshold: int) -> None:
    """Once the worker has loaded everything it needs: move those objects out of the collector's
    sight (they live as long as the process) and, unless ``gen0_threshold`` is 0, collect the
    young generation less often and the oldest rarely. Measured with 500 spectators on one
    worker: frame delivery p99 142-274 ms against 318-404 ms with Python's defaults; with 1,000
    spectators on each of two workers, the longest pause 134 ms with the middle generation
    collected every 10 young collections, against 298 ms every 50 (and, on a slower machine,
    83-96 ms every 3 against 103-123 ms every 10: settings.GC_GEN1_EVERY)."""
    gc.freeze()
    if gen0_threshold:
        gc.set_threshold(gen0_threshold, settings.GC_GEN1_EVERY, 50)


def share_the_interpreter(microseconds: int) -> None:
    """Let a thread hold the interpreter at most ``microseconds`` while another waits for it.
    After an action, the worker's event loop writes a frame to every spectator's socket while a
    thread draws the seats' and the host's frames; with Python's 5 ms, each time the loop waited
    on the thread it lost up to 5 ms. Measured with 500 spectators on one worker (four runs each,
    benchmarks/fanout.py): at 1 ms, Pointsweeper's delivery p99 fell from 87-114 to 78-91 ms and
    Seven Gem Swap's from 95-120 to 73-110 ms."""
    sys.setswitchinterval(microseconds / 1_000_000)


def log_garbage_collections(path: str) -> None:
    """Append each garbage collection of this process to ``path`` as it ends: its generation,
    its pause in ms, the objects it freed and the CPU ms it took (a pause on a busy machine
    includes waiting for a core). GC_PAUSE_LOG names the file, ``%p`` in it this process's id;
    the fan-out benchmark reads it. A collection stops every coroutine of the worker for its
    whole pause."""
    import time

    path = path.replace("%p", str(os.getpid()))  # one file per process when several share it
    out = open(path, "a", buffering=1)  # noqa: SIM115 (open for the process's life)
    started = [0.0, 0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[:] = time.perf_counter(), time.thread_time()
        else:
            pause = (time.perf_counter() - started[0]) * 1000
            cpu = (time.thread_time() - started[1]) * 1000
            out.write(f"{info['generation']} {pause:.3f} {info['collected']} {cpu:.3f}\n")

    gc.callbacks.append(timed)


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
        sys.setswitchinterval(GIL_SWITCH_SECONDS)
        from daphne.endpoints import build_endpoint_description_strings
        from daphne.server import Server, twisted_loop

        from games.core.live.scheduler import run_forever
        from games.core.live.writes import send_at_once
        from gemsite.asgi import application

        def when_ready() -> None:
            # Close a connection that breaks the limits (or the protocol) with a close frame and
            # its code (1009 for a message too big), not by dropping the socket (autobahn's
            # default, which the client sees as 1006 with no reason). Set before the reactor
            # runs, so every connection copies it from the factory.
            server.ws_factory.setProtocolOptions(failByDrop=False)
            if not options["no_scheduler"]:
                twisted_loop.create_task(run_forever())
            warm_up()
            settle_garbage_collector(settings.GC_GEN0_THRESHOLD)
            share_the_interpreter(settings.GIL_SWITCH_MICROSECONDS)
            if settings.SEND_AT_ONCE:
                send_at_once()
            if os.environ.get("GC_PAUSE_LOG"):
                log_garbage_collections(os.environ["GC_PAUSE_LOG"])
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
            websocket_max_message_size=MAX_MESSAGE_BYTES,
            websocket_max_frame_size=MAX_MESSAGE_BYTES,
            verbosity=0,
        )
        server.run()
