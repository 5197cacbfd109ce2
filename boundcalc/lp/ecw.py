"""ECW-RMED's constant by the sorted closed form of paper 000, Theorem 5.

``R^E_{i1}`` (000 eqs. (4)-(5), THEORY.md section 3) fixes ``e_{i1 j} = 1`` for every
``j in I_{i1}`` and asks, for every ``i2 != i1``, that every ``S`` subset of
``P = S_{i2} \\ {i1}`` with ``|S| = m = L_{i2} - L_{i1} + 1`` covers: ``sum_{j in S} e_{j i2} >= 1``.
The rows of different ``i2`` share no variable, so each ``i2`` is solved alone.  With
``k = |P| - m`` and the pool's costs sorted ``c_(1) <= c_(2) <= ...``, an optimum puts
``e = 1/(h - k)`` on the ``h`` cheapest pairs and 0 elsewhere for the best ``h in k+1 .. |P|``
(Theorem 5).  Everything is vectorised over ``i2``: one row sort of a K x K matrix.
"""

from __future__ import annotations

import time

import numpy as np

from ..matrix import PreferenceMatrix, as_preference_matrix
from ..result import UNIT_000, BoundResult, Certificate

__all__ = ["ecw_bound", "ecw_winner"]


def _cost_matrix(pm: PreferenceMatrix, regret=None) -> np.ndarray:
    R = pm.regret if regret is None else np.asarray(regret, dtype=float)
    if R.shape != (pm.K, pm.K):
        raise ValueError(f"regret must be {pm.K}x{pm.K}; got {R.shape}")
    d = pm.d.copy()
    np.fill_diagonal(d, 1.0)
    if np.any(d <= 0):
        raise ValueError("a pair has d(mu) = 0 (a tie); the ECW constant is undefined")
    C = R / d
    np.fill_diagonal(C, np.inf)
    return C


def ecw_winner(pm: PreferenceMatrix, winner: int, C: np.ndarray) -> tuple[float, np.ndarray]:
    """``C^E*_{winner}`` and its normalised allocation (K x K ``e``) for cost matrix ``C``."""
    K = pm.K
    a = int(winner)
    beats = pm.beats
    L = pm.L
    pool = beats.T.copy()  # pool[i2, j]: j beats i2
    pool[:, a] = False
    pool[a, :] = False
    keys = np.where(pool, C, np.inf)
    order = np.argsort(keys, axis=1)
    vals = np.take_along_axis(keys, order, axis=1)
    cums = np.cumsum(vals, axis=1)  # cums[:, h-1] = sum of h cheapest
    n = pool.sum(axis=1)
    m = L - L[a] + 1
    k = n - m
    has_row = (k >= 0) & (np.arange(K) != a)
    H = np.arange(1, K + 1)
    ok = has_row[:, None] & (H[None, :] >= k[:, None] + 1) & (H[None, :] <= n[:, None])
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(ok, cums / np.maximum(H[None, :] - k[:, None], 1), np.inf)
    hbest = np.argmin(ratio, axis=1) + 1
    part = ratio[np.arange(K), hbest - 1]
    part = np.where(has_row, part, 0.0)
    Ia = beats[a]
    value = float(C[a, Ia].sum() + part.sum())
    # allocation: e = 1/(h-k) on the h cheapest of each pool
    level = np.where(has_row, 1.0 / np.maximum(hbest - k, 1), 0.0)
    take = np.arange(K)[None, :] < np.where(has_row, hbest, 0)[:, None]
    Erow = np.zeros((K, K))
    np.put_along_axis(Erow, order, np.where(take, level[:, None], 0.0), axis=1)
    E = Erow + Erow.T  # each pair lies in at most one pool (that of its loser)
    E[a, Ia] = 1.0
    E[Ia, a] = 1.0
    return value, E


def ecw_bound(matrix, *, regret=None, certify: bool = True) -> BoundResult:
    """ECW-RMED's regret constant ``min_{i1} C^E*_{i1}`` (paper 000, Theorems 4-5).

    Parameters
    ----------
    matrix : PreferenceMatrix or array_like
    regret : ndarray, optional
        Override paper 000's pair regret (K x K, symmetric).
    certify : bool
        Also check the returned allocation against every row of ``R^E_{i1}`` with the
        sorting oracle (the certificate's ``max_violation``).

    Examples
    --------
    >>> from boundcalc.datasets import load_example
    >>> round(ecw_bound(load_example("table2")).value, 4)
    49.6635
    """
    t0 = time.perf_counter()
    pm = as_preference_matrix(matrix)
    C = _cost_matrix(pm, regret)
    per, allocs, certs = {}, {}, {}
    d = pm.d
    for w in pm.copeland_winners.tolist():
        v, E = ecw_winner(pm, w, C)
        per[w] = v
        with np.errstate(divide="ignore", invalid="ignore"):
            Q = np.where(d > 0, E / d, 0.0)
        allocs[w] = Q
        if certify:
            from .constraints import ECWFamily

            fam = ECWFamily(pm, w)
            iu = np.triu_indices(pm.K, 1)
            # closed form (Theorem 5): no dual bound is computed, hence NaN
            certs[w] = Certificate(fam.max_violation(E[iu]), v, float("nan"))
    best = min(per, key=lambda k: (per[k], k))
    return BoundResult(
        value=per[best], winner=best, per_winner=per, allocation=allocs[best], allocations=allocs,
        kind="ecw", method="closed-form", unit=UNIT_000 if regret is None else "custom regret per ln T",
        stats={"seconds": time.perf_counter() - t0},
        certificate=certs.get(best), certificates=certs,
    )
