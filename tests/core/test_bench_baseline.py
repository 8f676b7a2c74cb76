"""The benchmarks' previous figures (benchmarks/_baseline.py): read, written, shown beside the
new ones by benchmarks.frames and benchmarks.matches_ceiling; a quick run keeps the old ones.
No benchmark is run: the results are made up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import _baseline, frames, matches_ceiling
from benchmarks.matches_ceiling import Step


def kept(path: Path, figures: dict[str, dict[str, float]], **facts: Any) -> Path:
    path.write_text(json.dumps({"measured": "2026-12-05 11:27 UTC", **facts, "figures": figures}))
    return path


def test_a_missing_file_gives_no_previous_figures_and_says_so(tmp_path: Path) -> None:
    previous = _baseline.read(tmp_path / "frames.json")

    assert previous.figures == {}
    assert previous.said == "no previous figures (frames.json is missing)"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "unreadable"),
        ("[1, 2]", "malformed: not an object"),
        ('{"measured": "today"}', "malformed: no 'figures' object"),
        ('{"figures": {"bejeweled-2": 7.7}}', "malformed: the figures of 'bejeweled-2'"),
        ('{"figures": {"bejeweled-2": {"cpu_ms_median": "7.7"}}}', "is not a number"),
        ('{"figures": {"bejeweled-2": {"cpu_ms_median": true}}}', "is not a number"),
    ],
)
def test_a_malformed_file_gives_no_previous_figures(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = tmp_path / "frames.json"
    path.write_text(text)

    previous = _baseline.read(path)

    assert previous.figures == {}
    assert previous.said.startswith("no previous figures (frames.json is ")
    assert problem in previous.said


def test_written_figures_are_read_back_with_their_date_and_commit(tmp_path: Path) -> None:
    path = tmp_path / "frames.json"

    _baseline.write(path, "frames", {"bejeweled-2": {"cpu_ms_median": 7.71234}}, how="a test")
    previous = _baseline.read(path)

    assert previous.figures == {"bejeweled-2": {"cpu_ms_median": 7.712}}
    assert previous.facts["benchmark"] == "frames"
    assert previous.facts["commit"] == _baseline.commit()
    assert previous.said.startswith(f"frames.json measured {previous.facts['measured']} at ")
    assert previous.said.endswith("; a test")
    assert [p.name for p in tmp_path.iterdir()] == ["frames.json"]


@pytest.mark.parametrize(
    ("now", "before", "digits", "shown"),
    [
        (7.9, 7.7, 1, "7.9 (7.7, +3%)"),
        (7.0, 7.7, 1, "7.0 (7.7, -9%)"),
        (7.04, 7.0, 1, "7.0 (7.0, =)"),
        (7.0, 6.0, 0, "7 (6, +17%)"),
        (2.0, 0.0, 0, "2 (0, +2)"),
        (7.9, None, 1, "7.9 (new)"),
        (None, 7.7, 1, "- (7.7)"),
        (float("nan"), None, 1, "-"),
    ],
)
def test_each_figure_is_shown_beside_the_previous(
    now: float | None, before: float | None, digits: int, shown: str
) -> None:
    assert _baseline.beside(now, before, digits) == shown


def test_a_table_lists_new_rows_and_rows_gone(tmp_path: Path) -> None:
    previous = _baseline.read(kept(tmp_path / "x.json", {"a": {"ms": 2.0}, "gone": {"ms": 1.0}}))
    figures = {"a": {"ms": 1.0}, "new": {"ms": 3.0}}

    every = _baseline.table("game", [("ms", "CPU, ms", 1)], figures, previous)
    some = _baseline.table("game", [("ms", "CPU, ms", 1)], figures, previous, gone=False)

    assert every == [
        "| game | CPU, ms |",
        "| --- | --: |",
        "| a | 1.0 (2.0, -50%) |",
        "| new | 3.0 (new) |",
        "| gone | - (1.0) |",
    ]
    assert some == every[:-1]


# --- benchmarks.frames ----------------------------------------------------------------------


def frames_result(game: str, cpu_ms: float, queries: int, layer_kb: float) -> dict[str, Any]:
    return {
        "game": game,
        "cpu_ms": [cpu_ms] * 5,
        "queries": [queries] * 5,
        "layer_bytes": [layer_kb * 1024] * 5,
    }


@pytest.fixture
def frames_baseline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = kept(
        tmp_path / "frames.json",
        {
            "bejeweled-2": {
                "cpu_ms_median": 7.7,
                "cpu_ms_p95": 11.5,
                "queries_median": 7.0,
                "queries_p95": 9.0,
                "layer_kb_median": 3.6,
                "layer_kb_p95": 5.4,
            }
        },
        commit="99ff0a5",
        database="SQLite",
        events=80,
    )
    monkeypatch.setattr(frames, "BASELINE", path)
    return path


def test_frames_shows_each_games_headline_beside_the_previous(frames_baseline: Path) -> None:
    results = [
        frames_result("bejeweled-2", 8.0, 7, 3.6),
        frames_result("pointsweeper", 9.0, 6, 5.0),
    ]

    text = frames.beside_previous(results, 80, full=False, every_game=True, how="a test")

    assert "The previous: frames.json measured 2026-12-05 11:27 UTC at 99ff0a5 on SQLite." in text
    assert "| bejeweled-2 | 8.0 (7.7, +4%) | 8.0 (11.5, -30%) | 7 (7, =) | 7 (9, -22%) | " in text
    assert "| 3.6 (3.6, =) | 3.6 (5.4, -33%) |" in text
    assert "| pointsweeper | 9.0 (new) | 9.0 (new) | 6 (new) |" in text
    assert "plays up to" not in text


def test_frames_says_when_a_run_is_not_like_the_previous(frames_baseline: Path) -> None:
    text = frames.beside_previous(
        [frames_result("bejeweled-2", 8.0, 7, 3.6)], 20, full=False, every_game=True, how="x"
    )

    assert "This run plays up to 20 events, not 80." in text


def test_frames_quick_run_keeps_the_previous_figures(frames_baseline: Path) -> None:
    before = frames_baseline.read_text()

    text = frames.beside_previous(
        [frames_result("bejeweled-2", 8.0, 7, 3.6)], 20, full=False, every_game=True, how="x"
    )

    assert frames_baseline.read_text() == before
    assert "A quick or partial run: frames.json is left as it was." in text


def test_frames_full_run_keeps_its_figures_for_the_next(frames_baseline: Path) -> None:
    results = [frames_result("bejeweled-2", 8.0, 7, 3.6)]

    first = frames.beside_previous(results, 80, full=True, every_game=True, how="make bench")
    second = frames.beside_previous(results, 80, full=False, every_game=True, how="x")

    assert "| bejeweled-2 | 8.0 (7.7, +4%) |" in first
    assert "This run's figures are kept in frames.json for the next run." in first
    assert "| bejeweled-2 | 8.0 (8.0, =) |" in second
    assert json.loads(frames_baseline.read_text())["how"] == "make bench"


def test_frames_without_previous_figures_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(frames, "BASELINE", tmp_path / "frames.json")

    text = frames.beside_previous(
        [frames_result("bejeweled-2", 8.0, 7, 3.6)], 80, full=False, every_game=True, how="x"
    )

    assert text.startswith("Each game's headline: no previous figures (frames.json is missing).")
    assert "| bejeweled-2 | 8.0 (new) |" in text


def test_the_kept_frames_figures_are_readable() -> None:
    previous = _baseline.read(_baseline.REPORTS / "frames.json")

    assert "bejeweled-2-race x13" in previous.figures
    assert all(
        set(row) == {name for name, _, _ in frames.HEADLINE} for row in previous.figures.values()
    )


# --- benchmarks.matches_ceiling -------------------------------------------------------------


def step(matches: int, ack_ms: float, games: tuple[str, ...] = ("bejeweled-2",)) -> Step:
    acks = [ack_ms / 1000] * 100
    return Step(
        matches,
        seconds=60.0,
        acks=acks,
        by_game={game: acks[:50] for game in games},
        lag=[0.01] * 10,
        cpu={"worker-1": 0.1, "worker-2": 0.15, "PostgreSQL (this database's backends)": 0.05},
    )


@pytest.fixture
def ceiling_baseline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = kept(
        tmp_path / "matches_ceiling.json",
        {
            "ceiling": {"N": 12, "workers_cpu_ms": 22.1},
            "N=6": {"ack_p99_ms": 28, "lost": 0},
            "N=12": {"ack_p99_ms": 47, "lost": 0},
            "N=24": {"ack_p99_ms": 160, "lost": 0},
            "bejeweled-2": {"actions": 111, "ack_p50_ms": 10, "ack_p99_ms": 128},
            "pointsweeper": {"actions": 104, "ack_p50_ms": 16, "ack_p99_ms": 133},
        },
        games_at=24,
    )
    monkeypatch.setattr(matches_ceiling, "BASELINE", path)
    return path


def test_the_ceiling_is_the_last_step_that_held() -> None:
    figures = matches_ceiling.headline([step(6, 20), step(12, 30), step(24, 200)])

    assert figures["ceiling"]["N"] == 12
    # 0.25 of a core for 60 s over 100 acks: 150 ms a worker's action.
    assert figures["ceiling"]["workers_cpu_ms"] == pytest.approx(150)
    assert figures["N=24"]["ack_p99_ms"] == pytest.approx(200)
    assert figures["N=24"]["workers_cpu_pct"] == pytest.approx(25)
    assert figures["bejeweled-2"] == {"actions": 50, "ack_p50_ms": 200, "ack_p99_ms": 200}


def test_the_ceiling_is_shown_beside_the_previous(ceiling_baseline: Path) -> None:
    before = ceiling_baseline.read_text()

    text = matches_ceiling.beside_previous(
        [step(6, 20), step(12, 200, games=("seven-gem-swap",))], "N=12", full=False
    )

    assert "| ceiling | 6 (12, -50%) | 150.0 (22.1, +579%) |" in text
    assert "| N=6 | 1.7 (new) | 20 (new) | 20 (28, -29%) | 0 (0, =) |" in text
    assert "| N=24 | - | - | - (160) | - (0) | - | - |" in text
    assert "Each game's acks at the last step (N=12, the previous at N=24):" in text
    assert "| seven-gem-swap | 50 (new) | 200 (new) | 200 (new) |" in text
    assert "| pointsweeper | - (104) | - (16) | - (133) |" in text
    assert "A quick run: matches_ceiling.json is left as it was." in text
    assert ceiling_baseline.read_text() == before


def test_a_full_ceiling_run_keeps_its_figures(ceiling_baseline: Path) -> None:
    matches_ceiling.beside_previous([step(6, 20), step(12, 200)], "N=12: ack p99", full=True)

    previous = _baseline.read(ceiling_baseline)
    assert previous.figures["ceiling"]["N"] == 6
    assert set(previous.figures) == {"ceiling", "N=6", "N=12", "bejeweled-2"}
    assert previous.facts["stopped_by"] == "N=12: ack p99"
    assert previous.facts["games_at"] == 12


def test_the_kept_ceiling_figures_are_readable() -> None:
    previous = _baseline.read(_baseline.REPORTS / "matches_ceiling.json")

    # Whatever the last full run found: the N held is one of its steps, and the games' acks
    # were taken at the step that stopped it, the next one.
    held = int(previous.figures["ceiling"]["N"])
    assert f"N={held}" in previous.figures
    stopped_at = previous.facts["games_at"]
    assert stopped_at > held and f"N={stopped_at}" in previous.figures
    assert previous.facts["stopped_by"].startswith(f"N={stopped_at}:")


def test_the_cores_are_named_first_to_saturate_when_tasks_waited_for_them() -> None:
    pressed = step(48, 300)
    pressed.cpu["whole machine (every user)"] = 1.5
    pressed.cpu[matches_ceiling.THINKING] = 0.3
    pressed.waited = 0.52

    said = matches_ceiling.saturated(pressed)

    assert said.startswith("the machine's")
    assert "waited for one 52% of the window" in said
    assert "the most by worker-2, 15%" in said
    pressed.waited = 0.1
    assert matches_ceiling.saturated(pressed).startswith("none yet: the busiest process worker-2")


def test_the_time_tasks_waited_for_a_core_is_read_from_the_kernels_pressure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pressure = tmp_path / "cpu"
    pressure.write_text(
        "some avg10=1.00 avg60=9.06 avg300=13.70 total=2500000\n"
        "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
    )
    monkeypatch.setattr(matches_ceiling, "PRESSURE", pressure)
    assert matches_ceiling.cpu_waited() == pytest.approx(2.5)
    monkeypatch.setattr(matches_ceiling, "PRESSURE", tmp_path / "absent")
    assert matches_ceiling.cpu_waited() is None
