"""The floor of the fan-out benchmark: a bare Channels consumer in a group, forwarding whatever
is group_sent to it, on the same channel layer as the site (settings from the environment).

Served by ``daphne benchmarks._floor_app:application``; benchmarks/fanout.py group_sends frames of
the size the site sends and times their arrival at the same number of websockets. The process
settles its garbage collector as a site worker does (``serve``), so the two differ only in what
the site does per frame.
"""

from __future__ import annotations

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gemsite.test_settings")
django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from games.core.live.consumers import dispatch_without_hop  # noqa: E402
from games.core.management.commands.serve import (  # noqa: E402
    log_garbage_collections,
    settle_garbage_collector,
)

GROUP = "floor"


class FloorConsumer(AsyncWebsocketConsumer):
    groups = [GROUP]  # noqa: RUF012  (channels reads the class attribute)

    async def floor_frame(self, message: dict[str, str]) -> None:
        await self.send(text_data=message["text"])


class LeanFloorConsumer(FloorConsumer):
    """The floor dispatching as the site's match sockets do (games/core/live/consumers.py), without
    channels' hop to the database thread before each message: ``FANOUT_FLOOR=lean``."""

    async def dispatch(self, message: dict[str, str]) -> None:
        await dispatch_without_hop(self, message)


consumer = LeanFloorConsumer if os.environ.get("FANOUT_FLOOR") == "lean" else FloorConsumer


application = ProtocolTypeRouter({"websocket": consumer.as_asgi()})
settle_garbage_collector(settings.GC_GEN0_THRESHOLD)
if os.environ.get("GC_PAUSE_LOG"):
    log_garbage_collections(os.environ["GC_PAUSE_LOG"])
