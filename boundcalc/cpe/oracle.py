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
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse

from .._highs import new_highs
from ..lp.highs import SolverError
from ..result import RichResult, to_jsonable
from .instance import CPEInstance, as_instance
from .matchings import _edge_set, best_matching, forced_sets_consistent

__all__ = [
    "OracleResult",
    "mwmc",
    "condorcet_oracle",
    "frank_wolfe_oracle",
    "matching_polytope",
    "SolverError",
]


# ---------------------------------------------------------------------------- MWMC
def _kern():
    """The compiled loops (:mod:`boundcalc.kernels.cpe`), imported where they run (numba with them)."""
    from ..kernels import compile_notice, cpe

    compile_notice(["cpe"], "the pure-exploration algorithms")
    return cpe


def mwmc(
    inst: CPEInstance,
    weights: ArrayLike,
    *,
    include: Iterable[int] = (),
    exclude: Iterable[int] = (),
    minimize: bool = False,
) -> tuple[float, tuple | None]:
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
    ec = inst.edge_candidate
    free_mask, pcov, _ = _kern().face(
        inst.edge_position,
        ec,
        inst.n_positions,
        inst.n_candidates,
        np.asarray(A, dtype=np.intp),
        np.asarray(R, dtype=np.intp),
    )
    free = np.flatnonzero(free_mask)
    pos = np.flatnonzero(~pcov)
    cnt = np.bincount(ec[free], minlength=inst.n_candidates)
    cands = np.flatnonzero(cnt >= 2)
    return _Face(A, free, pos, cands)


def matching_polytope(inst: CPEInstance, include: Iterable[int] = (), exclude: Iterable[int] = ()) -> tuple:
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
class OracleResult(RichResult):
    """Answer of a Condorcet oracle for 004 eq. (6) (a :class:`~boundcalc.result.RichResult`:
    ``str()`` a one-line summary, ``to_dict()``/``to_json()`` with infinities as ``null`` -- the
    ``status`` says which empty polytope gave ``-inf`` or ``+inf``).

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
        """A JSON-safe dict; NaN and infinities are ``None`` (``null``), the package's one convention
        (``status`` tells ``-inf``, ``"empty-max"``, from ``+inf``, ``"empty-min"``)."""
        return to_jsonable(
            {"value": self.value, "x": self.x, "y": self.y, "status": self.status, "stats": dict(self.stats)}
        )

    def summary(self) -> str:
        """``Condorcet oracle (004 eq. (6)): value ..., status ...`` and the solver's time."""
        secs = self.stats.get("time")
        tail = f", {secs * 1e3:.3g} ms" if isinstance(secs, (int, float)) and math.isfinite(secs) else ""
        return f"Condorcet oracle (004 eq. (6)): value {self.value:.8g}, status {self.status}{tail}"


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
    x[np.asarray(M, dtype=np.intp)] = 1.0
    return x


#: Feasibility / optimality tolerances passed to HiGHS.
HIGHS_TOL = 1e-9
#: A dual-derived minimising ``y`` is accepted when its residuals are below this.
Y_CHECK_TOL = 1e-7


def condorcet_oracle(
    inst: CPEInstance,
    Q: ArrayLike,
    A1: Iterable[int] = (),
    R1: Iterable[int] = (),
    A2: Iterable[int] = (),
    R2: Iterable[int] = (),
    *,
    presolve: bool = False,
) -> OracleResult:
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
        ``P(M,A2,R2)`` is empty.  Emptiness is decided exactly before the LP (``A`` a matching
        disjoint from ``R``, and augmenting paths matching every position ``A`` leaves free
        with free edges); the feasible matching of ``"empty-min"`` is :func:`mwmc`'s.

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

    Size: ``|F1| + |J2| + |C2|`` columns, ``|F2| + |J1| + |C1|`` rows.  The faces, the LP
    (column-wise, rows ascending in each column) and the points read from its solution are
    assembled by :func:`boundcalc.kernels.cpe.condorcet_lp` and
    :func:`boundcalc.kernels.cpe.dual_point`; ``Q chi_A``, ``Q^T chi_A`` and ``x^T Q y`` stay
    numpy products (their summation order is numpy's).

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
    a, b = _indicator(m, a1), _indicator(m, a2)
    Qb = Qa @ b  # (Q b)_e
    Qta = Qa.T @ a  # (Q^T a)_f

    # emptiness, exactly (augmenting paths on the free edges), then the LP (see Notes)
    kern = _kern()
    ep, ec, n = inst.edge_position, inst.edge_candidate, inst.n_candidates
    code, F1, F2, cost, lo, hi, rlo, rhi, start, index, vals = kern.condorcet_lp(
        Qa, Qb, Qta, ep, ec, _position_starts(inst), n, a1, r1, a2, r2
    )
    if code == 1:
        return OracleResult(-np.inf, None, None, "empty-max", {"time": time.perf_counter() - t0, "rows": 0, "cols": 0})
    if code == 2:
        M1 = best_matching(inst, np.zeros(m), include=a1, exclude=r1)[1]
        return OracleResult(
            np.inf, _indicator(m, M1), None, "empty-min", {"time": time.perf_counter() - t0, "rows": 0, "cols": 0}
        )
    const = float(a @ Qb) / l
    ncol, nrow = cost.size, rlo.size

    if ncol == 0:  # both players fully forced
        value = const
        x, y = a, b
        stats = {"rows": 0, "cols": 0, "nnz": 0, "iterations": 0, "y_source": "forced"}
    else:
        x_z, duals, objective, iters = _solve_highs(cost, lo, hi, (start, index, vals), rlo, rhi, presolve, inst)
        value = const + objective
        # the min player's optimal strategy from the duals of the f in F2 rows (sign-normalised),
        # checked for membership in P(M, A2, R2) and for (1/l) x^T Q y = value; otherwise a
        # best-response vertex to x (a min-cost matching)
        x, y, y_clipped, ok = kern.dual_point(x_z, duals, a, b, F1, F2, ep, ec, l, n, r2, Y_CHECK_TOL)
        if ok and abs(float(x @ Qa @ y) / l - value) <= Y_CHECK_TOL * max(1.0, abs(value)):
            y, y_source = y_clipped, "duals"
        else:
            y = _indicator(m, best_matching(inst, Qa.T @ x / l, include=a2, exclude=r2, minimize=True)[1])
            y_source = "best-response"
        stats = {"rows": int(nrow), "cols": int(ncol), "nnz": int(vals.size), "iterations": iters, "y_source": y_source}
    stats["time"] = time.perf_counter() - t0
    return OracleResult(float(value), x, y, "optimal", stats)


def _position_starts(inst: CPEInstance) -> np.ndarray:
    """``pstart`` with the edges of position ``j`` at ``pstart[j] .. pstart[j+1] - 1`` (cached)."""
    p = inst._cache.get("position_starts")
    if p is None:
        p = np.array([int(ix[0]) for ix in inst.position_edges] + [inst.n_edges], dtype=np.int64)
        inst._cache["position_starts"] = p
    return p


_HIGHS = threading.local()


def _highs(presolve: bool):
    """One HiGHS object per thread and presolve setting, reused across calls (``passModel``
    replaces the model; creating a ``Highs`` costs about as much as solving these LPs)."""
    cache = getattr(_HIGHS, "solvers", None)
    if cache is None:
        cache = _HIGHS.solvers = {}
    h = cache.get(presolve)
    if h is None:
        h = new_highs(
            threads=1,
            primal_feasibility_tolerance=HIGHS_TOL,
            dual_feasibility_tolerance=HIGHS_TOL,
            presolve="on" if presolve else "off",
        )
        cache[presolve] = h
    return h


def _solve_highs(cost, lo, hi, Amat, rlo, rhi, presolve, inst):
    """Maximise ``cost . z`` s.t. ``rlo <= A z <= rhi``, ``lo <= z <= hi`` (``A`` as CSC triplet
    ``(indptr, indices, values)``) on HiGHS; returns ``(z, row_duals, objective, iterations)``."""
    import highspy

    h = _highs(bool(presolve))
    # HiGHS's infinity is IEEE's (kHighsInf == inf): the bounds pass as they are
    h.passModel(
        int(cost.size),
        int(rlo.size),
        int(Amat[2].size),
        int(highspy.MatrixFormat.kColwise),
        int(highspy.ObjSense.kMaximize),
        0.0,
        cost,
        lo,
        hi,
        rlo,
        rhi,
        Amat[0],
        Amat[1],
        Amat[2],
        np.zeros(cost.size, dtype=np.int32),
    )  # integrality: all continuous
    h.run()
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise SolverError(
            f"HiGHS did not solve 004's Condorcet oracle LP (eq. (6); {inst.n_edges} edges, "
            f"{rlo.size} rows, {cost.size} columns): status {h.modelStatusToString(status)}"
        )
    sol = h.getSolution()
    return (
        np.asarray(sol.col_value),
        np.asarray(sol.row_dual),
        float(h.getObjectiveValue()),
        int(h.getInfoValue("simplex_iteration_count")[1]),
    )


# ---------------------------------------------------------------------------- Frank-Wolfe (004 App. C.2)
class _LMO:
    """Linear minimisation over ``P(M, A, R)``: ``argmin_{x} c^T x`` = a min-cost maximum matching
    with the forced sets (the oracle of 004 Algorithm 7, Line 6), on a prepared position x
    candidate table (``linear_sum_assignment``), or per position when no candidate is shared
    (the polytope is then a product of simplices and the matching problem separates)."""

    def __init__(self, inst: CPEInstance, A: np.ndarray, R: np.ndarray):
        self.inst = inst
        self.face = _face(inst, A, R)
        self.m = inst.n_edges
        ep, ec = inst.edge_position, inst.edge_candidate
        self.base = _indicator(self.m, A)
        F = self.face.free
        self.F = F
        self.separable = self.face.candidates.size == 0
        if self.separable:
            order = np.argsort(ep[F], kind="stable")
            self.Fs = F[order]
            self.pos_sorted = ep[self.Fs]
            self.starts = np.flatnonzero(np.r_[True, np.diff(self.pos_sorted) != 0])
        else:
            J, C = self.face.positions, np.unique(ec[F])
            self.ri = np.searchsorted(J, ep[F])
            self.ci = np.searchsorted(C, ec[F])
            self.shape = (J.size, C.size)
            self.table = np.full((J.size, C.size), -1, dtype=np.intp)
            self.table[self.ri, self.ci] = F

    def __call__(self, c: np.ndarray) -> np.ndarray:
        from scipy.optimize import linear_sum_assignment

        x = self.base.copy()
        if self.F.size == 0:
            return x
        if self.separable:
            # sorted by position, then cost: the first edge of each position's run is its argmin
            order = np.lexsort((c[self.Fs], self.pos_sorted))
            x[self.Fs[order[self.starts]]] = 1.0
            return x
        T = np.full(self.shape, np.inf)
        T[self.ri, self.ci] = c[self.F]
        r, cc = linear_sum_assignment(T)
        x[self.table[r, cc]] = 1.0
        return x


def _fw_projection(point: np.ndarray, lmo: _LMO, x1: np.ndarray, n_iter: int) -> np.ndarray:
    """004 Algorithm 7: approximate Euclidean projection of ``point`` onto ``P(M, A, R)`` by
    Frank-Wolfe on ``(1/2)||x - point||^2`` with steps ``2/(t+1)``, ``n_iter`` iterations from
    the vertex ``x1``."""
    x = x1.copy()
    for t in range(1, n_iter + 1):
        chi = lmo(x - point)  # Line 5-7: cost c = x^(t) - x, min-cost maximum matching
        g = 2.0 / (t + 1)
        x *= 1.0 - g
        x += g * chi
    return x


def frank_wolfe_oracle(
    inst: CPEInstance,
    Q: ArrayLike,
    A1: Iterable[int] = (),
    R1: Iterable[int] = (),
    A2: Iterable[int] = (),
    R2: Iterable[int] = (),
    *,
    epsilon: float = 1e-3,
    max_iter: int = 1000,
    max_inner: int = 200,
    lipschitz: float | None = None,
    rng: np.random.Generator | int | None = None,
) -> OracleResult:
    """004's own Condorcet oracle (App. C.2, Algorithms 6 and 7): the slow inexact reference.

    Projected sub-gradient ascent on ``f(x) = min_{y in P(M,A2,R2)} (1/l) x^T Q y`` over
    ``P(M, A1, R1)`` (Algorithm 6), each projection done approximately by Frank-Wolfe
    (Algorithm 7).  Use :func:`condorcet_oracle` (exact, one LP) for anything but comparisons.

    Algorithm 6 as written: ``x^(1) = chi_M`` for a feasible matching ``M`` (Line 3); horizon
    ``T = ceil((4 l K)^2 / epsilon^2)``, step ``eta = 2 l / (K sqrt(T))``, projection accuracy
    ``epsilon' = epsilon / (2 K sqrt(T))`` (Line 4; the paper's ``M`` in these formulas is this
    ``T``, as in the proof of Lemma 9); per step the sub-gradient ``(1/l) Q y0`` with ``y0`` a
    best response (a min-cost maximum matching, Sec. 4.2), the ascent step ``x + eta grad``
    (Line 7) and the approximate projection (Line 8).  Algorithm 7: Frank-Wolfe from a feasible
    vertex with steps ``2/(t+1)`` for ``ceil(16 l^2 / epsilon'^2)`` iterations (Line 4; its
    Line 10 says ``8 l^2`` but Lemma 8's proof uses ``16 l^2``, taken here); each iteration one
    min-cost maximum matching with the forced sets.  ``K`` is the Lipschitz constant of Lemma 7
    (004 writes the number of duels ``K``); here ``max(inst.n_duels, ||Q||_2 / sqrt(l))``, the
    second term being a proven Lipschitz bound of ``f`` (``||(1/l) Q y||_2 <= ||Q||_2 sqrt(l)/l``
    for ``y`` in the polytope), unless ``lipschitz`` is given.  The returned point is the best
    iterate, ``argmax_t f(x^(t))``, which is what Lemma 9 bounds (Line 10 returns the last one;
    its value is in ``stats["last_value"]``).

    Budget.  With 004's counts the guarantee ``f(x) >= OPT - epsilon`` (Lemma 9) holds, but
    the counts are astronomical (``T = 2.3e9`` for ``l = 4, K = 12, epsilon = 1e-3``, and
    ``ceil(16 l^2/epsilon'^2) = 64 l^2 K^2 T / epsilon^2`` Frank-Wolfe steps per projection).
    ``max_iter`` caps the horizon and ``max_inner`` the Frank-Wolfe steps: the run is then 004's
    Algorithm 6 with horizon ``T_run = min(T, max_iter)`` (step size and ``epsilon'`` from the
    same formulas with ``T_run``, i.e. the guarantee of ``epsilon_run = 4 l K / sqrt(T_run)``)
    and projections truncated at ``min(ceil(16 l^2/epsilon'^2), max_inner)`` steps; status
    ``"max_iter"`` and no a-priori guarantee.  Either way ``stats["gap_bound"]`` is an
    a-posteriori certificate: with ``bar y`` the average of the best responses,
    ``OPT <= max_{x in P1} (1/l) x^T Q bar y = value + gap_bound`` (weak duality).

    Returns
    -------
    OracleResult
        ``value = f(x)`` at the returned ``x`` (``<= OPT``, since ``x`` is feasible), ``y`` a
        best response to it; status ``"converged"`` (004's full counts run) or ``"max_iter"``;
        emptiness as in :func:`condorcet_oracle` (``-inf`` / ``+inf``).  ``stats``: ``T_paper``
        and ``inner_paper`` (004's counts at ``epsilon``), ``inner_for_horizon`` (Algorithm 7's
        count for the run's horizon), ``iterations``, ``inner_iterations`` (what was run),
        ``eta``, ``epsilon_prime``, ``K``, ``epsilon_run``, ``last_value``, ``gap_bound``,
        ``lmo_calls``, ``time``.

    >>> from boundcalc.cpe import CPEInstance
    >>> inst = CPEInstance.from_matrix([[0.5, 0.8], [0.2, 0.5]])
    >>> r = frank_wolfe_oracle(inst, inst.edge_matrix, max_iter=50, max_inner=50)
    >>> round(r.value, 6), r.status, r.x.tolist()
    (0.5, 'max_iter', [1.0, 0.0])
    """
    t0 = time.perf_counter()
    inst = as_instance(inst)
    Qa = _check_Q(inst, Q)
    if not (isinstance(epsilon, (int, float)) and 0 < epsilon and math.isfinite(epsilon)):
        raise ValueError(f"epsilon must be a positive finite number; got {epsilon!r}")
    for nm, v in (("max_iter", max_iter), ("max_inner", max_inner)):
        if not (isinstance(v, (int, np.integer)) and v >= 1):
            raise ValueError(f"{nm} must be an integer >= 1; got {v!r}")
    m, l = inst.n_edges, inst.n_positions
    a1, r1, a2, r2 = (_edge_set(inst, s, nm) for s, nm in ((A1, "A1"), (R1, "R1"), (A2, "A2"), (R2, "R2")))
    gen = np.random.default_rng(rng) if rng is not None else None
    w0 = gen.random(m) if gen is not None else np.zeros(m)
    M1 = best_matching(inst, w0, include=a1, exclude=r1)[1] if forced_sets_consistent(inst, a1, r1) else None
    if M1 is None:
        return OracleResult(-np.inf, None, None, "empty-max", {"time": time.perf_counter() - t0})
    M2 = best_matching(inst, np.zeros(m), include=a2, exclude=r2)[1] if forced_sets_consistent(inst, a2, r2) else None
    if M2 is None:
        return OracleResult(np.inf, _indicator(m, M1), None, "empty-min", {"time": time.perf_counter() - t0})

    if lipschitz is None:
        K = max(float(inst.n_duels), float(np.linalg.norm(Qa, 2)) / math.sqrt(l), 1e-12)
    else:
        K = float(lipschitz)
        if not (K > 0 and math.isfinite(K)):
            raise ValueError(f"lipschitz must be positive and finite; got {lipschitz!r}")
    T_paper = math.ceil((4 * l * K) ** 2 / epsilon**2)
    T_run = min(T_paper, int(max_iter))
    eta = 2 * l / (K * math.sqrt(T_run))
    eps_run = epsilon if T_run == T_paper else 4 * l * K / math.sqrt(T_run)
    eps_prime = eps_run / (2 * K * math.sqrt(T_run))
    inner_run = math.ceil(16 * l**2 / eps_prime**2)  # Algorithm 7's count for this horizon
    n_inner = min(inner_run, int(max_inner))
    inner_paper = math.ceil(16 * l**2 * (2 * K * math.sqrt(T_paper) / epsilon) ** 2)  # at 004's T

    lmo1, lmo2 = _LMO(inst, a1, r1), _LMO(inst, a2, r2)
    x1 = _indicator(m, M1)
    x = x1.copy()
    best_val, best_x, best_y = -np.inf, x, None
    ysum = np.zeros(m)
    val = -np.inf
    for _t in range(T_run):
        y0 = lmo2(Qa.T @ x / l)  # best response: argmin_y (1/l) x^T Q y (Sec. 4.2)
        val = float(x @ Qa @ y0) / l
        ysum += y0
        if val > best_val:
            best_val, best_x, best_y = val, x.copy(), y0
        grad = Qa @ y0 / l  # a super-gradient of the concave f at x
        x = _fw_projection(x + eta * grad, lmo1, x1, n_inner)  # Lines 7-8
    # the point Line 10 returns (x^(T+1)) enters the best-iterate choice too
    y0 = lmo2(Qa.T @ x / l)
    last = float(x @ Qa @ y0) / l
    ysum += y0
    if last > best_val:
        best_val, best_x, best_y = last, x.copy(), y0
    ybar = ysum / (T_run + 1)
    upper = best_matching(inst, Qa @ ybar / l, include=a1, exclude=r1)[0]
    status = "converged" if (T_run == T_paper and n_inner == inner_run) else "max_iter"
    stats = {
        "T_paper": T_paper,
        "inner_paper": inner_paper,
        "inner_for_horizon": inner_run,
        "iterations": T_run,
        "inner_iterations": n_inner,
        "eta": eta,
        "epsilon_prime": eps_prime,
        "epsilon_run": eps_run,
        "K": K,
        "last_value": last,
        "gap_bound": max(0.0, float(upper) - best_val),
        "lmo_calls": T_run * (n_inner + 1) + 1,
        "time": time.perf_counter() - t0,
    }
    return OracleResult(float(best_val), best_x, best_y, status, stats)
