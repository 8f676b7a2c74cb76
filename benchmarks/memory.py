"""A worker's memory over long matches (issue 20): does it level off, or grow with the events?

Whole Pointsweeper matches (three boards each, its longest game) are played back to back by the
game's bots through the services, every action as the websocket consumer runs it, and every
audience's update frame drawn and parsed from its layer message as a worker does
(tests/bot_matches.py). After every ``--every`` events, once a full collection has run: the
process's resident memory, the objects the collector tracks, and what the worker's bounded
caches hold (rendering, panel drawings, HTML patches). A worker whose memory is flat stops
growing once those caches are full, however long its matches run.

Sockets are not here: what a connection's buffers hold is measured by benchmarks/fanout.py.

    python -m benchmarks.memory [--matches 3] [--every 25]
"""

from __future__ import annotations

import argparse
import gc
import os
from dataclasses import dataclass

from benchmarks.frames import _Clock, set_up_as_a_worker

GAME = "pointsweeper"


@dataclass(frozen=True)
class Reading:
    match: int  # 1, 2, ... the match being played
    events: int  # events played so far, all matches
    rss_mib: float
    tracked: int  # objects the collector tracks
    caches: dict[str, int]  # what each bounded cache holds (entries)


def rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cache_entries() -> dict[str, int]:
    from games.core.render import frame, htmlpatch, panelcache, panelmemo

    return {
        "panel drawings": len(panelmemo.DRAWINGS),
        "html cuts": len(htmlpatch._CUTS),
        "parsed frames": len(frame._parsed),
        "audiences' panels kept": len(panelcache._recent),
    }


def read(match: int, events: int) -> Reading:
    gc.collect()
    return Reading(match, events, rss_mib(), len(gc.get_objects()), cache_entries())


def play_matches(matches: int, every: int) -> list[Reading]:
    from django.contrib.auth import get_user_model

    from games.core.match import clock as core_clock
    from tests.bot_matches import Played, play

    fake = _Clock()
    core_clock.now = fake  # type: ignore[assignment]
    readings = [read(0, 0)]
    played_events = 0
    for number in range(1, matches + 1):

        def counted(played: Played, number: int = number) -> None:
            nonlocal played_events
            played_events += 1
            # The frames the benchmark records are its own, not the worker's: let them go.
            played.frames.clear()
            if played_events % every == 0:
                readings.append(read(number, played_events))

        host = get_user_model().objects.create_user(f"memory-{os.getpid()}-{number}")
        played = play(GAME, host, fake.advance, events=100_000, on_event=counted)
        if not played.match.is_over:
            raise RuntimeError(f"match {number} stopped before its end")
        readings.append(read(number, played_events))
    return readings


def report(readings: list[Reading]) -> str:
    names = list(readings[0].caches)
    lines = [
        "| match | events played | RSS, MiB | objects tracked | "
        + " | ".join(f"{name} (entries)" for name in names)
        + " |",
        "| --: | --: | --: | --: | " + " | ".join("--:" for _ in names) + " |",
    ]
    for r in readings:
        cells = " | ".join(str(r.caches[name]) for name in names)
        lines.append(
            f"| {r.match or '-'} | {r.events} | {r.rss_mib:.1f} | {r.tracked:,} | {cells} |"
        )
    # The reading taken as each match ended: the last of its match.
    ends = [
        r
        for r, after in zip(readings, [*readings[1:], None], strict=True)
        if r.match and (after is None or after.match != r.match)
    ]
    if len(ends) >= 2:
        growth = ", ".join(
            f"match {b.match}: {b.rss_mib - a.rss_mib:+.1f} MiB"
            for a, b in zip(ends, ends[1:], strict=False)
        )
        lines += ["", f"RSS at each match's end against the match before: {growth}."]
    return "\n".join(lines)


def run(quick: bool = False, matches: int = 3, every: int = 25) -> str:
    """The report's section (``make bench``); a quick run plays one match."""
    set_up_as_a_worker()
    readings = play_matches(1 if quick else matches, every)
    return "\n".join(
        [
            "## A worker's memory over long matches (issue 20)",
            "",
            f"Whole Pointsweeper matches back to back ({1 if quick else matches}), every action "
            "as the consumer runs it and every audience's frame drawn; after every "
            f"{every} events and each match's end, once a full collection has run.",
            "",
            report(readings),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--every", type=int, default=25)
    args = parser.parse_args()
    print(run(matches=args.matches, every=args.every))


if __name__ == "__main__":
    main()
