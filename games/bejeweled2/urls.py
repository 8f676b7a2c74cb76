from __future__ import annotations

from django.urls import path

from games.bejeweled2 import views

urlpatterns = [
    path("play/bejeweled-2/", views.play, name="bejeweled2_play"),
]
