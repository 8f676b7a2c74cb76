"""The worker's start-up tuning (games/core/management/commands/serve.py)."""

from __future__ import annotations

import gc

import pytest

from games.core.management.commands.serve import settle_garbage_collector


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
    assert gc.get_threshold() == (20_000, 50, 50)


@pytest.mark.usefixtures("restored_collector")
def test_a_zero_threshold_keeps_pythons_collection_schedule():
    before = gc.get_threshold()
    settle_garbage_collector(0)
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
