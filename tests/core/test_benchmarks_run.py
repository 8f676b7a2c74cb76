"""``make bench`` (benchmarks/run.py): every benchmark runs and the report is written even when
one fails, and the engines' benchmarks, which reach into the engines' parts, still run (one
that lost its engine's search to a refactor stopped the whole of ``make bench``)."""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path

import pytest

from benchmarks import run as bench

ENGINE_BENCHMARKS = [
    "bejeweled2_engine",
    "bejeweled_dm_solver",
    "glittering_paths_engine",
    "pointsweeper_engine",
    "seven_gem_swap_engine",
]


@pytest.mark.parametrize("name", ENGINE_BENCHMARKS)
def test_an_engine_benchmark_runs_its_quick_run_to_a_report(name: str) -> None:
    section = importlib.import_module(f"benchmarks.{name}").run(quick=True)

    assert section.startswith("## ")
    assert any(line.startswith("|") for line in section.splitlines())  # its table of figures


def test_a_failing_benchmark_is_reported_and_the_others_still_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(quick: bool) -> str:
        raise RuntimeError("the engine lost its search")

    def working(quick: bool) -> str:
        return "## Works\n\n| a |\n| --- |\n| 1 |\n"

    for name, run in (("probe_failing", failing), ("probe_working", working)):
        module = types.ModuleType(f"benchmarks.{name}")
        module.run = run  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, f"benchmarks.{name}", module)
    monkeypatch.setattr(bench, "REPORTS", tmp_path)
    monkeypatch.setattr(bench._live, "machine_speed", lambda: 0.142)

    code = bench.main(["--quick", "probe_failing", "probe_working"])

    report = (tmp_path / "latest-quick.md.tmp").read_text()
    assert code == 1
    assert "142 ms of CPU for `benchmarks._live.speed_game`" in report
    assert "## probe_failing\n\nFailed:" in report and "the engine lost its search" in report
    assert "## Works" in report and "_probe_working:" in report
