from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from games.notifications.models import Notification


def unread(request: HttpRequest) -> dict[str, Any]:
    """``unread_notifications``: the signed-in user's unread count, read only if a page shows it."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    count = SimpleLazyObject(lambda: Notification.objects.unread().filter(user=user).count())
    return {"unread_notifications": count}
