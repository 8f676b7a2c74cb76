"""Where a version's time goes on its way through the workers, written down when asked.

``GEM_TRACE_DIR`` names a directory: each process then appends one line per point a version
passes (an action answered, a frame published, a frame come to a seat's socket and sent on, a
spectators' hand-out, a trip of the thread that applies actions) to ``<pid>.txt`` there, each
with the wall clock, so that the lines of several workers on one machine can be put side by
side (benchmarks/cast_trace.py reads them). Unset, as in production, a point costs one test
of a module global.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import TextIO

_directory = os.environ.get("GEM_TRACE_DIR") or None
_out: TextIO | None = None
_opened = threading.Lock()


def enabled() -> bool:
    return _directory is not None


def mark(point: str, *fields: object) -> None:
    """Write ``point`` and ``fields`` (no spaces in any) with the time now, if tracing."""
    if _directory is None:
        return
    line = " ".join([f"{time.time():.6f}", point, *(str(field) for field in fields)]) + "\n"
    with _opened:
        _file().write(line)


def _file() -> TextIO:
    global _out
    if _out is None:
        assert _directory is not None
        path = Path(_directory) / f"{os.getpid()}.txt"
        _out = path.open("a", buffering=1)  # noqa: SIM115 (open for the process's life)
    return _out


def trace_into(directory: str | None) -> None:
    """Trace into ``directory`` from now on (None: stop); for tests and benchmarks that set
    it after import."""
    global _directory, _out
    with _opened:
        if _out is not None:
            _out.close()
        _directory, _out = directory, None
