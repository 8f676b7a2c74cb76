"""The previous figures a benchmark's headline is compared with (issue 39).

A benchmark whose headline should be read beside the last full run (benchmarks.frames,
benchmarks.matches_ceiling) keeps that run's figures in a small JSON file under
benchmarks/reports/ (``frames.json``, ``matches_ceiling.json``)::

    {"benchmark": "frames", "measured": "2026-12-05 11:27 UTC", "commit": "99ff0a5",
     "how": "...", "figures": {"bejeweled-2": {"cpu_ms_median": 7.7, ...}, ...}}

``figures`` maps each row (a game) to its figures by name, numbers only. Every run reads the
file and prints each figure as ``now (previous, change)``; only a full run writes it, so a
quick or partial run never replaces the figures a later run is compared with.
"""

from __future__ import annotations

import json
import math
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

REPORTS = Path(__file__).resolve().parent / "reports"

Figures = Mapping[str, Mapping[str, float]]


@dataclass(frozen=True)
class Previous:
    """The figures of the last full run, and where they come from (or why there are none)."""

    figures: dict[str, dict[str, float]] = field(default_factory=dict)
    said: str = ""
    facts: dict[str, object] = field(default_factory=dict)  # the file's other keys

    def part(self, rows: Callable[[str], bool]) -> Previous:
        """The same, with only the rows ``rows`` says yes to (a table's share of the file)."""
        kept = {row: values for row, values in self.figures.items() if rows(row)}
        return Previous(figures=kept, said=self.said, facts=self.facts)


def read(path: Path) -> Previous:
    """The previous figures kept at ``path``; none, with the reason, if it is missing or bad."""
    try:
        kept = json.loads(path.read_text())
    except FileNotFoundError:
        return Previous(said=f"no previous figures ({path.name} is missing)")
    except (OSError, ValueError) as error:
        return Previous(said=f"no previous figures ({path.name} is unreadable: {error})")
    problem = _problem(kept)
    if problem:
        return Previous(said=f"no previous figures ({path.name} is malformed: {problem})")
    figures = {
        row: {name: float(value) for name, value in values.items()}
        for row, values in kept["figures"].items()
    }
    said = path.name
    for key, words in (("measured", "measured"), ("commit", "at"), ("database", "on")):
        if kept.get(key):
            said += f" {words} {kept[key]}"
    if kept.get("how"):
        said += f"; {kept['how']}"
    facts = {key: value for key, value in kept.items() if key != "figures"}
    return Previous(figures=figures, said=said, facts=facts)


def _problem(kept: object) -> str | None:
    if not isinstance(kept, dict):
        return "not an object"
    figures = kept.get("figures")
    if not isinstance(figures, dict):
        return "no 'figures' object"
    for row, values in figures.items():
        if not isinstance(values, dict):
            return f"the figures of {row!r} are not an object"
        for name, value in values.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                return f"{row!r} {name!r} is not a number"
    return None


def commit() -> str:
    """The commit this code is at, with ``+changes`` if the work tree differs from it."""
    root = REPORTS.parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head}+changes" if changed else head


def write(path: Path, benchmark: str, figures: Figures, **facts: object) -> None:
    """Keep ``figures`` at ``path`` as the previous figures of the next run, with the date and
    commit and ``facts`` (e.g. ``how``: the command, ``database``)."""
    kept = {
        "benchmark": benchmark,
        "measured": f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        "commit": commit(),
        **facts,
        "figures": {
            row: {name: round(value, 3) for name, value in values.items()}
            for row, values in figures.items()
        },
    }
    partial = path.with_name(path.name + ".partial.tmp")
    partial.write_text(json.dumps(kept, indent=2) + "\n")
    partial.replace(path)


def beside(now: float | None, before: float | None, digits: int = 1) -> str:
    """``now (before, change)``: the change in per cent, ``=`` when the figures read the same."""
    if now is None or math.isnan(now):
        return "-" if before is None else f"- ({before:.{digits}f})"
    shown = f"{now:.{digits}f}"
    if before is None or math.isnan(before):
        return f"{shown} (new)"
    was = f"{before:.{digits}f}"
    if shown == was:
        return f"{shown} ({was}, =)"
    if before == 0:
        return f"{shown} ({was}, {now - before:+.{digits}f})"
    return f"{shown} ({was}, {100 * (now - before) / abs(before):+.0f}%)"


def table(
    first: str,
    columns: Sequence[tuple[str, str, int]],
    figures: Figures,
    previous: Previous,
    gone: bool = True,
) -> list[str]:
    """A markdown table, one row per row of ``figures``, then (if ``gone``) per row only
    ``previous`` has; ``columns`` are (figure's name, heading, digits shown), each cell
    ``now (before, change)``."""
    lines = [
        f"| {first} | " + " | ".join(heading for _, heading, _ in columns) + " |",
        "| --- | " + " | ".join("--:" for _ in columns) + " |",
    ]
    rows = [*figures, *(row for row in previous.figures if gone and row not in figures)]
    for row in rows:
        now, before = figures.get(row, {}), previous.figures.get(row, {})
        cells = [beside(now.get(name), before.get(name), digits) for name, _, digits in columns]
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return lines
