"""The worker's bounded memories (games/core/render/lru.py): the least recently used value goes
first, by count and, when values are weighed, by their total weight."""

from __future__ import annotations

from games.core.render.lru import Lru


def test_the_least_recently_used_value_goes_when_the_count_is_reached():
    kept: Lru[str, int] = Lru(2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get("a") == 1  # "b" is now the least recently used
    kept.put("c", 3)
    assert (kept.get("a"), kept.get("b"), kept.get("c")) == (1, None, 3)
    assert len(kept) == 2


def test_weighed_values_stay_within_their_budget_and_a_value_over_it_is_not_kept():
    kept: Lru[str, str] = Lru(100, weigh=len, budget=10)
    kept.put("a", "xxxx")
    kept.put("b", "yyyy")
    kept.put("a", "zz")  # replacing a value counts only the new one
    assert kept.weight == 6
    kept.put("c", "wwwww")  # 11 > 10: the least recently used ("b") goes
    assert (kept.get("a"), kept.get("b"), kept.get("c")) == ("zz", None, "wwwww")
    assert kept.weight == 7
    kept.put("d", "v" * 11)
    assert kept.get("d") is None and kept.weight == 7
    kept.clear()
    assert len(kept) == 0 and kept.weight == 0
