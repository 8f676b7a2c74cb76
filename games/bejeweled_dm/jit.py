"""How the solver's kernels run (solver_bits.py): compiled by numba when it is installed, about a
hundred times faster, or as they are, plain Python, when it is not (or when NUMBA_DISABLE_JIT=1
is set); and a kernel module's plain Python copy, for the tests and the benchmark to run the
kernels both ways in one process.

A kernel module reads how it runs from its own globals (``mode(globals())``), so that its plain
copy, loaded a second time from the same file by ``plain_copy``, runs plain even where numba
compiles the module itself.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TypeVar

try:
    import numba
    import numpy as np
except ImportError:  # numba is optional: the kernels then run as plain Python, slower
    numba = None  # type: ignore[assignment]

F = TypeVar("F", bound=Callable[..., Any])

_PLAIN_COPY = "_PLAIN_COPY"  # set in a copy's globals by ``plain_copy``


@dataclass(frozen=True)
class Mode:
    """How the kernels of one module run: ``compiled`` by numba, or plain Python."""

    compiled: bool

    def kernel(self, function: F) -> F:
        """Compile a kernel with numba (cached on disk) when compiled; else leave it as it is."""
        if self.compiled:
            return numba.njit(cache=True)(function)  # type: ignore[no-any-return]
        return function

    def zeros(self, *shape: int) -> Any:
        """An array of zeros of one or two dimensions for the kernels: numpy int64 when
        compiled, lists otherwise."""
        if self.compiled:
            return np.zeros(shape, dtype=np.int64)
        if len(shape) == 1:
            return [0] * shape[0]
        return [[0] * shape[1] for _ in range(shape[0])]

    def array(self, values: Sequence[int]) -> Any:
        """A one-dimensional array of ints for the kernels, as ``zeros``."""
        if self.compiled:
            return np.array(values, dtype=np.int64)
        return list(values)


def mode(module_globals: dict[str, Any]) -> Mode:
    """How the kernel module with these globals runs: compiled where numba is installed and on,
    unless the module is a plain copy made by ``plain_copy``."""
    return Mode(
        numba is not None
        and not numba.config.DISABLE_JIT
        and not module_globals.get(_PLAIN_COPY, False)
    )


def plain_copy(module: ModuleType) -> ModuleType:
    """``module`` loaded a second time with numba left out, as it runs where numba is not
    installed (named ``<module>_interpreted``)."""
    name = f"{module.__name__}_interpreted"
    spec = importlib.util.spec_from_file_location(name, module.__file__)
    assert spec is not None and spec.loader is not None
    copy = importlib.util.module_from_spec(spec)
    setattr(copy, _PLAIN_COPY, True)
    sys.modules[name] = copy
    spec.loader.exec_module(copy)
    return copy
