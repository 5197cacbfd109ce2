"""The whole LP written out and solved through ``cvxpy`` (reference backend for small K).

Every row of ``R_{i1}`` (or ``R^E_{i1}``) is enumerated from the definition
(:meth:`~boundcalc.lp.constraints.CopelandFamily.enumerate`) and the LP is handed to an
LP solver through cvxpy: by default HiGHS's simplex on cvxpy's canonical form of the whole LP
(a code path that shares neither the separation oracle nor the incremental model with the
cutting-plane method), or Clarabel's interior point (``solver="CLARABEL"``), which shares no
solver with it either.  Refuses clearly when the
enumeration is larger than ``max_rows``.
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
    costs: np.ndarray,
    rows: Sequence[np.ndarray],
    lower: np.ndarray | None = None,
    solver: str = "CLARABEL",
    scale: float | None = None,
) -> tuple[np.ndarray, float, np.ndarray, str]:
    """Solve ``min c.x, lower <= x <= 1, rows >= 1`` through cvxpy.

    ``scale`` should be the objective of some feasible point (an upper bound within a small
    factor of the optimum): the objective is divided by it so that the solver's absolute
    tolerances act as relative ones.  Near ties make costs span ~10 orders of magnitude, and
    without this an interior-point solver stops ~1% away from the optimum.
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
    if scale is None or not np.isfinite(scale) or scale <= 0:
        scale = 1.0
    # the scaled objective serves Clarabel only: HiGHS scales internally, and dividing by a
    # large value would push small costs under its absolute dual tolerance (1e-7)
    problems = {
        "CLARABEL": cp.Problem(cp.Minimize((costs / scale) @ x), cons),
        "HIGHS": cp.Problem(cp.Minimize(costs @ x), cons),
    }
    factor = {"CLARABEL": scale, "HIGHS": 1.0}
    # "auto": HiGHS's simplex through cvxpy (a vertex, exact to the solver's tolerance; the
    # model is cvxpy's canonicalisation of the full LP, sharing nothing with the incremental
    # model or the oracle), then Clarabel if HiGHS fails.  "CLARABEL" alone gives a check
    # independent of HiGHS, accurate to ~1e-6 relative when costs span many orders of magnitude.
    clarabel_tight = dict(tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11, max_iter=500)
    # one HiGHS thread, as every HiGHS model of boundcalc asks (the process has one HiGHS thread
    # scheduler; a model asking for another number afterwards fails: CoveringLP's ``threads``),
    # and every finite cost a cost (HiGHS reads 1e20 as infinite; a pair 1e-11 from 1/2 costs 6e20)
    highs_opts = {"threads": 1, "infinite_cost": np.inf}
    if solver == "auto":
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
            # cvxpy raises ValueError ("Cannot unpack invalid solution") when the solver stops
            # without one, e.g. HiGHS with status UNKNOWN on a pair 1e-11 from 1/2
            tried.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        if prob.status == cp.OPTIMAL:
            used = name
            break
        tried.append(f"{name}: status {prob.status!r}")
    if used is None:
        raise SolverError("cvxpy found no optimal solution of the full LP (" + "; ".join(tried) + ")")
    xv = np.clip(np.asarray(x.value, dtype=float), 0.0, 1.0)
    xv = _purify(xv, costs, A if rows else None, lo)
    f = factor.get(used, 1.0)
    duals = f * np.asarray(row_con.dual_value, dtype=float) if row_con is not None else np.zeros(0)
    return xv, f * float(prob.value), duals, used


def _purify(x: np.ndarray, costs: np.ndarray, A: sp.csr_matrix | None, lower: np.ndarray) -> np.ndarray:
    """Interior-point solutions keep ~1e-12 on variables that should be 0, which costs
    ``1e-12 * c`` with ``c`` up to ~1e10 near ties.  Zero the entries below 1e-7, restore
    feasibility by scaling (rows are 0/1 covering rows), and keep the result if cheaper."""
    y = np.where((x < 1e-7) & (lower <= 0), 0.0, x)
    if A is not None:
        v = float(np.max(1.0 - A @ y, initial=-np.inf))
        if v > 0:
            if v >= 1:
                return x
            y = np.maximum(lower, np.minimum(1.0, y / (1.0 - v)))
    return y if costs @ y <= costs @ x else x


def _stats(t0: float, nrows: int, used: dict[str, str]) -> dict[str, Any]:
    """The enumerated LP's ``stats``: :func:`~boundcalc.lp.ecw.closed_form_stats`'s, with its solves and rows."""
    solvers = sorted(set(used.values()))
    return {
        **closed_form_stats("enumerate", t0),
        "lp_solves": len(used),
        "simplex_iterations": None,
        "rows": nrows,
        "rows_added": nrows,
        "solver": "cvxpy/" + "+".join(s.lower() for s in solvers),
        "solver_per_winner": dict(used),
    }


def _status(certs: dict[int, Certificate]) -> tuple[list[str], str]:
    """The certificate acted upon (:meth:`~boundcalc.result.Certificate.problems`, the one check of
    every LP bound): failures, and the message of a success."""
    bad = [f"winner {w}: {p}" for w, c in certs.items() for p in c.problems()]
    return bad, "optimal (every row enumerated)"


def lower_bound_enumerate(
    matrix: MatrixLike,
    *,
    regret: ArrayLike | None = None,
    levels: Sequence[int] | None = None,
    max_rows: int = DEFAULT_MAX_ROWS,
    solver: str = "auto",
) -> BoundResult:
    """Paper 000's lower bound with every row of ``R_{i1}`` written out (small K only).

    Raises :class:`~boundcalc.lp.constraints.TooLargeError` when a winner's family has more
    than ``max_rows`` rows.  The certificate is acted upon as in the cutting plane: a row
    violated by more than 1e-7 or a relative duality gap above 1e-6 gives ``status = "failed"``.
    """
    t0 = time.perf_counter()
    pm = as_preference_matrix(matrix)
    st = as_structure(pm)
    costs = pair_costs(st, regret)
    C = _ecw_costs(st, regret)
    per, allocs, certs, used_solvers = {}, {}, {}, {}
    nrows = 0
    for w in pm.copeland_winners.tolist():
        fam = CopelandFamily(st, w, levels)
        rows = fam.enumerate(max_rows=max_rows)
        # ECW's allocation lies in R_{w} (000 Theorem 6), so its value scales the objective
        scale = ecw_allocation(st.beats, C, w)[0]
        x, _, duals, used = _solve_covering(costs, rows, solver=solver, scale=scale)
        per[w] = float(costs @ x)
        allocs[w] = _q_matrix(structure_d(st), x)
        certs[w] = certificate_for(fam, costs, x, rows, duals)
        nrows += len(rows)
        used_solvers[str(w)] = used
    failures, message = _status(certs)
    return BoundResult.from_winners(
        "lower_bound",
        per,
        allocs,
        certs,
        method="enumerate",
        unit=UNIT_000 if regret is None else UNIT_CUSTOM,
        stats=_stats(t0, nrows, used_solvers),
        failures=failures,
        message=message,
    )


def ecw_enumerate(
    matrix: MatrixLike, *, regret: ArrayLike | None = None, max_rows: int = DEFAULT_MAX_ROWS, solver: str = "auto"
) -> BoundResult:
    """The ECW LP ``min c.e over R^E_{i1}`` with all rows written out (checks Theorem 5)."""
    t0 = time.perf_counter()
    pm = as_preference_matrix(matrix)
    st = as_structure(pm)
    costs = pair_costs(st, regret)
    C = _ecw_costs(st, regret)
    per, allocs, certs, used_solvers = {}, {}, {}, {}
    nrows = 0
    for w in pm.copeland_winners.tolist():
        fam = ECWFamily(st, w)
        rows = fam.enumerate(max_rows=max_rows)
        nrows += len(rows)
        lower = np.zeros(costs.size)
        lower[fam.fixed_vars] = 1.0
        scale = ecw_allocation(st.beats, C, w)[0]
        x, _, duals, used = _solve_covering(costs, rows, lower=lower, solver=solver, scale=scale)
        used_solvers[str(w)] = used
        per[w] = float(costs @ x)
        allocs[w] = _q_matrix(structure_d(st), x)
        v = fam.max_violation(x)
        certs[w] = Certificate(max_violation=v, primal_bound=per[w], dual_bound=float("nan"))
    failures, message = _status(certs)
    return BoundResult.from_winners(
        "ecw",
        per,
        allocs,
        certs,
        method="enumerate",
        unit=UNIT_000 if regret is None else UNIT_CUSTOM,
        stats=_stats(t0, nrows, used_solvers),
        failures=failures,
        message=message,
    )
