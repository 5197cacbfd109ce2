"""A dense bounded simplex for line 11's 0/1 covering LPs, warm from a stored basis.

The LP is the plain model of paper 000 (Komiyama, Honda & Nakagawa, ICML 2016), Algorithm 1,
line 11 (``min c.x`` over the cutting plane's rows of ``R_{i1}``, eq. (2)):

    ``min c.x   s.t.   sum_{j in row r} x_j >= 1  (r = 0 .. m-1),   0 <= x_j <= u_j``

with ``c >= 0`` (perturbed, :mod:`boundcalc.kernels.perturb`) and ``u_j`` 1 or 0 (an empirical tie:
fixed).  A basis is held as CW-RMED stores it (:mod:`boundcalc.kernels.cw_rmed`): the basic
variables ``B``, the tight rows ``T`` (slack nonbasic, ``|T| = |B|``), ``M`` = the 0/1 matrix of
``T x B`` and ``M^-1``; every other row's slack is basic, every nonbasic variable at a bound.

:func:`solve_from_basis` runs the textbook bounded simplex (Chvatal, *Linear Programming*, ch. 8 and
10) from that basis:

* the dual phase, while a basic variable or row slack is out of its bounds (a cutting plane's new
  rows): the most infeasible one leaves; the dual ratio test with bound flips; ties to the largest
  pivot.  When the basis is not dual feasible it restarts from the slack basis (every variable at 0:
  dual feasible for ``c >= 0``, as HiGHS's cold dual simplex);
* the primal phase (new costs keep the basis primal feasible): the entering candidate is the largest
  violation of the optimality signs, each judged with the margins of the warm-basis test
  (:func:`boundcalc.kernels.basis.duals_keep_signs`); the ratio test over the basic variables'
  bounds, the basic slacks and the entering variable's own bound (a bound flip); ties to the largest
  pivot.

Each pivot updates ``M^-1`` (a column or a row replaced: Sherman-Morrison; a row and a column added
or removed: the bordered inverse) and recomputes the basic values from the basis, never
incrementally.  ``M^-1`` is recomputed by Gauss-Jordan elimination every 100 pivots and where the
final check ``|M M^-1 - I| <= 1e-9`` fails.

Under the perturbation the optimum is generically unique, so the vertex reached is the one HiGHS's
warm re-solve returns (tests/test_simplex.py).  A result is returned only when every row and bound
holds within :data:`FEAS_TOL`, ``M^-1`` passed its check and the duals pass the sign test;
otherwise (or after ``maxit`` pivots) the status says why and the caller re-solves with HiGHS.
Callers: :meth:`boundcalc.lp.highs.CoveringLP._solve_simplex` and
:func:`boundcalc.kernels.cw_rmed.resolve_from_basis`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .basis import AT_LOWER, AT_UPPER, BASIC, SKIP
from .codesize import optimize_for_size

#: Status: optimal; ``maxit`` pivots reached; numerical trouble (``M`` singular or ill conditioned, a
#: row or bound off at the end, an unbounded direction); the basis outgrows the buffers; no entering
#: variable in the dual ratio test (the LP looks infeasible).
OPTIMAL, ITERATION_LIMIT, NUMERICAL, CAPACITY, INFEASIBLE = 0, 1, 2, 3, 4

#: An integer argument as ``int64`` (numba would compile a callee once more for a literal's type)
I64 = np.int64

#: Feasibility tolerance of the final check (HiGHS's ``primal_feasibility_tolerance`` in the LP core).
FEAS_TOL = 1e-9
#: A direction's entry below this is read as 0 in the ratio test.
PIVOT_TOL = 1e-11


@njit(cache=True, no_cfunc_wrapper=True)
def invert_basis(trow, bvar, nb, astart, aidx, pos, minv, ld, work):
    """``M^-1`` into ``minv`` (row-major, leading dimension ``ld``) by Gauss-Jordan elimination with
    partial pivoting; ``M[i, b] = 1`` when variable ``bvar[b]`` is in row ``trow[i]`` (rows in CSR
    ``astart``/``aidx``, ``pos[v]`` the basis position of ``v`` or -1).  False when a pivot is below
    ``1e-12`` or :func:`inverse_ok` fails; ``work``: scratch of at least ``nb^2``."""
    optimize_for_size()
    for b in range(nb):
        for i in range(nb):
            work[b * nb + i] = 0.0
            minv[b * ld + i] = 0.0
    for i in range(nb):
        r = trow[i]
        for k in range(astart[r], astart[r + 1]):
            p = pos[aidx[k]]
            if p >= 0:
                work[i * nb + p] = 1.0
        minv[i * ld + i] = 1.0
    # rows of [M | I] reduced: minv's rows are M's row operations (indexed like M's rows until done)
    for c in range(nb):
        p = c
        best = abs(work[c * nb + c])
        for r in range(c + 1, nb):
            if abs(work[r * nb + c]) > best:
                best = abs(work[r * nb + c])
                p = r
        if not best > 1e-12:
            return False
        co = c * nb
        if p != c:
            po = p * nb
            for k in range(nb):
                work[co + k], work[po + k] = work[po + k], work[co + k]
                minv[c * ld + k], minv[p * ld + k] = minv[p * ld + k], minv[c * ld + k]
        f = 1.0 / work[co + c]
        for k in range(nb):
            work[co + k] *= f
            minv[c * ld + k] *= f
        for r in range(nb):
            ro = r * nb
            g = work[ro + c]
            if r != c and g != 0.0:
                for k in range(nb):
                    work[ro + k] -= g * work[co + k]
                    minv[r * ld + k] -= g * minv[c * ld + k]
    return inverse_ok(trow, nb, astart, aidx, pos, minv, ld, work)


@njit(cache=True, no_cfunc_wrapper=True)
def inverse_ok(trow, nb, astart, aidx, pos, minv, ld, work):
    """``|M M^-1 - I| <= 1e-9`` entrywise (``work``: scratch of ``nb``)."""
    optimize_for_size()
    for i in range(nb):
        for q in range(nb):
            work[q] = 0.0
        r = trow[i]
        for k in range(astart[r], astart[r + 1]):
            b = pos[aidx[k]]
            if b >= 0:
                for q in range(nb):
                    work[q] += minv[b * ld + q]
        for q in range(nb):
            e = work[q] - (1.0 if q == i else 0.0)
            if not abs(e) <= 1e-9:
                return False
    return True


@njit(cache=True, no_cfunc_wrapper=True)
def _values(x, code, ub, nb, bvar, trow, astart, aidx, minv, ld, rhs):
    """Nonbasic variables at their bounds, ``x_B = M^-1 (1 - the tight rows' nonbasic sums)``."""
    optimize_for_size()
    n = x.shape[0]
    for j in range(n):
        if code[j] == AT_UPPER:
            x[j] = ub[j]
        elif code[j] != BASIC:
            x[j] = 0.0
    for i in range(nb):
        r = trow[i]
        v = 1.0
        for k in range(astart[r], astart[r + 1]):
            j = aidx[k]
            if code[j] != BASIC:
                v -= x[j]
        rhs[i] = v
    for b in range(nb):
        v = 0.0
        for i in range(nb):
            v += minv[b * ld + i] * rhs[i]
        x[bvar[b]] = v


@njit(cache=True, no_cfunc_wrapper=True)
def _column(j, nb, trow, astart, aidx, minv, ld, aT, w):
    """``w = M^-1 a_j``, ``a_j`` variable ``j``'s entries in the tight rows (into ``aT``)."""
    optimize_for_size()
    for i in range(nb):
        aT[i] = 0.0
        r = trow[i]
        for k in range(astart[r], astart[r + 1]):
            if aidx[k] == j:
                aT[i] = 1.0
    for b in range(nb):
        v = 0.0
        for i in range(nb):
            if aT[i] != 0.0:
                v += minv[b * ld + i]
        w[b] = v


@njit(cache=True, no_cfunc_wrapper=True)
def _row_inverse(r, nb, pos, astart, aidx, minv, ld, u, z):
    """``z = u^T M^-1``, ``u`` row ``r`` on the basic variables (summed by rows of ``M^-1``)."""
    optimize_for_size()
    for b in range(nb):
        u[b] = 0.0
    for k in range(astart[r], astart[r + 1]):
        p = pos[aidx[k]]
        if p >= 0:
            u[p] = 1.0
    for i in range(nb):
        z[i] = 0.0
    for b in range(nb):
        if u[b] != 0.0:
            o = b * ld
            for i in range(nb):
                z[i] += minv[o + i]


@njit(cache=True, no_cfunc_wrapper=True)
def _change_basis(enter, kind, leave, leave_code, nb, bvar, trow, pos, tight, code, minv, astart, aidx, w, u, z, aT):
    """The basis after a pivot, ``M^-1`` updated: ``enter`` a variable ``j < n`` or ``n + i``, the
    slack of tight row ``i``; ``kind`` 1: the basic variable at position ``leave`` leaves (its code
    becomes ``leave_code``), 2: row ``leave``'s slack leaves (the row becomes tight).
    Returns ``(status, nb)``."""
    optimize_for_size()
    n = pos.shape[0]
    cap = bvar.shape[0]  # also M^-1's leading dimension
    if enter < n:
        _column(I64(enter), I64(nb), trow, astart, aidx, minv, cap, aT, w)
    if kind == 1:
        l = leave
        jl = bvar[l]
        code[jl] = leave_code
        pos[jl] = -1
        if enter < n:  # variable for variable: column l of M replaced by a_j
            if not abs(w[l]) > PIVOT_TOL:
                return NUMERICAL, nb
            bvar[l] = enter
            pos[enter] = l
            code[enter] = BASIC
            f = 1.0 / w[l]
            for i in range(nb):
                minv[l * cap + i] *= f
            for b in range(nb):
                g = w[b]
                if b != l and g != 0.0:
                    for i in range(nb):
                        minv[b * cap + i] -= g * minv[l * cap + i]
        else:  # the slack of tight row i0 for variable l: row i0 and column l leave M
            i0 = enter - n
            pv = minv[l * cap + i0]
            if not abs(pv) > PIVOT_TOL:
                return NUMERICAL, nb
            f = 1.0 / pv
            for b in range(nb):
                g = minv[b * cap + i0] * f
                if b != l and g != 0.0:
                    for i in range(nb):
                        minv[b * cap + i] -= g * minv[l * cap + i]
            last = nb - 1
            tight[trow[i0]] = False
            if l != last:
                bvar[l] = bvar[last]
                pos[bvar[l]] = l
                for i in range(nb):
                    minv[l * cap + i] = minv[last * cap + i]
            if i0 != last:
                trow[i0] = trow[last]
                for b in range(nb):
                    minv[b * cap + i0] = minv[b * cap + last]
            nb -= 1
        return OPTIMAL, nb
    r = leave  # row r becomes tight
    _row_inverse(I64(r), I64(nb), pos, astart, aidx, minv, cap, u, z)
    if enter < n:  # variable j and row r join M (bordered inverse)
        if nb >= cap:
            return CAPACITY, nb
        sch = 0.0
        for k in range(astart[r], astart[r + 1]):
            if aidx[k] == enter:
                sch = 1.0
        for b in range(nb):
            sch -= u[b] * w[b]
        if not abs(sch) > PIVOT_TOL:
            return NUMERICAL, nb
        f = 1.0 / sch
        for b in range(nb):
            g = w[b] * f
            if g != 0.0:
                for i in range(nb):
                    minv[b * cap + i] += g * z[i]
            minv[b * cap + nb] = -g
        for i in range(nb):
            minv[nb * cap + i] = -z[i] * f
        minv[nb * cap + nb] = f
        bvar[nb] = enter
        pos[enter] = nb
        code[enter] = BASIC
        trow[nb] = r
        tight[r] = True
        return OPTIMAL, nb + 1
    # a slack for a slack: row i0 of M replaced by row r (Sherman-Morrison)
    i0 = enter - n
    den = z[i0]
    if not abs(den) > PIVOT_TOL:
        return NUMERICAL, nb
    z[i0] -= 1.0
    for b in range(nb):
        aT[b] = minv[b * cap + i0]
    for b in range(nb):
        g = aT[b] / den
        if g != 0.0:
            for i in range(nb):
                minv[b * cap + i] -= g * z[i]
    tight[trow[i0]] = False
    trow[i0] = r
    tight[r] = True
    return OPTIMAL, nb


@njit(cache=True, no_cfunc_wrapper=True)
def _duals(cost, nb, bvar, trow, astart, aidx, minv, ld, y, ymag, aty, atyabs):
    """``y = M^-T c_B`` and ``A_T^T y``, each with the magnitudes summed into it."""
    optimize_for_size()
    n = cost.shape[0]
    for i in range(nb):
        y[i] = 0.0
        ymag[i] = 0.0
    for b in range(nb):  # by rows of M^-1 (contiguous); each y_i summed over b in order
        cb = cost[bvar[b]]
        o = b * ld
        for i in range(nb):
            t = minv[o + i] * cb
            y[i] += t
            ymag[i] += abs(t)
    for j in range(n):
        aty[j] = 0.0
        atyabs[j] = 0.0
    for i in range(nb):
        yi = y[i]
        if yi != 0.0:
            r = trow[i]
            for k in range(astart[r], astart[r + 1]):
                aty[aidx[k]] += yi
                atyabs[aidx[k]] += abs(yi)


@njit(cache=True, no_cfunc_wrapper=True)
def _entering(cost, ub, code, nb, y, ymag, aty, atyabs, margin, rounding):
    """The largest violation of the sign test's conditions: ``(enter, sigma)``, ``enter`` a variable
    ``j``, ``n + i`` for tight row ``i``'s slack, or -1 (none: dual feasible); ``sigma`` its direction."""
    optimize_for_size()
    n = cost.shape[0]
    enter = -1
    sigma = 1.0
    worst = 0.0
    for i in range(nb):
        allow = -margin + rounding * ymag[i]
        if y[i] < allow and allow - y[i] > worst:
            worst = allow - y[i]
            enter = n + i
            sigma = 1.0
    for j in range(n):
        cj = code[j]
        if (cj != AT_LOWER and cj != AT_UPPER) or not ub[j] > 0.0:
            continue
        dj = cost[j] - aty[j]
        allow = -margin + rounding * (abs(cost[j]) + atyabs[j])
        if cj == AT_LOWER:
            if dj < allow and allow - dj > worst:
                worst = allow - dj
                enter = j
                sigma = 1.0
        elif -dj < allow and allow + dj > worst:
            worst = allow + dj
            enter = j
            sigma = -1.0
    return enter, sigma


@njit(cache=True, no_cfunc_wrapper=True)
def solve_from_basis(cost, ub, astart, aidx, x, code, nb, bvar, trow, minv, maxit, margin, rounding):
    """The bounded simplex from a stored basis (module text), in place: the dual phase while a row or
    a basic variable is out of its bounds, then the primal phase, then the final checks.

    ``cost``, ``ub``: per variable; ``astart``/``aidx``: every row in CSR; ``x``, ``code``
    (:mod:`boundcalc.kernels.basis`'s codes), ``bvar[:nb]``, ``trow[:nb]`` and ``minv`` (``M^-1``,
    entry ``(b, i)`` at ``b * cap + i``, ``cap = len(bvar)``; ``len(trow) >= cap``,
    ``len(minv) >= cap^2``) describe the starting basis and are overwritten with the final one.
    Returns ``(status, nb, pivots)``; on :data:`OPTIMAL` ``x`` is the optimal vertex (clipped to its
    bounds, values within ``1e-12`` of 0 read as 0).  :data:`INFEASIBLE` when no variable can enter
    the dual ratio test (the caller asks HiGHS, which says why).

    >>> # min x0 + 2 x1 + 3 x2, x0 + x1 >= 1, x1 + x2 >= 1, 0 <= x <= 1, from the slack basis (x = 0)
    >>> import numpy as np
    >>> x = np.zeros(3); code = np.zeros(3, dtype=np.int8)
    >>> bvar, trow, minv = np.zeros(3, np.int64), np.zeros(3, np.int64), np.zeros(9)
    >>> st, nb, piv = solve_from_basis(np.array([1.0, 2.0, 3.0]), np.ones(3), np.array([0, 2, 4]),
    ...                                np.array([0, 1, 1, 2]), x, code, 0, bvar, trow, minv, 50, 5e-10, 1e-13)
    >>> int(st), x.tolist()
    (0, [0.0, 1.0, 0.0])
    """
    optimize_for_size()
    n = cost.shape[0]
    m = astart.shape[0] - 1
    cap = bvar.shape[0]
    if trow.shape[0] < cap or minv.shape[0] < cap * cap or nb > cap:
        return CAPACITY, nb, 0
    pos = np.empty(n, dtype=np.int64)  # each variable's basis position, -1: none
    for j in range(n):
        pos[j] = -1
        if code[j] == SKIP and ub[j] > 0.0 and x[j] == 0.0:
            code[j] = AT_LOWER  # a variable in no row when the basis was read may be in one now
    tight = np.zeros(m, dtype=np.bool_)
    for b in range(nb):
        pos[bvar[b]] = b
        tight[trow[b]] = True
    work = np.empty(cap * cap + 1)
    rhs = np.empty(cap + 1)
    y = np.empty(cap + 1)
    ymag = np.empty(cap + 1)
    aty = np.empty(n)
    atyabs = np.empty(n)
    alpha = np.empty(n)
    aT = np.empty(cap + 1)
    w = np.empty(cap + 1)
    dB = np.empty(cap + 1)
    z = np.empty(cap + 1)
    u = np.empty(cap + 1)
    cand = np.empty(n + cap + 1, dtype=np.int64)
    cratio = np.empty(n + cap + 1)
    ca = np.empty(n + cap + 1)
    _values(x, code, ub, I64(nb), bvar, trow, astart, aidx, minv, cap, rhs)
    pivots = 0
    since = 0  # pivots since M^-1 was last computed from the basis
    dual = False  # primal infeasible (rows added since the basis was read)?
    for b in range(nb):
        v = x[bvar[b]]
        if v < -FEAS_TOL or v > ub[bvar[b]] + FEAS_TOL:
            dual = True
    for r in range(m):
        if not tight[r]:
            a = -1.0
            for k in range(astart[r], astart[r + 1]):
                a += x[aidx[k]]
            if a < -FEAS_TOL:
                dual = True
                break
    if dual:
        _duals(cost, nb, bvar, trow, astart, aidx, minv, cap, y, ymag, aty, atyabs)
        if _entering(cost, ub, code, I64(nb), y, ymag, aty, atyabs, margin, rounding)[0] >= 0:
            nb = 0  # not dual feasible: the slack basis
            for j in range(n):
                pos[j] = -1
                code[j] = AT_LOWER if ub[j] > 0.0 else SKIP
            for r in range(m):
                tight[r] = False
            _values(x, code, ub, I64(nb), bvar, trow, astart, aidx, minv, cap, rhs)
    while True:
        enter = -1
        kind = 0  # the pivot: 0 a bound flip, 1 the basic variable at position leave leaves, 2 row leave's slack
        leave = -1
        lc = AT_LOWER  # the leaving variable's code
        if dual:  # the leaving variable: the most infeasible basic variable or row slack
            worst = FEAS_TOL
            p = -1  # a basis position, or nb + r for row r's slack
            need_up = True
            for b in range(nb):
                v = x[bvar[b]]
                if -v > worst:
                    worst, p, need_up = -v, b, True
                elif v - ub[bvar[b]] > worst:
                    worst, p, need_up = v - ub[bvar[b]], b, False
            for r in range(m):
                a = -1.0
                for k in range(astart[r], astart[r + 1]):
                    a += x[aidx[k]]
                if not tight[r] and -a > worst:
                    worst, p, need_up = -a, nb + r, True
            dual = p >= 0
        if dual:
            if pivots >= maxit:
                return ITERATION_LIMIT, nb, pivots
            _duals(cost, nb, bvar, trow, astart, aidx, minv, cap, y, ymag, aty, atyabs)
            # the pivot row alpha_j: the leaving variable's rate per unit move of each nonbasic one
            for j in range(n):
                alpha[j] = 0.0
            if p >= nb:  # row r's slack: alpha_j = a_rj - z.a_j, z = u^T M^-1
                r = p - nb
                for k in range(astart[r], astart[r + 1]):
                    alpha[aidx[k]] = 1.0
                _row_inverse(I64(r), I64(nb), pos, astart, aidx, minv, cap, u, z)
            else:  # basic variable p: alpha_j = -z.a_j, z = row p of M^-1
                for i in range(nb):
                    z[i] = minv[p * cap + i]
            for i in range(nb):
                zi = z[i]
                if zi != 0.0:
                    rr = trow[i]
                    for k in range(astart[rr], astart[rr + 1]):
                        alpha[aidx[k]] -= zi
            # the dual ratio test with bound flips (the "long step": a boxed candidate passed over
            # moves to its other bound while the leaving variable's infeasibility is not used up)
            delta = 1.0 if need_up else -1.0
            nc = 0
            for j in range(n):
                cj = code[j]
                if (cj != AT_LOWER and cj != AT_UPPER) or not ub[j] > 0.0:
                    continue
                a = alpha[j] * (1.0 if cj == AT_LOWER else -1.0) * delta
                if a > PIVOT_TOL:
                    cand[nc] = j
                    cratio[nc] = abs(cost[j] - aty[j]) / a
                    ca[nc] = a
                    nc += 1
            for i in range(nb):
                a = z[i] * delta
                if a > PIVOT_TOL:
                    cand[nc] = n + i
                    cratio[nc] = max(y[i], 0.0) / a
                    ca[nc] = a
                    nc += 1
            if nc == 0:
                return INFEASIBLE, nb, pivots
            # the candidates by increasing ratio, one group of equal ratios at a time
            slope = worst
            done = 0  # candidates passed so far (moved to the front of cand)
            while True:
                lo_r = np.inf
                for k in range(done, nc):
                    if cratio[k] < lo_r:
                        lo_r = cratio[k]
                g1 = done  # the group at lo_r moved to cand[done:g1]
                for k in range(done, nc):
                    if cratio[k] == lo_r:
                        cand[g1], cand[k] = cand[k], cand[g1]
                        cratio[g1], cratio[k] = cratio[k], cratio[g1]
                        ca[g1], ca[k] = ca[k], ca[g1]
                        g1 += 1
                drop = 0.0
                bounded = True
                for k in range(done, g1):
                    c = cand[k]
                    if c >= n:
                        bounded = False
                    else:
                        drop += ca[k] * ub[c]
                if not bounded or g1 == nc or slope - drop <= FEAS_TOL:
                    piv_best = 0.0  # the group's largest pivot enters
                    for k in range(done, g1):
                        if ca[k] > piv_best:
                            piv_best = ca[k]
                            enter = cand[k]
                    break
                slope -= drop
                done = g1
            for k in range(done):  # the passed candidates flip to their other bound
                c = cand[k]
                code[c] = AT_UPPER if code[c] == AT_LOWER else AT_LOWER
            kind, leave = 2, p - nb
            if p < nb:
                kind, leave = 1, p
                lc = SKIP if not ub[bvar[p]] > 0.0 else (AT_LOWER if need_up else AT_UPPER)
        else:
            _duals(cost, nb, bvar, trow, astart, aidx, minv, cap, y, ymag, aty, atyabs)
            enter, sigma = _entering(cost, ub, code, I64(nb), y, ymag, aty, atyabs, margin, rounding)
            if enter < 0:
                if since == 0 or inverse_ok(trow, nb, astart, aidx, pos, minv, cap, work):
                    break
                # the updated inverse drifted: recompute it and the values, and price again
                if not invert_basis(trow, bvar, nb, astart, aidx, pos, minv, cap, work):
                    return NUMERICAL, nb, pivots
                since = 0
                _values(x, code, ub, I64(nb), bvar, trow, astart, aidx, minv, cap, rhs)
                continue
            if pivots >= maxit:
                return ITERATION_LIMIT, nb, pivots
            # the direction of the basic variables per unit step, and the ratio test
            if enter < n:
                _column(I64(enter), I64(nb), trow, astart, aidx, minv, cap, aT, w)
                for b in range(nb):
                    dB[b] = -sigma * w[b]
                step = ub[enter]  # the bound flip
            else:
                for b in range(nb):
                    dB[b] = minv[b * cap + enter - n]
                step = np.inf
            leave_up = False
            piv_best = 0.0
            for b in range(nb):
                db = dB[b]
                j = bvar[b]
                if db < -PIVOT_TOL:
                    t = max(x[j], 0.0) / -db
                    up = False
                elif db > PIVOT_TOL:
                    t = max(ub[j] - x[j], 0.0) / db
                    up = True
                else:
                    continue
                if t < step or (t == step and kind != 0 and abs(db) > piv_best):
                    step, kind, leave, leave_up, piv_best = t, 1, b, up, abs(db)
            for r in range(m):
                if tight[r]:
                    continue
                ds = 0.0
                a = -1.0
                for k in range(astart[r], astart[r + 1]):
                    j = aidx[k]
                    a += x[j]
                    if j == enter:
                        ds += sigma
                    q = pos[j]
                    if q >= 0:
                        ds += dB[q]
                if ds < -PIVOT_TOL:
                    t = max(a, 0.0) / -ds
                    if t < step or (t == step and kind != 0 and abs(ds) > piv_best):
                        step, kind, leave, piv_best = t, 2, r, abs(ds)
            if step == np.inf:  # the cost falls without end: impossible with c >= 0
                return NUMERICAL, nb, pivots
            if kind == 0:
                code[enter] = AT_UPPER if code[enter] == AT_LOWER else AT_LOWER
            elif kind == 1:
                lc = SKIP if not ub[bvar[leave]] > 0.0 else (AT_UPPER if leave_up else AT_LOWER)
        pivots += 1
        since += 1
        if kind != 0:
            st, nb = _change_basis(
                enter, kind, leave, lc, nb, bvar, trow, pos, tight, code, minv, astart, aidx, w, u, z, aT
            )
            if st != OPTIMAL:
                return st, nb, pivots
            if since >= 100:
                if not invert_basis(trow, bvar, nb, astart, aidx, pos, minv, cap, work):
                    return NUMERICAL, nb, pivots
                since = 0
        _values(x, code, ub, I64(nb), bvar, trow, astart, aidx, minv, cap, rhs)
    for j in range(n):  # the final checks: bounds and rows
        v = x[j]
        if v < -FEAS_TOL or v > ub[j] + FEAS_TOL:
            return NUMERICAL, nb, pivots
        v = min(max(v, 0.0), ub[j])
        x[j] = 0.0 if v < 1e-12 else v
    for r in range(m):
        a = 0.0
        for k in range(astart[r], astart[r + 1]):
            a += x[aidx[k]]
        if a < 1.0 - FEAS_TOL:
            return NUMERICAL, nb, pivots
    return OPTIMAL, nb, pivots
