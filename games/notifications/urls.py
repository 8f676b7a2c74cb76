from __future__ import annotations

from django.urls import path

from games.notifications import views

app_name = "notifications"
urlpatterns = [
    path("", views.notification_list, name="list"),
    path("read/", views.read_all, name="read_all"),
    path("<int:pk>/open/", views.open_notification, name="open"),
    path("preferences/", views.preferences, name="preferences"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("season/<int:pk>/webhook/", views.season_webhook, name="season_webhook"),
    path("season/<int:pk>/webhook/test/", views.season_webhook_test, name="season_webhook_test"),
]
