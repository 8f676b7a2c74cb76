from __future__ import annotations

from django.urls import path

from games.seasons import views

urlpatterns = [
    path("", views.season_list, name="seasons"),
    path("new/", views.season_new, name="season_new"),
    path("<int:pk>/", views.season_page, name="season"),
    path("<int:pk>/audit/", views.season_audit, name="season_audit"),
    path("<int:pk>/export.json", views.season_export_json, name="season_export_json"),
    path("<int:pk>/export.csv", views.season_export_csv, name="season_export_csv"),
    path("<int:pk>/join/<str:token>/", views.season_join, name="season_join"),
    path("<int:pk>/cast/<int:member>/admit/", views.season_admit, name="season_admit"),
    path("<int:pk>/hosts/", views.season_add_host, name="season_add_host"),
    path("<int:pk>/hosts/<int:user>/remove/", views.season_remove_host, name="season_remove_host"),
    path("<int:pk>/invite/", views.season_invite, name="season_invite"),
    path("<int:pk>/ledger/", views.season_adjust_ledger, name="season_adjust_ledger"),
    path(
        "<int:pk>/episodes/new/<str:game_key>/",
        views.season_new_episode,
        name="season_new_episode",
    ),
    path("<int:pk>/final/<str:game_key>/", views.season_final, name="season_final"),
    path("<int:pk>/episodes/<int:number>/", views.episode_page, name="season_episode"),
    path(
        "<int:pk>/episodes/<int:number>/nominate/",
        views.episode_nominate,
        name="season_nominate",
    ),
    path(
        "<int:pk>/episodes/<int:number>/nomination-clock/",
        views.episode_nomination_clock,
        name="season_nomination_clock",
    ),
    path(
        "<int:pk>/episodes/<int:number>/token/",
        views.episode_spend_token,
        name="season_spend_token",
    ),
    path(
        "<int:pk>/episodes/<int:number>/death-match/<str:game_key>/",
        views.episode_death_match,
        name="season_death_match",
    ),
]
