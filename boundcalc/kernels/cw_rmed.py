"""CW-RMED's compiled steps (paper 000: Komiyama, Honda & Nakagawa, ICML 2016, Algorithm 1 with the
LP of eq. (2)): the state layout, Theorem 6's shortcut, the warm-basis test of line 11, and the
decision and run loop of both Copeland RMED variants (:func:`copeland_run`, the protocol's step and
the whole run: ECW-RMED's line 11 or CW-RMED's, by ``reg[VARIANT]``); the reading of each line, and
the Python side that calls HiGHS, are in :mod:`boundcalc.policies.cw_rmed`.

>>> from boundcalc.policies import make_policy
>>> from boundcalc.kernels.copeland_rmed import skeleton_select
>>> skeleton_select(make_policy("cw-rmed", 3)._s)   # the skeleton's first forced pair, as ECW-RMED's
(1, 0)
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from . import DUAL_MARGIN, ROUNDING
from .basis import duals_keep_signs
from .codesize import optimize_for_size
from .copeland_rmed import (
    BND,
    DONE,
    ECW,
    HAVE_TARGET,
    IN_LOOP,
    ISTAR,
    NEED_TABLES,
    PENDING,
    S_BOUND,
    S_CHECKS,
    S_SOLVES,
    S_TARGETS,
    STRUCT,
    TAB,
    VARIANT,
    RMEDState,
    _min_row_sum,
    argmin_winner,
    build_tables,
    check3,
    ecw_target,
    first_winner,
    skeleton_finish,
    skeleton_learn,
    skeleton_refresh,
    skeleton_select,
)
from .copeland_rmed import N_REG as N_REG_SKELETON
from .lp import ecw_closed_form as _closed_form
from .perturb import perturbed_cost
from .policy import T_, env_more, play
from .simplex import OPTIMAL, solve_from_basis

#: What a compiled step may ask of Python beyond the skeleton's (``DONE``, ``NEED_TABLES``): an LP
#: solve, the warm bases of a new structure (from the LP core's cache).
NEED_LP, NEED_BASES = 2, 3
#: ... and the compiled simplex's re-solve of winner ``reg[SPXW]``'s stored basis
#: (:func:`resolve_from_basis`, called by Python: compiled apart from this kernel, see there)
NEED_SIMPLEX = 4


# reg beyond the skeleton's: the structure version the warm bases were loaded for
BAS = N_REG_SKELETON
# and the pivots the compiled primal simplex may take from a stored basis that failed the basis test
# (:func:`resolve_from_basis`; 0: HiGHS re-solves, as before)
SPX = N_REG_SKELETON + 1
# the winner whose basis NEED_SIMPLEX asks to re-solve
SPXW = N_REG_SKELETON + 2


N_REG = N_REG_SKELETON + 3


LP_TOL = 3  # fr beyond the skeleton's (alpha, beta, check_tol)
PERT = 4  # line 11's cost perturbation delta (:mod:`boundcalc.kernels.perturb`; 0: the costs themselves)

#: :func:`boundcalc.kernels.perturb.perturbed_cost` compiled: the LP core's formula, not a copy of it
_perturbed_cost = njit(cache=True, no_cfunc_wrapper=True)(perturbed_cost)


S_LP, S_THM6, S_WARM = 7, 8, 9  # stats beyond the skeleton's


#: CW-RMED's state: the one layout of both variants (:data:`~boundcalc.kernels.copeland_rmed.RMEDState`:
#: the skeleton's fields, check (3)'s included, and CW-RMED's :data:`~boundcalc.kernels.copeland_rmed.CW_FIELDS`:
#: the warm bases per winner, the pair ids and scratch; ECW-RMED's fields empty).
CWState = RMEDState


# ----------------------------------------------------------------------------- compiled steps
@njit(cache=True, no_cfunc_wrapper=True)
def inverse_duals(cost, bvar, minvT, cB, y, ymag):
    """The duals ``y = M^-T c_B`` of a stored basis from its in-house inverse (``minvT`` =
    ``(M^-1)^T`` row-major, :func:`basis_matrix`; ``bvar`` the basic variables), and ``ymag`` the
    magnitudes summed into each, written into the first ``len(bvar)`` entries of ``y`` and
    ``ymag`` (``cB``: scratch)."""
    nb = bvar.shape[0]
    for b in range(nb):
        cB[b] = cost[bvar[b]]
    for r in range(nb):
        v = 0.0
        mag = 0.0
        for b in range(nb):
            z = minvT[r * nb + b] * cB[b]
            v += z
            mag += abs(z)
        y[r] = v
        ymag[r] = mag


@njit(cache=True, no_cfunc_wrapper=True)
def stored_basis_optimal(s, a):
    """Whether winner ``a``'s stored basis stays optimal for the costs ``s.cvec``: the duals from its
    kept ``M^-1`` (:func:`inverse_duals`), their signs by the LP core's warm-basis test
    (:func:`boundcalc.kernels.basis.duals_keep_signs`).  The one test of :func:`copeland_run` and
    :func:`resolve_from_basis` (kept at -O3, as the functions it calls)."""
    nb = s.lp_nb[a]
    bo = s.lp_boff[a]
    mo = s.lp_moff[a]
    so = s.lp_soff[a]
    inverse_duals(s.cvec, s.lp_bvar[bo : bo + nb], s.lp_minvT[mo : mo + nb * nb], s.cB, s.yv, s.ymag)
    return duals_keep_signs(
        s.cvec,
        s.yv[:nb],
        s.ymag[:nb],
        s.tight,
        s.lp_rstart[so : so + nb + 1],
        s.lp_ridx,
        s.rval,
        s.lp_status[a],
        DUAL_MARGIN,
        ROUNDING,
        s.aty,
        s.atyabs,
    )


@njit(cache=True, no_cfunc_wrapper=True)
def resolve_from_basis(s, a, maxit):
    """Line 11's plain model of winner ``a`` re-solved for the costs ``s.cvec`` by the compiled primal
    simplex (:func:`boundcalc.kernels.simplex.solve_from_basis`) from its stored basis, which the
    basis test has just found no longer optimal (the structure, hence the model's rows and bounds,
    unchanged: the basis is primal feasible).  On success the new basis replaces the stored one
    (``lp_x``, ``lp_status``, ``lp_nb``, the basic variables, tight rows, their CSR and ``(M^-1)^T``),
    the shared basis test is run on it again (it must pass) and the oracle checks the new ``e`` over
    the whole family ``R_a`` (largest violation at most ``fr[LP_TOL]``, as the LP core's cutting
    plane); False, with the stored basis as it was where the simplex did not finish, when any step
    fails: the caller asks Python's LP (HiGHS) instead.  The model's rows are read in CSR
    (``lp_astart``/``lp_aidx``; every row ``>= 1`` with 0/1 coefficients: plain models only).

    Called by Python between two calls of :func:`copeland_run` (``NEED_SIMPLEX``), not from it:
    linked into the run kernel, the simplex's code was optimised again in its library and the
    command's cold compile took 2-3x the CPU (``benchmarks/compile_policies.py --policies cw-rmed``);
    a return to Python costs microseconds against the simplex's tens."""
    optimize_for_size()
    nr = s.lp_nr[a]
    if nr <= 0:
        return False
    K = s.W.shape[0]
    n = s.lp_x.shape[1]
    nb = s.lp_nb[a]
    cap = s.lp_cap[a]
    bo = s.lp_boff[a]
    mo = s.lp_moff[a]
    so = s.lp_soff[a]
    ao = s.lp_aoff[a]
    ub = np.empty(n)
    for b1 in range(K):
        for b2 in range(b1 + 1, K):
            ub[s.pid[b1, b2]] = 1.0 if s.d[b1, b2] > 0 else 0.0
    x = s.lp_x[a].copy()
    code = s.lp_status[a].copy()
    bvar = np.empty(cap, dtype=np.int64)
    trow = np.empty(cap, dtype=np.int64)
    minv = np.empty(cap * cap)
    for b in range(nb):
        bvar[b] = s.lp_bvar[bo + b]
        trow[b] = s.lp_trow[bo + b]
    for r in range(nb):  # M^-1 (leading dimension cap) from the stored (M^-1)^T
        for b in range(nb):
            minv[b * cap + r] = s.lp_minvT[mo + r * nb + b]
    astart = s.lp_astart[ao : ao + nr + 1].copy()
    # the LP core's entry, with arguments of its types (one compilation serves both callers; from
    # this primal feasible basis its dual phase does not run)
    status, nb2, _ = solve_from_basis(
        s.cvec, ub, astart, s.lp_aidx, x, code, nb, bvar, trow, minv, maxit, DUAL_MARGIN, ROUNDING
    )
    if status != OPTIMAL:
        return False
    # the new basis in the stored form (tight rows' CSR at the winner's place in lp_ridx)
    q = s.lp_rstart[so]  # the winner's place in lp_ridx (sized for every row of its model)
    for i in range(nb2):
        s.lp_bvar[bo + i] = bvar[i]
        s.lp_trow[bo + i] = trow[i]
        r = trow[i]
        for k in range(astart[r], astart[r + 1]):
            s.lp_ridx[q] = s.lp_aidx[k]
            q += 1
        s.lp_rstart[so + i + 1] = q
    for r in range(nb2):
        for b in range(nb2):
            s.lp_minvT[mo + r * nb2 + b] = minv[b * cap + r]
    s.lp_nb[a] = nb2
    for p in range(n):
        s.lp_x[a, p] = x[p]
        s.lp_status[a, p] = code[p]
    if not stored_basis_optimal(s, a):
        return False
    for b1 in range(K):  # the oracle over the whole family, on e as a K x K matrix
        s.Etmp[b1, b1] = 0.0
        for b2 in range(b1 + 1, K):
            e = x[s.pid[b1, b2]]
            s.Etmp[b1, b2] = e
            s.Etmp[b2, b1] = e
    return not 1.0 - _min_row_sum(s, a, s.Etmp) > s.fr[LP_TOL]


@njit(cache=True, no_cfunc_wrapper=True)
def copeland_run(s, env, i, j, won):
    """The one kernel of ECW-RMED and CW-RMED, for the protocol's learning step and the whole run.

    ``i >= 0``: first learn the duel ``(i, j)`` the caller played (``won``: ``i`` won), the
    protocol's update, called with ``env = None``; ``i = RESUME``: learn nothing.  Then the waiting
    decision, if any, and select, duel, learn to the environment's horizon.  After a draw of the
    loop over ``L_C``, lines 7-15 of Algorithm 1 with ``t`` the round just played, for the variant
    of ``reg[VARIANT]``; then ``t`` advances and nothing is pending.  A decision that needs Python
    returns what it needs first (NEED_TABLES; CW-RMED also NEED_BASES, NEED_LP) with
    ``reg[PENDING]`` set and nothing counted or changed beyond the structure's refresh and its
    tables, and the call with ``i = RESUME`` makes it again.

    Line 11 is the variant's: ECW-RMED's Theorem 5
    (:func:`~boundcalc.kernels.copeland_rmed.ecw_target`, its parts made stale by the duels since the
    last decision recomputed); CW-RMED's, with two or more winners and no tie, 000's Theorem 6 (ECW's
    closed form per winner, :func:`boundcalc.kernels.lp.ecw_closed_form`, feasible for ``R_a`` by the
    oracle; ``Q = E / d`` of ``i*``), otherwise the stored bases when every winner's stays optimal
    for the costs ``c`` (perturbed by ``fr[PERT]`` as the LP core's models are,
    :mod:`boundcalc.kernels.perturb`; its duals from the in-house inverse, :func:`inverse_duals`, judged by
    the one warm-basis test the LP core runs too, :func:`boundcalc.kernels.basis.duals_keep_signs`; why
    the duals come from here and not from HiGHS: that module's text): ``C*_a = c.e*_a`` with the true
    costs ``c``, ``Q = e*_{i*} / d``; a basis that fails it is re-solved by the compiled primal
    simplex when ``reg[SPX] > 0`` (NEED_SIMPLEX: Python calls :func:`resolve_from_basis`, whose new
    basis is stored, tested again and its allocation checked by the oracle, and resumes; where it
    fails, Python's LP); else Python's LP (NEED_LP, or NEED_BASES for a structure whose bases are
    not read).

    One kernel for both variants (they share the state type) and for both ways of driving them, the
    decision written in it once: a command running both variants compiles the skeleton, check (3)
    and the decision once (numba links and re-optimises every callee's code into each caller: a run
    kernel per variant was 1.2-1.8 s of CPU more on an empty cache, and the decision as a function
    of its own one more compilation of all of it).  The protocol's step is this kernel's
    specialisation for ``env = None`` (numba prunes the playing part from it): a learning step that
    passed an environment bundle without rounds, one specialisation for both uses, cost the
    protocol's loop 0.06-0.09 us a step (the bundle's unboxing; benchmarks/policies.py).  The
    decision, CW-RMED's Theorem 6 and basis test included, is written out here rather than inlined
    from helpers (numba ``inline="always"``): inlining it cost 0.3 s of CPU more on an empty cache, and
    inlining those two 0.2 s more (``simulate --example table2 --policies cw-rmed,ecw-rmed``, CPU);
    as functions of their own they linked and re-optimised their callees once more (0.2-0.5 s each).
    Larger steps (check (3), the tables, ECW-RMED's target) stay functions of their own: inlined, they
    cost 0.5 s more (numba's passes grow faster than linearly with a function's size)."""
    optimize_for_size()
    if i >= 0:
        skeleton_learn(s, i, j, won)
        if s.reg[IN_LOOP]:
            s.reg[IN_LOOP] = 0
            s.reg[PENDING] = 1
        else:
            s.reg[T_] += 1
    pending = s.reg[PENDING] != 0
    while True:
        if not pending:
            if env is None:  # the protocol's step: nothing to play (numba prunes the rest for this type)
                return DONE
            if not env_more(env):
                return DONE
            a, b = skeleton_select(s)
            skeleton_learn(s, a, b, play(env, a, b))
            if s.reg[IN_LOOP]:
                s.reg[IN_LOOP] = 0
                s.reg[PENDING] = 1
                pending = True
            else:
                s.reg[T_] += 1
        if pending:
            skeleton_refresh(s)
            ecw = s.reg[VARIANT] == ECW
            log_t = math.log(s.reg[T_])
            if log_t <= 0:
                exploit = first_winner(s)
            else:
                if s.reg[TAB] != s.reg[STRUCT]:  # a new structure: its tables, and its warm bases not yet read
                    if not build_tables(s):
                        return NEED_TABLES
                    for a in range(s.lp_valid.shape[0]):
                        s.lp_valid[a] = False
                exploit = check3(s, log_t)
                if exploit < 0 and not s.reg[HAVE_TARGET] and not ecw:
                    K = s.W.shape[0]
                    nwin = 0
                    for a in range(K):
                        nwin += s.is_win[a]
                    thm6 = nwin >= 2  # Theorem 6: two or more winners and no tie
                    for a in range(K if thm6 else 0):
                        for b in range(a + 1, K):
                            if not (s.beats[a, b] or s.beats[b, a]):
                                thm6 = False
                    for a in range(K):
                        s.wval[a] = np.inf
                    if not thm6:  # the pairs' costs, pair_costs's order: a tie costs 1; perturbed as
                        # the LP core's models were solved (their bases are tested against these)
                        dl = s.fr[PERT]
                        for a in range(K):
                            for b in range(a + 1, K):
                                p = s.pid[a, b]
                                cc = s.C[a, b] if s.d[a, b] > 0 else 1.0
                                s.cvec[p] = _perturbed_cost(cc, dl * s.cpert[p]) if dl > 0.0 else cc
                    istar = 0
                    for a in range(K):
                        if not s.is_win[a]:
                            continue
                        if thm6:  # Theorem 6: ECW's closed form, feasible for R_a by the oracle
                            v = _closed_form(s.beats, s.L, s.C, a, s.Etmp)
                            if 1.0 - _min_row_sum(s, a, s.Etmp) > s.fr[LP_TOL]:
                                istar = -1
                                break
                        else:  # the stored basis of winner a, kept while optimal for the costs
                            if not s.lp_valid[a]:
                                istar = -1
                                break
                            if not stored_basis_optimal(s, a):
                                istar = -1
                                if s.reg[SPX] > 0:  # the compiled simplex first (Python calls it)
                                    s.reg[SPXW] = a
                                    istar = -2
                                break
                            v = 0.0  # C*_a = c.e* with the true costs (pair order), not the perturbed ones
                            for b1 in range(K):
                                for b2 in range(b1 + 1, K):
                                    cc = s.C[b1, b2] if s.d[b1, b2] > 0 else 1.0
                                    v += cc * s.lp_x[a, s.pid[b1, b2]]
                        s.wval[a] = v
                    if istar == -2:
                        return NEED_SIMPLEX
                    if istar < 0:
                        return NEED_LP if thm6 or s.reg[BAS] == s.reg[STRUCT] else NEED_BASES
                    istar = argmin_winner(s)
                    if thm6:  # Q = E / d of i*
                        _closed_form(s.beats, s.L, s.C, istar, s.Etmp)
                        for a in range(K):
                            for b in range(K):
                                s.Q[a, b] = s.Etmp[a, b] / s.d[a, b] if s.d[a, b] > 0 else 0.0
                    else:  # Q = e / d (0 where d = 0), e in triu_indices order
                        for a in range(K):
                            s.Q[a, a] = 0.0
                            for b in range(a + 1, K):
                                q = s.lp_x[istar, s.pid[a, b]] / s.d[a, b] if s.d[a, b] > 0 else 0.0
                                s.Q[a, b] = q
                                s.Q[b, a] = q
                    s.stats[S_THM6 if thm6 else S_WARM] += 1
                    s.stats[S_SOLVES] += 1
                    s.reg[ISTAR] = istar
                    s.reg[HAVE_TARGET] = 1
                s.stats[S_CHECKS] += 1
                s.stats[S_BOUND] += s.reg[BND]
            if ecw:
                for q in range(s.W.shape[0]):  # Theorem 5's parts made stale by the duels since the last decision
                    if s.dirty_lo[q]:
                        s.tgt_dirty[q] = True
                    if s.dirty_hi[q]:
                        s.tgtI_dirty[q] = True
                    s.dirty_lo[q] = False
                    s.dirty_hi[q] = False
            if exploit < 0:
                s.stats[S_TARGETS] += 1
                if ecw and not s.reg[HAVE_TARGET]:
                    s.stats[S_SOLVES] += 1
                    ecw_target(s)
                    s.reg[HAVE_TARGET] = 1
            skeleton_finish(s, exploit, log_t)
            s.reg[PENDING] = 0
            s.reg[T_] += 1
            pending = False


#: The protocol's learning step: :func:`copeland_run` with the duel given and ``env = None`` (the
#: policies' ``kernels`` name it apart from the run, as every policy's).
copeland_update = copeland_run


@njit(cache=True, no_cfunc_wrapper=True)
def istar_from_values(s):
    """``i*`` from the per-winner constants in ``wval`` (Python's LP answer), set in ``reg``."""
    optimize_for_size()
    istar = argmin_winner(s)
    s.reg[ISTAR] = istar
    return istar


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def basis_matrix(status, row_basic, starts, idx):
    """The basic variables, the tight rows (CSR: starts, variables, in row order) and ``(M^-1)^T``
    (flat, row-major), ``M`` the 0/1 basis matrix on them (rows: tight rows, columns: basic variables); ``ok`` False
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
    pos = np.empty(n, dtype=np.int64)
    k = 0
    for j in range(n):
        pos[j] = -1
        if status[j] == 1:
            bvar[k] = j
            pos[j] = k
            k += 1
    rs = np.empty(nt + 1, dtype=np.int64)  # every entry written (np.zeros would be one more compilation)
    rs[0] = 0
    nnz = 0
    r2 = 0
    for r in range(row_basic.shape[0]):
        if not row_basic[r]:
            nnz += starts[r + 1] - starts[r]
            r2 += 1
            rs[r2] = nnz
    ri = np.empty(nnz, dtype=np.int64)
    # M, A, M^-1 as flat row-major float arrays from np.empty, every entry written: 2-D arrays and
    # np.zeros were more LLVM code and three more numba compilations (np.zeros, its fill, a 2-D
    # np.empty) on an empty cache
    M = np.empty(nt * nb)
    for q in range(nt * nb):
        M[q] = 0.0
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
                    M[r2 * nb + pos[v]] = 1.0
            r2 += 1
    if nb == 0:
        return True, bvar, rs, ri, M
    # M^-1 by Gauss-Jordan elimination with partial pivoting; a pivot below 1e-12: singular, or too
    # close to it for the basis test.  Written out rather than ``np.linalg.inv``: the basis matrices
    # are small (tens of rows) and LAPACK's threads, spinning on a busy machine, made each inverse
    # 2-3x slower than the elimination itself; and in this function rather than a helper of its
    # own, which numba would compile (and link in here) separately.
    A = np.empty(nb * nb)
    Minv = np.empty(nb * nb)
    for q in range(nb * nb):
        A[q] = M[q]
        Minv[q] = 0.0
    for c in range(nb):
        Minv[c * nb + c] = 1.0
    for c in range(nb):
        p = c
        best = abs(A[c * nb + c])
        for r in range(c + 1, nb):
            if abs(A[r * nb + c]) > best:
                best = abs(A[r * nb + c])
                p = r
        if not best > 1e-12:  # singular
            return False, bvar, rs, ri, M
        co = c * nb
        if p != c:
            po = p * nb
            for k in range(nb):
                A[co + k], A[po + k] = A[po + k], A[co + k]
                Minv[co + k], Minv[po + k] = Minv[po + k], Minv[co + k]
        f = 1.0 / A[co + c]
        for k in range(nb):
            A[co + k] *= f
            Minv[co + k] *= f
        for r in range(nb):
            ro = r * nb
            g = A[ro + c]
            if r != c and g != 0.0:
                for k in range(nb):
                    A[ro + k] -= g * A[co + k]
                    Minv[ro + k] -= g * Minv[co + k]
    # M^-1 M - I over M's nonzeros, each sum in row order: M's columns listed once (the rows holding
    # a 1, ascending), not M scanned whole for each of the nb^2 entries (M is 0/1: a term is the
    # entry of M^-1 itself, the same sum to the bit)
    cs = np.empty(nb + 1, dtype=np.int64)
    crow = np.empty(nt * nb, dtype=np.int64)  # at most every entry; one pass over M
    cs[0] = 0
    q = 0
    for b in range(nb):
        for r in range(nt):
            if M[r * nb + b] != 0.0:
                crow[q] = r
                q += 1
        cs[b + 1] = q
    for a in range(nb):
        for b in range(nb):
            e = 0.0
            for q in range(cs[b], cs[b + 1]):
                e += Minv[a * nb + crow[q]]
            e -= 1.0 if a == b else 0.0
            if not abs(e) <= 1e-9:
                return False, bvar, rs, ri, M
    for a in range(nb):  # (M^-1)^T, row-major
        for b in range(a + 1, nb):
            Minv[a * nb + b], Minv[b * nb + a] = Minv[b * nb + a], Minv[a * nb + b]
    return True, bvar, rs, ri, Minv
