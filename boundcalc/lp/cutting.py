"""Cutting-plane solution of paper 000's lower-bound LP (eq. (2), Theorem 2) over HiGHS.

For each Copeland winner ``i1`` the covering LP ``min c.e, 0 <= e <= 1, e in R_{i1}`` (normalised
variables, THEORY.md section 2) is solved with its exponentially many rows generated on demand:

1. start from, for every ``i2``, the cheapest row (rows minimising the total cost);
2. solve the restricted LP with HiGHS (warm: the basis survives added rows);
3. run the sorting-based separation oracle over *all* rows; add the most violated row per
   ``i2``; repeat until no row is violated by more than ``tol``.

The result carries a :class:`~boundcalc.result.Certificate`: the oracle's largest violation of
the returned allocation and a Lagrangian dual bound from the row duals.

:class:`CopelandLPSolver` keeps one HiGHS model per winner between calls, so an online policy
(CW-RMED, 000 Algorithm 1) that re-solves on the empirical matrix ``mu_hat(t)`` starts warm: while
the Copeland structure (who beats whom) is unchanged the rows stay valid and only the costs move.
"""

from __future__ import annotations

import time
from typing import Iterable

import numpy as np

from ..matrix import PreferenceMatrix, as_preference_matrix
from ..result import UNIT_000, BoundResult, Certificate
from .constraints import CopelandFamily, _as_square
from .highs import CoveringLP, SolverError

__all__ = ["CopelandLPSolver", "pair_costs", "certificate_for", "lower_bound_cutting_plane"]


def pair_costs(pm: PreferenceMatrix, regret: np.ndarray | None = None) -> np.ndarray:
    """Normalised costs ``c_p = r_p / d(mu_p)`` per pair, in ``triu_indices`` order.

    ``regret`` overrides paper 000's pair regret (a symmetric K x K matrix, e.g. RMED's).
    """
    iu = np.triu_indices(pm.K, 1)
    if regret is None:
        r = pm.regret[iu]
    else:
        R = np.asarray(regret, dtype=float)
        if R.shape != (pm.K, pm.K):
            raise ValueError(f"regret must be {pm.K}x{pm.K}; got {R.shape}")
        if not np.allclose(R, R.T, atol=1e-12, rtol=0) or np.any(R < 0) or not np.all(np.isfinite(R)):
            raise ValueError("regret must be symmetric, finite and non-negative")
        r = R[iu]
    d = pm.d[iu]
    if np.any(d <= 0):
        raise ValueError("a pair has d(mu) = 0 (a tie); the LP is undefined")
    return r / d


def certificate_for(family, costs: np.ndarray, x: np.ndarray, rows, duals) -> Certificate:
    """Build the optimality certificate of ``x`` for ``min c.e`` over ``family`` (see Certificate)."""
    v = family.max_violation(x)
    if v > 0:
        xf = np.minimum(1.0, x / (1.0 - v)) if v < 1 else np.ones_like(x)
    else:
        xf = x
    primal = float(costs @ xf)
    y = np.maximum(0.0, np.asarray(duals, dtype=float)) if len(rows) else np.zeros(0)
    aty = np.zeros_like(costs)
    for yr, r in zip(y, rows):
        if yr > 0:
            aty[r] += yr
    dual = float(y.sum() + np.minimum(0.0, costs - aty).sum())
    return Certificate(max_violation=float(v), primal_bound=primal, dual_bound=dual)


def _q_matrix(pm: PreferenceMatrix, x: np.ndarray) -> np.ndarray:
    E = _as_square(x, pm.K)
    with np.errstate(divide="ignore", invalid="ignore"):
        Q = np.where(pm.d > 0, E / pm.d, 0.0)
    np.fill_diagonal(Q, 0.0)
    return Q


class CopelandLPSolver:
    """Exact ``C*_{i1}`` for every Copeland winner by cutting planes; warm between calls.

    Parameters
    ----------
    tol : float
        A row counts as violated when ``1 - row.e > tol``.
    per_i2 : int
        Rows added per ``i2`` and round (the most violated first).
    max_rounds : int
        Safety limit on separation rounds per winner; hitting it raises :class:`SolverError`.
    levels : iterable of int, optional
        Restrict the ``l`` of the family (see :class:`~boundcalc.lp.constraints.CopelandFamily`).

    Examples
    --------
    >>> from boundcalc.datasets import load_example
    >>> solver = CopelandLPSolver()
    >>> res = solver.solve(load_example("table2"))
    >>> round(res.value, 4)
    27.5487
    >>> res2 = solver.solve(load_example("table2"))   # warm: no new rows needed
    >>> res2.stats["rows_added"]
    0
    """

    def __init__(self, *, tol: float = 1e-9, per_i2: int = 4, max_rounds: int = 10_000,
                 levels: Iterable[int] | None = None, neighbours: int = 2, tiebreak: bool = False):
        self.tol = float(tol)
        self.neighbours = int(neighbours)
        self.tiebreak = bool(tiebreak)
        self.per_i2 = int(per_i2)
        self.max_rounds = int(max_rounds)
        self.levels = None if levels is None else tuple(sorted(set(int(l) for l in levels)))
        self._key: bytes | None = None
        self._models: dict[int, tuple[CopelandFamily, CoveringLP]] = {}

    def reset(self) -> None:
        """Forget every model (the next solve starts cold)."""
        self._key = None
        self._models = {}

    def family(self, winner: int) -> CopelandFamily:
        return self._models[winner][0]

    def contains(self, matrix, q, winner: int, tol: float = 1e-9) -> bool:
        """Algorithm 1's check (3): is the rate matrix ``q`` (K x K, e.g. ``N / log t``) in
        ``R_{winner}(matrix)``?  Reuses the cached family when the structure matches."""
        pm = as_preference_matrix(matrix)
        if self._key == self._structure_key(pm) and winner in self._models:
            fam = self._models[winner][0]
            fam = fam if fam.pm == pm else CopelandFamily(pm, winner, self.levels)
        else:
            fam = CopelandFamily(pm, winner, self.levels)
        return fam.contains_q(q, tol)

    @staticmethod
    def _structure_key(pm: PreferenceMatrix) -> bytes:
        return pm.beats.tobytes() + bytes([pm.K % 256])

    def solve(self, matrix, regret: np.ndarray | None = None, winners: Iterable[int] | None = None) -> BoundResult:
        """Solve the lower-bound LP on ``matrix`` (true or empirical) for its Copeland winners."""
        t0 = time.perf_counter()
        pm = as_preference_matrix(matrix)
        costs = pair_costs(pm, regret)
        key = self._structure_key(pm)
        warm = key == self._key
        if not warm:
            self._models = {}
            self._key = key
        winners = pm.copeland_winners.tolist() if winners is None else [int(w) for w in winners]
        per, allocs, certs = {}, {}, {}
        rounds_total = rows_added = solves = iters = 0
        for w in winners:
            if w in self._models:
                fam, lp = self._models[w]
                fam = CopelandFamily(pm, w, self.levels) if fam.pm != pm else fam
                lp.set_costs(costs)
            else:
                fam = CopelandFamily(pm, w, self.levels)
                lp = CoveringLP(costs)
                rows_added += lp.add_rows(fam.cheapest_rows(costs, self.per_i2))
            self._models[w] = (fam, lp)
            s0, i0 = lp.solves, lp.iterations
            for rnd in range(self.max_rounds):
                sol = lp.solve()
                rows, _ = fam.separate(sol.x, self.tol, self.per_i2, tiebreak=costs if self.tiebreak else None,
                                       neighbours=self.neighbours)
                added = lp.add_rows(rows)
                rows_added += added
                rounds_total += 1
                if added == 0:
                    break
            else:
                raise SolverError(
                    f"cutting plane did not converge in {self.max_rounds} rounds for winner {w}"
                )
            solves += lp.solves - s0
            iters += lp.iterations - i0
            x = sol.x
            per[w] = float(costs @ x)
            allocs[w] = _q_matrix(pm, x)
            certs[w] = certificate_for(fam, costs, x, lp.rows, sol.row_duals)
        best = min(per, key=lambda k: (per[k], k))
        stats = {
            "rounds": rounds_total,
            "rows_added": rows_added,
            "rows_in_model": {str(w): self._models[w][1].n_rows for w in winners},
            "lp_solves": solves,
            "simplex_iterations": iters,
            "warm_start": warm,
            "seconds": time.perf_counter() - t0,
        }
        return BoundResult(
            value=per[best], winner=best, per_winner=per, allocation=allocs[best], allocations=allocs,
            kind="lower_bound", method="cutting-plane", unit=UNIT_000 if regret is None else "custom regret per ln T",
            stats=stats, certificate=certs[best], certificates=certs,
        )


def lower_bound_cutting_plane(matrix, *, regret=None, levels=None, tol=1e-9, per_i2=4) -> BoundResult:
    """One-shot :class:`CopelandLPSolver` solve."""
    return CopelandLPSolver(tol=tol, per_i2=per_i2, levels=levels).solve(matrix, regret=regret)
