"""Compile boundcalc's numba kernels into numba's on-disk cache before the test workers start.

Run by ``conftest.py`` (``pytest_sessionstart`` of the controlling process) when the cache holds
nothing yet -- a fresh clone or install, as in CI -- as two processes at once, one per half of the
warm-up tasks (:func:`warm` ``(0)`` and ``(1)``, on the controller's ``sys.path``: the copy of
boundcalc the workers import, whose cache they read).  The tasks are ``boundcalc warmup``'s
(:mod:`boundcalc.warmup`: a small run of every public entry point that reaches compiled code, one
task per policy, the LP core's compiled path and the CPE algorithms); without them each xdist
worker would compile the kernels its tests meet first, the shared ones in both.  Anything missed is
compiled where a test first needs it; nothing here asserts anything.
"""

from __future__ import annotations

#: The first half: CW-RMED (alone about a third of the whole, measured cold), the policies sharing
#: its Copeland skeleton, and the LP core's kernels.  The second half is every other warm-up task
#: (read from :func:`boundcalc.warmup.warmup_tasks`: nothing to keep in step).
FIRST = ("cw-rmed", "ecw-rmed", "rmed1", "rmed2")


def warm(group: int) -> None:
    """Compile the kernels of half ``group`` (0 or 1) by running their warm-up tasks."""
    from boundcalc.warmup import run_task, warmup_tasks

    tasks = list(FIRST) + ["lp"] if group == 0 else [t for t in warmup_tasks() if t not in FIRST and t != "lp"]
    for task in tasks:
        run_task(task)
