"""ECW-RMED's constant by the sorted closed form of paper 000, Theorem 5.

In ``R^E_{i1}`` (000 eqs. (4)-(5), :class:`~boundcalc.lp.constraints.ECWFamily`) the ``e_{j i2}`` of any
``m = L_{i2} - L_{i1} + 1`` arms ``j`` of the pool ``P = S_{i2} \\ {i1}`` sum to at least 1; a pair lies only in the
pool of its loser, so each ``i2`` is solved alone.  With ``k = |P| - m`` and the pool's costs sorted
``c_(1) <= c_(2) <= ...``, an optimum puts ``e = 1/(h - k)`` on the ``h`` cheapest pairs and 0 elsewhere for the best
``h in k+1 .. |P|`` (Theorem 5).  Everything is vectorised over ``i2``: one row sort of a K x K matrix.  Equal costs
are taken smaller arm index first (a stable sort), so the allocation is the same on every machine.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..matrix import MatrixLike, as_preference_matrix
from ..result import BoundResult, Certificate
from ..units import UNIT_000, UNIT_CUSTOM
from .constraints import ECWFamily
from .structure import Structure, as_structure, check_regret, empirical_structure, over_d, structure_d, triu

__all__ = ["ecw_bound", "ecw_allocation", "ecw_allocation_numpy", "ecw_empirical"]


def _cost_matrix(st: Structure, regret: ArrayLike | None = None) -> np.ndarray:
    """``C = r / d`` (K x K), ``inf`` on the diagonal; tied pairs (``d = 0``, in no row) get cost 1."""
    R = st.regret if regret is None else check_regret(regret, st.K)
    d = structure_d(st)
    C = over_d(R, d, 1.0)
    np.fill_diagonal(C, np.inf)
    return C


def ecw_allocation(
    beats: np.ndarray, C: np.ndarray, winner: int, *, compiled: bool = False
) -> tuple[float, np.ndarray]:
    """``C^E*_{winner}`` and its normalised allocation ``E`` (K x K, ``e = q d``), 000 Theorem 5.

    Parameters
    ----------
    beats : ndarray of bool (K, K)
        ``beats[i, j]``: ``i`` beats ``j`` strictly (empirical ties are in neither direction).
    C : ndarray (K, K)
        Pair costs ``c_ij = r_ij / d(mu_ij)`` (symmetric; the diagonal is ignored).
    winner : int
        A Copeland winner ``i1`` of ``beats``.
    compiled : bool
        Run :func:`boundcalc.kernels.lp.ecw_closed_form` (online), not :func:`ecw_allocation_numpy` (same numbers).

    >>> b = np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]], bool)   # 0 > 1 > 2 and 0 > 2
    >>> v, E = ecw_allocation(b, np.ones((3, 3)), 0)   # e01 = e02 = 1; no pool is large enough
    >>> v, E[0].tolist(), float(E[1, 2])
    (2.0, [0.0, 1.0, 1.0], 0.0)
    """
    if compiled:
        from ..kernels.lp import ecw_closed_form

        b = np.array(beats, dtype=bool)  # writable, as the policies' arrays: one compiled version
        E = np.empty(b.shape)
        L = b.sum(axis=0).astype(np.int64)
        v = ecw_closed_form(b, L, np.ascontiguousarray(C, dtype=float), int(winner), E)
        return float(v), E
    return ecw_allocation_numpy(beats, C, winner)


def ecw_allocation_numpy(beats: np.ndarray, C: np.ndarray, winner: int) -> tuple[float, np.ndarray]:
    """:func:`ecw_allocation` in numpy (its ``compiled=False`` path)."""
    beats = np.asarray(beats, dtype=bool)
    K = beats.shape[0]
    a = int(winner)
    L = beats.sum(axis=0)
    pool = beats.T.copy()  # pool[i2, j]: j beats i2
    pool[:, a] = False
    pool[a, :] = False
    keys = np.where(pool, C, np.inf)
    order = np.argsort(keys, axis=1, kind="stable")
    vals = np.take_along_axis(keys, order, axis=1)
    cums = np.cumsum(vals, axis=1)  # cums[:, h-1] = sum of h cheapest
    n = pool.sum(axis=1)
    k = n - (L - L[a] + 1)
    has_row = (k >= 0) & (np.arange(K) != a)
    H = np.arange(1, K + 1)
    ok = has_row[:, None] & (H[None, :] >= k[:, None] + 1) & (H[None, :] <= n[:, None])
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(ok, cums / np.maximum(H[None, :] - k[:, None], 1), np.inf)
    hbest = np.argmin(ratio, axis=1) + 1
    part = np.where(has_row, ratio[np.arange(K), hbest - 1], 0.0)
    Ia = beats[a]
    # sequential sums in arm order, as the compiled kernel adds them (the same value to the last bit)
    total_I = 0.0
    for x in C[a, Ia].tolist():
        total_I += x
    parts = 0.0
    for x in part[has_row].tolist():
        parts += x
    level = np.where(has_row, 1.0 / np.maximum(hbest - k, 1), 0.0)
    take = np.arange(K)[None, :] < np.where(has_row, hbest, 0)[:, None]
    Erow = np.zeros((K, K))
    np.put_along_axis(Erow, order, np.where(take, level[:, None], 0.0), axis=1)
    E = Erow + Erow.T
    E[a, Ia] = 1.0
    E[Ia, a] = 1.0
    return total_I + parts, E


def closed_form_stats(method: str, t0: float) -> dict[str, Any]:
    """A closed-form answer's ``stats``: the LP's counters at zero, the seconds since ``t0``."""
    zero = dict.fromkeys(("rounds", "lp_solves", "simplex_iterations", "rows", "rows_added", "rows_removed"), 0)
    return {"method": method, "seconds": time.perf_counter() - t0, **zero, "warm_start": False, "solver": "closed-form"}


def ecw_bound(matrix: MatrixLike, *, regret: ArrayLike | None = None, certify: bool = True) -> BoundResult:
    """ECW-RMED's regret constant ``min_{i1} C^E*_{i1}`` (paper 000, Theorems 4-5).

    Parameters
    ----------
    matrix : PreferenceMatrix or array_like
        Validated (exact ties refused); for an empirical matrix use :func:`ecw_empirical`.
    regret : ndarray, optional
        Override paper 000's pair regret (K x K, symmetric, finite, non-negative).
    certify : bool
        Check the allocation against every row of ``R^E_{i1}`` with the sorting oracle (the
        certificate's ``max_violation``; a closed form has no dual bound: NaN).

    Returns
    -------
    BoundResult

    Examples
    --------
    >>> from boundcalc.datasets import load_example
    >>> round(ecw_bound(load_example("table2")).value, 4)
    49.6635
    """
    return _ecw(as_structure(as_preference_matrix(matrix)), regret, certify)


def ecw_empirical(mu_hat: ArrayLike, *, regret: ArrayLike | None = None, certify: bool = False) -> BoundResult:
    """:func:`ecw_bound` on an empirical matrix (exact ties allowed: a tied pair is in no row)."""
    st = mu_hat if isinstance(mu_hat, Structure) else empirical_structure(mu_hat)
    return _ecw(st, regret, certify)


def _ecw(st: Structure, regret: ArrayLike | None, certify: bool) -> BoundResult:
    t0 = time.perf_counter()
    C = _cost_matrix(st, regret)
    d = structure_d(st)
    per, allocs, certs, failures = {}, {}, {}, []
    for w in st.winners.tolist():
        v, E = ecw_allocation(st.beats, C, w)
        per[w] = v
        allocs[w] = over_d(E, d, 0.0)
        if certify:
            certs[w] = Certificate(ECWFamily(st, w).max_violation(E[triu(st.K)]), v, float("nan"))
            failures += [f"winner {w}: closed-form allocation: {p}" for p in certs[w].problems()]
    return BoundResult.from_winners(
        "ecw",
        per,
        allocs,
        certs,
        method="closed-form",
        unit=UNIT_000 if regret is None else UNIT_CUSTOM,
        stats=closed_form_stats("closed-form", t0),
        failures=failures,
        message="closed form (000 Theorem 5)",
    )
