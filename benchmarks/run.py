"""Run every benchmark and write the report: ``python -m benchmarks.run [--quick] [name ...]``.

Each module of this package (except this one) with a ``run(quick: bool) -> str`` function is a
benchmark; its markdown section goes into benchmarks/reports/latest.md and into a dated copy
benchmarks/reports/YYYY-MM-DD.md. A quick run only prints its report and leaves it in
benchmarks/reports/latest-quick.md.tmp (ignored by git), so that a smoke run never replaces a real
report.

Benchmarks whose headline is read beside the last full run's (frames, matches_ceiling) keep that
run's figures in benchmarks/reports/<name>.json (benchmarks/_baseline.py) and show each figure as
``now (previous, change)``; a full run rewrites the file, a quick run leaves it.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import platform
import sys
import time
import traceback
from datetime import datetime
from pathlib import Path

import benchmarks
from benchmarks import _live

REPORTS = Path(__file__).resolve().parent / "reports"


def benchmark_names() -> list[str]:
    return sorted(
        info.name
        for info in pkgutil.iter_modules(benchmarks.__path__)
        if info.name != "run" and not info.name.startswith("_")
    )


def machine() -> str:
    """What ran the benchmarks, with how fast its cores were (``_live.machine_speed``: every
    session's machine differs, and two reports' times compare only beside it)."""
    speed = _live.machine_speed()
    return (
        f"Python {platform.python_version()} on {platform.machine()}, {platform.system()}, "
        f"{1000 * speed:.0f} ms of CPU for `benchmarks._live.speed_game`"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a small smoke run")
    parser.add_argument("names", nargs="*", help="benchmark modules to run (default: all)")
    args = parser.parse_args(argv)
    names = args.names or benchmark_names()
    started = datetime.now()
    sections = []
    failed = []
    for name in names:
        clock = time.perf_counter()
        try:
            run = getattr(importlib.import_module(f"benchmarks.{name}"), "run", None)
            if run is None:
                continue
            print(f"== {name}", file=sys.stderr, flush=True)
            section = run(quick=args.quick)
        except Exception:  # the others still run, and the report says which failed and how
            traceback.print_exc()
            failed.append(name)
            section = f"## {name}\n\nFailed:\n\n```\n{traceback.format_exc()[-3000:]}```\n"
        elapsed = time.perf_counter() - clock
        sections.append(f"{section.rstrip()}\n\n_{name}: {elapsed:.0f} s in all._\n")
    kind = "quick run" if args.quick else "full run"
    header = (
        f"# Benchmarks\n\n{kind}, {started:%Y-%m-%d %H:%M}, {machine()}, one process (one core).\n"
    )
    report = "\n".join([header, *sections])
    REPORTS.mkdir(exist_ok=True)
    if args.quick:
        targets = [REPORTS / "latest-quick.md.tmp"]
    else:
        targets = [REPORTS / "latest.md", REPORTS / f"{started:%Y-%m-%d}.md"]
    for target in targets:
        partial = target.with_name(target.name + ".partial.tmp")
        partial.write_text(report)
        partial.replace(target)
        print(f"wrote {target}", file=sys.stderr)
    print(report)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
