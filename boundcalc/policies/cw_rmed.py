"""CW-RMED: paper 000's Algorithm 1 with the exact lower-bound LP (Komiyama, Honda & Nakagawa, ICML 2016).

Paper 000 proves that CW-RMED attains the Copeland regret lower bound (Theorem 3) but could not
run it: its check (3) and line 11 need the LP of eq. (2), whose constraints are exponentially
many, on the empirical matrix at every step.  Here everything but line 11's LP runs compiled --
the skeleton shared with ECW-RMED (:mod:`boundcalc.policies.copeland_rmed`: line 4, ``L_C``,
``L_R``, ``L_N``, the empirical structure), check (3) and the cases of line 11 that need no LP
solve -- and the LP goes to boundcalc's LP core (:class:`boundcalc.lp.CopelandLPSolver`), kept on
the policy between steps:

* check (3), line 8, is the skeleton's (:func:`boundcalc.policies.copeland_rmed.check3`, shared
  with ECW-RMED as 000 prints it): for each empirical Copeland winner ``i1`` in index order, the LP
  core's sorting oracle (:func:`boundcalc.lp._kernels.copeland_sums` over the family's tables,
  :meth:`~boundcalc.lp.constraints.CopelandFamily.oracle_args`) on ``E = (N / log t) d``: the
  counts pass when ``1 - min_row sum <= check_tol``.  Observed counts are tested against the
  covering rows only (the box ``q <= 1/d`` of eq. (2) bounds the LP's rates, not observed counts).  The
  tables are built compiled (:func:`~boundcalc.policies.copeland_rmed.build_tables`) once per empirical structure, equal to the LP
  core's (tested).
* line 11, with two or more empirical Copeland winners and no tie: 000 Theorem 6 (``C* =
  C^E*``), ECW's closed-form allocation (:func:`boundcalc.lp._kernels.ecw_closed_form`) checked
  feasible by the oracle -- what :meth:`~boundcalc.lp.CopelandLPSolver.solve_empirical` answers
  there, computed in place.
* line 11 otherwise: :meth:`~boundcalc.lp.CopelandLPSolver.solve_empirical` (``C*_{i1}`` and an
  optimal allocation per winner, warm per structure, exact ties in no row), asked **only when its
  answer can change**.  With the structure unchanged the rows and bounds do not depend on the
  counts, only the costs ``c = r / d`` move, so the basis of the model's last solve stays primal
  feasible with the same solution ``e*``; it stays optimal while every reduced cost keeps its sign.
  That check (the duals ``y`` of the basis's tight rows from ``M^T y = c_B``, ``M`` the basis
  matrix on those rows; ``c_j - a_j.y >= 0`` at the lower bound, ``<= 0`` at the upper, ``y >= 0``)
  runs compiled; within a margin of HiGHS's dual tolerance (``5e-10``, less an allowance for
  rounding) the basis is kept and ``e*`` is the answer HiGHS's warm re-solve would return with
  zero simplex iterations, otherwise HiGHS re-solves.
* from ``CWRMED.lift_min_arms`` (32) arms, line 11 runs on the LP core's lifted model instead
  (:mod:`boundcalc.lp.lifted`: the same LP, eq. (2) exactly, with one row standing for all rows of
  an ``(i2, l, case)``).  The compiled basis test above reads 0/1 rows only; there the LP core makes
  the same test itself before any warm re-solve (:meth:`boundcalc.lp.highs.CoveringLP.solve`: the
  duals of the new costs from HiGHS's factorisation of the last basis, no simplex run), and HiGHS
  re-solves only when it fails (``warm_answers`` counts line-11 answers given with no HiGHS run).  Measured on 64-arm MSLR submatrices near ties: a
  cold solve of an empirical structure takes 3-10 rounds and 0.1-0.2 s on the lifted model against
  65-143 rounds and 2-7 s on the plain one, and while the last undrawn pairs are drawn (about
  2,000 steps in) the structure changes at every step.  So a new structure's model is not built
  cold but derived from the last model of the same winner (``CopelandLPSolver(derive=True)``,
  :meth:`boundcalc.lp.lifted.CopelandModel.derived`): consecutive structures differ by a pair or
  two, and every row of an arm ``i2`` whose pool and table entries did not change is a row of the
  new family too; those rows and the last basis are kept, the others dropped.  On the benchmark's
  64-arm matrix the first solves of new structures took 3,200-3,600 simplex iterations cold and
  take 1-100 so (10x fewer iterations over the first 20,000 steps).

The decisions are those of the step-by-step version this replaces (issue 14): the same check (3)
numbers, Theorem 6's allocation, and HiGHS called from the same warm bases whenever it could pivot.
Where they can differ: the LP core keeps warm models in an LRU cache (``cache_size``, 64 here); a
model dropped and rebuilt cold may land on another optimal vertex of a degenerate LP (both
optimal; the earlier version kept 8 and touched the cache at every check); and from
``lift_min_arms`` arms, where the LP core answers from a kept basis, its stored vertex is returned
where HiGHS's re-solve could step to another vertex of a degenerate optimum (both optimal; below
``lift_min_arms`` that test is off in the LP core, ``reuse_basis=False``, and the decisions are the
landed version's), as may a derived model's solve (the same optimum from another basis).  On the
benchmark's 64-arm matrix, a run of 10^5 steps with derived models ends with the regret of one
without them, to the last digit.  A failed LP (status
"failed": a HiGHS error or a certificate out of tolerance) raises :class:`boundcalc.SolverError`:
the policy never acts on an unverified allocation.

Python is entered only when line 11 meets a new structure (to read any warm basis the LP core
keeps for it), when HiGHS must re-solve, and when the tables outgrow their arrays; the whole-run kernel :func:`cw_run` returns
to :class:`CWRMED` then and resumes.  ``stats`` adds to the skeleton's: ``lp_solves`` (HiGHS
solves), ``theorem6`` (line 11 answered by Theorem 6), ``warm_answers`` (line 11 answered by the
reduced-cost check, no HiGHS).
"""

from __future__ import annotations

import math
from typing import Any
from collections import namedtuple

import numpy as np
from numba import njit

from ..lp import _kernels
from ..lp.cutting import CopelandLPSolver
from ..lp.highs import DUAL_MARGIN, ROUNDING, SolverError
from ..lp.structure import Structure
from .copeland_rmed import (BND, DONE, HAVE_TARGET, IN_LOOP, ISTAR, N_REG as N_REG_SKELETON, NEED_TABLES, PENDING, TAB,
                            S_BOUND, S_CHECKS, S_SOLVES, S_TARGETS, SKELETON_FIELDS, STRUCT, CopelandRMED,
                            _min_row_sum, argmin_winner, check3, first_winner, skeleton_finish, skeleton_learn,
                            skeleton_refresh, skeleton_select, skeleton_state, structure_tables)
from .kernel import T_, env_more, play
from .registry import register_policy

__all__ = ["CWRMED", "CWState", "cw_decide", "cw_update", "cw_resume", "cw_run"]

_kernels.load()  # the LP core's Theorem 5, called inside this module's functions
_closed_form = _kernels.ecw_closed_form

#: What a compiled step may ask of Python beyond the skeleton's (``DONE``, ``NEED_TABLES``): an LP
#: solve, the warm bases of a new structure (from the LP core's cache).
NEED_LP, NEED_BASES = 2, 3
# reg beyond the skeleton's: the structure version the warm bases were loaded for
BAS = N_REG_SKELETON
N_REG = N_REG_SKELETON + 1
LP_TOL = 3  # fr beyond the skeleton's (alpha, beta, check_tol)
S_LP, S_THM6, S_WARM = 7, 8, 9  # stats beyond the skeleton's

#: CW-RMED's state: the skeleton's fields (check (3)'s included), the warm bases per winner
#: (``lp_*``: solution, variable status, the basis's variables and tight rows, ``(M^-1)^T``), the pair
#: ids and scratch.
CWState = namedtuple("CWState", SKELETON_FIELDS + [
    "Etmp", "pid", "lp_valid", "lp_x", "lp_status", "lp_nb", "lp_boff", "lp_moff",
    "lp_soff", "lp_bvar", "lp_minvT", "lp_rstart", "lp_ridx", "cvec", "aty", "atyabs", "yv", "cB"])


# ----------------------------------------------------------------------------- compiled steps
@njit(cache=True)
def _set_q_from_pairs(s, x):
    """``Q = e / d`` (0 where ``d = 0``) from a pair vector ``e`` in ``triu_indices`` order."""
    K = s.W.shape[0]
    for i in range(K):
        s.Q[i, i] = 0.0
        for j in range(i + 1, K):
            v = x[s.pid[i, j]] / s.d[i, j] if s.d[i, j] > 0 else 0.0
            s.Q[i, j] = v
            s.Q[j, i] = v


@njit(cache=True)
def _theorem6(s):
    """Line 11 with two or more winners and no tie (000 Theorem 6): ECW's closed form per winner,
    feasible for ``R_a`` by the oracle (else -1: the LP decides), ``Q = E / d`` of ``i*``."""
    K = s.W.shape[0]
    for a in range(K):
        s.wval[a] = np.inf
    for a in range(K):
        if s.is_win[a]:
            v = _closed_form(s.beats, s.L, s.C, a, s.Etmp)
            if 1.0 - _min_row_sum(s, a, s.Etmp) > s.fr[LP_TOL]:
                return -1
            s.wval[a] = v
    istar = argmin_winner(s)
    _closed_form(s.beats, s.L, s.C, istar, s.Etmp)
    for i in range(K):
        for j in range(K):
            s.Q[i, j] = s.Etmp[i, j] / s.d[i, j] if s.d[i, j] > 0 else 0.0
    return istar


@njit(cache=True)
def _basis_optimal(s, a):
    """Whether the stored basis of winner ``a`` is optimal for the costs ``cvec`` (module text)."""
    nb = s.lp_nb[a]
    bo = s.lp_boff[a]
    mo = s.lp_moff[a]
    so = s.lp_soff[a]
    for b in range(nb):
        s.cB[b] = s.cvec[s.lp_bvar[bo + b]]
    for r in range(nb):
        y = 0.0
        mag = 0.0
        for b in range(nb):
            z = s.lp_minvT[mo + r * nb + b] * s.cB[b]
            y += z
            mag += abs(z)
        if y < -DUAL_MARGIN + ROUNDING * mag:  # a tight row's dual must stay >= 0
            return False
        s.yv[r] = y
    P2 = s.cvec.shape[0]
    for p in range(P2):
        s.aty[p] = 0.0
        s.atyabs[p] = 0.0
    for r in range(nb):
        for k in range(s.lp_rstart[so + r], s.lp_rstart[so + r + 1]):
            s.aty[s.lp_ridx[k]] += s.yv[r]
            s.atyabs[s.lp_ridx[k]] += abs(s.yv[r])
    for p in range(P2):
        st = s.lp_status[a, p]
        if st == 0 or st == 2:
            dj = s.cvec[p] - s.aty[p]
            allowance = -DUAL_MARGIN + ROUNDING * (abs(s.cvec[p]) + s.atyabs[p])
            if (st == 0 and dj < allowance) or (st == 2 and -dj < allowance):
                return False
    return True


@njit(cache=True)
def _warm_lp(s):
    """Line 11 from the stored bases when every winner's stays optimal (else -1: HiGHS re-solves):
    ``C*_a = c.e*_a``, ``i*``, ``Q = e*_{i*} / d``."""
    K = s.W.shape[0]
    for i in range(K):
        for j in range(i + 1, K):
            s.cvec[s.pid[i, j]] = s.C[i, j] if s.d[i, j] > 0 else 1.0  # pair_costs: a tie costs 1
    for a in range(K):
        s.wval[a] = np.inf
    for a in range(K):
        if s.is_win[a]:
            if not s.lp_valid[a] or not _basis_optimal(s, a):
                return -1
            v = 0.0
            for p in range(s.cvec.shape[0]):
                v += s.cvec[p] * s.lp_x[a, p]
            s.wval[a] = v
    istar = argmin_winner(s)
    _set_q_from_pairs(s, s.lp_x[istar])
    return istar


@njit(cache=True)
def _has_ties(s):
    K = s.W.shape[0]
    for i in range(K):
        for j in range(i + 1, K):
            if not (s.beats[i, j] or s.beats[j, i]):
                return True
    return False


@njit(cache=True)
def cw_decide(s):
    """Lines 7-15 of Algorithm 1 for CW-RMED after a draw of the loop, ``t`` the round just played.
    Returns DONE, or what Python must provide first (NEED_TABLES, NEED_BASES, NEED_LP; nothing is
    counted or changed beyond the structure's refresh and its tables, so the decision is simply made
    again afterwards)."""
    skeleton_refresh(s)
    log_t = math.log(s.reg[T_])
    if log_t <= 0:
        exploit = first_winner(s)
    else:
        if s.reg[TAB] != s.reg[STRUCT]:  # a new structure: its tables, and its warm bases not yet read
            if not structure_tables(s):
                return NEED_TABLES
            for a in range(s.lp_valid.shape[0]):
                s.lp_valid[a] = False
        exploit = check3(s, log_t)
        if exploit < 0 and not s.reg[HAVE_TARGET]:
            nwin = 0
            for a in range(s.is_win.shape[0]):
                nwin += s.is_win[a]
            if nwin >= 2 and not _has_ties(s):
                istar = _theorem6(s)
                thm6 = True
            else:
                istar = _warm_lp(s)
                thm6 = False
            if istar < 0:
                return NEED_LP if thm6 or s.reg[BAS] == s.reg[STRUCT] else NEED_BASES
            s.stats[S_THM6 if thm6 else S_WARM] += 1
            s.stats[S_SOLVES] += 1
            s.reg[ISTAR] = istar
            s.reg[HAVE_TARGET] = 1
        s.stats[S_CHECKS] += 1
        s.stats[S_BOUND] += s.reg[BND]
    if exploit < 0:
        s.stats[S_TARGETS] += 1
    skeleton_finish(s, exploit, log_t)
    return DONE


@njit(cache=True)
def cw_resume(s):
    """Make the waiting decision (Python has provided what it asked for); then ``t`` advances."""
    status = cw_decide(s)
    if status == DONE:
        s.reg[PENDING] = 0
        s.reg[T_] += 1
    return status


@njit(cache=True)
def cw_update(s, i, j, won):
    """CW-RMED's learning step: the skeleton's, then (after a draw of the loop) lines 7-15; a
    decision that needs Python waits (``reg[PENDING]``) and :func:`cw_resume` completes it."""
    skeleton_learn(s, i, j, won)
    if s.reg[IN_LOOP]:
        s.reg[IN_LOOP] = 0
        s.reg[PENDING] = 1
        return cw_resume(s)
    s.reg[T_] += 1
    return DONE


@njit(cache=True)
def cw_run(s, env):
    """CW-RMED's whole-run kernel: select, duel, learn to the horizon; returns early (NEED_*) when a
    decision needs Python, and continues from there when called again."""
    if s.reg[PENDING]:
        status = cw_resume(s)
        if status != DONE:
            return status
    while env_more(env):
        i, j = skeleton_select(s)
        status = cw_update(s, i, j, play(env, i, j))
        if status != DONE:
            return status
    return DONE


@njit(cache=True)
def _istar_from_values(s):
    """``i*`` from the per-winner constants in ``wval`` (Python's LP answer), set in ``reg``."""
    istar = argmin_winner(s)
    s.reg[ISTAR] = istar
    return istar


# ----------------------------------------------------------------------------- the class
@register_policy
class CWRMED(CopelandRMED):
    """CW-RMED: 000's Algorithm 1 with the exact LP ``R_{i1}`` of eq. (2) (Theorems 2-3).

    Hyperparameters ``alpha = 3``, ``beta = 0.01`` (000's experiments; ``beta = 0`` allowed) and
    ``check_tol`` (check (3) passes when the largest row violation of ``N / log t`` is at most
    this; default 1e-12, i.e. exact up to rounding).  See the module text for how the LP is kept
    out of most steps; :attr:`solver` is the LP core's solver it keeps between steps.

    Examples
    --------
    >>> import numpy as np
    >>> from boundcalc.datasets import load_example
    >>> mu = load_example("table2").mu
    >>> p, rng = CWRMED(4, rng=np.random.default_rng(0)), np.random.default_rng(1)
    >>> for _ in range(300):
    ...     i, j = p.select_pair(); p.update(i, j, bool(rng.random() < mu[i, j]))
    >>> p.t, p.stats["solves"] > 0
    (301, True)
    """

    name = "cw-rmed"
    reference = "Komiyama, Honda & Nakagawa (ICML 2016), Algorithm 1 (CW), eq. (2), Theorems 2-3"
    #: 2: line 11 compiled around its LP, from 32 arms on the lifted and derived models with kept
    #: bases: the pairs equal 0.1.0's on the recorded 4- and 5-arm streams and part from them on
    #: the 32-arm one, where line 11 runs on those models (tests/policy_decisions.py).
    revision = 2
    State = CWState
    stat_names = CopelandRMED.stat_names + ("lp_solves", "theorem6", "warm_answers")
    kernels = (skeleton_select, cw_update, cw_run)
    resume = cw_resume
    #: Warm models kept by the LP core's cache (per structure and winner).
    cache_size = 64
    #: From this many arms line 11 runs on the LP core's lifted model (see the module text).
    lift_min_arms = 32
    #: A lifted model for a new structure starts from the rows and basis of the last one it shares
    #: them with (:meth:`boundcalc.lp.lifted.CopelandModel.derived`).
    derive = True
    #: Explicit rows of an ``(i2, k)`` before its pool block is built, on the lifted model (the LP
    #: core's default).  1 measured 0.86 of the CPU over the first 20,000 steps on the benchmark's
    #: 64-arm matrix, but its models land on other optimal vertices where the LP is degenerate
    #: (regret 31,976 instead of 32,050 at 10^5): kept at 2 so that runs stay those of the
    #: stored Figure 1 panel.
    promote = 2

    def __init__(self, K: int, *, rng: np.random.Generator | int | None = None, **params: Any):
        # the oracle's random tie-breaks have a fixed seed: the policy stays deterministic (its
        # pairs are a function of the outcomes alone) and never draws from ``rng``
        # the plain models' bases are tested in the compiled step (the LP core's own test would
        # only repeat it; HiGHS's 0-iteration re-solve keeps the decisions of the landed version)
        self.solver = CopelandLPSolver(seed=0, cache_size=self.cache_size, lift=False, reuse_basis=False)
        super().__init__(K, rng=rng, **params)  # validates K
        if self.K >= self.lift_min_arms:
            self.solver = CopelandLPSolver(seed=0, cache_size=self.cache_size, lift=True, derive=self.derive,
                                           promote=self.promote)

    def initial_state(self) -> CWState:
        K = self.K
        base = skeleton_state(K, self.params, len(self.stat_names))
        reg = np.zeros(N_REG, dtype=np.int64)
        reg[:base["reg"].size] = base["reg"]
        reg[BAS] = -1
        base["reg"] = reg
        base["fr"] = np.append(base["fr"], [self.solver.tol])
        P2 = K * (K - 1) // 2
        pid = np.zeros((K, K), dtype=np.int64)
        iu = np.triu_indices(K, 1)
        pid[iu] = np.arange(P2)
        pid[(iu[1], iu[0])] = np.arange(P2)
        z = lambda n, dt=np.int64: np.zeros(n, dtype=dt)  # noqa: E731
        return CWState(**base, Etmp=np.zeros((K, K)), pid=pid, lp_valid=z(K, np.bool_), lp_x=np.zeros((K, P2)), lp_status=np.full((K, P2), 3, dtype=np.int8),
                       lp_nb=z(K), lp_boff=z(K), lp_moff=z(K), lp_soff=z(K), lp_bvar=z(0), lp_minvT=np.zeros(0),
                       lp_rstart=z(0), lp_ridx=z(0), cvec=np.zeros(P2), aty=np.zeros(P2), atyabs=np.zeros(P2),
                       yv=np.zeros(0), cB=np.zeros(0))

    # -- what the compiled steps ask of Python ------------------------------------------------
    def _structure(self) -> Structure:
        a = self._arrays
        return Structure._from_fresh(a.beats.copy(), a.d.copy())  # antisymmetric by construction

    def _serve(self, status: int) -> None:
        """Provide what the compiled decision asked for (module text)."""
        if status == NEED_BASES:
            self._load_bases(self._structure())
        elif status == NEED_LP:
            self._solve(self._structure())
        else:
            super()._serve(status)

    def _solve(self, st: Structure) -> None:
        """Line 11 by the LP core (HiGHS, warm per structure): ``Q``, ``i*``, and the new bases."""
        a = self._arrays
        res = self.solver.solve_empirical(st)
        if not res.success:
            raise SolverError(f"CW-RMED at t = {self.t}: the lower-bound LP failed: {res.message}")
        a.stats[S_LP] += int(res.stats["lp_solves"])
        thm6 = res.stats["method"].startswith("closed-form")
        a.stats[S_THM6] += int(thm6)
        a.stats[S_WARM] += int(not thm6 and res.stats["lp_solves"] == 0)  # every model's basis kept
        a.wval[:] = np.inf
        for w, v in res.per_winner.items():
            a.wval[w] = v
        istar = _istar_from_values(self._s)
        a.Q[:] = res.allocations[istar]
        a.reg[HAVE_TARGET] = 1
        a.stats[S_SOLVES] += 1
        self._load_bases(st)

    def _load_bases(self, st: Structure) -> None:
        """The last basis of every winner's warm model of ``st`` (where the LP core keeps one)."""
        a = self._arrays
        a.reg[BAS] = a.reg[STRUCT]
        K = self.K
        P2 = K * (K - 1) // 2
        a.lp_valid[:] = False
        parts = []
        for w in st.winners.tolist():
            lp = None if self.solver.lift else self.solver.model(st, w)  # the test reads 0/1 rows only
            got = _basis_parts(lp) if lp is not None and lp.n == P2 else None
            if got is not None:
                parts.append((w, got))
        need = {"lp_bvar": 0, "lp_minvT": 0, "lp_rstart": 0, "lp_ridx": 0}
        for _, (x, status, bv, minvT, rs, ri) in parts:
            need["lp_bvar"] += bv.size
            need["lp_minvT"] += minvT.size
            need["lp_rstart"] += rs.size
            need["lp_ridx"] += ri.size
        nbmax = max([p[1][2].size for p in parts], default=0)
        need["yv"] = need["cB"] = nbmax
        grow = {k: np.zeros(2 * n, dtype=getattr(a, k).dtype) for k, n in need.items() if getattr(a, k).size < n}
        if grow:  # larger arrays (twice what is needed), written in place from then on
            self._replace(**grow)
            a = self._arrays
        bo = mo = so = ro = 0
        for w, (x, status, bv, minvT, rs, ri) in parts:
            nb = bv.size
            a.lp_x[w] = x
            a.lp_status[w] = status
            a.lp_nb[w], a.lp_boff[w], a.lp_moff[w], a.lp_soff[w] = nb, bo, mo, so
            a.lp_bvar[bo:bo + nb] = bv
            a.lp_minvT[mo:mo + nb * nb] = minvT.ravel()
            a.lp_rstart[so:so + nb + 1] = rs + ro
            a.lp_ridx[ro:ro + ri.size] = ri
            ro += ri.size
            bo += nb
            mo += nb * nb
            so += nb + 1
            a.lp_valid[w] = True


def _basis_parts(lp):
    """``(x, status, basic variables, (M^-1)^T, tight rows' starts, their variables)`` of ``lp``'s
    last basis, ``M`` the basis matrix restricted to the tight rows; None when it cannot serve
    (no rows, or ``M`` not square and well conditioned)."""
    b = lp.basis()
    status = b.status.copy()
    status[(b.upper <= b.lower) & (status != 1)] = 3  # a fixed variable (an empirical tie) never moves
    ok, bvar, rs, ri, minvT = _basis_matrix(status, b.row_basic, b.starts, b.idx)
    if not ok:
        return None
    return b.x, status.astype(np.int8), bvar, minvT, rs, ri


@njit(cache=True)
def _basis_matrix(status, row_basic, starts, idx):
    """The basic variables, the tight rows (CSR: starts, variables, in row order) and ``(M^-1)^T``,
    ``M`` the 0/1 basis matrix on them (rows: tight rows, columns: basic variables); ``ok`` False
    when their numbers differ or ``M`` is singular or ill conditioned (``|M^-1 M - I| > 1e-9``):
    the basis test cannot use it."""
    n = status.shape[0]
    nb = 0
    for j in range(n):
        nb += status[j] == 1
    nt = 0
    for r in range(row_basic.shape[0]):
        nt += not row_basic[r]
    bvar = np.empty(nb, dtype=np.int64)
    pos = np.full(n, -1, dtype=np.int64)
    k = 0
    for j in range(n):
        if status[j] == 1:
            bvar[k] = j
            pos[j] = k
            k += 1
    rs = np.zeros(nt + 1, dtype=np.int64)
    nnz = 0
    r2 = 0
    for r in range(row_basic.shape[0]):
        if not row_basic[r]:
            nnz += starts[r + 1] - starts[r]
            r2 += 1
            rs[r2] = nnz
    ri = np.empty(nnz, dtype=np.int64)
    M = np.zeros((nt, nb))
    if nb != nt:
        return False, bvar, rs, ri, M
    r2 = 0
    for r in range(row_basic.shape[0]):
        if not row_basic[r]:
            o = rs[r2]
            for q in range(starts[r], starts[r + 1]):
                v = idx[q]
                ri[o + q - starts[r]] = v
                if pos[v] >= 0:
                    M[r2, pos[v]] = 1.0
            r2 += 1
    if nb == 0:
        return True, bvar, rs, ri, M
    ok, Minv = _invert(M)
    if not ok:  # singular
        return False, bvar, rs, ri, M
    P = np.zeros((nb, nb))  # M^-1 M, over M's nonzeros
    for r in range(nt):
        for b in range(nb):
            m = M[r, b]
            if m != 0.0:
                for a in range(nb):
                    P[a, b] += Minv[a, r] * m
    for a in range(nb):
        for b in range(nb):
            e = P[a, b] - (1.0 if a == b else 0.0)
            if not abs(e) <= 1e-9:
                return False, bvar, rs, ri, M
    return True, bvar, rs, ri, np.ascontiguousarray(Minv.T)


@njit(cache=True)
def _invert(M):
    """``(ok, M^-1)`` by Gauss-Jordan elimination with partial pivoting; ``ok`` False when a pivot is
    below 1e-12 (singular, or too close to it for the basis test).  Written out rather than
    ``np.linalg.inv``: the basis matrices are small (tens of rows) and LAPACK's threads, spinning on
    a busy machine, made each inverse 2-3x slower than the elimination itself."""
    n = M.shape[0]
    A = M.copy()
    inv = np.eye(n)
    for c in range(n):
        p = c
        best = abs(A[c, c])
        for r in range(c + 1, n):
            if abs(A[r, c]) > best:
                best = abs(A[r, c])
                p = r
        if not best > 1e-12:
            return False, inv
        if p != c:
            for k in range(n):
                A[c, k], A[p, k] = A[p, k], A[c, k]
                inv[c, k], inv[p, k] = inv[p, k], inv[c, k]
        f = 1.0 / A[c, c]
        for k in range(n):
            A[c, k] *= f
            inv[c, k] *= f
        for r in range(n):
            g = A[r, c]
            if r != c and g != 0.0:
                for k in range(n):
                    A[r, k] -= g * A[c, k]
                    inv[r, k] -= g * inv[c, k]
    return True, inv
