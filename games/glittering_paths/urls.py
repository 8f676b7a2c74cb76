from __future__ import annotations

from django.urls import path

from games.glittering_paths import views

urlpatterns = [
    path(
        "m/<str:public_id>/glittering-paths/round/<int:round_no>/",
        views.round_result,
        name="glittering_paths_round",
    ),
]
