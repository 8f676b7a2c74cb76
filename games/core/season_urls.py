from __future__ import annotations

from django.urls import path

from games.core import season_views

urlpatterns = [
    path("", season_views.season_list, name="seasons"),
    path("<int:pk>/", season_views.season_page, name="season"),
    path("<int:pk>/audit/", season_views.season_audit, name="season_audit"),
]
