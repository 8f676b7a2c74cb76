"""The fair-play panel's one filter (templates/core/_fairness.html)."""

from __future__ import annotations

from typing import Any

from django import template

from games.core import fairness

register = template.Library()


@register.filter
def json_text(move: Any) -> str:
    """A revealed move as its receipt reads it (canonical JSON); the template escapes it."""
    return fairness.canonical(move) if isinstance(move, dict) else ""
