from __future__ import annotations

from games.core.live.routing import websocket_urlpatterns as core_patterns

websocket_urlpatterns = [*core_patterns]
