"""The site's URLs plus Seven Gem Swap's own (until gemsite/urls.py includes them)."""

from __future__ import annotations

from django.urls import include, path

from gemsite.urls import urlpatterns as site_urlpatterns

urlpatterns = [*site_urlpatterns, path("", include("games.seven_gem_swap.urls"))]
