from __future__ import annotations

from django.urls import path

from games.bejeweled_dm import views

urlpatterns = [
    path("practice/bejeweled-dm/", views.practice, name="bejeweled_dm_practice"),
]
