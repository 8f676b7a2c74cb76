"""Seven Gem Swap's own URL: the host's clock extension. (gemsite/urls.py must include this
module: ``path("", include("games.seven_gem_swap.urls"))``.)"""

from __future__ import annotations

from django.urls import path

from games.seven_gem_swap import views

urlpatterns = [
    path(
        "m/<str:public_id>/seven-gem-swap/extend/",
        views.extend_deadline,
        name="seven_gem_swap_extend",
    ),
]
