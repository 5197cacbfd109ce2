"""The compiled layer's garbage-collection guard for numba compilations.

Imported by every kernel wing (:mod:`~boundcalc.kernels.policy`, :mod:`~boundcalc.kernels.lp`,
:mod:`~boundcalc.kernels.basis`, :mod:`~boundcalc.kernels.cpe`), so that it is registered, once per
process, before any of their functions compiles.  See :class:`_CompileHeapFreezer`.

A compilation runs with the heap that existed before it frozen, and nothing stays frozen after it:

>>> import gc
>>> from numba import njit
>>> from numba.core import event
>>> from boundcalc.kernels import compile_gc
>>> class Seen(event.Listener):
...     def on_start(self, ev):
...         self.frozen = gc.get_freeze_count()
...     def on_end(self, ev):
...         pass
>>> seen = Seen()
>>> event.register("numba:compile", seen)
>>> njit(lambda x: x + 1)(1)
2
>>> event.unregister("numba:compile", seen)
>>> seen.frozen > 0, gc.get_freeze_count(), compile_gc._FREEZER.depth
(True, 0, 0)
"""

from __future__ import annotations

import gc
from typing import Any

from numba.core import event


class _CompileHeapFreezer(event.Listener):
    """Keeps CPython's full garbage collections off the heap that exists before a compilation.

    numba keeps every compilation's result alive (types, IR, metadata: millions of objects once a
    few kernels are compiled), and CPython's full collections, triggered by the many short-lived
    objects a compilation allocates, walk all of it: 2.4-2.6 s of the 14.9-15.7 s of CPU that the 19
    policies' kernels took to compile in one process on an empty cache, 0.2 s with this guard
    (``benchmarks/results/compile_policies.json``, ``gc_seconds``).  So for the length
    of an outermost numba compilation (numba's ``numba:compile`` event; compilations are serialised
    by numba's compiler lock) the objects that exist before it are frozen (:func:`gc.freeze`:
    collections skip them) and unfrozen at its end (they are collectable again as before); the
    compilation's own garbage is collected as usual.  Nothing is done when the process has frozen
    objects itself (:func:`gc.get_freeze_count`) or disabled the collector.  Loading a kernel from
    numba's cache fires no such event.

    The price is memory: garbage of an earlier compilation that was frozen with the heap waits for
    a full collection outside a compilation (the 19 policies' command peaks at 370 MB, 280 MB
    without the guard; a full collection of each compilation's own objects at its end kept 280 MB
    for about 0.45 s more CPU, and was not kept).
    """

    def __init__(self) -> None:
        self.depth = 0
        self.froze = False

    def on_start(self, event: Any) -> None:
        if self.depth == 0 and gc.isenabled() and not gc.get_freeze_count():
            gc.freeze()
            self.froze = True
        self.depth += 1

    def on_end(self, event: Any) -> None:
        self.depth -= 1
        if self.depth == 0 and self.froze:
            self.froze = False
            gc.unfreeze()


_FREEZER = _CompileHeapFreezer()
event.register("numba:compile", _FREEZER)
