"""Benchmarks: ``python -m benchmarks.run`` (``make bench``) runs every module here that has a
``run(quick)`` function and writes benchmarks/reports/latest.md with a dated copy."""
