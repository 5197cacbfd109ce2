"""A small dense bounded primal simplex for 0/1 covering LPs, warm from a stored basis.

The LP is line 11's plain model of paper 000 (Komiyama, Honda & Nakagawa, ICML 2016, Algorithm 1,
line 11: ``min c.x`` over the cutting plane's rows of ``R_{i1}``, eq. (2)):

    ``min c.x   s.t.   sum_{j in row r} x_j >= 1  (r = 0 .. m-1),   0 <= x_j <= u_j``

with ``c >= 0`` (perturbed costs, :mod:`boundcalc.kernels.perturb`), ``u_j`` 1 or 0 (an empirical
tie: fixed).  CW-RMED keeps, per Copeland winner, the basis of its model's last optimal solve in the
form its compiled basis test reads (:mod:`boundcalc.kernels.cw_rmed`): the basic variables ``B``, the
tight rows ``T`` (slack nonbasic; ``|T| = |B|``), ``M`` = the 0/1 matrix of ``T x B`` and ``M^-1``;
every other row's slack is basic and every nonbasic variable sits at a bound.  When only the costs
change (the empirical structure, hence the rows and bounds, unchanged), that basis stays primal
feasible; when the basis test finds a reduced cost of the wrong sign, :func:`primal_from_basis`
continues with the textbook bounded primal simplex (e.g. Chvatal, *Linear Programming*, ch. 8 and
10; Dantzig's pricing) from it:

1. duals ``y = M^-T c_B`` on the tight rows; reduced costs ``d_j = c_j - sum_{r in T, j in r} y_r``;
   a tight row's slack (column ``-e_r``, cost 0) has reduced cost ``y_r``;
2. the entering candidate with the largest violation of the optimality signs (``d_j >= 0`` at the
   lower bound, ``<= 0`` at the upper, ``y_r >= 0``), each judged with exactly the margins of the one
   warm-basis test (:func:`boundcalc.kernels.basis.duals_keep_signs`: :data:`~boundcalc.kernels.DUAL_MARGIN`
   less :data:`~boundcalc.kernels.ROUNDING` times the magnitudes); none: optimal;
3. the ratio test over the basic variables' bounds, the basic slacks (``>= 0``) and the entering
   variable's own bound (a bound flip); ties go to the largest pivot;
4. the basis changes (a variable or slack enters, one leaves at the bound it reached: ``|B|`` and
   ``|T|`` change together) and ``M^-1`` is updated for it (a column or a row of ``M`` replaced,
   Sherman-Morrison; a row and a column added or removed, the bordered inverse); the basic values
   are recomputed from the basis (``x_B = M^-1 (1 - the tight rows' sums over nonbasic variables)``),
   never updated incrementally.  At the end ``|M M^-1 - I| <= 1e-9`` is checked; where it fails (and
   every 100 pivots) ``M^-1`` is computed afresh by Gauss-Jordan elimination with partial pivoting.

After new rows (a cutting plane's cuts) the basis stays dual feasible instead:
:func:`solve_from_basis` runs the bounded dual simplex first (the most infeasible basic variable or
row slack leaves; the dual ratio test with bound flips over boxed candidates; ties to the largest
pivot), from the slack basis when the given basis is not dual feasible (every variable at 0: dual
feasible for ``c >= 0``, as HiGHS's cold dual simplex starts), then the primal simplex above.

Under the perturbation the optimum is generically unique, so the vertex reached is the one HiGHS's
warm re-solve returns (tests/test_simplex.py: against HiGHS and against the enumeration of every
vertex on random covering LPs, degenerate ones included; CW-RMED's pairs with and without it).
Nothing is answered unverified: the result is returned only when, at the final basis, every row holds
within ``1e-9``, every bound within ``1e-9``, ``M^-1`` passed its check, and the duals pass the shared
sign test's conditions (the pricing's stopping rule; CW-RMED's step also runs the shared test
itself on the result); otherwise (or after ``maxit`` pivots: cycling, or a long path) the status
says why and the caller re-solves with HiGHS.

Plain ``@numba.njit(cache=True)`` functions over flat arrays (``M^-1`` row-major in a buffer of
capacity ``cap * cap``, ``cap = len(bvar)``), nothing imported from boundcalc beyond this layer, each
with :func:`~boundcalc.kernels.codesize.optimize_for_size` (the cold compile; without it panel (a)'s
10^5 steps measured 0.97 of the CPU, within the noise); integer arguments are passed as ``int64``
(:data:`I64`), so that numba compiles each function once, not again for a constant's literal type.
Callers: the LP core (:meth:`boundcalc.lp.highs.CoveringLP._solve_simplex`) and CW-RMED's compiled
step through Python (:func:`boundcalc.kernels.cw_rmed.resolve_from_basis`), both by
:func:`solve_from_basis`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .basis import AT_LOWER, AT_UPPER, BASIC, SKIP
from .codesize import optimize_for_size

#: :func:`primal_from_basis`'s and :func:`solve_from_basis`'s status: optimal; ``maxit`` pivots
#: reached; numerical trouble (a singular or ill-conditioned ``M``, a row or bound off by more than
#: ``1e-9`` at the end, no leaving variable on a direction that lowers the cost); more basic variables
#: than the buffers hold; no entering variable in the dual ratio test (the LP looks infeasible).
OPTIMAL, ITERATION_LIMIT, NUMERICAL, CAPACITY, INFEASIBLE = 0, 1, 2, 3, 4

#: An integer argument as ``int64`` (numba would compile a callee once more for a constant's literal type)
I64 = np.int64

#: Feasibility tolerance of the final check (HiGHS's ``primal_feasibility_tolerance`` in the LP core).
FEAS_TOL = 1e-9
#: A direction's entry below this is read as 0 in the ratio test.
PIVOT_TOL = 1e-11


@njit(cache=True, no_cfunc_wrapper=True)
def invert_basis(trow, bvar, nb, astart, aidx, pos, minv, ld, work):
    """``M^-1`` (row-major with leading dimension ``ld`` into ``minv``; ``M[i, b] = 1`` when
    variable ``bvar[b]`` is in row ``trow[i]``; the rows in CSR ``astart``/``aidx``, ``pos[v]`` the
    basis position of variable ``v`` or -1) by Gauss-Jordan elimination with partial pivoting;
    False when a pivot is below ``1e-12`` or :func:`inverse_ok` fails.  ``work``: scratch of at
    least ``nb^2``."""
    optimize_for_size()
    for q in range(nb * nb):
        work[q] = 0.0
    for b in range(nb):
        for i in range(nb):
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
    return inverse_ok(trow, bvar, nb, astart, aidx, pos, minv, ld, work)


@njit(cache=True, no_cfunc_wrapper=True)
def inverse_ok(trow, bvar, nb, astart, aidx, pos, minv, ld, work):
    """``|M M^-1 - I| <= 1e-9`` entrywise (``M`` read sparse from the rows, ``M^-1`` by rows;
    ``work``: ``nb``)."""
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
    """The basic values from the basis: nonbasic variables at their bounds, ``x_B = M^-1 (1 - the
    tight rows' sums over nonbasic variables)``."""
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
    """``w = M^-1 a_j`` (``a_j``: variable ``j``'s entries in the tight rows, into ``aT``)."""
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
def _change_basis(
    enter, kind, leave, leave_code, n, nb, bvar, trow, pos, tight, code, minv, ld, astart, aidx, w, u, z, aT
):
    """The basis after a pivot, ``M^-1`` updated (module text): ``enter`` a variable ``j < n`` or the
    slack ``n + i`` of tight row ``i``; ``kind`` 1: the basic variable at position ``leave`` leaves
    (its code becomes ``leave_code``), 2: the slack of row ``leave`` (not tight) leaves, the row
    becomes tight.  Returns ``(status, nb)``."""
    optimize_for_size()
    cap = bvar.shape[0]
    if enter < n:
        _column(I64(enter), I64(nb), trow, astart, aidx, minv, ld, aT, w)
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
                minv[l * ld + i] *= f
            for b in range(nb):
                g = w[b]
                if b != l and g != 0.0:
                    for i in range(nb):
                        minv[b * ld + i] -= g * minv[l * ld + i]
        else:  # the slack of tight row i0 for variable l: row i0 and column l leave M
            i0 = enter - n
            pv = minv[l * ld + i0]
            if not abs(pv) > PIVOT_TOL:
                return NUMERICAL, nb
            f = 1.0 / pv
            for b in range(nb):
                g = minv[b * ld + i0] * f
                if b != l and g != 0.0:
                    for i in range(nb):
                        minv[b * ld + i] -= g * minv[l * ld + i]
            last = nb - 1
            tight[trow[i0]] = False
            if l != last:
                bvar[l] = bvar[last]
                pos[bvar[l]] = l
                for i in range(nb):
                    minv[l * ld + i] = minv[last * ld + i]
            if i0 != last:
                trow[i0] = trow[last]
                for b in range(nb):
                    minv[b * ld + i0] = minv[b * ld + last]
            nb -= 1
        return OPTIMAL, nb
    r = leave  # row r becomes tight
    for b in range(nb):  # row r on the basic variables
        u[b] = 0.0
    alpha = 0.0
    for k in range(astart[r], astart[r + 1]):
        p = pos[aidx[k]]
        if p >= 0:
            u[p] = 1.0
        if aidx[k] == enter:
            alpha = 1.0
    for i in range(nb):  # z = u^T M^-1, by rows of M^-1
        z[i] = 0.0
    for b in range(nb):
        if u[b] != 0.0:
            o = b * ld
            for i in range(nb):
                z[i] += minv[o + i]
    if enter < n:  # variable j and row r join M (bordered inverse)
        if nb >= cap:
            return CAPACITY, nb
        sch = alpha
        for b in range(nb):
            sch -= u[b] * w[b]
        if not abs(sch) > PIVOT_TOL:
            return NUMERICAL, nb
        f = 1.0 / sch
        for b in range(nb):
            g = w[b] * f
            if g != 0.0:
                for i in range(nb):
                    minv[b * ld + i] += g * z[i]
            minv[b * ld + nb] = -g
        for i in range(nb):
            minv[nb * ld + i] = -z[i] * f
        minv[nb * ld + nb] = f
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
        aT[b] = minv[b * ld + i0]
    for b in range(nb):
        g = aT[b] / den
        if g != 0.0:
            for i in range(nb):
                minv[b * ld + i] -= g * z[i]
    tight[trow[i0]] = False
    trow[i0] = r
    tight[r] = True
    return OPTIMAL, nb


@njit(cache=True, no_cfunc_wrapper=True)
def _duals(cost, nb, bvar, trow, astart, aidx, minv, ld, cB, y, ymag, aty, atyabs):
    """``y = M^-T c_B`` with the magnitudes summed into each, and ``A_T^T y`` (with magnitudes)."""
    optimize_for_size()
    n = cost.shape[0]
    for i in range(nb):
        y[i] = 0.0
        ymag[i] = 0.0
    for b in range(nb):  # by rows of M^-1 (contiguous); each y_i summed over b in order
        cb = cost[bvar[b]]
        cB[b] = cb
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
def _positions(ub, x, code, nb, bvar, trow, n, m):
    """A stored basis read for the phases: each variable's place among the basic ones (-1: none),
    the tight rows, and a variable in no row when the basis was read (``SKIP``) put at its lower
    bound where it may now be in one.  The one set-up of :func:`primal_from_basis` and the dual phase."""
    optimize_for_size()
    pos = np.empty(n, dtype=np.int64)
    for j in range(n):
        pos[j] = -1
        if code[j] == SKIP and ub[j] > 0.0 and x[j] == 0.0:
            code[j] = AT_LOWER  # a variable in no row when the basis was read may be in one now
    for b in range(nb):
        pos[bvar[b]] = b
    tight = np.zeros(m, dtype=np.bool_)
    for i in range(nb):
        tight[trow[i]] = True
    return pos, tight


@njit(cache=True, no_cfunc_wrapper=True)
def primal_from_basis(cost, ub, astart, aidx, x, code, nb, bvar, trow, minv, maxit, margin, rounding):
    """The bounded primal simplex from a primal feasible basis (module text), in place.

    ``cost``, ``ub``: per variable (``n``); ``astart``/``aidx``: every row (CSR, ``m`` rows);
    ``x``, ``code`` (:mod:`boundcalc.kernels.basis`'s codes: ``AT_LOWER``, ``BASIC``, ``AT_UPPER``,
    ``SKIP`` never enters), ``bvar[:nb]``, ``trow[:nb]`` and ``minv`` (``M^-1`` row-major with
    leading dimension ``cap = len(bvar)``: entry ``(b, i)`` at ``b * cap + i``) describe the starting
    basis and are overwritten with the final one; ``cap`` bounds the basis size (``len(trow) >= cap``,
    ``len(minv) >= cap^2``).  ``M^-1`` is updated per pivot (a column or row replaced, a row and a
    column added or removed: the bordered-inverse and Sherman-Morrison identities), checked at the end
    and recomputed from the basis when the check fails (and every 100 pivots).  Returns ``(status,
    nb, pivots)`` (:data:`OPTIMAL` ... :data:`CAPACITY`); on :data:`OPTIMAL` ``x`` is the optimal
    vertex (values within ``1e-12`` of 0 read as 0, every value clipped to its bounds) and its basis
    passed the checks of the module text.

    >>> # min x0 + 2 x1 + 3 x2, x0 + x1 >= 1, x1 + x2 >= 1, 0 <= x <= 1; start at x = (1, 1, 1)
    >>> import numpy as np
    >>> x = np.ones(3); code = np.full(3, AT_UPPER, dtype=np.int8)
    >>> bvar, trow, minv = np.zeros(3, np.int64), np.zeros(3, np.int64), np.zeros(9)
    >>> st, nb, piv = primal_from_basis(np.array([1.0, 2.0, 3.0]), np.ones(3), np.array([0, 2, 4]),
    ...                                 np.array([0, 1, 1, 2]), x, code, 0, bvar, trow, minv, 50, 5e-10, 1e-13)
    >>> int(st), x.tolist()
    (0, [0.0, 1.0, 0.0])
    """
    optimize_for_size()
    n = cost.shape[0]
    m = astart.shape[0] - 1
    cap = bvar.shape[0]
    if trow.shape[0] < cap or minv.shape[0] < cap * cap or nb > cap:
        return CAPACITY, nb, 0
    pos, tight = _positions(ub, x, code, nb, bvar, trow, n, m)
    work = np.empty(cap * cap + 1)
    rhs = np.empty(cap + 1)
    _values(x, code, ub, I64(nb), bvar, trow, astart, aidx, minv, cap, rhs)
    return _primal_phase(
        cost, ub, astart, aidx, x, code, nb, bvar, trow, minv, maxit, margin, rounding,
        pos, tight, work, rhs, np.empty(cap + 1), np.empty(cap + 1), np.empty(cap + 1), np.empty(n),
        np.empty(n), np.empty(cap + 1), np.empty(cap + 1), np.empty(cap + 1), np.empty(cap + 1),
        np.empty(cap + 1), I64(0), I64(0),
    )  # fmt: skip


@njit(cache=True, no_cfunc_wrapper=True)
def solve_from_basis(cost, ub, astart, aidx, x, code, nb, bvar, trow, minv, maxit, margin, rounding):
    """:func:`primal_from_basis` from any basis: while a row or a basic variable is out of its bounds
    (rows added since the basis was optimal: a cutting plane's new cuts), the bounded dual simplex
    (Dantzig's rule on the most infeasible basic variable or row slack, the dual ratio test over the
    nonbasic variables and tight rows' slacks, ties to the largest pivot), which needs a dual
    feasible basis: when the given one is not, it starts from the slack basis (every row's slack
    basic, every variable at its lower bound: dual feasible for ``c >= 0``).  Then the primal
    simplex (which verifies the optimum).  :data:`INFEASIBLE` when no variable can enter the dual
    ratio test (the caller asks HiGHS, which says why).

    >>> import numpy as np
    >>> x = np.zeros(3); code = np.zeros(3, dtype=np.int8)   # the slack basis: every x_j at 0
    >>> bvar, trow, minv = np.zeros(3, np.int64), np.zeros(3, np.int64), np.zeros(9)
    >>> st, nb, piv = solve_from_basis(np.array([1.0, 2.0, 3.0]), np.ones(3), np.array([0, 2, 4]),
    ...                                np.array([0, 1, 1, 2]), x, code, 0, bvar, trow, minv, 50, 5e-10, 1e-13)
    >>> int(st), x.tolist()
    (0, [0.0, 1.0, 0.0])
    """
    optimize_for_size()
    return _simplex(cost, ub, astart, aidx, x, code, nb, bvar, trow, minv, maxit, margin, rounding, True)


@njit(cache=True, no_cfunc_wrapper=True)
def _simplex(cost, ub, astart, aidx, x, code, nb, bvar, trow, minv, maxit, margin, rounding, dual):
    optimize_for_size()
    n = cost.shape[0]
    m = astart.shape[0] - 1
    cap = bvar.shape[0]
    ld = cap
    if trow.shape[0] < cap or minv.shape[0] < cap * cap or nb > cap:
        return CAPACITY, nb, 0
    pos, tight = _positions(ub, x, code, nb, bvar, trow, n, m)
    work = np.empty(cap * cap + 1)
    rhs = np.empty(cap + 1)
    y = np.empty(cap + 1)
    ymag = np.empty(cap + 1)
    cB = np.empty(cap + 1)
    aty = np.empty(n)
    atyabs = np.empty(n)
    alpha = np.empty(n)
    aT = np.empty(cap + 1)
    w = np.empty(cap + 1)
    dB = np.empty(cap + 1)
    z = np.empty(cap + 1)
    u = np.empty(cap + 1)
    act = np.empty(m)
    cand = np.empty(n + cap + 1, dtype=np.int64)
    cratio = np.empty(n + cap + 1)
    ca = np.empty(n + cap + 1)
    _values(x, code, ub, I64(nb), bvar, trow, astart, aidx, minv, ld, rhs)
    pivots = 0
    since = 0  # pivots since M^-1 was last computed from the basis
    if dual:  # primal infeasible (rows added since the basis was read)?
        dual = False
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
        # ---------------------------------------------------------------- the dual phase
        _duals(cost, nb, bvar, trow, astart, aidx, minv, ld, cB, y, ymag, aty, atyabs)
        feasible = True  # dual feasible (the shared test's signs, with its margins)?
        for i in range(nb):
            if y[i] < -margin + rounding * ymag[i]:
                feasible = False
        for j in range(n):
            cj = code[j]
            if (cj == AT_LOWER or cj == AT_UPPER) and ub[j] > 0.0:
                dj = cost[j] - aty[j]
                allow = -margin + rounding * (abs(cost[j]) + atyabs[j])
                if (dj < allow) if cj == AT_LOWER else (-dj < allow):
                    feasible = False
        if not feasible:  # the slack basis
            nb = 0
            for j in range(n):
                pos[j] = -1
                code[j] = AT_LOWER if ub[j] > 0.0 else SKIP
            for r in range(m):
                tight[r] = False
            _values(x, code, ub, I64(nb), bvar, trow, astart, aidx, minv, ld, rhs)
        while True:
            # the leaving variable: the most infeasible basic variable or row slack
            worst = FEAS_TOL
            p = -1  # a basis position, or m_off + r for row r's slack
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
                act[r] = a
                if not tight[r] and -a > worst:
                    worst, p, need_up = -a, nb + r, True
            if p < 0:
                break
            if pivots >= maxit:
                return ITERATION_LIMIT, nb, pivots
            _duals(cost, nb, bvar, trow, astart, aidx, minv, ld, cB, y, ymag, aty, atyabs)
            # the pivot row: the leaving variable's rate per unit move of each nonbasic one
            if p >= nb:  # row r's slack: z = u^T M^-1, alpha_j = a_rj - z.a_j, a slack's z_i
                r = p - nb
                for b in range(nb):
                    u[b] = 0.0
                for j in range(n):
                    alpha[j] = 0.0
                for k in range(astart[r], astart[r + 1]):
                    alpha[aidx[k]] = 1.0
                    q = pos[aidx[k]]
                    if q >= 0:
                        u[q] = 1.0
                for i in range(nb):
                    z[i] = 0.0
                for b in range(nb):
                    if u[b] != 0.0:
                        o = b * ld
                        for i in range(nb):
                            z[i] += minv[o + i]
            else:  # basic variable l: rho = row l of M^-1, alpha_j = -rho.a_j, a slack's rho_i
                for j in range(n):
                    alpha[j] = 0.0
                for i in range(nb):
                    z[i] = minv[p * ld + i]
                for i in range(nb):
                    zi = z[i]
                    if zi != 0.0:
                        rr = trow[i]
                        for k in range(astart[rr], astart[rr + 1]):
                            alpha[aidx[k]] -= zi
            if p >= nb:
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
                mv = 1.0 if cj == AT_LOWER else -1.0
                a = alpha[j] * mv * delta
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
            # the candidates by increasing ratio, a group of equal ratios at a time (selection: the
            # walk rarely passes more than one group)
            slope = worst
            done = 0  # candidates passed so far (moved to the front of cand)
            q = -1
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
                            q = cand[k]
                    break
                slope -= drop
                done = g1
            for k in range(done):  # the passed candidates flip to their other bound
                c = cand[k]
                code[c] = AT_UPPER if code[c] == AT_LOWER else AT_LOWER
            pivots += 1
            since += 1
            kind = 2  # row p - nb's slack leaves, or (1) the basic variable at position p
            lv = p - nb
            lc = AT_LOWER
            if p < nb:
                kind = 1
                lv = p
                jl = bvar[p]
                lc = SKIP if not ub[jl] > 0.0 else (AT_LOWER if need_up else AT_UPPER)
            st, nb = _change_basis(
                I64(q),
                I64(kind),
                I64(lv),
                I64(lc),
                n,
                I64(nb),
                bvar,
                trow,
                pos,
                tight,
                code,
                minv,
                ld,
                astart,
                aidx,
                w,
                u,
                z,
                aT,
            )
            if st != OPTIMAL:
                return st, nb, pivots
            if since >= 100:
                if not invert_basis(trow, bvar, nb, astart, aidx, pos, minv, ld, work):
                    return NUMERICAL, nb, pivots
                since = 0
            _values(x, code, ub, I64(nb), bvar, trow, astart, aidx, minv, ld, rhs)
    return _primal_phase(
        cost, ub, astart, aidx, x, code, nb, bvar, trow, minv, maxit, margin, rounding,
        pos, tight, work, rhs, y, ymag, cB, aty, atyabs, aT, w, dB, z, u, I64(pivots), I64(since),
    )  # fmt: skip


@njit(cache=True, no_cfunc_wrapper=True)
def _primal_phase(
    cost, ub, astart, aidx, x, code, nb, bvar, trow, minv, maxit, margin, rounding,
    pos, tight, work, rhs, y, ymag, cB, aty, atyabs, aT, w, dB, z, u, pivots, since,
):  # fmt: skip
    """The primal simplex from a primal feasible basis (values in ``x``), then the final checks;
    a function of its own so that CW-RMED's compiled step links it without the dual phase."""
    optimize_for_size()
    n = cost.shape[0]
    m = astart.shape[0] - 1
    ld = bvar.shape[0]
    while True:
        _duals(cost, nb, bvar, trow, astart, aidx, minv, ld, cB, y, ymag, aty, atyabs)
        # pricing: the largest violation of the shared test's signs
        enter = -1  # a variable j, or n + i for the slack of tight row i
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
            if cj != AT_LOWER and cj != AT_UPPER:
                continue
            if not ub[j] > 0.0:
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
        if enter < 0:
            if since == 0 or inverse_ok(trow, bvar, nb, astart, aidx, pos, minv, ld, work):
                break
            # the updated inverse drifted: recompute it and the values, and price again
            if not invert_basis(trow, bvar, nb, astart, aidx, pos, minv, ld, work):
                return NUMERICAL, nb, pivots
            since = 0
            _values(x, code, ub, I64(nb), bvar, trow, astart, aidx, minv, ld, rhs)
            continue
        if pivots >= maxit:
            return ITERATION_LIMIT, nb, pivots
        # the direction of the basic variables per unit step, and the ratio test
        if enter < n:
            _column(I64(enter), I64(nb), trow, astart, aidx, minv, ld, aT, w)
            for b in range(nb):
                dB[b] = -sigma * w[b]
            step = ub[enter]  # the bound flip
        else:
            i0 = enter - n
            for b in range(nb):
                dB[b] = minv[b * ld + i0]
            step = np.inf
        leave_kind = 0  # 0: bound flip, 1: basic variable (position), 2: basic slack (row)
        leave = -1
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
            if t < step or (t == step and leave_kind != 0 and abs(db) > piv_best):
                step, leave_kind, leave, leave_up, piv_best = t, 1, b, up, abs(db)
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
                if t < step or (t == step and leave_kind != 0 and abs(ds) > piv_best):
                    step, leave_kind, leave, piv_best = t, 2, r, abs(ds)
        if step == np.inf:  # the cost falls without end: impossible with c >= 0 (numerical trouble)
            return NUMERICAL, nb, pivots
        pivots += 1
        since += 1
        if leave_kind == 0:
            code[enter] = AT_UPPER if code[enter] == AT_LOWER else AT_LOWER
        else:
            lc = AT_LOWER
            if leave_kind == 1:
                jl = bvar[leave]
                lc = SKIP if not ub[jl] > 0.0 else (AT_UPPER if leave_up else AT_LOWER)
            st, nb = _change_basis(
                I64(enter), I64(leave_kind), I64(leave), I64(lc), n, I64(nb), bvar, trow, pos, tight, code, minv, ld,
                astart, aidx, w, u, z, aT,
            )  # fmt: skip
            if st != OPTIMAL:
                return st, nb, pivots
            if since >= 100:
                if not invert_basis(trow, bvar, nb, astart, aidx, pos, minv, ld, work):
                    return NUMERICAL, nb, pivots
                since = 0
        _values(x, code, ub, I64(nb), bvar, trow, astart, aidx, minv, ld, rhs)
    # the final checks: bounds and rows
    for j in range(n):
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
