"""Where each version's time went while the whole cast moved at once (issue 40): ``python -m
benchmarks._live cast_trace [--quick]``. Not part of ``make bench``: a diagnosis, run when the
cast benchmark's figures need explaining.

It plays ``cast_together``'s race at a swap every 1.5 s (13 seats on two workers, 200
spectators) with the workers tracing (games/core/live/tracing.py), then puts the workers' lines
side by side:
- the acting seat's own update: from its ack to its frame published (by the drawing thread of
  the worker that applied it), to the frame come to the seat's socket, to the frame sent on
  (held there until the versions before it came from the other worker);
- for each own frame held 20 ms or more: the version it waited for last, whether the other
  worker made it, and in which part of that version's table it was published (the movers'
  part, or the rest);
- the spectators: from the ack to their frame published, and each worker's gallery (its
  waits before a hand-out, and the hand-out);
- the thread that applies actions: each trip's time in all, its hold of the row, and the
  thread's CPU in that hold.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import _live, cast_together
from benchmarks._live import percentile

HELD_AT_LEAST = 0.02  # an own frame held this long is traced to the version it waited for


@dataclass(frozen=True)
class Mark:
    at: float
    process: str
    point: str
    fields: tuple[str, ...]


def read(directory: Path) -> list[Mark]:
    """Every process's marks, in time order."""
    marks = []
    for path in directory.glob("*.txt"):
        for line in path.read_text().splitlines():
            at, point, *fields = line.split()
            marks.append(Mark(float(at), path.stem, point, tuple(fields)))
    return sorted(marks, key=lambda mark: mark.at)


@dataclass
class Trace:
    """One match's marks, by what they mark."""

    acks: dict[int, tuple[float, int, str]] = field(default_factory=dict)  # version: at, seat, by
    published: dict[tuple[str, int], tuple[float, str]] = field(default_factory=dict)
    came: dict[tuple[int, int], float] = field(default_factory=dict)  # (seat, version): at
    sent: dict[tuple[int, int], float] = field(default_factory=dict)
    hand_outs: list[tuple[str, float, float, float, list[int]]] = field(default_factory=list)
    trips: list[tuple[float, float, float]] = field(default_factory=list)


def of_match(marks: list[Mark], match_pk: int) -> Trace:
    trace = Trace()
    prefix = f"match.{match_pk}."
    came_to_gallery: dict[str, float] = {}
    handing: dict[str, tuple[float, list[int]]] = {}
    for mark in marks:
        fields = mark.fields
        if mark.point in ("ack", "came", "sent", "trip") and fields[0] != str(match_pk):
            continue
        of_groups = ("published", "gallery_came", "handing", "handed")
        if mark.point in of_groups and not fields[0].startswith(prefix):
            continue
        if mark.point == "ack" and fields[1] != "None":
            trace.acks[int(fields[2])] = (mark.at, int(fields[1]), mark.process)
        elif mark.point == "published":
            audience = fields[0].removeprefix(prefix)
            trace.published.setdefault((audience, int(fields[1])), (mark.at, fields[2]))
        elif mark.point in ("came", "sent"):
            points = trace.came if mark.point == "came" else trace.sent
            points.setdefault((int(fields[1]), int(fields[2])), mark.at)
        elif mark.point == "gallery_came":
            came_to_gallery[mark.process] = mark.at
        elif mark.point == "handing":
            versions = [int(v) for v in fields[1].split(",") if v.isdigit()]
            handing[mark.process] = (mark.at, versions)
        elif mark.point == "handed" and mark.process in handing:
            began, versions = handing.pop(mark.process)
            came = came_to_gallery.get(mark.process, began)
            trace.hand_outs.append((mark.process, came, began, mark.at, versions))
        elif mark.point == "trip":
            wall, held, cpu = (float(value) / 1000 for value in fields[1:4])
            trace.trips.append((wall, held, cpu))
    return trace


def stages(trace: Trace) -> list[tuple[str, list[float]]]:
    """Each stage's durations in seconds, named as the report shows them."""
    own: dict[str, list[float]] = defaultdict(list)
    for version, (acked, seat, _) in trace.acks.items():
        mine = (f"seat-{seat}", version)
        if mine not in trace.published or (seat, version) not in trace.sent:
            continue
        published = trace.published[mine][0]
        came, sent = trace.came.get((seat, version), published), trace.sent[(seat, version)]
        own["the ack to the own frame published"].append(published - acked)
        own["then come to the seat's socket"].append(came - published)
        own["then held there for the versions before"].append(sent - came)
        own["the ack to the own frame sent, in all"].append(sent - acked)
        spectators = trace.published.get(("spectators", version))
        if spectators is not None:
            own["the ack to the spectators' frame published"].append(spectators[0] - acked)
    hand_outs = trace.hand_outs
    gallery = {
        "a gallery's wait before a hand-out": [began - came for _, came, began, _, _ in hand_outs],
        "a gallery's hand-out": [ended - began for _, _, began, ended, _ in hand_outs],
    }
    trips = {
        "a trip of the thread that applies actions, in all": [t[0] for t in trace.trips],
        "of it the row held": [t[1] for t in trace.trips],
        "the thread's CPU while it held the row": [t[2] for t in trace.trips],
    }
    return [*own.items(), *gallery.items(), *trips.items()]


def held_waits(trace: Trace) -> dict[tuple[bool, str], tuple[int, float]]:
    """For the own frames held HELD_AT_LEAST or more: by (whether the other worker made the
    version waited for, the part of its table it was published in), how many and their hold
    in all (seconds)."""
    waits: dict[tuple[bool, str], tuple[int, float]] = {}
    for version, (_, seat, by) in trace.acks.items():
        came, sent = trace.came.get((seat, version)), trace.sent.get((seat, version))
        if came is None or sent is None or sent - came < HELD_AT_LEAST:
            continue
        before = [
            earlier
            for earlier in range(version)
            if (seat, earlier) in trace.came and trace.came[(seat, earlier)] >= came
        ]
        if not before:
            continue
        last = max(before, key=lambda earlier: trace.came[(seat, earlier)])
        other = last in trace.acks and trace.acks[last][2] != by
        part = trace.published.get((f"seat-{seat}", last), (0.0, "unknown"))[1]
        count, total = waits.get((other, part), (0, 0.0))
        waits[(other, part)] = (count + 1, total + sent - came)
    return waits


def report(trace: Trace, heading: str) -> str:
    lines = [
        f"## Where the time went: {heading}",
        "",
        "| stage | n | p50 ms | p90 ms | p95 ms |",
        "| --- | --: | --: | --: | --: |",
    ]
    for name, values in stages(trace):
        figures = " | ".join(f"{percentile(values, q) * 1000:.1f}" for q in (0.5, 0.9, 0.95))
        lines.append(f"| {name} | {len(values)} | {figures} |")
    lines += [
        "",
        f"Own frames held {HELD_AT_LEAST * 1000:.0f} ms or more at their socket, by the version "
        "they waited for last:",
        "",
        "| made by | published in | frames | held in all, ms |",
        "| --- | --- | --: | --: |",
    ]
    for (other, part), (count, total) in sorted(held_waits(trace).items()):
        worker = "the other worker" if other else "the same worker"
        lines.append(f"| {worker} | the {part} part | {count} | {total * 1000:.0f} |")
    return "\n".join(lines)


def main(quick: bool) -> str:
    _live.production_workers()
    with tempfile.TemporaryDirectory(prefix="gem-trace-") as directory:
        os.environ["GEM_TRACE_DIR"] = directory  # the workers' environment is made from ours
        try:
            with _live.own_database("trace"):
                table = asyncio.run(cast_together.measure(quick, race_paces=(1.5,), seven=False))
                from games.core.models import Match

                match_pk = Match.objects.get(title="Cast at 1.5 s").pk
        finally:
            del os.environ["GEM_TRACE_DIR"]
        trace = of_match(read(Path(directory)), match_pk)
    return f"{table}\n\n{report(trace, 'the race at a swap every 1.5 s')}\n"


if __name__ == "__main__":
    raise SystemExit(_live.main(["cast_trace", *sys.argv[1:]]))
