"""The one warm-basis optimality test: does a stored simplex basis stay optimal under new costs?

Paper 000 (Komiyama, Honda & Nakagawa, ICML 2016), Algorithm 1 line 11, solves the LP of eq. (2) on
the empirical structure at every step; between structure changes only its costs move.  The LP is
``min c.v  s.t.  lb <= v <= ub,  A v >= lo``.  With the rows and bounds unchanged the basis stays
primal feasible, and it stays optimal for new costs ``c`` while its duals ``y`` (``B^T y = c_B``)
keep their signs (Chvatal, *Linear Programming*, ch. 10):

* a tight row (its slack nonbasic) needs ``y_r >= 0``;
* a nonbasic variable needs its reduced cost ``d_j = c_j - a_j.y >= 0`` at its lower bound,
  ``<= 0`` at its upper bound and ``= 0`` between them; a fixed variable (or one in no row, at its
  lower bound with ``c >= 0``) is not tested.

Each sign is required with a margin of :data:`DUAL_MARGIN` (half HiGHS's dual feasibility
tolerance) less :data:`ROUNDING` times the magnitudes summed into the number, so that a basis is
kept only where HiGHS's warm re-solve would pivot no more and return the same solution
(``tests/test_basis_test.py``).

Two sources of duals, one test: the LP core (:meth:`boundcalc.lp.highs.CoveringLP._reuse_basis`)
reads ``y`` from HiGHS's factorisation; CW-RMED's compiled step (:mod:`boundcalc.kernels.cw_rmed`),
testing every Copeland winner's basis at every step without Python, keeps ``(M^-1)^T`` of each
basis (``M`` the 0/1 basis matrix on the tight rows) and forms ``y = M^-T c_B`` itself, faster at
16-64 arms than reading ``B^-1`` from HiGHS row by row.
"""

from __future__ import annotations

from numba import njit

from . import DUAL_MARGIN, ROUNDING, compile_gc  # noqa: F401  (compile_gc: the compilations' GC guard)

#: ``code`` of a variable: nonbasic at its lower bound, basic, nonbasic at its upper bound,
#: nonbasic strictly between its bounds, not tested (fixed, or in no row).
AT_LOWER, BASIC, AT_UPPER, BETWEEN, SKIP = 0, 1, 2, 3, 4


@njit(cache=True, no_cfunc_wrapper=True)
def duals_keep_signs(cost, y, ymag, tight, starts, idx, val, code, margin, rounding, aty, atyabs):
    """Whether the duals ``y`` (with magnitudes ``ymag``) prove the basis optimal for ``cost`` (the
    module's signs and margins).  ``A``: the rows of ``y`` in CSR (``starts`` of length
    ``len(y) + 1``, absolute positions in ``idx``/``val``); ``code`` per variable (:data:`AT_LOWER`
    ... :data:`SKIP`); ``aty``, ``atyabs``: scratch of the variables' length.

    >>> import numpy as np
    >>> # min v0 + 2 v1, v0 + v1 >= 1: v0 basic, y = c_0 = 1 (magnitude 1), d_1 = 2 - 1 = 1 >= 0
    >>> args = (np.ones(1), np.ones(1), np.ones(1, dtype=bool), np.array([0, 2]), np.array([0, 1]), np.ones(2))
    >>> code = np.array([BASIC, AT_LOWER], dtype=np.int8)
    >>> duals_keep_signs(np.array([1.0, 2.0]), *args, code, DUAL_MARGIN, ROUNDING, np.zeros(2), np.zeros(2))
    True
    >>> duals_keep_signs(np.array([1.0, 0.5]), *args, code, DUAL_MARGIN, ROUNDING, np.zeros(2), np.zeros(2))  # d_1 < 0
    False
    """
    m = y.shape[0]
    for r in range(m):
        if tight[r] and y[r] < -margin + rounding * ymag[r]:
            return False
    nv = code.shape[0]
    for j in range(nv):
        aty[j] = 0.0
        atyabs[j] = 0.0
    for r in range(m):
        yr = y[r]
        if yr != 0.0:
            for k in range(starts[r], starts[r + 1]):
                z = val[k] * yr
                aty[idx[k]] += z
                atyabs[idx[k]] += abs(z)
    for j in range(nv):
        st = code[j]
        if st == BASIC or st == SKIP:
            continue
        dj = cost[j] - aty[j]
        allow = -margin + rounding * (abs(cost[j]) + atyabs[j])
        if st == AT_LOWER:
            if dj < allow:
                return False
        elif st == AT_UPPER:
            if -dj < allow:
                return False
        elif abs(dj) > -allow:  # BETWEEN
            return False
    return True
