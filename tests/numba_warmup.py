"""Compile boundcalc's numba kernels into numba's on-disk cache before the test workers start.

Run by ``conftest.py`` (``pytest_sessionstart`` of the controlling process) when the cache holds
nothing yet -- a fresh clone or install, as in CI -- as two processes at once, one per half of the
kernels (:func:`warm` ``(0)`` and ``(1)``, on the controller's ``sys.path``: the copy of boundcalc the
workers import, whose cache they read).  Without it each xdist worker compiles
the kernels its tests meet first, so the kernels shared by many test modules (the policy machinery,
every policy's step functions) were compiled by both workers, and a worker compiling CW-RMED's
(about half a minute) held up the rest of its modules.  The work done here is a small run of every
public entry point that reaches compiled code: each policy from a user's loop, in its batch form
and in the simulator, the LP core's kernels and the CPE algorithms.  Anything it misses is
compiled where a test first needs it, as before; nothing here asserts anything.
"""

from __future__ import annotations

import sys

#: The two halves, chosen to take about the same time (measured cold: CW-RMED alone about a
#: third of the whole; the CPE algorithms about a sixth).
GROUPS = (
    ("cw-rmed", "ecw-rmed", "rmed1", "rmed2", "lp"),
    ("dts", "dts+", "ccb", "scb", "rucb", "savage", "cpe"),
)
#: The CPE algorithms run by the "cpe" entry (004's five).
CPE_ALGORITHMS = ("clucb-borda-pac", "clucb-borda-exact", "car-cond", "car-verify", "car-parallel")


def _policy(name: str, mu) -> None:
    import numpy as np

    from boundcalc.policies.registry import make_policy
    from boundcalc.simulate import simulate

    rng = np.random.default_rng(0)
    p = make_policy(name, mu.shape[0], rng=np.random.default_rng(0))
    for _ in range(60):
        i, j = p.select_pair()
        p.update(i, j, bool(rng.random() < mu[i, j]))
    p.run(lambda i, j: bool(rng.random() < mu[i, j]), 40)
    simulate(mu, [name], runs=1, horizon=200, seed=0, workers=0, progress=False, bounds=False)


def warm(group: int) -> None:
    import numpy as np

    from boundcalc.datasets import load_example

    mu = load_example("table2").mu
    for name in GROUPS[group]:
        if name == "lp":
            from boundcalc import lower_bound
            from boundcalc.lp import _kernels

            _kernels.load()
            A = np.triu(np.random.default_rng(0).uniform(0.05, 0.95, (30, 30)), 1)
            M = A + np.tril(1.0 - A.T, -1)
            np.fill_diagonal(M, 0.5)
            lower_bound(M)  # 30 arms: the compiled oracle and row builder
        elif name == "cpe":
            from boundcalc.explore import explore

            for algo in CPE_ALGORITHMS:
                explore(mu, algo, delta=0.1, epsilon=0.1 if algo.endswith("pac") else None, runs=1, workers=0,
                        progress=False)
        else:
            _policy(name, mu)


if __name__ == "__main__":
    warm(int(sys.argv[1]))
