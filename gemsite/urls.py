from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("games.core.urls")),
    path("seasons/", include("games.seasons.urls")),
    path("", include("games.bejeweled_dm.urls")),
    path("", include("games.bejeweled2.urls")),
    path("", include("games.glittering_paths.urls")),
    path("notifications/", include("games.notifications.urls")),
]
