"""Benchmarks: ``python -m benchmarks.run`` (``make bench``) runs every module here that has a
``run(quick)`` function and writes benchmarks/reports/latest.md with a dated copy."""

import os

# Measure what production runs: the tests' settings otherwise draw every remembered panel twice.
os.environ.setdefault("PANEL_MEMO_CHECK", "0")
