"""The whole LP written out and solved through ``cvxpy`` (reference backend for small K).

Every row of ``R_{i1}`` (or ``R^E_{i1}``) is enumerated from the definition
(:meth:`~boundcalc.lp.constraints.CopelandFamily.enumerate`) and the LP is handed to an
interior-point solver (Clarabel by default), i.e. a code path that shares neither the
separation oracle nor HiGHS with the cutting-plane method.  Refuses clearly when the
enumeration is larger than ``max_rows``.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from ..matrix import as_preference_matrix
from ..result import UNIT_000, BoundResult, Certificate
from .constraints import CopelandFamily, ECWFamily
from .cutting import _q_matrix, certificate_for, pair_costs
from .highs import SolverError

__all__ = ["lower_bound_enumerate", "ecw_enumerate", "DEFAULT_MAX_ROWS"]

DEFAULT_MAX_ROWS = 200_000


def _solve_covering(costs, rows, lower=None, solver="CLARABEL"):
    import cvxpy as cp

    n = costs.size
    x = cp.Variable(n)
    lo = np.zeros(n) if lower is None else lower
    cons = [x >= lo, x <= 1]
    row_con = None
    if rows:
        data = np.ones(sum(r.size for r in rows))
        indptr = np.concatenate([[0], np.cumsum([r.size for r in rows])])
        A = sp.csr_matrix((data, np.concatenate(rows), indptr), shape=(len(rows), n))
        row_con = A @ x >= 1
        cons.append(row_con)
    prob = cp.Problem(cp.Minimize(costs @ x), cons)
    try:
        prob.solve(solver=solver)
    except cp.error.SolverError as exc:
        raise SolverError(f"cvxpy/{solver} failed: {exc}") from exc
    if prob.status != cp.OPTIMAL:
        raise SolverError(f"cvxpy/{solver} returned status {prob.status!r}")
    xv = np.clip(np.asarray(x.value, dtype=float), 0.0, 1.0)
    duals = np.asarray(row_con.dual_value, dtype=float) if row_con is not None else np.zeros(0)
    return xv, float(prob.value), duals


def lower_bound_enumerate(matrix, *, regret=None, levels=None, max_rows: int = DEFAULT_MAX_ROWS,
                          solver: str = "CLARABEL") -> BoundResult:
    """Paper 000's lower bound with every row of ``R_{i1}`` written out (small K only).

    Raises :class:`~boundcalc.lp.constraints.TooLargeError` when a winner's family has more
    than ``max_rows`` rows.
    """
    t0 = time.perf_counter()
    pm = as_preference_matrix(matrix)
    costs = pair_costs(pm, regret)
    per, allocs, certs, nrows = {}, {}, {}, {}
    for w in pm.copeland_winners.tolist():
        fam = CopelandFamily(pm, w, levels)
        rows = fam.enumerate(max_rows=max_rows)
        x, _, duals = _solve_covering(costs, rows, solver=solver)
        per[w] = float(costs @ x)
        allocs[w] = _q_matrix(pm, x)
        certs[w] = certificate_for(fam, costs, x, rows, duals)
        nrows[str(w)] = len(rows)
    best = min(per, key=lambda k: (per[k], k))
    return BoundResult(
        value=per[best], winner=best, per_winner=per, allocation=allocs[best], allocations=allocs,
        kind="lower_bound", method="enumerate", unit=UNIT_000 if regret is None else "custom regret per ln T",
        stats={"rows": nrows, "solver": solver, "seconds": time.perf_counter() - t0},
        certificate=certs[best], certificates=certs,
    )


def ecw_enumerate(matrix, *, regret=None, max_rows: int = DEFAULT_MAX_ROWS, solver: str = "CLARABEL") -> BoundResult:
    """The ECW LP ``min c.e over R^E_{i1}`` with all rows written out (checks Theorem 5)."""
    t0 = time.perf_counter()
    pm = as_preference_matrix(matrix)
    costs = pair_costs(pm, regret)
    per, allocs, certs = {}, {}, {}
    for w in pm.copeland_winners.tolist():
        fam = ECWFamily(pm, w)
        rows = fam.enumerate(max_rows=max_rows)
        lower = np.zeros(costs.size)
        lower[fam.fixed_vars] = 1.0
        x, _, duals = _solve_covering(costs, rows, lower=lower, solver=solver)
        per[w] = float(costs @ x)
        allocs[w] = _q_matrix(pm, x)
        v = fam.max_violation(x)
        certs[w] = Certificate(max_violation=v, primal_bound=per[w], dual_bound=float("nan"))
    best = min(per, key=lambda k: (per[k], k))
    return BoundResult(
        value=per[best], winner=best, per_winner=per, allocation=allocs[best], allocations=allocs,
        kind="ecw", method="enumerate", unit=UNIT_000 if regret is None else "custom regret per ln T",
        stats={"solver": solver, "seconds": time.perf_counter() - t0},
        certificate=certs[best], certificates=certs,
    )
