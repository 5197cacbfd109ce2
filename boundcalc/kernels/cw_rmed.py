"""CW-RMED's and ECW-RMED's compiled decision and run loop (paper 000: Komiyama, Honda & Nakagawa,
ICML 2016, Algorithm 1 with the LP of eq. (2)); the reading of each line, and the Python side that
calls HiGHS, are in :mod:`boundcalc.policies.cw_rmed`.

:func:`copeland_run` is the one kernel of both variants (``reg[VARIANT]``) and of both ways of
driving them: the protocol's learning step (``env = None``; numba prunes the playing part) and the
whole run.  After a draw of the loop over ``L_C`` it runs lines 7-15 of Algorithm 1, line 11 being
the variant's:

* ECW-RMED: Theorem 5 (:func:`~boundcalc.kernels.copeland_rmed.ecw_target`), its parts made stale by
  the duels since the last decision recomputed;
* CW-RMED with two or more Copeland winners and no tie: Theorem 6, ECW's closed form per winner
  (:func:`boundcalc.kernels.lp.ecw_closed_form`), feasible for ``R_a`` by the oracle;
* otherwise CW-RMED keeps each winner's stored basis while it stays optimal for the costs ``c``,
  perturbed as the LP core's models are (:mod:`boundcalc.kernels.perturb`): the duals from the kept
  ``(M^-1)^T`` (:func:`inverse_duals`), judged by the LP core's warm-basis test
  (:func:`boundcalc.kernels.basis.duals_keep_signs`); then ``C*_a = c.e*_a`` with the true costs.

A decision that needs Python returns what it needs (``NEED_TABLES``, ``NEED_LP``, ``NEED_BASES``,
``NEED_SIMPLEX``) with ``reg[PENDING]`` set and nothing counted, and the call with ``i = RESUME``
makes it again.  ``NEED_SIMPLEX`` has Python run :func:`resolve_from_basis`, the compiled simplex
from the stored basis, before HiGHS; it is compiled apart because numba links and re-optimises
every callee into each caller, and the simplex inside the run kernel made the cold compile 2-3x
longer.  For the same reason the decision is written out in :func:`copeland_run` rather than in
helpers, while the larger steps (check (3), the tables, Theorem 5's target) stay functions of their
own.

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
from . import copeland_rmed as cr
from .basis import duals_keep_signs
from .codesize import optimize_for_size
from .lp import ecw_closed_form as _closed_form
from .perturb import perturbed_cost
from .policy import T_, env_more, play
from .simplex import OPTIMAL, invert_basis, solve_from_basis

#: What a compiled step may ask of Python beyond the skeleton's (``DONE``, ``NEED_TABLES``): an LP
#: solve, the warm bases of a new structure, the compiled simplex's re-solve of winner ``reg[SPXW]``.
NEED_LP, NEED_BASES, NEED_SIMPLEX = 2, 3, 4

#: ``reg`` beyond the skeleton's: the structure the warm bases were read for, the pivots the
#: compiled simplex may take (0: HiGHS re-solves), the winner whose basis ``NEED_SIMPLEX`` re-solves.
BAS, SPX, SPXW = cr.N_REG, cr.N_REG + 1, cr.N_REG + 2
N_REG = cr.N_REG + 3

#: ``fr`` beyond the skeleton's (alpha, beta, check_tol): the oracle's tolerance, the perturbation delta.
LP_TOL, PERT = 3, 4
#: ``stats`` beyond the skeleton's: LP solves, Theorem 6's shortcuts, decisions on kept warm bases.
S_LP, S_THM6, S_WARM = 7, 8, 9

#: :func:`boundcalc.kernels.perturb.perturbed_cost` compiled: the LP core's formula, not a copy of it
_perturbed_cost = njit(cache=True, no_cfunc_wrapper=True)(perturbed_cost)


@njit(cache=True, no_cfunc_wrapper=True)
def inverse_duals(cost, bvar, minvT, cB, y, ymag):
    """``y = M^-T c_B`` of a stored basis from ``minvT = (M^-1)^T`` (row-major) and ``ymag``, the
    magnitudes summed into each, in the first ``len(bvar)`` entries (``cB``: scratch)."""
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
    """Whether winner ``a``'s stored basis stays optimal for the costs ``s.cvec`` (the shared sign
    test on the duals of :func:`inverse_duals`; at -O3, as its callees)."""
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
    """Winner ``a``'s plain model re-solved for the costs ``s.cvec`` by the compiled simplex
    (:func:`boundcalc.kernels.simplex.solve_from_basis`) from its stored basis, which the basis test
    found no longer optimal (the rows and bounds unchanged: it stays primal feasible).  True when the
    new basis is stored, passes the basis test and its allocation passes the oracle over ``R_a``
    (violation at most ``fr[LP_TOL]``); False (the stored basis unchanged where the simplex did not
    finish) sends the caller to HiGHS."""
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
    bvar[:nb] = s.lp_bvar[bo : bo + nb]
    trow[:nb] = s.lp_trow[bo : bo + nb]
    for r in range(nb):  # M^-1 (leading dimension cap) from the stored (M^-1)^T
        for b in range(nb):
            minv[b * cap + r] = s.lp_minvT[mo + r * nb + b]
    astart = s.lp_astart[ao : ao + nr + 1].copy()
    # the LP core's entry with its argument types: one compilation serves both callers
    status, nb2, _ = solve_from_basis(
        s.cvec, ub, astart, s.lp_aidx, x, code, nb, bvar, trow, minv, maxit, DUAL_MARGIN, ROUNDING
    )
    if status != OPTIMAL:
        return False
    q = s.lp_rstart[so]  # the new basis stored: tight rows' CSR at the winner's place in lp_ridx
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
    s.lp_x[a, :] = x
    s.lp_status[a, :] = code
    if not stored_basis_optimal(s, a):
        return False
    for b1 in range(K):  # the oracle over the whole family, on e as a K x K matrix
        s.Etmp[b1, b1] = 0.0
        for b2 in range(b1 + 1, K):
            e = x[s.pid[b1, b2]]
            s.Etmp[b1, b2] = e
            s.Etmp[b2, b1] = e
    return not 1.0 - cr._min_row_sum(s, a, s.Etmp) > s.fr[LP_TOL]


@njit(cache=True, no_cfunc_wrapper=True)
def copeland_run(s, env, i, j, won):
    """Learn the duel ``(i, j)`` (``won``: ``i`` won; ``i = RESUME``: none), then make the waiting
    decision, if any, and select, duel and learn to the environment's horizon (``env = None``: the
    protocol's step, no play).  Returns ``DONE`` or what Python must supply (module text)."""
    optimize_for_size()
    if i >= 0:
        cr.skeleton_learn(s, i, j, won)
        if s.reg[cr.IN_LOOP]:
            s.reg[cr.IN_LOOP] = 0
            s.reg[cr.PENDING] = 1
        else:
            s.reg[T_] += 1
    pending = s.reg[cr.PENDING] != 0
    while True:
        if not pending:
            if env is None:  # the protocol's step: nothing to play (numba prunes the rest for this type)
                return cr.DONE
            if not env_more(env):
                return cr.DONE
            a, b = cr.skeleton_select(s)
            cr.skeleton_learn(s, a, b, play(env, a, b))
            if s.reg[cr.IN_LOOP]:
                s.reg[cr.IN_LOOP] = 0
                s.reg[cr.PENDING] = 1
                pending = True
            else:
                s.reg[T_] += 1
        if pending:
            cr.skeleton_refresh(s)
            ecw = s.reg[cr.VARIANT] == cr.ECW
            log_t = math.log(s.reg[T_])
            if log_t <= 0:
                exploit = cr.first_winner(s)
            else:
                if s.reg[cr.TAB] != s.reg[cr.STRUCT]:  # a new structure: its tables, and its warm bases not yet read
                    if not cr.build_tables(s):
                        return cr.NEED_TABLES
                    for a in range(s.lp_valid.shape[0]):
                        s.lp_valid[a] = False
                exploit = cr.check3(s, log_t)
                if exploit < 0 and not s.reg[cr.HAVE_TARGET] and not ecw:
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
                    if not thm6:  # the pairs' costs (a tie costs 1), perturbed as the LP core's models
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
                            if 1.0 - cr._min_row_sum(s, a, s.Etmp) > s.fr[LP_TOL]:
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
                        return NEED_LP if thm6 or s.reg[BAS] == s.reg[cr.STRUCT] else NEED_BASES
                    istar = cr.argmin_winner(s)
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
                    s.stats[cr.S_SOLVES] += 1
                    s.reg[cr.ISTAR] = istar
                    s.reg[cr.HAVE_TARGET] = 1
                s.stats[cr.S_CHECKS] += 1
                s.stats[cr.S_BOUND] += s.reg[cr.BND]
            if ecw:
                for q in range(s.W.shape[0]):  # Theorem 5's parts made stale by the duels since the last decision
                    if s.dirty_lo[q]:
                        s.tgt_dirty[q] = True
                    if s.dirty_hi[q]:
                        s.tgtI_dirty[q] = True
                    s.dirty_lo[q] = False
                    s.dirty_hi[q] = False
            if exploit < 0:
                s.stats[cr.S_TARGETS] += 1
                if ecw and not s.reg[cr.HAVE_TARGET]:
                    s.stats[cr.S_SOLVES] += 1
                    cr.ecw_target(s)
                    s.reg[cr.HAVE_TARGET] = 1
            cr.skeleton_finish(s, exploit, log_t)
            s.reg[cr.PENDING] = 0
            s.reg[T_] += 1
            pending = False


@njit(cache=True, no_cfunc_wrapper=True)
def istar_from_values(s):
    """``i*`` from the per-winner constants in ``wval`` (Python's LP answer), set in ``reg``."""
    optimize_for_size()
    istar = cr.argmin_winner(s)
    s.reg[cr.ISTAR] = istar
    return istar


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def basis_matrix(status, row_basic, starts, idx):
    """The basic variables, the tight rows (CSR: starts, variables, in row order) and ``(M^-1)^T``
    (flat, row-major), ``M`` the 0/1 basis matrix on them (rows: tight rows, columns: basic
    variables), inverted by the compiled simplex's :func:`~boundcalc.kernels.simplex.invert_basis`;
    ``ok`` False when their numbers differ or ``M`` is singular or ill conditioned: the basis test
    cannot use it."""
    n = status.shape[0]
    bvar = np.flatnonzero(status == 1)
    trow = np.flatnonzero(~row_basic)
    nb, nt = bvar.shape[0], trow.shape[0]
    pos = np.full(n, -1, dtype=np.int64)
    pos[bvar] = np.arange(nb)
    rs = np.empty(nt + 1, dtype=np.int64)
    rs[0] = 0
    for i in range(nt):
        rs[i + 1] = rs[i] + starts[trow[i] + 1] - starts[trow[i]]
    ri = np.empty(rs[nt], dtype=np.int64)
    for i in range(nt):
        ri[rs[i] : rs[i + 1]] = idx[starts[trow[i]] : starts[trow[i] + 1]]
    minv = np.empty(nb * nb)
    if nb != nt or not invert_basis(trow, bvar, nb, starts, idx, pos, minv, nb, np.empty(nb * nb)):
        return False, bvar, rs, ri, minv
    for a in range(nb):  # (M^-1)^T, row-major
        for b in range(a + 1, nb):
            minv[a * nb + b], minv[b * nb + a] = minv[b * nb + a], minv[a * nb + b]
    return True, bvar, rs, ri, minv
