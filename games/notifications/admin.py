from __future__ import annotations

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError

from games.notifications.addresses import RefusedAddress
from games.notifications.models import Delivery, SeasonWebhook
from games.notifications.services import check_webhook_url


class SeasonWebhookForm(forms.ModelForm):
    """The dashboard's form checks the URL as the host's page does (public addresses only)."""

    class Meta:
        model = SeasonWebhook
        fields = "__all__"

    def clean_url(self) -> str:
        try:
            return check_webhook_url(self.cleaned_data.get("url") or "")
        except RefusedAddress as refused:
            raise ValidationError(str(refused)) from None


@admin.register(SeasonWebhook)
class SeasonWebhookAdmin(admin.ModelAdmin):
    form = SeasonWebhookForm
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
