from __future__ import annotations

from django.contrib import admin

from games.notifications.models import Delivery, SeasonWebhook


@admin.register(SeasonWebhook)
class SeasonWebhookAdmin(admin.ModelAdmin):
    list_display = ["season", "url", "updated_at"]


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    """Read only: what was sent where, what is waiting and what was given up."""

    list_display = ["created_at", "channel", "kind", "destination", "status", "attempts", "due_at"]
    list_filter = ["status", "channel", "kind"]
    readonly_fields = [field.name for field in Delivery._meta.fields]

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False
