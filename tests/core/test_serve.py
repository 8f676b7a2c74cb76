"""The worker's start-up tuning (games/core/management/commands/serve.py)."""

from __future__ import annotations

import gc
import os
import sys

import pytest
from django.conf import settings

from games.core.management.commands.serve import (
    log_garbage_collections,
    settle_garbage_collector,
    share_the_interpreter,
    warm_up,
)


@pytest.fixture
def restored_collector():
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


@pytest.mark.usefixtures("restored_collector")
def test_a_settled_worker_freezes_its_start_up_objects_and_collects_less_often():
    gc.unfreeze()
    settle_garbage_collector(20_000)
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (20_000, settings.GC_GEN1_EVERY, 50)
    assert settings.GC_GEN1_EVERY == 3


@pytest.mark.usefixtures("restored_collector")
def test_a_zero_threshold_keeps_pythons_collection_schedule():
    before = gc.get_threshold()
    settle_garbage_collector(0)
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before


def test_a_warmed_up_worker_has_its_addresses_and_every_games_panels_loaded():
    from django.template import engines
    from django.urls import clear_url_caches, get_resolver

    from games.core.game.registry import all_games

    clear_url_caches()
    engine = engines["django"].engine
    for loader in engine.template_loaders:
        loader.reset()
    warm_up()
    assert get_resolver()._populated  # the host console's first reverse() costs nothing more
    cached = set().union(*(loader.get_template_cache for loader in engine.template_loaders))
    expected = {f"{g.template_dir}/_panels.html" for g in all_games() if g.template_dir}
    assert {"core/_panels.html", *expected} <= cached


def test_gc_pause_log_records_each_collection_of_the_process(tmp_path):
    """GC_PAUSE_LOG: each collection's generation, pause, objects freed and CPU time, in a file
    named for the process (the fan-out benchmark reads the workers' pauses from it)."""
    before = list(gc.callbacks)
    try:
        log_garbage_collections(str(tmp_path / "gc-%p.log"))
        cycle: list = []
        cycle.append(cycle)
        del cycle
        gc.collect(2)
    finally:
        gc.callbacks[:] = before
    (path,) = tmp_path.glob("gc-*.log")
    assert path.name == f"gc-{os.getpid()}.log"
    generation, pause, freed, cpu = path.read_text().splitlines()[-1].split()
    assert generation == "2" and int(freed) >= 1
    assert float(pause) >= 0 and float(cpu) >= 0


def test_a_worker_lets_a_drawing_thread_hold_the_interpreter_a_millisecond_at_most():

    before = sys.getswitchinterval()
    try:
        share_the_interpreter(settings.GIL_SWITCH_MICROSECONDS)
        assert sys.getswitchinterval() == pytest.approx(0.001)
    finally:
        sys.setswitchinterval(before)


@pytest.mark.usefixtures("restored_collector")
def test_the_scheduler_settles_its_collector_as_a_worker_does(monkeypatch):
    from django.core.management import call_command

    from games.core.management.commands import run_scheduler

    async def ran() -> None:
        ran.started = gc.get_freeze_count()

    monkeypatch.setattr(run_scheduler, "run_forever", ran)
    gc.unfreeze()
    call_command("run_scheduler")
    assert ran.started > 0  # what it loaded was frozen before its loops started
    assert gc.get_threshold() == (settings.GC_GEN0_THRESHOLD, settings.GC_GEN1_EVERY, 50)
