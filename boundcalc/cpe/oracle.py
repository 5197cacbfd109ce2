"""Exact oracles of combinatorial pure exploration for dueling bandits (paper 004, Chen, Du, Huang &
Zhao, ICML 2020).

* :func:`mwmc` -- 004's MWMC oracle (Sec. 3.2, Algorithm 1): the maximum-weight
  maximum-cardinality matching, with edge *sets* forced in (``A``) and out (``R``).
* :func:`condorcet_oracle` -- 004's Condorcet oracle ``O(A1, R1, A2, R2, Q)`` of Sec. 4.1,
  eq. (6), solved **exactly** as one linear program on HiGHS (``highspy``): the maximum
  matchings with forced edges span an integral polytope with a polynomial description, so the
  inner minimisation is dualised (derivation in the function's docstring).
* :func:`frank_wolfe_oracle` -- 004's own oracle, App. C.2 Algorithms 6-7 (projected
  sub-gradient ascent with an approximate Frank-Wolfe projection), the slow inexact reference
  the exact one is compared with.  Never the default.

Conventions.  Edges are the instance's edge indices ``0 .. m-1``; a matching is a tuple of
edge indices in position order.  Under 004's standing assumption (Sec. 2, checked by
:class:`~boundcalc.cpe.CPEInstance`) every maximum matching fills all ``l`` positions, so the
maximum cardinality is ``l`` and ``P(M, A, R)`` is the convex hull of the indicator vectors of
the matchings that fill every position, contain ``A`` and avoid ``R``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from ..lp.highs import SolverError
from .instance import CPEInstance, as_instance
from .matchings import _edge_set, best_matching, forced_sets_consistent

__all__ = [
    "OracleResult",
    "mwmc",
    "condorcet_oracle",
    "matching_polytope",
    "SolverError",
]


# ---------------------------------------------------------------------------- MWMC
def mwmc(inst: CPEInstance, weights, *, include=(), exclude=(), minimize: bool = False) -> tuple[float, tuple | None]:
    """004's MWMC oracle: maximum-weight maximum-cardinality matching with forced edge sets.

    Parameters
    ----------
    inst : CPEInstance or K x K matrix
    weights : array (m,)
        Finite edge weights.
    include, exclude : iterable of edge indices (or one index)
        004's accepted set ``A`` (every edge must be in the matching) and rejected set ``R``
        (no edge may be).
    minimize : bool
        Return the lightest maximum matching instead (the min-cost maximum matching used by
        004 Sec. 4.2 and Algorithm 7).

    Returns
    -------
    (value, matching)
        ``matching`` is a tuple of ``l`` edge indices in position order.  If no maximum matching
        meets the constraints: ``(-inf, None)`` when maximising and ``(+inf, None)`` when
        minimising (the maximum / minimum over an empty set, 004 Definition 3); test
        ``matching is None`` to detect it.

    Notes
    -----
    Maximum cardinality first: every maximum matching fills all ``l`` positions (004 Sec. 2),
    and ``scipy.optimize.linear_sum_assignment`` on the ``l x n`` table (``-inf`` at non-edges
    and forbidden edges) assigns every position or reports infeasibility, so a heavier matching
    of smaller cardinality is never returned (see :func:`boundcalc.cpe.best_matching`, which
    this delegates to).

    >>> from boundcalc.cpe import CPEInstance
    >>> inst = CPEInstance.from_edge_matrix(
    ...     [("c1", "s1"), ("c2", "s1"), ("c2", "s2")],
    ...     [[.5, .6, 0], [.4, .5, 0], [0, 0, .5]])
    >>> mwmc(inst, [1.0, 5.0, 1.0])      # (c2, s1) alone weighs 5 but leaves s2 empty
    (2.0, (0, 2))
    >>> mwmc(inst, [1.0, 5.0, 1.0], exclude=[0])
    (-inf, None)
    """
    return best_matching(inst, weights, include=include, exclude=exclude, minimize=minimize)


# ---------------------------------------------------------------------------- polytope
@dataclass(frozen=True)
class _Face:
    """``P(M, A, R)`` written as ``chi_A + {z >= 0 on `free`: position sums = 1 on `positions`,
    candidate sums <= 1 on `candidates`}`` (the forced part removed)."""

    forced: np.ndarray  # A (edge indices)
    free: np.ndarray  # edges neither in R nor sharing a position / candidate with A
    positions: np.ndarray  # positions not covered by A
    candidates: np.ndarray  # candidates not covered by A with >= 2 free edges (others are implied)


def _face(inst: CPEInstance, A: np.ndarray, R: np.ndarray) -> _Face:
    ep, ec = inst.edge_position, inst.edge_candidate
    blocked = np.zeros(inst.n_edges, dtype=bool)
    blocked[R] = True
    if A.size:
        blocked |= np.isin(ep, ep[A]) | np.isin(ec, ec[A])
    free = np.flatnonzero(~blocked)
    pos = np.setdiff1d(np.arange(inst.n_positions), ep[A])
    cnt = np.bincount(ec[free], minlength=inst.n_candidates)
    cands = np.flatnonzero(cnt >= 2)
    return _Face(A, free, pos, cands)


def matching_polytope(inst: CPEInstance, include=(), exclude=()) -> tuple:
    """Inequality description of 004's ``P(M, A, R)`` (Sec. 4.1) in all ``m`` edge variables.

    Returns ``(A_eq, b_eq, A_ub, b_ub, bounds)`` for ``scipy.optimize.linprog``: one equality
    ``sum_{e in E_j} x_e = 1`` per position, one ``sum_{e at c} x_e <= 1`` per candidate,
    ``x_e = 1`` on ``A``, ``x_e = 0`` on ``R``, ``0 <= x <= 1``.  The constraint matrix is the
    incidence matrix of a bipartite graph (totally unimodular) and the right-hand sides and
    bounds are integers, so every vertex is integral: the vertices are exactly the maximum
    matchings (all positions filled, 004 Sec. 2) containing ``A`` and avoiding ``R``.
    """
    inst = as_instance(inst)
    A = _edge_set(inst, include, "include")
    R = _edge_set(inst, exclude, "exclude")
    m, l, n = inst.n_edges, inst.n_positions, inst.n_candidates
    ar = np.arange(m)
    A_eq = sparse.csr_matrix((np.ones(m), (inst.edge_position, ar)), shape=(l, m))
    A_ub = sparse.csr_matrix((np.ones(m), (inst.edge_candidate, ar)), shape=(n, m))
    lo, hi = np.zeros(m), np.ones(m)
    lo[A] = 1.0
    hi[R] = 0.0
    return A_eq, np.ones(l), A_ub, np.ones(n), list(zip(lo, hi))


# ---------------------------------------------------------------------------- result
@dataclass(frozen=True)
class OracleResult:
    """Answer of a Condorcet oracle for 004 eq. (6).

    Attributes
    ----------
    value : float
        ``max_{x in P(M,A1,R1)} min_{y in P(M,A2,R2)} (1/l) x^T Q y``; ``-inf`` when
        ``P(M, A1, R1)`` is empty (a maximum over an empty set), ``+inf`` when only
        ``P(M, A2, R2)`` is empty (a minimum over an empty set).  For the inexact
        :func:`frank_wolfe_oracle`: ``min_y (1/l) x^T Q y`` at its returned ``x`` (a lower
        bound on the exact value, since that ``x`` is feasible).
    x : ndarray (m,) or None
        A maximising point of ``P(M, A1, R1)`` (None when it is empty).
    y : ndarray (m,) or None
        A minimising point of ``P(M, A2, R2)``: for the exact oracle the min player's optimal
        (min-max) strategy, so ``min_y x^T Q y = max_x x^T Q y = l * value``; for the
        Frank-Wolfe oracle a best response to ``x``.  None when the polytope is empty.
    status : str
        ``"optimal"``, ``"empty-max"`` (``P(M,A1,R1)`` empty), ``"empty-min"`` (only
        ``P(M,A2,R2)`` empty); the Frank-Wolfe oracle reports ``"converged"`` (004's full
        iteration counts were run: Lemma 9's guarantee holds), ``"gap"`` (stopped early
        on its duality-gap certificate) or ``"max_iter"`` (capped; no guarantee).
    stats : dict
        Solver statistics (``rows``, ``cols``, ``nnz``, ``time``, ``iterations``, ...).
    """

    value: float
    x: np.ndarray | None
    y: np.ndarray | None
    status: str
    stats: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """A JSON-safe dict (infinities as the strings ``"inf"`` / ``"-inf"``)."""
        def num(v):
            return float(v) if math.isfinite(v) else ("inf" if v > 0 else "-inf")

        return {
            "value": num(self.value),
            "x": None if self.x is None else [float(t) for t in self.x],
            "y": None if self.y is None else [float(t) for t in self.y],
            "status": self.status,
            "stats": {k: (num(v) if isinstance(v, float) else v) for k, v in self.stats.items()},
        }


def _check_Q(inst: CPEInstance, Q) -> np.ndarray:
    Qa = np.asarray(getattr(Q, "toarray", lambda: Q)(), dtype=float)
    m = inst.n_edges
    if Qa.shape != (m, m):
        raise ValueError(f"Q must be an (n_edges x n_edges) = ({m}, {m}) matrix; got shape {Qa.shape}")
    if not np.isfinite(Qa).all():
        raise ValueError("Q must be finite (no NaN or inf entries)")
    return Qa


def _indicator(m: int, M) -> np.ndarray:
    x = np.zeros(m)
    x[list(M)] = 1.0
    return x


#: Feasibility / optimality tolerances passed to HiGHS.
HIGHS_TOL = 1e-9
#: A dual-derived minimising ``y`` is accepted when its residuals are below this.
Y_CHECK_TOL = 1e-7


def condorcet_oracle(inst: CPEInstance, Q, A1=(), R1=(), A2=(), R2=(), *, presolve: bool = False) -> OracleResult:
    """004's Condorcet oracle, eq. (6), solved exactly by one HiGHS linear program.

    Computes ``max_{x in P(M,A1,R1)} min_{y in P(M,A2,R2)} (1/l) x^T Q y`` where
    ``P(M, A, R)`` is the convex hull of the maximum matchings containing ``A`` and avoiding
    ``R`` (004 Sec. 4.1).  CAR-Cond (004 Algorithm 2, Lines 11-14) calls it with
    ``(A u {e}, R, A, R)`` or ``(A, R u {e}, A, R)`` and ``Q`` the upper or lower confidence
    matrix ``bar P_t`` / ``underline P_t`` (eq. (8)); with ``Q = P`` and no forced edges it is
    004's relaxed problem (5).  004 only needs an ``epsilon``-approximation (its ``O_eps``);
    this returns the exact optimum (to HiGHS's tolerances, ~1e-9).

    Parameters
    ----------
    inst : CPEInstance or K x K matrix
    Q : array (m, m)
        Any finite matrix (004: ``Q in [0, 1]^{m x m}``, zero between incomparable edges);
        ``Q[e, f]`` is the payoff of the max player's edge ``e`` against the min player's ``f``.
    A1, R1, A2, R2 : iterables of edge indices
        Forced-in / forced-out sets of the max player (``x``) and of the min player (``y``).
    presolve : bool
        HiGHS presolve (off by default: on these small LPs it costs more than it saves).

    Returns
    -------
    OracleResult
        ``value``; ``x`` a maximiser; ``y`` the min player's optimal strategy, read from the
        LP duals (checked; if the check fails, a best-response vertex from :func:`mwmc` is
        returned and ``stats["y_source"]`` says so); ``stats`` with ``rows``, ``cols``,
        ``nnz``, ``time`` (seconds), ``iterations``.  ``value = -inf`` (status
        ``"empty-max"``, ``x = y = None``) when ``P(M,A1,R1)`` is empty; ``value = +inf``
        (status ``"empty-min"``, ``x`` one feasible matching, ``y = None``) when only
        ``P(M,A2,R2)`` is empty.  Emptiness is decided exactly by :func:`mwmc` before the LP.

    Raises
    ------
    SolverError
        HiGHS reports anything but optimal (the LP is feasible and bounded by construction,
        so that is a solver failure, never an answer).

    Notes
    -----
    **Polytope.**  Every maximum matching fills all ``l`` positions (004 Sec. 2), so
    ``P(M, A, R) = {x >= 0 : sum_{e in E_j} x_e = 1 (each position j), sum_{e at c} x_e <= 1
    (each candidate c), x_A = 1, x_R = 0}``: a face of the bipartite matching polytope, whose
    constraint matrix is totally unimodular, so it is integral and its vertices are exactly the
    matchings of eq. (6) (see :func:`matching_polytope`).  The sum of ``x`` is the maximum
    cardinality ``l``.  Fixing ``x_A = 1`` forces ``x_e = 0`` on every other edge at a
    position or candidate of ``A``; the remaining *free* edges ``F``, uncovered positions
    ``J`` and candidates ``C`` give ``x = chi_A + z`` with ``z`` in
    ``Z = {z >= 0 on F : sum_{e in E_j cap F} z_e = 1 (j in J), sum_{e at c, e in F} z_e <= 1
    (c in C)}``.  (A candidate constraint over a single free edge is implied by its
    position's equality and is dropped.)

    **Dualising the inner minimum.**  Write ``x = a + z`` (``a = chi_{A1}``) and
    ``y = b + w`` (``b = chi_{A2}``, ``w`` in ``Z2``).  For fixed ``x`` the inner problem is the
    LP ``min_{w in Z2} g^T w + (1/l) x^T Q b`` with ``g = (1/l) Q^T x`` restricted to ``F2``.
    ``Z2`` is non-empty (checked), so by LP strong duality
    ``min_{w in Z2} g^T w = max { sum_{j in J2} u_j - sum_{c in C2} v_c :
    u_{s(f)} - v_{c(f)} <= g_f (f in F2), v >= 0, u free }``
    (``u_j`` the multiplier of position ``j``'s equality, ``v_c >= 0`` that of candidate
    ``c``'s ``<= 1``; a candidate outside ``C2`` has no ``v`` term).  ``g`` is linear in ``z``,
    so the max over ``x`` of that max is one LP in ``(z, u, v)``::

        maximise   (1/l) [a^T Q b + z^T Q b] + sum_j u_j - sum_c v_c
        subject to u_{s(f)} - v_{c(f)} - (1/l) sum_{e in F1} Q_{e f} z_e <= (1/l) (Q^T a)_f   (f in F2)
                   z in Z1,  v >= 0.

    Its optimum is the value of (6) and its ``z`` part is a maximiser.  The multipliers of
    the ``f in F2`` rows are a feasible ``w`` of ``Z2`` (the dual of the dual) and give the min
    player's optimal strategy ``y* = b + w*`` (von Neumann: the bilinear game over two
    polytopes has a saddle point), with ``max_{x in P1} (1/l) x^T Q y* = value``.

    Size: ``|F1| + |J2| + |C2|`` columns, ``|F2| + |J1| + |C1|`` rows.

    >>> from boundcalc.cpe import CPEInstance
    >>> inst = CPEInstance.from_matrix([[0.5, 0.8, 0.4], [0.2, 0.5, 0.9], [0.6, 0.1, 0.5]])
    >>> r = condorcet_oracle(inst, inst.edge_matrix)     # a cyclic 3 x 3 game: mixed optimum
    >>> round(r.value, 9), r.x.round(6).tolist(), r.status
    (0.5, [0.5, 0.125, 0.375], 'optimal')
    >>> condorcet_oracle(inst, inst.edge_matrix, A1=[0, 1]).value
    -inf
    """
    t0 = time.perf_counter()
    inst = as_instance(inst)
    Qa = _check_Q(inst, Q)
    m, l = inst.n_edges, inst.n_positions
    sets = [_edge_set(inst, s, name) for s, name in ((A1, "A1"), (R1, "R1"), (A2, "A2"), (R2, "R2"))]
    a1, r1, a2, r2 = sets
    zero = np.zeros(m)

    # emptiness, exactly (a max-weight matching with the forced sets)
    M1 = best_matching(inst, zero, include=a1, exclude=r1)[1] if forced_sets_consistent(inst, a1, r1) else None
    if M1 is None:
        return OracleResult(-np.inf, None, None, "empty-max", {"time": time.perf_counter() - t0, "rows": 0, "cols": 0})
    M2 = best_matching(inst, zero, include=a2, exclude=r2)[1] if forced_sets_consistent(inst, a2, r2) else None
    if M2 is None:
        return OracleResult(np.inf, _indicator(m, M1), None, "empty-min",
                            {"time": time.perf_counter() - t0, "rows": 0, "cols": 0})

    f1, f2 = _face(inst, a1, r1), _face(inst, a2, r2)
    a, b = _indicator(m, a1), _indicator(m, a2)
    F1, F2 = f1.free, f2.free
    ep, ec = inst.edge_position, inst.edge_candidate
    n1, nu, nv = F1.size, f2.positions.size, f2.candidates.size
    Qb = Qa @ b  # (Q b)_e
    Qta = Qa.T @ a  # (Q^T a)_f
    const = float(a @ Qb) / l

    # columns: z (F1) | u (J2) | v (C2)
    ncol = n1 + nu + nv
    cost = np.concatenate([Qb[F1] / l, np.ones(nu), -np.ones(nv)])
    lo = np.concatenate([np.zeros(n1), np.full(nu, -np.inf), np.zeros(nv)])
    hi = np.concatenate([np.full(n1, np.inf), np.full(nu, np.inf), np.full(nv, np.inf)])
    upos = {int(j): n1 + k for k, j in enumerate(f2.positions)}
    vpos = {int(c): n1 + nu + k for k, c in enumerate(f2.candidates)}

    # rows block 1 (f in F2): u_{s(f)} - v_{c(f)} - (1/l) sum_e Q_{e f} z_e <= (1/l) (Q^T a)_f
    QF = sparse.csr_matrix(Qa[np.ix_(F1, F2)].T / l)  # (|F2|, |F1|)
    rows_u = np.array([upos[int(ep[f])] for f in F2], dtype=np.intp)
    vmask = np.array([int(ec[f]) in vpos for f in F2], dtype=bool)
    rows_v = np.array([vpos[int(ec[f])] for f in F2[vmask]], dtype=np.intp)
    k2 = F2.size
    B1 = sparse.hstack([
        -QF,
        sparse.csr_matrix((np.ones(k2), (np.arange(k2), rows_u - n1)), shape=(k2, nu)),
        sparse.csr_matrix((-np.ones(vmask.sum()), (np.flatnonzero(vmask), rows_v - n1 - nu)), shape=(k2, nv)),
    ], format="csr")
    # rows block 2 (j in J1): sum_{e in E_j cap F1} z_e = 1 ; block 3 (c in C1): sum z_e <= 1
    jrow = {int(j): k for k, j in enumerate(f1.positions)}
    B2 = sparse.csr_matrix(
        (np.ones(n1), ([jrow[int(ep[e])] for e in F1], np.arange(n1))), shape=(f1.positions.size, ncol))
    crow = {int(c): k for k, c in enumerate(f1.candidates)}
    cm = np.array([int(ec[e]) in crow for e in F1], dtype=bool)
    B3 = sparse.csr_matrix(
        (np.ones(cm.sum()), ([crow[int(ec[e])] for e in F1[cm]], np.flatnonzero(cm))),
        shape=(f1.candidates.size, ncol))
    Amat = sparse.vstack([B1, B2, B3], format="csc")
    rlo = np.concatenate([np.full(k2, -np.inf), np.ones(f1.positions.size), np.full(f1.candidates.size, -np.inf)])
    rhi = np.concatenate([Qta[F2] / l, np.ones(f1.positions.size), np.ones(f1.candidates.size)])
    nrow = Amat.shape[0]

    if ncol == 0:  # both players fully forced
        value = const
        x, y = a, b
        stats = {"rows": 0, "cols": 0, "nnz": 0, "iterations": 0, "y_source": "forced"}
    else:
        x_z, duals, objective, iters = _solve_highs(cost, lo, hi, Amat, rlo, rhi, presolve, inst)
        value = const + objective
        x = a.copy()
        x[F1] = np.clip(x_z[:n1], 0.0, 1.0)
        y, y_source = _dual_y(inst, Qa, x, b, F2, duals[:k2], value, a2, r2)
        stats = {"rows": int(nrow), "cols": int(ncol), "nnz": int(Amat.nnz), "iterations": iters,
                 "y_source": y_source}
    stats["time"] = time.perf_counter() - t0
    return OracleResult(float(value), x, y, "optimal", stats)


def _solve_highs(cost, lo, hi, Amat, rlo, rhi, presolve, inst):
    import highspy

    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_ = int(cost.size)
    lp.num_row_ = int(Amat.shape[0])
    lp.col_cost_ = cost
    lp.col_lower_ = np.where(np.isinf(lo), -inf, lo)
    lp.col_upper_ = np.where(np.isinf(hi), inf, hi)
    lp.row_lower_ = np.where(np.isinf(rlo), -inf, rlo)
    lp.row_upper_ = np.where(np.isinf(rhi), inf, rhi)
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = Amat.indptr.astype(np.int32)
    lp.a_matrix_.index_ = Amat.indices.astype(np.int32)
    lp.a_matrix_.value_ = Amat.data.astype(float)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("primal_feasibility_tolerance", HIGHS_TOL)
    h.setOptionValue("dual_feasibility_tolerance", HIGHS_TOL)
    if not presolve:
        h.setOptionValue("presolve", "off")
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise SolverError(
            f"HiGHS did not solve 004's Condorcet oracle LP (eq. (6); {inst.n_edges} edges, "
            f"{lp.num_row_} rows, {lp.num_col_} columns): status {h.modelStatusToString(status)}"
        )
    sol = h.getSolution()
    info = h.getInfo()
    return (np.asarray(sol.col_value), np.asarray(sol.row_dual), float(info.objective_function_value),
            int(info.simplex_iteration_count))


def _dual_y(inst, Qa, x, b, F2, duals, value, a2, r2):
    """The min player's optimal strategy from the duals of the ``f in F2`` rows (sign-normalised),
    checked for membership in ``P(M, A2, R2)`` and for ``(1/l) x^T Q y = value``; otherwise a best-response vertex to ``x`` (a min-cost matching)."""
    m, l = inst.n_edges, inst.n_positions
    w = np.abs(duals)
    y = b.copy()
    y[F2] = w
    pos_sum = np.bincount(inst.edge_position, weights=y, minlength=l)
    cand_sum = np.bincount(inst.edge_candidate, weights=y, minlength=inst.n_candidates)
    ok = bool(
        np.all(np.abs(pos_sum - 1) <= Y_CHECK_TOL)
        and np.all(cand_sum <= 1 + Y_CHECK_TOL)
        and np.all(y[r2] <= Y_CHECK_TOL)
        and abs(float(x @ Qa @ y) / l - value) <= Y_CHECK_TOL * max(1.0, abs(value))
    )
    if ok:
        return np.clip(y, 0.0, 1.0), "duals"
    _, M = best_matching(inst, Qa.T @ x / l, include=a2, exclude=r2, minimize=True)
    return _indicator(m, M), "best-response"
