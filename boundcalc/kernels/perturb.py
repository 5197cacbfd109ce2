"""A deterministic cost perturbation of paper 000's lower-bound LP (eq. (2)) for online use.

Algorithm 1 of Komiyama, Honda & Nakagawa (ICML 2016), line 11, plays an *optimal solution* of
``min c.e`` over ``R_{i1}(mu_hat)``.  On empirical matrices that LP is often degenerate, and which
optimal vertex a simplex returns depends on its path (a warm basis kept or dropped, a model derived
from another structure's, a cold start); 000 leaves the choice open (Theorem 3's proof holds for any
optimal solution).  Solving instead with the costs

    ``c'_p = c_p (1 + delta g_p) + delta g_p``,   ``g_p = ((p 2654435761 + 12345) mod 1000003) / 1000003``

(``p`` the pair's index in :func:`~boundcalc.lp.cutting.pair_costs`'s ``triu_indices`` order, ``g_p``
in ``[0, 1)``, a fixed hash: no random state) makes the optimum generically unique, so every solve
path lands on the same vertex; for ``delta`` small against the gaps between the vertices' values it
is an optimal vertex of the true LP, whose value ``c.e`` is reported with the true costs.  The
relative part scales with each cost (costs span many orders near ties); the absolute part breaks
ties among costs of 0 (a Copeland winner's own pairs) and among equal costs.

One definition serves the LP core (:class:`~boundcalc.lp.online.CopelandLPSolver`'s ``perturb``) and
CW-RMED's compiled step (:mod:`boundcalc.kernels.cw_rmed` carries :func:`weights` in its state and
compiles :func:`perturbed_cost` itself), so both build the same costs to the last bit
(tests/test_cw_perturb.py).  Plain numpy: the LP core imports it without loading numba.

>>> weights(3).round(6).tolist()
[0.012345, 0.440143, 0.86794]
>>> float(perturbed_cost(2.0, 0.5))   # c (1 + h) + h with h = delta g
3.5
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["weights", "perturbed_cost", "perturb_costs", "HASH_MULT", "HASH_ADD", "HASH_MOD"]

#: The hash ``g_p = ((p HASH_MULT + HASH_ADD) mod HASH_MOD) / HASH_MOD`` (Knuth's multiplicative
#: constant, a prime modulus): distinct pairs get distinct weights for up to ``HASH_MOD`` pairs.
HASH_MULT, HASH_ADD, HASH_MOD = 2654435761, 12345, 1000003


def weights(n: int) -> np.ndarray:
    """``g_p`` of the pairs ``p = 0 .. n-1`` (pair_costs's order), each in ``[0, 1)``."""
    if n < 0 or n > HASH_MOD:
        raise ValueError(f"the perturbation's weights are defined for 0 to {HASH_MOD} pairs, not {n}")
    p = np.arange(n, dtype=np.int64)  # p * HASH_MULT < 2**63 for p <= HASH_MOD
    return ((p * HASH_MULT + HASH_ADD) % HASH_MOD) / float(HASH_MOD)


def perturbed_cost(c: Any, h: Any) -> Any:
    """``c (1 + h) + h`` with ``h = delta g_p``: the same IEEE operations on floats or elementwise on arrays."""
    return c * (1.0 + h) + h


def perturb_costs(costs: np.ndarray, delta: float) -> np.ndarray:
    """The perturbed costs of the pair costs ``costs`` (``costs`` itself when ``delta == 0``)."""
    if not (np.isfinite(delta) and delta >= 0):
        raise ValueError(f"the cost perturbation must be finite and >= 0, not {delta}")
    if delta == 0:
        return costs
    return perturbed_cost(costs, delta * weights(costs.size))
