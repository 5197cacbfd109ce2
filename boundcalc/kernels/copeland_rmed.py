"""The compiled skeleton of paper 000's Algorithm 1 (Komiyama, Honda & Nakagawa, ICML 2016) and
ECW-RMED's line 11: the state layout, select/learn/refresh, check (3) on the LP core's oracle
(:mod:`boundcalc.kernels.lp`) and Theorem 5's target.  The reading of each line is in
:mod:`boundcalc.policies.copeland_rmed`; the decision and run kernel of both variants is
:func:`boundcalc.kernels.cw_rmed.copeland_run` (it reaches CW-RMED's line 11, whose module imports
this one).

>>> from boundcalc.policies import make_policy
>>> skeleton_select(make_policy("ecw-rmed", 3)._s)   # line 4's first forced pair: (1, 0) of P_{i != j}
(1, 0)
"""

from __future__ import annotations

import math
from collections import namedtuple
from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit

from .codesize import optimize_for_size
from .lp import copeland_sums, ecw_pool_row, winner_tables
from .policy import T_, count_wn
from .stats import kl_half

#: The function whose cache entry stands for this module's (:func:`boundcalc.kernels.cached`).
CACHE_ENTRY = "skeleton_select"

#: Relative tolerance under which two per-winner constants count as tied (line 11).
WINNER_TIE_RTOL = 1e-12


#: The skeleton's fields (every variant's state has them).
SKELETON_FIELDS = (
    "W N beats L d info C Q is_win wval dirty_lo dirty_hi LC inLR inLN forced reg fr stats"
    # check (3): E = (N / log t) d, the oracle's flat tables with per-winner offsets, and the N d
    # and smallest row sums of the last oracle evaluation
    " E tab_nc tab_off tab_coff tab_nI tab_Ia tab_pool tab_inIa tab_gI tab_gS tab_ok tab_caseB tab_out"
    " chk_info chk_m"
).split()


# reg (reg[0] is the round t): position in L_C, |L_C|, forced pairs of this pass, position among
# them, a pass starts, the structure is stale, line 11's allocation is current, i*, the selected
# pair is a draw of the loop over L_C, the structure's version (bumped by every refresh)
POS, NLC, NF, FPOS, PASS_START, FULL, HAVE_TARGET, ISTAR, IN_LOOP, STRUCT = range(1, 11)
# the structure version of the tables, a decision waiting for Python, the structure version of the
# last oracle evaluation, check (3) decided by its bounds, the variant (:data:`ECW` or :data:`CW`)
TAB, PENDING, CHK, BND, VARIANT = 11, 12, 13, 14, 15
N_REG = 16

#: ``reg[VARIANT]``: line 11 by Theorem 5 (ECW-RMED) or by the LP of eq. (2) (CW-RMED).
ECW, CW = 0, 1
ALPHA, BETA, CHECK_TOL = 0, 1, 2
S_FORCED, S_CHECKS, S_TARGETS, S_SOLVES, S_SELF, S_STRUCT, S_BOUND = range(7)

#: What a compiled decision may ask of Python: nothing, or larger table arrays (CW-RMED adds its own).
DONE, NEED_TABLES = 0, 1

#: Check (3) is decided by its bound (:func:`check3`) only when the bound clears the threshold by
#: this much (row sums are O(1); their rounding is below 1e-13).
CHECK_MARGIN = 1e-9

#: ECW-RMED's fields: Theorem 5's caches per winner and pool (``tgt_*``: the pool's part of
#: ``C^E*``, the number ``h`` of pairs taken, their level ``1 / (h - k)``, which they are), a scratch row ``keys``.
ECW_FIELDS = "keys tgt_part tgt_h tgt_level tgt_sel tgt_I tgt_dirty tgtI_dirty".split()


#: CW-RMED's fields (:mod:`boundcalc.kernels.cw_rmed`): the warm bases per winner (``lp_*``:
#: solution, variable codes of :mod:`~boundcalc.kernels.basis`, basic variables and tight rows,
#: ``(M^-1)^T``), pair ids, scratch (``tight`` all True, ``rval`` all 1, as the shared sign test
#: reads them) and ``cpert``, line 11's perturbation weights (:mod:`boundcalc.kernels.perturb`).
CW_FIELDS = (
    "Etmp pid lp_valid lp_x lp_status lp_nb lp_boff lp_moff lp_soff lp_bvar lp_minvT lp_rstart lp_ridx"
    " cvec aty atyabs yv cB ymag tight rval cpert"
    # the compiled simplex's view of each winner's model: basis capacity, tight rows, rows in CSR
    " lp_cap lp_trow lp_nr lp_aoff lp_astart lp_aidx"
).split()

#: The one state layout of both variants (each holds the other's fields as empty arrays): one numba
#: type, so the skeleton, check (3) and the LP core's kernels compile once for both variants.
RMEDState = namedtuple("RMEDState", SKELETON_FIELDS + ECW_FIELDS + CW_FIELDS)  # type: ignore[misc]


def skeleton_state(K: int, params: Mapping[str, Any], n_stats: int) -> dict[str, Any]:
    """The skeleton's arrays at ``t = 1`` by field name: counts 0, the structure stale, the first
    pass ``L_C = P_{i != j}`` in lexicographic order, the variants' fields empty."""
    P = K * K
    first = [i * K + j for i in range(1, K) for j in range(i)]  # the first pass's L_C and L_R
    reg = np.zeros(N_REG, dtype=np.int64)
    reg[T_], reg[NLC], reg[PASS_START], reg[FULL] = 1, len(first), 1, 1
    reg[TAB] = reg[CHK] = -1
    f8, i8, b1 = np.float64, np.int64, np.bool_
    zeros = [  # (fields, shape, dtype) of the arrays made as zeros (L_C and L_R filled below)
        ("W N tab_Ia", (K, K), i8),
        ("d info C Q E chk_info", (K, K), f8),
        ("beats tab_inIa", (K, K), b1),
        ("L tab_nc tab_off tab_coff tab_nI", K, i8),
        ("is_win", K, b1),
        ("wval", K, f8),
        ("inLN inLR", P, b1),
        ("forced LC", P, i8),
        ("stats", n_stats, i8),
        ("tab_pool", (K, K, K), b1),
        ("tab_gI tab_gS", 0, i8),
        ("tab_ok tab_caseB", 0, b1),
        ("tab_out", 2 * K * K, f8),
    ]
    state = dict(
        {name: np.zeros(shape, dtype=dt) for names, shape, dt in zeros for name in names.split()},
        dirty_lo=np.ones(K, dtype=b1),
        dirty_hi=np.ones(K, dtype=b1),
        reg=reg,
        fr=np.array([params["alpha"], params["beta"], params["check_tol"]]),
        chk_m=np.full(K, np.nan),
        **_empty_variant_fields(),
    )
    state["LC"][: len(first)] = first
    state["inLR"][first] = True
    return state


def _empty_variant_fields() -> dict[str, np.ndarray]:
    """Every variant field as an empty array of its ndim and dtype (one layout, :data:`RMEDState`)."""
    f, i, b = np.float64, np.int64, np.bool_
    kinds = dict(
        keys=(1, f), tgt_part=(2, f), tgt_h=(2, i), tgt_level=(2, f), tgt_sel=(3, i), tgt_I=(1, f),
        tgt_dirty=(1, b), tgtI_dirty=(1, b), Etmp=(2, f), pid=(2, i), lp_valid=(1, b), lp_x=(2, f),
        lp_status=(2, np.int8), lp_nb=(1, i), lp_boff=(1, i), lp_moff=(1, i), lp_soff=(1, i),
        lp_bvar=(1, i), lp_minvT=(1, f), lp_rstart=(1, i), lp_ridx=(1, i), cvec=(1, f), aty=(1, f),
        atyabs=(1, f), yv=(1, f), cB=(1, f), ymag=(1, f), tight=(1, b), rval=(1, f), cpert=(1, f),
        lp_cap=(1, i), lp_trow=(1, i), lp_nr=(1, i), lp_aoff=(1, i), lp_astart=(1, i), lp_aidx=(1, i),
    )  # fmt: skip
    assert list(kinds) == ECW_FIELDS + CW_FIELDS
    return {name: np.zeros((0,) * nd, dtype=dt) for name, (nd, dt) in kinds.items()}


# ----------------------------------------------------------------------------- the skeleton
@njit(cache=True, no_cfunc_wrapper=True)
def skeleton_select(s):
    """The next pair: line 4's forced pairs (listed when the pass starts), then the loop over ``L_C``."""
    optimize_for_size()
    K = s.W.shape[0]
    reg = s.reg
    if reg[PASS_START]:
        reg[PASS_START] = 0
        reg[FPOS] = 0
        nF = 0
        log_t = math.log(reg[T_])
        thr = s.fr[ALPHA] * math.sqrt(log_t)
        loglog = math.log(log_t) if log_t > 0 else -np.inf
        use_beta = loglog > 0 and s.fr[BETA] > 0
        band = s.fr[BETA] / loglog if use_beta else 0.0
        for i in range(1, K):
            for j in range(i):
                n = s.N[i, j]
                if n < thr or (use_beta and abs((s.W[i, j] / n if n > 0 else 0.5) - 0.5) < band):
                    s.forced[nF] = i * K + j
                    nF += 1
        reg[NF] = nF
    if reg[FPOS] < reg[NF]:
        code = s.forced[reg[FPOS]]
        reg[FPOS] += 1
        reg[IN_LOOP] = 0
        s.stats[S_FORCED] += 1
    else:
        code = s.LC[reg[POS]]
        reg[IN_LOOP] = 1
    i = code // K
    j = code % K
    if reg[IN_LOOP] and i == j:
        s.stats[S_SELF] += 1
    return i, j


@njit(inline="always")
def _min_loss(L):
    """``L(1)``, the smallest loss."""
    L1 = L[0]
    for q in range(L.shape[0]):
        if L[q] < L1:
            L1 = L[q]
    return L1


@njit(inline="always")
def _pair_update(s, i, j, L1):
    """Entries ``(i, j)`` and ``(j, i)`` of ``d`` (0 on ties), ``N d`` and the cost ``r / d`` (000's regret on the
    empirical losses; ``inf`` where ``d = 0``), ``d`` and the cost computed once for both."""
    if s.beats[i, j] or s.beats[j, i]:
        n = s.N[i, j]
        d = 0.5 * (kl_half(s.W[i, j] / n) + kl_half(s.W[j, i] / n))
        K = s.L.shape[0]
        c = ((float(s.L[i]) + float(s.L[j]) - 2.0 * float(L1)) / (2.0 * (K - 1))) / d if d > 0 else np.inf
    else:
        d = 0.0
        c = np.inf
    s.d[i, j] = s.d[j, i] = d
    s.info[i, j] = s.info[j, i] = float(s.N[i, j]) * d  # N is symmetric
    s.C[i, j] = s.C[j, i] = c


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def skeleton_learn(s, i, j, won):
    """Count the duel ``(i, j)``.  A kept structure updates the pair's ``d``, ``N d`` and cost and
    marks its loser's eq. (5) rows and winner's eq. (4) row changed; a flip marks it stale."""
    optimize_for_size()
    if i == j:
        return
    beats = s.beats
    W = s.W
    N = s.N
    old_ij = beats[i, j]
    old_ji = beats[j, i]
    count_wn(W, N, i, j, won)  # on the arrays: one compilation shared by every policy
    s.reg[HAVE_TARGET] = 0
    if s.reg[FULL] or (2 * W[i, j] > N[i, j]) != old_ij or (2 * W[j, i] > N[j, i]) != old_ji:
        s.reg[FULL] = 1
        return
    L1 = _min_loss(s.L)
    _pair_update(s, i, j, L1)
    if beats[i, j] or beats[j, i]:
        s.dirty_lo[j if beats[i, j] else i] = True  # the pair's loser: its eq. (5) rows change
        s.dirty_hi[i if beats[i, j] else j] = True  # the pair's winner: its eq. (4) row changes


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def skeleton_refresh(s):
    """Recompute a stale structure, ``d``, ``N d``, costs and winners from the counts; bump its version."""
    optimize_for_size()
    if not s.reg[FULL]:
        return
    W = s.W
    N = s.N
    K = W.shape[0]
    beats = s.beats
    L = s.L
    L[:] = 0
    for i in range(K):
        for j in range(K):
            beats[i, j] = i != j and 2 * W[i, j] > N[i, j]
    for i in range(K):
        for j in range(K):
            if beats[i, j]:
                L[j] += 1
    L1 = _min_loss(L)
    for i in range(K):
        for j in range(i, K):
            _pair_update(s, i, j, L1)
    for q in range(K):
        s.is_win[q] = L[q] == L1
    s.dirty_lo[:] = True
    s.dirty_hi[:] = True
    s.reg[FULL] = 0
    s.reg[STRUCT] += 1


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def first_winner(s):
    """The first empirical Copeland winner (what ``t = 1`` exploits)."""
    optimize_for_size()
    for a in range(s.is_win.shape[0]):
        if s.is_win[a]:
            return a
    return -1


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def argmin_winner(s):
    """``i*``: the winner of smallest ``wval``, ties (``WINNER_TIE_RTOL``) to the smaller index."""
    optimize_for_size()
    K = s.is_win.shape[0]
    vmin = np.inf
    for a in range(K):
        if s.is_win[a] and s.wval[a] < vmin:
            vmin = s.wval[a]
    tol = WINNER_TIE_RTOL * abs(vmin)
    for a in range(K):
        if s.is_win[a] and s.wval[a] <= vmin + tol:
            return a
    return -1


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def skeleton_finish(s, exploit, log_t):
    """Lines 12-15 after check (3) passed for ``exploit`` or (``-1``) line 11 set ``Q`` and ``i*``:
    ``L_NC`` joins ``L_N`` (pairs still in ``L_R`` excepted); a finished pass starts the next."""
    optimize_for_size()
    K = s.W.shape[0]
    P = K * K
    reg = s.reg
    code = s.LC[reg[POS]]
    s.inLR[code] = False
    if exploit < 0:
        for a in range(1, K):
            for b in range(a):
                if s.Q[a, b] > s.N[a, b] / log_t:
                    p = a * K + b
                    if not s.inLR[p]:
                        s.inLN[p] = True
    w = exploit if exploit >= 0 else reg[ISTAR]  # the self-duel of the exploited winner or of i*
    p = w * K + w
    if not s.inLR[p]:
        s.inLN[p] = True
    reg[POS] += 1
    if reg[POS] == reg[NLC]:
        n = 0
        for p in range(P):
            s.inLR[p] = s.inLN[p]
            if s.inLN[p]:
                s.LC[n] = p
                n += 1
            s.inLN[p] = False
        reg[NLC] = n
        reg[POS] = 0
        reg[PASS_START] = 1


# ----------------------------------------------------------------------------- check (3), line 8
@njit(inline="always")
def _table_views(s, o, co, nc):
    """One winner's ``gI``, ``gS``, ``ok`` (K x nc, at flat offset ``o``) and ``caseB`` (at ``co``)."""
    K = s.W.shape[0]
    n = K * nc
    shape = (K, nc)
    return (
        s.tab_gI[o : o + n].reshape(shape),
        s.tab_gS[o : o + n].reshape(shape),
        s.tab_ok[o : o + n].reshape(shape),
        s.tab_caseB[co : co + nc],
    )


@njit(inline="always")
def _min_row_sum(s, a, E):
    """The smallest row sum of ``R_a`` at ``E`` by the LP core's oracle on the stored tables."""
    K = s.W.shape[0]
    nc = s.tab_nc[a]
    if nc <= 0:
        return np.inf
    out = s.tab_out[: K * nc].reshape((K, nc))
    gI, gS, ok, caseB = _table_views(s, s.tab_off[a], s.tab_coff[a], nc)
    copeland_sums(E, a, s.tab_Ia[a, : s.tab_nI[a]], s.tab_pool[a], gI, gS, ok, caseB, s.tab_inIa[a], out)
    m = np.inf
    for x in range(K):
        for c in range(nc):
            if out[x, c] < m:
                m = out[x, c]
    return m


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def build_tables(s):
    """The oracle's tables of every empirical winner, once per structure: per winner the LP core's
    :func:`~boundcalc.kernels.lp.winner_tables` (000 eq. (2), levels ``max(0, L(1) - 1) .. L(2)``)
    in flat arrays.  False when these are too small (Python enlarges them: ``NEED_TABLES``)."""
    optimize_for_size()
    if s.reg[TAB] == s.reg[STRUCT]:
        return True
    K = s.W.shape[0]
    L = s.L
    L1 = K  # above every loss (at most K - 1)
    L2 = L1
    for q in range(K):  # the two smallest losses, L(1) <= L(2)
        v = L[q]
        if v < L1:
            L2 = L1
            L1 = v
        elif v < L2:
            L2 = v
    lo = L1 - 1 if L1 > 1 else 0
    nl = L2 - lo + 1
    nc = 2 * nl
    ls = np.arange(lo, L2 + 1)
    psize = np.empty(K, dtype=np.int64)
    nwin = s.is_win.sum()
    if nwin * K * nc > s.tab_gI.shape[0] or nwin * nc > s.tab_caseB.shape[0] or K * nc > s.tab_out.shape[0]:
        return False
    o = 0
    co = 0
    for a in range(K):
        if not s.is_win[a]:
            s.tab_nc[a] = 0
            continue
        gI, gS, ok, caseB = _table_views(s, o, co, nc)
        Ia, inIa, pool = s.tab_Ia[a], s.tab_inIa[a], s.tab_pool[a]
        s.tab_nI[a] = winner_tables(s.beats, L, a, ls, L1, Ia, inIa, pool, psize, gI, gS, ok, gI, gS, caseB)
        s.tab_nc[a] = nc
        s.tab_off[a] = o
        s.tab_coff[a] = co
        o += K * nc
        co += nc
    s.reg[TAB] = s.reg[STRUCT]
    s.stats[S_STRUCT] += 1
    return True


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def check3(s, log_t):
    """Check (3): the first empirical winner ``a`` with ``1 - min row sum of (N / log t) d <= check_tol``
    over ``R_a(mu_hat)``, or -1.

    With the structure unchanged since the last oracle run (at ``t0``, smallest row sum ``m_a``),
    the smallest row sum lies in ``[(m_a log t0 - g-) / log t, (m_a log t0 + g+) / log t]``, ``g+``
    (``g-``) the total increase (decrease) of ``N_p d_p``.  A winner whose interval clears the
    threshold by ``CHECK_MARGIN`` is decided so; the first undecided one sends the check to the oracle.
    """
    optimize_for_size()
    K = s.W.shape[0]
    tol = s.fr[CHECK_TOL]
    s.reg[BND] = 0
    if s.reg[CHK] == s.reg[STRUCT]:
        gp = 0.0
        gm = 0.0
        for i in range(K):
            for j in range(i + 1, K):
                x = s.info[i, j] - s.chk_info[i, j]
                if x > 0:
                    gp += x
                else:
                    gm -= x
        known = True
        for a in range(K):
            if not s.is_win[a]:
                continue
            m0 = s.chk_m[a]  # NaN: not evaluated at t0
            if (m0 + gp) / log_t < 1.0 - tol - CHECK_MARGIN:
                continue
            if (m0 - gm) / log_t >= 1.0 - tol + CHECK_MARGIN:
                s.reg[BND] = 1
                return a
            known = False
            break
        if known:
            s.reg[BND] = 1
            return -1
    E = s.E
    for i in range(K):
        for j in range(K):
            E[i, j] = (s.N[i, j] / log_t) * s.d[i, j]
            s.chk_info[i, j] = s.info[i, j]
    s.reg[CHK] = s.reg[STRUCT]
    s.chk_m[:] = np.nan
    for a in range(K):
        if s.is_win[a]:
            m = _min_row_sum(s, a, E)
            s.chk_m[a] = m * log_t
            if 1.0 - m <= tol:
                return a
    return -1


# ----------------------------------------------------------------------------- ECW-RMED
@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ecw_target(s):
    """ECW-RMED's line 11: ``C^E*_a`` by Theorem 5 per empirical winner (stale pools recomputed,
    sorted by (cost, arm)), ``i*`` (:func:`argmin_winner`) and ``Q = E / d`` of its allocation."""
    optimize_for_size()
    K = s.W.shape[0]
    for a in range(K):
        s.wval[a] = np.inf
        if not s.is_win[a]:
            continue
        if s.tgtI_dirty[a]:
            acc = 0.0
            for q in range(K):
                if s.beats[a, q]:
                    acc += s.C[a, q]
            s.tgt_I[a] = acc
        v = s.tgt_I[a]
        for i2 in range(K):
            if i2 == a:
                continue
            if s.tgt_dirty[i2]:
                part, h, level = ecw_pool_row(s.beats, s.L, s.C, a, i2, s.tgt_sel[a, i2], s.keys)
                s.tgt_part[a, i2], s.tgt_h[a, i2], s.tgt_level[a, i2] = part, h, level
            v += s.tgt_part[a, i2]
        s.wval[a] = v
    s.tgt_dirty[:] = False
    s.tgtI_dirty[:] = False
    istar = argmin_winner(s)
    s.reg[ISTAR] = istar
    Q = s.Q
    Q[:] = 0.0
    for i2 in range(K):
        if i2 == istar:
            continue
        for q in range(s.tgt_h[istar, i2]):
            y = s.tgt_sel[istar, i2, q]
            Q[i2, y] = s.tgt_level[istar, i2] / s.d[i2, y]
            Q[y, i2] = Q[i2, y]
    for y in range(K):
        if s.beats[istar, y]:
            Q[istar, y] = 1.0 / s.d[istar, y]
            Q[y, istar] = Q[istar, y]


#: ``copeland_run(s, env, RESUME, RESUME, False)`` makes the waiting decision instead of learning a duel.
RESUME = -1
