"""What a game declares, once: its host settings as a table. Pure (standard library only).

A flow lists its ``SETTINGS`` (a tuple of ``Setting``); the new-match form, the defaults and the
cleaning of what a host (or a tool) sends all come from that one table, and ``auto_start`` is the
core's own setting of every game. A rule that spans several settings is the flow's
``check_settings(settings) -> settings``, run after each setting is cleaned.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Setting:
    """One host setting: its name in the settings, the form's words, its default, and what it
    may be. The kind follows from the default: a bool is a tick box; an int a whole number from
    ``low`` to ``high``; a value with ``choices`` one of them (a list default: any of them, in
    the choices' order); a str free text (``lines`` > 0: a text area), read by ``check``."""

    name: str
    label: str
    default: Any
    help: str = ""
    low: int | None = None
    high: int | None = None
    choices: tuple[tuple[Any, str], ...] = ()
    lines: int = 0
    # An extra rule for this setting: returns the value as kept or raises ValueError.
    check: Callable[[Any], Any] | None = None
    # The form asks for it only while another setting has one of these values (a pasted board
    # when boards are pasted): ("boards", ("pasted",)). Its value is kept (and checked) anyway.
    shown_when: tuple[str, tuple[Any, ...]] | None = None

    @property
    def kind(self) -> str:
        if isinstance(self.default, bool):
            return "bool"
        if self.choices:
            return "several" if isinstance(self.default, list) else "choice"
        if isinstance(self.default, int):
            return "int"
        return "text"

    def clean(self, value: Any) -> Any:
        """``value`` as kept, or ValueError naming the setting and what it may be."""
        kept = _CLEANERS[self.kind](self, value)
        return self.check(kept) if self.check is not None else kept


def _clean_bool(setting: Setting, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{setting.name} is true or false")
    return value


def _whole(value: Any) -> Any:
    """A whole number sent as text (a form, a tool posting strings) as the number."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    return value


def _clean_int(setting: Setting, value: Any) -> int:
    low = setting.low if setting.low is not None else -(2**31)
    high = setting.high if setting.high is not None else 2**31
    value = _whole(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{setting.name} must be a whole number from {low} to {high}")
    return value


def _clean_choice(setting: Setting, value: Any) -> Any:
    allowed = [choice for choice, _ in setting.choices]
    if isinstance(setting.default, int):
        value = _whole(value)
    if isinstance(value, bool) or value not in allowed:
        shown = ", ".join(repr(choice) for choice in allowed)
        raise ValueError(f"{setting.name} is one of {shown}")
    return value


def _clean_several(setting: Setting, value: Any) -> list[Any]:
    allowed = [choice for choice, _ in setting.choices]
    if not isinstance(value, list | tuple) or any(item not in allowed for item in value):
        shown = ", ".join(repr(choice) for choice in allowed)
        raise ValueError(f"{setting.name} is a list of {shown}")
    return [choice for choice in allowed if choice in value]


def _clean_text(setting: Setting, value: Any) -> Any:
    if not isinstance(value, str):
        raise ValueError(f"{setting.name} is text")
    return value


_CLEANERS: dict[str, Callable[[Setting, Any], Any]] = {
    "bool": _clean_bool,
    "int": _clean_int,
    "choice": _clean_choice,
    "several": _clean_several,
    "text": _clean_text,
}

AUTO_START = Setting(
    "auto_start", "Start as soon as every seat is taken", True, help="Or start it by hand."
)


def with_auto_start(settings: Sequence[Setting]) -> tuple[Setting, ...]:
    """A game's settings with the core's ``auto_start`` (every game has it, declared once)."""
    return (*[s for s in settings if s.name != AUTO_START.name], AUTO_START)


def defaults(settings: Sequence[Setting]) -> dict[str, Any]:
    return {s.name: list(s.default) if s.kind == "several" else s.default for s in settings}


def settled(
    settings: Sequence[Setting],
    given: Mapping[str, Any],
    check_all: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The settings as a match keeps them (the core's ``auto_start`` among them): what a game's
    definition and its flow's ``start`` both use. Cleaning kept settings keeps them as they are."""
    return clean(with_auto_start(settings), given, check_all)


def clean(
    settings: Sequence[Setting],
    given: Mapping[str, Any],
    check_all: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The settings a match keeps: the defaults with ``given`` over them, each cleaned, then
    ``check_all`` (the rule between settings). ValueError with a reason a host can read."""
    table = {s.name: s for s in settings}
    unknown = sorted(set(given) - set(table))
    if unknown:
        raise ValueError(f"unknown setting(s): {', '.join(unknown)}")
    merged = {**defaults(settings), **given}
    cleaned = {name: table[name].clean(value) for name, value in merged.items()}
    return check_all(cleaned) if check_all is not None else cleaned
