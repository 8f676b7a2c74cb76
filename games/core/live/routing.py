from __future__ import annotations

from django.urls import path

from games.core.live.consumers import MatchConsumer

websocket_urlpatterns = [
    path("ws/m/<str:public_id>/", MatchConsumer.as_asgi()),
]
