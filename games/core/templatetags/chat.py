"""``{% chat_panel as chat %}``: what the match page's chat panel shows the signed-in user
(templates/core/_chat.html). The rules are games/core/match/chat.py's."""

from __future__ import annotations

from typing import Any

from django import template
from django.template.context import Context

from games.core.match import chat

register = template.Library()


@register.simple_tag(takes_context=True)
def chat_panel(context: Context) -> dict[str, Any]:
    return chat.panel(context["match"], context["request"].user)
