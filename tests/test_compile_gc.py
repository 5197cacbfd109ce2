"""The compiled layer's garbage-collection guard (boundcalc.kernels.compile_gc._CompileHeapFreezer):
for the length of an outermost numba compilation the objects that exist before it are frozen
(CPython's full collections skip them), and unfrozen at its end; a process that froze objects itself
keeps its own freeze.

Independent check: CPython's own count of frozen objects (``gc.get_freeze_count``), read by a
listener of numba's ``numba:compile`` event registered after the guard (so it runs inside the
compilation), and after the call.
"""

from __future__ import annotations

import gc

import numba
import pytest
from numba.core import event

import boundcalc.kernels.compile_gc as kp


class _Seen(event.Listener):
    def __init__(self) -> None:
        self.counts: list[int] = []

    def on_start(self, ev) -> None:
        self.counts.append(gc.get_freeze_count())

    def on_end(self, ev) -> None:
        pass


@pytest.fixture
def seen():
    s = _Seen()
    event.register("numba:compile", s)
    yield s
    event.unregister("numba:compile", s)


def _fresh():
    """A function numba has not compiled (a new dispatcher each call; no cache)."""

    @numba.njit(cache=False)
    def inner(x):
        return x * 2 + 1

    @numba.njit(cache=False)
    def outer(x):
        return inner(x) + 1

    return outer


def test_the_heap_is_frozen_during_a_compile_and_unfrozen_after(seen):
    assert gc.get_freeze_count() == 0
    assert _fresh()(3) == 8  # compiles outer, and inner inside it
    assert len(seen.counts) == 2  # outer, then the nested inner
    assert all(c > 0 for c in seen.counts)  # both inside the one freeze of the outermost compile
    assert gc.get_freeze_count() == 0
    assert kp._FREEZER.depth == 0 and not kp._FREEZER.froze


def test_a_freeze_of_the_process_is_left_alone(seen):
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        assert before > 0
        assert _fresh()(4) == 10
        assert not kp._FREEZER.froze
        assert seen.counts[-1] > 0  # the process's own freeze, seen inside the compile
        assert gc.get_freeze_count() > before // 2  # still frozen after it (objects that died have left)
    finally:
        gc.unfreeze()
    assert gc.get_freeze_count() == 0


def test_a_failed_compile_unfreezes(seen):
    @numba.njit(cache=False)
    def bad(x):
        return x.no_such_attribute

    with pytest.raises(numba.core.errors.TypingError):
        bad(1)
    assert seen.counts and seen.counts[-1] > 0
    assert gc.get_freeze_count() == 0 and kp._FREEZER.depth == 0
