"""The whole LP written out and solved through ``cvxpy`` (the reference backend for small K).

Every row of ``R_{i1}`` (000 eq. (2)) or ``R^E_{i1}`` (eqs. (4)-(5)) is enumerated from its definition
(:meth:`~boundcalc.lp.constraints.CopelandFamily.enumerate`) and the covering LP is solved by HiGHS's simplex on
cvxpy's canonical form, or by Clarabel's interior point (``solver="CLARABEL"``): neither shares the separation oracle,
the incremental model or (for Clarabel) the solver with the cutting plane, so it checks it independently.  A family
with more than ``max_rows`` rows is refused (:class:`~boundcalc.lp.constraints.TooLargeError`).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from .._highs import solve_quietly
from ..matrix import MatrixLike, as_preference_matrix
from ..result import BoundResult, Certificate
from ..units import UNIT_000, UNIT_CUSTOM
from .constraints import CopelandFamily, ECWFamily
from .cutting import _q_matrix, certificate_for, pair_costs
from .ecw import _cost_matrix as _ecw_costs
from .ecw import closed_form_stats, ecw_allocation
from .highs import SolverError
from .structure import as_structure, structure_d

__all__ = ["lower_bound_enumerate", "ecw_enumerate", "DEFAULT_MAX_ROWS"]

DEFAULT_MAX_ROWS = 200_000


def _solve_covering(
    costs: np.ndarray, rows: Sequence[np.ndarray], lower: np.ndarray | None, solver: str, scale: float
) -> tuple[np.ndarray, float, np.ndarray, str]:
    """Solve ``min c.x, lower <= x <= 1, rows >= 1``; returns ``x``, the value, row duals, solver.

    ``scale``, the value of a feasible point, divides Clarabel's objective so that its absolute tolerances act as
    relative ones: near ties make costs span ~10 orders of magnitude.
    """
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
    if not np.isfinite(scale) or scale <= 0:
        scale = 1.0
    # HiGHS scales internally: dividing would push small costs under its dual tolerance (1e-7)
    problems = {
        "CLARABEL": cp.Problem(cp.Minimize((costs / scale) @ x), cons),
        "HIGHS": cp.Problem(cp.Minimize(costs @ x), cons),
    }
    clarabel_tight = dict(tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11, max_iter=500)
    # the options of every HiGHS model of boundcalc and why: CoveringLP's (one thread, every finite cost a cost)
    highs_opts = {"threads": 1, "infinite_cost": np.inf}
    if solver == "auto":  # HiGHS's simplex (a vertex), then Clarabel if it fails
        attempts = [("HIGHS", highs_opts), ("CLARABEL", clarabel_tight), ("CLARABEL", {})]
    elif solver == "CLARABEL":
        attempts = [("CLARABEL", clarabel_tight), ("CLARABEL", {})]
    else:
        attempts = [(solver, highs_opts if solver == "HIGHS" else {})]
    used, tried = None, []
    for name, opts in attempts:
        prob = problems.get(name) or cp.Problem(cp.Minimize(costs @ x), cons)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                solve_quietly(lambda: prob.solve(solver=name, **opts))
        except (cp.error.SolverError, ValueError, ArithmeticError) as exc:
            # ValueError: "Cannot unpack invalid solution" when the solver stops without one
            tried.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        if prob.status == cp.OPTIMAL:
            used = name
            break
        tried.append(f"{name}: status {prob.status!r}")
    if used is None:
        raise SolverError("cvxpy found no optimal solution of the full LP (" + "; ".join(tried) + ")")
    xv = _purify(np.clip(np.asarray(x.value, dtype=float), 0.0, 1.0), costs, A if rows else None, lo)
    f = scale if used == "CLARABEL" else 1.0
    duals = f * np.asarray(row_con.dual_value, dtype=float) if row_con is not None else np.zeros(0)
    return xv, f * float(prob.value), duals, used


def _purify(x: np.ndarray, costs: np.ndarray, A: sp.csr_matrix | None, lower: np.ndarray) -> np.ndarray:
    """``x`` with entries below 1e-7 zeroed and feasibility restored by scaling, if that is cheaper.

    An interior point leaves ~1e-12 on zero variables, which costs ``1e-12 c`` with ``c`` up to 1e10.
    """
    y = np.where((x < 1e-7) & (lower <= 0), 0.0, x)
    if A is not None:
        v = float(np.max(1.0 - A @ y, initial=-np.inf))
        if v > 0:
            if v >= 1:
                return x
            y = np.maximum(lower, np.minimum(1.0, y / (1.0 - v)))
    return y if costs @ y <= costs @ x else x


def _enumerate(
    kind: str, matrix: MatrixLike, regret: ArrayLike | None, levels: Sequence[int] | None, max_rows: int, solver: str
) -> BoundResult:
    """The LP over ``R_{i1}`` (``kind = "lower_bound"``) or ``R^E_{i1}`` (``"ecw"``) for every winner."""
    t0 = time.perf_counter()
    pm = as_preference_matrix(matrix)
    st = as_structure(pm)
    costs = pair_costs(st, regret)
    C = _ecw_costs(st, regret)
    per, allocs, certs, used = {}, {}, {}, {}
    nrows = 0
    for w in pm.copeland_winners.tolist():
        fam: CopelandFamily | ECWFamily = ECWFamily(st, w) if kind == "ecw" else CopelandFamily(st, w, levels)
        rows = fam.enumerate(max_rows=max_rows)
        lower = None
        if isinstance(fam, ECWFamily):
            lower = np.zeros(costs.size)
            lower[fam.fixed_vars] = 1.0
        # ECW's allocation lies in R_{w} (000 Theorem 6), so its value scales the objective
        scale = ecw_allocation(st.beats, C, w)[0]
        x, _, duals, used[str(w)] = _solve_covering(costs, rows, lower=lower, solver=solver, scale=scale)
        per[w] = float(costs @ x)
        allocs[w] = _q_matrix(structure_d(st), x)
        if isinstance(fam, ECWFamily):
            certs[w] = Certificate(max_violation=fam.max_violation(x), primal_bound=per[w], dual_bound=float("nan"))
        else:
            certs[w] = certificate_for(fam, costs, x, rows, duals)
        nrows += len(rows)
    stats: dict[str, Any] = {
        **closed_form_stats("enumerate", t0),
        "lp_solves": len(used),
        "simplex_iterations": None,
        "rows": nrows,
        "rows_added": nrows,
        "solver": "cvxpy/" + "+".join(s.lower() for s in sorted(set(used.values()))),
        "solver_per_winner": dict(used),
    }
    return BoundResult.from_winners(
        kind,
        per,
        allocs,
        certs,
        method="enumerate",
        unit=UNIT_000 if regret is None else UNIT_CUSTOM,
        stats=stats,
        # the certificate is acted upon as every LP bound's (Certificate.problems)
        failures=[f"winner {w}: {p}" for w, c in certs.items() for p in c.problems()],
        message="optimal (every row enumerated)",
    )


def lower_bound_enumerate(
    matrix: MatrixLike,
    *,
    regret: ArrayLike | None = None,
    levels: Sequence[int] | None = None,
    max_rows: int = DEFAULT_MAX_ROWS,
    solver: str = "auto",
) -> BoundResult:
    """Paper 000's lower bound (eq. (2), Theorem 2) with every row of ``R_{i1}`` written out.

    A violation over 1e-7 or a relative duality gap over 1e-6 gives ``status = "failed"`` (as in the cutting plane).
    """
    return _enumerate("lower_bound", matrix, regret, levels, max_rows, solver)


def ecw_enumerate(
    matrix: MatrixLike, *, regret: ArrayLike | None = None, max_rows: int = DEFAULT_MAX_ROWS, solver: str = "auto"
) -> BoundResult:
    """The ECW LP ``min c.e over R^E_{i1}`` with every row written out (checks 000 Theorem 5)."""
    return _enumerate("ecw", matrix, regret, None, max_rows, solver)
