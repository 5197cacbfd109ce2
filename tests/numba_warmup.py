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

#: The first half: CW-RMED (alone about a third of the whole, measured cold), the policies sharing
#: its Copeland skeleton, and the LP core's kernels.  The second half is every other registered
#: policy and every registered CPE algorithm (read from the registries: nothing to keep in step).
FIRST = ("cw-rmed", "ecw-rmed", "rmed1", "rmed2")


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
    """Compile the kernels of half ``group`` (0 or 1) by running them once."""
    import numpy as np
    from builders import random_mu

    from boundcalc import lower_bound
    from boundcalc.cpe.algorithms import ALGORITHMS
    from boundcalc.datasets import load_example
    from boundcalc.explore import explore
    from boundcalc.policies.registry import policy_names

    mu = load_example("table2").mu
    if group == 0:
        for name in FIRST:
            _policy(name, mu)
        lower_bound(random_mu(30, np.random.default_rng(0)))  # 30 arms: the compiled oracle and row builder
        return
    for name in policy_names():
        if name not in FIRST:
            _policy(name, mu)
    for name, spec in ALGORITHMS.items():
        explore(mu, name, delta=0.1, epsilon=0.1 if spec.needs_epsilon else None, runs=1, workers=0, progress=False)
