from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from games.core import help_views, views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("matches/new/", views.new_match, name="new_match"),
    path("matches/new/<str:game_key>/", views.new_match, name="new_match_settings"),
    path("m/<str:public_id>/", views.match_page, name="match"),
    path("m/<str:public_id>/join/<str:token>/", views.join_seat, name="join_seat"),
    path("m/<str:public_id>/host/<str:operation>/", views.host_operation, name="host_operation"),
    path("m/<str:public_id>/audit/", views.match_audit, name="match_audit"),
    path("m/<str:public_id>/rematch/", views.rematch, name="rematch"),
    path("m/<str:public_id>/seat/<int:index>/bot/", views.seat_bot, name="seat_bot"),
    path("m/<str:public_id>/replay/", views.replay, name="replay"),
    path("m/<str:public_id>/export.json", views.export, name="export"),
    path("m/<str:public_id>/seed/", views.player_seed, name="player_seed"),
    path("m/<str:public_id>/fairness.json", views.fairness, name="fairness"),
    path("rules/", help_views.rules_index, name="rules_index"),
    path("gems/", help_views.gem_gallery, name="gem_gallery"),
    path("rules/<str:game_key>/", help_views.rules, name="rules"),
]
