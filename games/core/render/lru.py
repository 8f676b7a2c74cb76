"""A bounded, thread-safe least-recently-used map: what a worker keeps to save work (never what
it must remember: every value here can be worked out again). It holds at most ``size`` values
and, given ``weigh``, at most ``budget`` of their weight (a text's length), so a worker's memory
stays flat however long its matches run."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    def __init__(
        self, size: int, *, weigh: Callable[[V], int] | None = None, budget: int = 0
    ) -> None:
        self.size = size
        self.weigh = weigh
        self.budget = budget
        self.weight = 0
        self._kept: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._kept.get(key)
            if value is not None:
                self._kept.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            old = self._kept.pop(key, None)
            if old is not None and self.weigh is not None:
                self.weight -= self.weigh(old)
            if self.weigh is not None:
                weight = self.weigh(value)
                if weight > self.budget:
                    return  # bigger than the whole budget: not kept
                self.weight += weight
            self._kept[key] = value
            while len(self._kept) > self.size or (self.weigh and self.weight > self.budget):
                _, dropped = self._kept.popitem(last=False)
                if self.weigh is not None:
                    self.weight -= self.weigh(dropped)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self.weight = 0

    def __len__(self) -> int:
        return len(self._kept)
