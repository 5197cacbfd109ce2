"""The compiled skeleton of paper 000's Algorithm 1 (Komiyama, Honda & Nakagawa, ICML 2016) and
ECW-RMED's steps: the state layout, the skeleton's select/learn/refresh, check (3) on the LP core's
tables and oracle (:mod:`boundcalc.kernels.lp`), Theorem 5's target; the reading of each line is in
:mod:`boundcalc.policies.copeland_rmed`.  The decision of lines 7-15, the protocol's step and the
whole-run kernel of both variants are one kernel, :func:`boundcalc.kernels.cw_rmed.copeland_run` (for
ECW-RMED and CW-RMED, chosen per state by ``reg[VARIANT]``; there because it reaches CW-RMED's line
11, whose module imports this one).

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


#: The skeleton's fields (every variant's state has them, by these names).
SKELETON_FIELDS = (
    "W N beats L d info C Q is_win wval dirty_lo dirty_hi LC inLR inLN forced reg fr stats"
    # check (3): E = (N / log t) d, the oracle's tables per winner (flat arrays with per-winner
    # offsets), the N d and smallest row sums of the last oracle evaluation
    " E tab_nc tab_off tab_coff tab_nI tab_Ia tab_pool tab_inIa tab_gI tab_gS tab_ok tab_caseB tab_out"
    " chk_info chk_m"
).split()


# reg: the round t, position in L_C, |L_C|, forced pairs of this pass, position among them, a pass
# starts, the structure is stale, line 11's allocation is current, i*, the selected pair is a
# draw of the loop over L_C, the structure's version (bumped by every refresh)
POS, NLC, NF, FPOS, PASS_START, FULL, HAVE_TARGET, ISTAR, IN_LOOP, STRUCT = range(1, 11)


# check (3): the structure version the tables are for, a decision waiting for Python, the structure
# version of the last oracle evaluation, check (3) decided by its bounds; the variant whose line 11
# the decision runs (:data:`ECW` or :data:`CW`)
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


#: ECW-RMED's fields beyond the skeleton's: the caches of Theorem 5 (``tgt_*``: per winner and pool,
#: the pool's part of ``C^E*``, the number ``h`` of pairs taken, their level ``1 / (h - k)`` and which
#: they are), a scratch row ``keys``.
ECW_FIELDS = "keys tgt_part tgt_h tgt_level tgt_sel tgt_I tgt_dirty tgtI_dirty".split()


#: CW-RMED's fields beyond the skeleton's (:mod:`boundcalc.kernels.cw_rmed`): the warm bases per
#: winner (``lp_*``: solution, variable code of :mod:`~boundcalc.kernels.basis`, the basis's variables
#: and tight rows, ``(M^-1)^T``), the pair ids and scratch (``tight`` all True and ``rval`` all 1: the
#: tight rows' flags and 0/1 coefficients as the shared sign test reads them), and ``cpert``: the weights
#: ``g_p`` of line 11's cost perturbation (:func:`boundcalc.kernels.perturb.weights`, per pair id).
CW_FIELDS = (
    "Etmp pid lp_valid lp_x lp_status lp_nb lp_boff lp_moff lp_soff lp_bvar lp_minvT lp_rstart lp_ridx"
    " cvec aty atyabs yv cB ymag tight rval cpert"
    # the compiled primal simplex's view of each winner's model (:func:`boundcalc.kernels.cw_rmed.
    # resolve_from_basis`): the capacity of its basis buffers, its tight rows (beside lp_bvar), every
    # row in CSR
    " lp_cap lp_trow lp_nr lp_aoff lp_astart lp_aidx"
).split()


#: The one state layout of both variants: the skeleton's fields, then ECW-RMED's and CW-RMED's (a
#: variant's state holds the other's fields as empty arrays).  One layout is one numba type, so the
#: skeleton, check (3) and the LP core's kernels they call compile once per command for both variants
#: (with a layout each, ``simulate --policies ecw-rmed,cw-rmed`` compiled every shared function twice).
RMEDState = namedtuple("RMEDState", SKELETON_FIELDS + ECW_FIELDS + CW_FIELDS)  # type: ignore[misc]


#: ECW-RMED's state (the one layout, :data:`RMEDState`).
ECWState = RMEDState


def skeleton_state(K: int, params: Mapping[str, Any], n_stats: int) -> dict[str, Any]:
    """The skeleton's arrays at ``t = 1`` (a dict by field name): counts 0, every structure stale,
    the first pass ``L_C = P_{i != j}`` in lexicographic order; the variants' fields empty (each
    variant fills its own: :data:`RMEDState`)."""
    P = K * K
    LC = np.zeros(P, dtype=np.int64)
    inLR = np.zeros(P, dtype=np.bool_)
    n = 0
    for i in range(1, K):
        for j in range(i):
            LC[n] = i * K + j
            inLR[i * K + j] = True
            n += 1
    reg = np.zeros(N_REG, dtype=np.int64)
    reg[T_], reg[NLC], reg[PASS_START], reg[FULL] = 1, n, 1, 1
    reg[TAB] = reg[CHK] = -1
    z = lambda n, dt=np.int64: np.zeros(n, dtype=dt)  # noqa: E731
    return dict(
        W=np.zeros((K, K), dtype=np.int64),
        N=np.zeros((K, K), dtype=np.int64),
        beats=np.zeros((K, K), dtype=np.bool_),
        L=np.zeros(K, dtype=np.int64),
        d=np.zeros((K, K)),
        info=np.zeros((K, K)),
        C=np.zeros((K, K)),
        Q=np.zeros((K, K)),
        is_win=np.zeros(K, dtype=np.bool_),
        wval=np.zeros(K),
        dirty_lo=np.ones(K, dtype=np.bool_),
        dirty_hi=np.ones(K, dtype=np.bool_),
        LC=LC,
        inLR=inLR,
        inLN=np.zeros(P, dtype=np.bool_),
        forced=np.zeros(P, dtype=np.int64),
        reg=reg,
        fr=np.array([params["alpha"], params["beta"], params["check_tol"]]),
        stats=np.zeros(n_stats, dtype=np.int64),
        E=np.zeros((K, K)),
        tab_nc=z(K),
        tab_off=z(K),
        tab_coff=z(K),
        tab_nI=z(K),
        tab_Ia=np.zeros((K, K), dtype=np.int64),
        tab_pool=np.zeros((K, K, K), dtype=np.bool_),
        tab_inIa=np.zeros((K, K), dtype=np.bool_),
        tab_gI=z(0),
        tab_gS=z(0),
        tab_ok=z(0, np.bool_),
        tab_caseB=z(0, np.bool_),
        tab_out=np.zeros(2 * K * K),
        chk_info=np.zeros((K, K)),
        chk_m=np.full(K, np.nan),
        **_empty_variant_fields(),
    )


def _empty_variant_fields() -> dict[str, np.ndarray]:
    """Every variant field as an empty array of its type (ndim and dtype): a variant's state holds
    the other variant's fields so (one layout, :data:`RMEDState`)."""
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
    """The next pair: line 4's forced pairs of this pass (listed when the pass starts), then the
    pass's loop over ``L_C``."""
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
                if n < thr:
                    s.forced[nF] = i * K + j
                    nF += 1
                elif use_beta:
                    m_ = s.W[i, j] / n if n > 0 else 0.5
                    if abs(m_ - 0.5) < band:
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


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def skeleton_learn(s, i, j, won):
    """The counts after the duel ``(i, j)``; if the structure is kept, that pair's ``d``, ``N d``
    and cost, with its loser's eq. (5) rows and its winner's eq. (4) row marked changed; if it
    flips, the structure is marked stale.  Line 11's allocation is no longer current."""
    optimize_for_size()
    if i == j:
        return
    beats = s.beats
    W = s.W
    N = s.N
    old_ij = beats[i, j]
    old_ji = beats[j, i]
    count_wn(W, N, i, j, won)  # on the arrays: the one compilation every policy shares
    s.reg[HAVE_TARGET] = 0
    if s.reg[FULL] or (2 * W[i, j] > N[i, j]) != old_ij or (2 * W[j, i] > N[j, i]) != old_ji:
        s.reg[FULL] = 1
        return
    K = W.shape[0]
    if beats[i, j] or beats[j, i]:
        n = N[i, j]
        x = 0.5 * (kl_half(W[i, j] / n) + kl_half(W[j, i] / n))
        s.d[i, j] = x
        s.d[j, i] = x
    else:
        s.d[i, j] = 0.0
        s.d[j, i] = 0.0
    L = s.L
    L1 = L[0]
    for q in range(K):
        if L[q] < L1:
            L1 = L[q]
    for x, y in ((i, j), (j, i)):
        s.info[x, y] = float(N[x, y]) * s.d[x, y]
        if s.d[x, y] > 0:  # 000's regret r_xy on the empirical losses, over d
            s.C[x, y] = ((float(L[x]) + float(L[y]) - 2.0 * float(L1)) / (2.0 * (K - 1))) / s.d[x, y]
        else:
            s.C[x, y] = np.inf
    if beats[i, j] or beats[j, i]:
        s.dirty_lo[j if beats[i, j] else i] = True  # the pair's loser: its eq. (5) rows change
        s.dirty_hi[i if beats[i, j] else j] = True  # the pair's winner: its eq. (4) row changes


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def skeleton_refresh(s):
    """The empirical structure, ``d``, ``N d``, the costs and the winners recomputed from the counts
    (when stale); every row marked changed and the structure's version bumped."""
    optimize_for_size()
    if not s.reg[FULL]:
        return
    W = s.W
    N = s.N
    K = W.shape[0]
    beats = s.beats
    L = s.L
    for j in range(K):
        L[j] = 0
    for i in range(K):
        for j in range(K):
            beats[i, j] = i != j and 2 * W[i, j] > N[i, j]
    for i in range(K):
        for j in range(K):
            if beats[i, j]:
                L[j] += 1
    L1 = L[0]
    for q in range(K):
        if L[q] < L1:
            L1 = L[q]
    for i in range(K):
        for j in range(K):
            if beats[i, j] or beats[j, i]:
                n = N[i, j]
                s.d[i, j] = 0.5 * (kl_half(W[i, j] / n) + kl_half(W[j, i] / n))
            else:
                s.d[i, j] = 0.0
            s.info[i, j] = float(N[i, j]) * s.d[i, j]
            if i != j and s.d[i, j] > 0:  # 000's regret r_ij on the empirical losses, over d
                s.C[i, j] = ((float(L[i]) + float(L[j]) - 2.0 * float(L1)) / (2.0 * (K - 1))) / s.d[i, j]
            else:
                s.C[i, j] = np.inf
    for q in range(K):
        s.is_win[q] = L[q] == L1
        s.dirty_lo[q] = True
        s.dirty_hi[q] = True
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
    """``i*``: the winner with the smallest ``wval``; values within ``WINNER_TIE_RTOL`` relative of
    the minimum are tied and go to the smaller index."""
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
    """Lines 7-15 after check (3) (``exploit``: the winner it passed, or -1) and, when it failed,
    line 11 (``Q`` and ``reg[ISTAR]`` current): ``L_NC`` joins ``L_N`` (pairs still in ``L_R``
    excepted), the drawn pair leaves ``L_R``, a finished pass starts the next."""
    optimize_for_size()
    K = s.W.shape[0]
    P = K * K
    reg = s.reg
    code = s.LC[reg[POS]]
    s.inLR[code] = False
    if exploit >= 0:
        p = exploit * K + exploit
        if not s.inLR[p]:
            s.inLN[p] = True
    else:
        for a in range(1, K):
            for b in range(a):
                if s.Q[a, b] > s.N[a, b] / log_t:
                    p = a * K + b
                    if not s.inLR[p]:
                        s.inLN[p] = True
        p = reg[ISTAR] * K + reg[ISTAR]
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
def _min_row_sum(s, a, E):
    """The smallest row sum of ``R_a`` at ``E`` by the LP core's oracle on the stored tables."""
    K = s.W.shape[0]
    nc = s.tab_nc[a]
    if nc <= 0:
        return np.inf
    o = s.tab_off[a]
    n = K * nc
    out = s.tab_out[:n].reshape((K, nc))
    copeland_sums(
        E,
        a,
        s.tab_Ia[a, : s.tab_nI[a]],
        s.tab_pool[a],
        s.tab_gI[o : o + n].reshape((K, nc)),
        s.tab_gS[o : o + n].reshape((K, nc)),
        s.tab_ok[o : o + n].reshape((K, nc)),
        s.tab_caseB[s.tab_coff[a] : s.tab_coff[a] + nc],
        s.tab_inIa[a],
        out,
    )
    m = np.inf
    for x in range(K):
        for c in range(nc):
            if out[x, c] < m:
                m = out[x, c]
    return m


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def build_tables(s):
    """The oracle's tables of every empirical winner for the current empirical structure, built once
    per structure (``reg[TAB]``) from it in place: for winner ``a``, the LP core's one layout
    (:func:`boundcalc.kernels.lp.winner_tables`: ``I_a``, the pools ``S_{i2} \\ {a}``, and per
    ``(i2, l, case)`` the clipped sizes ``|I|``, ``|S|`` and whether the case has rows; 000 eq. (2),
    every level ``l in max(0, L(1) - 1) .. L(2)``), what
    :class:`~boundcalc.lp.constraints.CopelandFamily` holds, stored in flat arrays with per-winner
    offsets.  False (nothing written) when the flat arrays are too small: the decision returns
    ``NEED_TABLES`` and Python enlarges them (:meth:`CopelandRMED._grow_tables`)."""
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
    ls = np.empty(nl, dtype=np.int64)  # lo .. L2
    for t in range(nl):
        ls[t] = lo + t
    psize = np.empty(K, dtype=np.int64)
    nwin = 0
    for a in range(K):
        nwin += s.is_win[a]
    if nwin * K * nc > s.tab_gI.shape[0] or nwin * nc > s.tab_caseB.shape[0] or K * nc > s.tab_out.shape[0]:
        return False
    o = 0
    co = 0
    for a in range(K):
        if not s.is_win[a]:
            s.tab_nc[a] = 0
            continue
        gI = s.tab_gI[o : o + K * nc].reshape((K, nc))
        gS = s.tab_gS[o : o + K * nc].reshape((K, nc))
        s.tab_nI[a] = winner_tables(
            s.beats,
            L,
            a,
            ls,
            L1,
            s.tab_Ia[a],
            s.tab_inIa[a],
            s.tab_pool[a],
            psize,
            gI,
            gS,
            s.tab_ok[o : o + K * nc].reshape((K, nc)),
            gI,
            gS,
            s.tab_caseB[co : co + nc],
        )
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
    """Check (3): the first empirical Copeland winner ``a`` whose counts satisfy every row of
    ``R_a(mu_hat)``, ``1 - min_row sum of (N / log t) d <= check_tol``, or -1.

    The oracle runs only when its answer is not known already.  With the structure unchanged the rows
    are fixed and a row's sum is ``sum N_p d_p / log t`` over its pairs; since the last evaluation
    (at ``t0``, smallest row sum ``m_a``) only drawn pairs changed their ``N_p d_p``, so the smallest
    row sum now lies in ``[(m_a log t0 - g-) / log t, (m_a log t0 + g+) / log t]``, ``g+`` (``g-``)
    the sum of the increases (decreases) of ``N_p d_p`` over all pairs.  Going through the winners
    in index order, one whose upper end is below the threshold by ``CHECK_MARGIN`` fails and one
    whose lower end is above it by ``CHECK_MARGIN`` passes, as the oracle would say; the first
    winner neither of these decides sends the whole check to the oracle."""
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
    for a in range(K):
        s.chk_m[a] = np.nan
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
    """Line 11 for ECW-RMED: ``C^E*_a`` by Theorem 5 for every empirical winner (stale pool rows
    recomputed, others reused; pools sorted by (cost, arm)), ``i*`` by :func:`argmin_winner`, and
    ``Q = E / d`` of ``i*``'s allocation (``E`` normalised)."""
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
                s.tgt_part[a, i2] = part
                s.tgt_h[a, i2] = h
                s.tgt_level[a, i2] = level
            v += s.tgt_part[a, i2]
        s.wval[a] = v
    for q in range(K):
        s.tgt_dirty[q] = False
        s.tgtI_dirty[q] = False
    istar = argmin_winner(s)
    s.reg[ISTAR] = istar
    Q = s.Q
    for x in range(K):
        for y in range(K):
            Q[x, y] = 0.0
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
