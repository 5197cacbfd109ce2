"""Paper 000's Algorithm 1 (CW-RMED / ECW-RMED, Komiyama, Honda & Nakagawa, ICML 2016, Sec. 4).

The algorithm's skeleton is shared by both variants and written once, compiled: the candidate lists
``L_C`` (this pass), ``L_R`` (still to be drawn in this pass), ``L_N`` (next pass), the forced
exploration of line 4, the empirical structure kept up to date duel by duel, and the list step of
lines 11-15 (:func:`skeleton_select`, :func:`skeleton_learn`, :func:`skeleton_refresh`,
:func:`skeleton_finish`), and check (3) of line 8 (:func:`check3`), which 000 prints once for both
variants: the observed counts against ``R_{i*}(mu_hat)`` of eq. (2), by the LP core's sorting oracle.
A variant supplies line 11's target allocation: ECW-RMED (:class:`ECWRMED`, :func:`ecw_decide`)
Theorem 5's closed form over ``R^E`` (eqs. (4)-(5)); CW-RMED (:mod:`boundcalc.policies.cw_rmed`) the
exact LP of eq. (2).

Readings of the text taken here (000 Algorithm 1, Sec. 4)
    * Line 4, forced exploration: at the start of every pass (each iteration of the ``while``
      loop) the pairs ``(i, j)``, ``i > j``, with ``N_ij < alpha sqrt(log t)`` or
      ``|mu_hat_ij - 1/2| < beta / log log t`` are listed once, with ``t`` the round about to be
      played, and each is drawn once, in lexicographic order, before the pass's loop over
      ``L_C``; ``t`` advances with each draw.  ``log log t <= 0`` (``t <= 2``) disables the
      beta test; ``beta = 0`` disables it always.
    * ``L_C`` is walked in lexicographic order of ``(i, j)``, ``i >= j`` (the "arbitrarily fixed
      order" of line 5); the first pass is ``P_{i != j}``.
    * Check (3) is line 8's, the same for both variants: ``N / log t`` in ``R_{i*}(mu_hat)`` of
      eq. (2), as printed (and as the D-TS authors' C++ ECW-RMED checks it); only line 11 differs
      ("(CW)" / "(ECW)").  ECW-RMED does not test the smaller ``R^E`` (eqs. (4)-(5)) there: ``R^E``
      is the set line 11's closed form optimises over, and Sec. 4.2's "the difference ... is the
      amount of exploration" is line 11's target.  Since ``R^E c R``, ECW's target passes check (3)
      once reached, as Theorem 4 needs.  (boundcalc 0.1.0 tested ``R^E`` here, which explores
      more: ``tests/test_policies.py`` holds a state where the two checks part.)
    * Check (3) and line 11 use the counts *including* the draw just made and ``t`` = the round
      just played.  In normalised form (``e_p = q_p d(mu_p)``, 000 eq. (2)), check (3) asks, for every
      covering row ``P``, ``sum_{p in P} N_p d(mu_hat_p) >= log t``; the box ``q <= 1/d`` does
      not apply to observed counts.  At ``t = 1`` (``log t = 0``) the check holds trivially
      and the first empirical Copeland winner is exploited.
    * The empirical winner ``i*`` of line 11 is the argmin of the per-winner constants; values
      within a relative ``1e-12`` of the minimum count as ties and go to the smaller arm index.
    * Line 11 puts ``(i, j)``, ``i > j``, into ``L_NC`` when ``q*_ij > N_ij / log t``; line 12
      adds ``(i*, i*)``.
    * Line 15 ranges over ``P_all`` (pairs with ``i >= j``, 000 Sec. 2), so the exploitation pair
      ``(i*, i*)`` reaches the next pass; a pair still in ``L_R`` (to be drawn later in this
      pass) is not added, and ``L_N`` holds no duplicates.
    * ``mu_hat = 1/2`` for an undrawn or tied pair; such a pair is in neither ``S`` nor ``I``,
      has ``d = 0`` and lies in no row.  ``d(0) = d(1) = log 2``.
    * A self-duel ``(i, i)`` carries no information: counts are unchanged, ``t`` advances.
    * Line 11's allocation depends on ``mu_hat`` alone: after a self-duel only ``log t`` moved, so
      the last allocation is reused and compared with the new ``N / log t``.

The empirical state (fields of :class:`ECWState`, shared by name with CW-RMED's state)
    ``beats`` (strict, ties in neither direction), ``L`` (losses), ``d`` (``d(mu_hat)``, 0 on
    ties), ``info = N d``, ``C = r / d`` (000's regret on the empirical losses; ``inf`` on ties and
    the diagonal), ``Q`` (line 11's allocation, draws per ``log t``).  A duel that keeps the
    structure changes one pair's ``d``, ``N d`` and cost (:func:`skeleton_learn`); a duel that flips
    it marks the structure stale and the next decision recomputes everything
    (:func:`skeleton_refresh`).  ``mu_hat``, ``d`` and the costs are computed with the arithmetic of
    :func:`boundcalc.lp.structure.empirical_structure` and :func:`boundcalc.lp.ecw._cost_matrix`,
    bit for bit.

Check (3) (:func:`check3`)
    evaluates, for each empirical Copeland winner ``i1`` in index order, the LP core's sorting
    oracle (:func:`boundcalc.lp._kernels.copeland_sums` over the family's tables,
    :meth:`~boundcalc.lp.constraints.CopelandFamily.oracle_args`) on ``E = (N / log t) d``: the
    counts pass when ``1 - min_row sum <= check_tol``.  The tables are built compiled
    (:func:`build_tables`) once per empirical structure, equal to the LP core's (tested); when they
    outgrow their arrays the compiled step returns ``NEED_TABLES`` and Python enlarges them
    (:meth:`CopelandRMED._grow_tables`), then the decision is made again.  With the structure
    unchanged the rows are fixed, and bounds on the row sums often decide without the oracle
    (:func:`check3`).

ECW-RMED's caches
    A duel that keeps the empirical structure changes only the eq. (5) pools of the pair's loser
    and the eq. (4) row of its winner; those parts of Theorem 5 are recomputed, the others reused.

``stats``: ``forced`` (line 4 draws), ``checks`` (check (3) evaluations), ``targets`` (times line
11 is reached), ``solves`` (line 11 computed anew: the counts changed since the last one),
``self_duels``, ``structures`` (empirical structures met by check (3)), ``check_bound`` (check (3)
decided by its bounds, no oracle).
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np
from numba import njit

from ..lp import _kernels
from .base import Policy, Real
from .kernel import T_, CompiledPolicy, count, env_more, kl_half_c, play
from .registry import register_policy

__all__ = ["CopelandRMED", "ECWRMED", "ECWState", "Decision", "skeleton_state", "skeleton_select",
           "skeleton_learn", "skeleton_refresh", "skeleton_finish", "check3", "build_tables", "ecw_decide",
           "ecw_update", "ecw_resume", "ecw_run", "WINNER_TIE_RTOL"]

_kernels.load()  # the LP core's oracle and Theorem 5's pool row are called inside the steps
_pool_row = _kernels.ecw_pool_row
_copeland_sums = _kernels.copeland_sums  # check (3)'s oracle and tables: the LP core's
_copeland_tables = _kernels.copeland_tables

#: Relative tolerance under which two per-winner constants count as tied (line 11).
WINNER_TIE_RTOL = 1e-12

#: The skeleton's fields (every variant's state has them, by these names).
SKELETON_FIELDS = ["W", "N", "beats", "L", "d", "info", "C", "Q", "is_win", "wval", "dirty_lo", "dirty_hi",
                   "LC", "inLR", "inLN", "forced", "reg", "fr", "stats",
                   # check (3): E = (N / log t) d, the oracle's tables per winner (flat arrays with
                   # per-winner offsets), the N d and smallest row sums of the last oracle evaluation
                   "E", "tab_nc", "tab_off", "tab_coff", "tab_nI", "tab_Ia", "tab_pool", "tab_inIa", "tab_gI",
                   "tab_gS", "tab_ok", "tab_caseB", "tab_out", "chk_info", "chk_m"]
# reg: the round t, position in L_C, |L_C|, forced pairs of this pass, position among them, a pass
# starts, the structure is stale, line 11's allocation is current, i*, the selected pair is a
# draw of the loop over L_C, the structure's version (bumped by every refresh)
POS, NLC, NF, FPOS, PASS_START, FULL, HAVE_TARGET, ISTAR, IN_LOOP, STRUCT = range(1, 11)
# check (3): the structure version the tables are for, a decision waiting for Python, the structure
# version of the last oracle evaluation, check (3) decided by its bounds
TAB, PENDING, CHK, BND = 11, 12, 13, 14
N_REG = 15
ALPHA, BETA, CHECK_TOL = 0, 1, 2
S_FORCED, S_CHECKS, S_TARGETS, S_SOLVES, S_SELF, S_STRUCT, S_BOUND = range(7)
#: What a compiled decision may ask of Python: nothing, or larger table arrays (CW-RMED adds its own).
DONE, NEED_TABLES = 0, 1
#: Check (3) is decided by its bound (:func:`check3`) only when the bound clears the threshold by
#: this much (row sums are O(1); their rounding is below 1e-13).
CHECK_MARGIN = 1e-9

#: ECW-RMED's state: the skeleton's fields and the caches of Theorem 5 (``tgt_*``: per winner and
#: pool, the pool's part of ``C^E*``, the number ``h`` of pairs taken, their level ``1 / (h - k)``
#: and which they are), a scratch row ``keys``.
ECWState = namedtuple("ECWState", SKELETON_FIELDS + [
    "keys", "tgt_part", "tgt_h", "tgt_level", "tgt_sel", "tgt_I", "tgt_dirty", "tgtI_dirty"])

#: A decision of lines 7-13 on given counts (:meth:`CopelandRMED.decide`): the winner check (3)
#: passed for (None when it failed), line 11's ``i*``, allocation ``Q`` and per-winner constants
#: (None when check (3) passed), ``L_NC`` (lexicographic, then ``(i*, i*)``), and the policy's
#: counters for this one decision (e.g. CW-RMED's ``warm_answers``: line 11 without HiGHS).
Decision = namedtuple("Decision", ["check", "istar", "Q", "values", "next", "stats"])


def skeleton_state(K: int, params: dict, n_stats: int) -> dict:
    """The skeleton's arrays at ``t = 1`` (a dict by field name): counts 0, every structure stale,
    the first pass ``L_C = P_{i != j}`` in lexicographic order."""
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
    return dict(W=np.zeros((K, K), dtype=np.int64), N=np.zeros((K, K), dtype=np.int64),
                beats=np.zeros((K, K), dtype=np.bool_), L=np.zeros(K, dtype=np.int64), d=np.zeros((K, K)),
                info=np.zeros((K, K)), C=np.zeros((K, K)), Q=np.zeros((K, K)), is_win=np.zeros(K, dtype=np.bool_),
                wval=np.zeros(K), dirty_lo=np.ones(K, dtype=np.bool_), dirty_hi=np.ones(K, dtype=np.bool_),
                LC=LC, inLR=inLR, inLN=np.zeros(P, dtype=np.bool_), forced=np.zeros(P, dtype=np.int64), reg=reg,
                fr=np.array([params["alpha"], params["beta"], params["check_tol"]]),
                stats=np.zeros(n_stats, dtype=np.int64), E=np.zeros((K, K)), tab_nc=z(K), tab_off=z(K),
                tab_coff=z(K), tab_nI=z(K), tab_Ia=np.zeros((K, K), dtype=np.int64),
                tab_pool=np.zeros((K, K, K), dtype=np.bool_), tab_inIa=np.zeros((K, K), dtype=np.bool_),
                tab_gI=z(0), tab_gS=z(0), tab_ok=z(0, np.bool_), tab_caseB=z(0, np.bool_), tab_out=np.zeros(2 * K * K),
                chk_info=np.zeros((K, K)), chk_m=np.full(K, np.nan))


# ----------------------------------------------------------------------------- the skeleton
@njit(cache=True)
def skeleton_select(s):
    """The next pair: line 4's forced pairs of this pass (listed when the pass starts), then the
    pass's loop over ``L_C``."""
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


@njit(cache=True)
def _pair_regret(L, K, x, y, L1):
    return (float(L[x]) + float(L[y]) - 2.0 * float(L1)) / (2.0 * (K - 1))


@njit(cache=True)
def _min_loss(L):
    L1 = L[0]
    for q in range(L.shape[0]):
        if L[q] < L1:
            L1 = L[q]
    return L1


@njit(cache=True)
def skeleton_learn(s, i, j, won):
    """The counts after the duel ``(i, j)``; if the structure is kept, that pair's ``d``, ``N d``
    and cost, with its loser's eq. (5) rows and its winner's eq. (4) row marked changed; if it
    flips, the structure is marked stale.  Line 11's allocation is no longer current."""
    if i == j:
        return
    beats = s.beats
    W = s.W
    N = s.N
    old_ij = beats[i, j]
    old_ji = beats[j, i]
    count(s, i, j, won)
    s.reg[HAVE_TARGET] = 0
    if s.reg[FULL] or (2 * W[i, j] > N[i, j]) != old_ij or (2 * W[j, i] > N[j, i]) != old_ji:
        s.reg[FULL] = 1
        return
    K = W.shape[0]
    if beats[i, j] or beats[j, i]:
        n = N[i, j]
        x = 0.5 * (kl_half_c(W[i, j] / n) + kl_half_c(W[j, i] / n))
        s.d[i, j] = x
        s.d[j, i] = x
    else:
        s.d[i, j] = 0.0
        s.d[j, i] = 0.0
    L1 = _min_loss(s.L)
    for (x, y) in ((i, j), (j, i)):
        s.info[x, y] = float(N[x, y]) * s.d[x, y]
        if s.d[x, y] > 0:
            s.C[x, y] = _pair_regret(s.L, K, x, y, L1) / s.d[x, y]
        else:
            s.C[x, y] = np.inf
    if beats[i, j] or beats[j, i]:
        s.dirty_lo[j if beats[i, j] else i] = True  # the pair's loser: its eq. (5) rows change
        s.dirty_hi[i if beats[i, j] else j] = True  # the pair's winner: its eq. (4) row changes


@njit(cache=True)
def skeleton_refresh(s):
    """The empirical structure, ``d``, ``N d``, the costs and the winners recomputed from the counts
    (when stale); every row marked changed and the structure's version bumped."""
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
    L1 = _min_loss(L)
    for i in range(K):
        for j in range(K):
            if beats[i, j] or beats[j, i]:
                n = N[i, j]
                s.d[i, j] = 0.5 * (kl_half_c(W[i, j] / n) + kl_half_c(W[j, i] / n))
            else:
                s.d[i, j] = 0.0
            s.info[i, j] = float(N[i, j]) * s.d[i, j]
            if i != j and s.d[i, j] > 0:
                s.C[i, j] = _pair_regret(L, K, i, j, L1) / s.d[i, j]
            else:
                s.C[i, j] = np.inf
    for q in range(K):
        s.is_win[q] = L[q] == L1
        s.dirty_lo[q] = True
        s.dirty_hi[q] = True
    s.reg[FULL] = 0
    s.reg[STRUCT] += 1


@njit(cache=True)
def first_winner(s):
    """The first empirical Copeland winner (what ``t = 1`` exploits)."""
    for a in range(s.is_win.shape[0]):
        if s.is_win[a]:
            return a
    return -1


@njit(cache=True)
def argmin_winner(s):
    """``i*``: the winner with the smallest ``wval``; values within ``WINNER_TIE_RTOL`` relative of
    the minimum are tied and go to the smaller index."""
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


@njit(cache=True)
def skeleton_finish(s, exploit, log_t):
    """Lines 7-15 after check (3) (``exploit``: the winner it passed, or -1) and, when it failed,
    line 11 (``Q`` and ``reg[ISTAR]`` current): ``L_NC`` joins ``L_N`` (pairs still in ``L_R``
    excepted), the drawn pair leaves ``L_R``, a finished pass starts the next."""
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
@njit(cache=True)
def _min_row_sum(s, a, E):
    """The smallest row sum of ``R_a`` at ``E`` by the LP core's oracle on the stored tables."""
    K = s.W.shape[0]
    nc = s.tab_nc[a]
    if nc <= 0:
        return np.inf
    o = s.tab_off[a]
    n = K * nc
    out = s.tab_out[:n].reshape((K, nc))
    _copeland_sums(E, a, s.tab_Ia[a, :s.tab_nI[a]], s.tab_pool[a], s.tab_gI[o:o + n].reshape((K, nc)),
                   s.tab_gS[o:o + n].reshape((K, nc)), s.tab_ok[o:o + n].reshape((K, nc)),
                   s.tab_caseB[s.tab_coff[a]:s.tab_coff[a] + nc], s.tab_inIa[a], out)
    m = np.inf
    for x in range(K):
        for c in range(nc):
            if out[x, c] < m:
                m = out[x, c]
    return m


@njit(cache=True)
def build_tables(s):
    """The oracle's tables of every empirical winner, built from the empirical structure in place:
    for winner ``a``, what :meth:`CopelandFamily(st, a).oracle_args()
    <boundcalc.lp.constraints.CopelandFamily.oracle_args>` holds (``I_a``, the pools
    ``S_{i2} \\ {a}``, and per ``(i2, l, case)`` the clipped sizes ``|I|``, ``|S|`` and whether the
    case has rows, by the LP core's :func:`~boundcalc.lp._kernels.copeland_tables`; 000 eq. (2),
    every level ``l in max(0, L(1) - 1) .. L(2)``).  False (nothing
    written) when the flat arrays are too small: Python enlarges them (:meth:`CopelandRMED._grow_tables`)."""
    K = s.W.shape[0]
    L = s.L
    L1 = np.iinfo(np.int64).max
    L2 = L1
    for q in range(K):  # the two smallest losses, L(1) <= L(2)
        v = L[q]
        if v < L1:
            L2 = L1
            L1 = v
        elif v < L2:
            L2 = v
    lo = max(0, L1 - 1)
    nl = L2 - lo + 1
    nc = 2 * nl
    ls = np.arange(lo, L2 + 1)
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
        nI = 0
        for j in range(K):
            s.tab_inIa[a, j] = s.beats[a, j]
            if s.beats[a, j]:
                s.tab_Ia[a, nI] = j
                nI += 1
        s.tab_nI[a] = nI
        for i2 in range(K):
            size = 0
            for j in range(K):
                v = s.beats[j, i2] and j != a and i2 != a  # j in S_{i2} \ {a}
                s.tab_pool[a, i2, j] = v
                size += v
            psize[i2] = size
        gI = s.tab_gI[o:o + K * nc].reshape((K, nc))
        gS = s.tab_gS[o:o + K * nc].reshape((K, nc))
        _copeland_tables(s.L, a, ls, L1, psize, s.tab_inIa[a], nI, gI, gS, s.tab_ok[o:o + K * nc].reshape((K, nc)))
        for i2 in range(K):  # the oracle reads clipped sizes (family's _gI, _gS)
            for c in range(nc):
                gI[i2, c] = min(max(gI[i2, c], 0), nI)
                gS[i2, c] = min(gS[i2, c], K)
        for t in range(nl):
            s.tab_caseB[co + t] = False
            s.tab_caseB[co + nl + t] = True
        s.tab_nc[a] = nc
        s.tab_off[a] = o
        s.tab_coff[a] = co
        o += K * nc
        co += nc
    return True


@njit(cache=True)
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


@njit(cache=True)
def structure_tables(s):
    """The oracle's tables for the current empirical structure, built once per structure; False
    when the arrays are too small (the decision returns ``NEED_TABLES``; Python enlarges them)."""
    if s.reg[TAB] == s.reg[STRUCT]:
        return True
    if not build_tables(s):
        return False
    s.reg[TAB] = s.reg[STRUCT]
    s.stats[S_STRUCT] += 1
    return True


# ----------------------------------------------------------------------------- ECW-RMED
@njit(cache=True)
def _mark_targets(s):
    """Theorem 5's cached parts made stale by the duels since the last decision (``dirty_*``)."""
    for q in range(s.W.shape[0]):
        if s.dirty_lo[q]:
            s.tgt_dirty[q] = True
        if s.dirty_hi[q]:
            s.tgtI_dirty[q] = True
        s.dirty_lo[q] = False
        s.dirty_hi[q] = False


@njit(cache=True)
def ecw_target(s):
    """Line 11 for ECW-RMED: ``C^E*_a`` by Theorem 5 for every empirical winner (stale pool rows
    recomputed, others reused; pools sorted by (cost, arm)), ``i*`` by :func:`argmin_winner`, and
    ``Q = E / d`` of ``i*``'s allocation (``E`` normalised)."""
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
                part, h, level = _pool_row(s.beats, s.L, s.C, a, i2, s.tgt_sel[a, i2], s.keys)
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


@njit(cache=True)
def ecw_decide(s):
    """Lines 7-15 of Algorithm 1 for ECW-RMED after a draw of the loop, ``t`` the round just played.
    Returns DONE, or NEED_TABLES (nothing counted or changed beyond the structure's refresh, so the
    decision is simply made again once Python has enlarged the tables)."""
    skeleton_refresh(s)
    log_t = math.log(s.reg[T_])
    if log_t <= 0:
        exploit = first_winner(s)
    else:
        if not structure_tables(s):
            return NEED_TABLES
        exploit = check3(s, log_t)
        s.stats[S_CHECKS] += 1
        s.stats[S_BOUND] += s.reg[BND]
    _mark_targets(s)
    if exploit < 0:
        s.stats[S_TARGETS] += 1
        if not s.reg[HAVE_TARGET]:
            s.stats[S_SOLVES] += 1
            ecw_target(s)
            s.reg[HAVE_TARGET] = 1
    skeleton_finish(s, exploit, log_t)
    return DONE


@njit(cache=True)
def ecw_resume(s):
    """Make the waiting decision (Python has provided what it asked for); then ``t`` advances."""
    status = ecw_decide(s)
    if status == DONE:
        s.reg[PENDING] = 0
        s.reg[T_] += 1
    return status


@njit(cache=True)
def ecw_update(s, i, j, won):
    """ECW-RMED's learning step: the skeleton's, then (after a draw of the loop) lines 7-15; a
    decision that needs Python waits (``reg[PENDING]``) and :func:`ecw_resume` completes it."""
    skeleton_learn(s, i, j, won)
    if s.reg[IN_LOOP]:
        s.reg[IN_LOOP] = 0
        s.reg[PENDING] = 1
        return ecw_resume(s)
    s.reg[T_] += 1
    return DONE


@njit(cache=True)
def ecw_run(s, env):
    """ECW-RMED's whole-run kernel: select, duel, learn to the horizon; returns early (NEED_TABLES)
    when a decision needs Python, and continues from there when called again."""
    if s.reg[PENDING]:
        status = ecw_resume(s)
        if status != DONE:
            return status
    while env_more(env):
        i, j = skeleton_select(s)
        status = ecw_update(s, i, j, play(env, i, j))
        if status != DONE:
            return status
    return DONE


# ----------------------------------------------------------------------------- the classes
class CopelandRMED(CompiledPolicy):
    """The skeleton of 000's Algorithm 1 (see the module text); ECW-RMED and CW-RMED derive from it.

    Hyperparameters: ``alpha > 0`` (forced exploration ``N_ij < alpha sqrt(log t)``) and
    ``beta >= 0`` (``|mu_hat_ij - 1/2| < beta / log log t``); defaults 3 and 0.01, the values of
    000's experiments; ``check_tol`` (check (3) passes when the largest row violation of
    ``N / log t`` is at most this; default 1e-12, i.e. exact up to rounding).

    A compiled step that needs Python (larger tables; CW-RMED's LP) returns a request; the class
    serves it (:meth:`_serve`) and resumes the step (the variant's ``resume`` kernel).
    """

    hyperparameters = {
        "alpha": Real(3.0, low=0.0, low_open=True, doc="forced exploration N_ij < alpha sqrt(log t)"),
        "beta": Real(0.01, low=0.0, doc="forced exploration |mu_hat - 1/2| < beta / log log t; 0 disables"),
        "check_tol": Real(1e-12, low=0.0, high=1.0, doc="check (3) passes when the largest row violation is <= this"),
    }
    deterministic = True
    stat_names = ("forced", "checks", "targets", "solves", "self_duels", "structures", "check_bound")
    #: The variant's compiled ``resume(s)``: makes a waiting decision once Python has served it.
    resume: Any = None

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_resume", None)
        return state

    def _attach(self, arrays) -> None:
        super()._attach(arrays)
        self._resume = _resume_entry(type(self).resume, self._s)

    # -- stepping with Python's help ----------------------------------------------------------
    def _learn_compiled(self, i: int, j: int, won: bool) -> None:
        status = self._calls[1](self._s, i, j, won)
        while status != DONE:
            self._serve(status)
            status = self._resume(self._s)

    def run_environment(self, env: Any) -> None:
        run = type(self).kernels[2]
        status = run(self._s, env)
        while status != DONE:
            self._serve(status)
            status = run(self._s, env)

    def _decide(self) -> None:
        status = self._resume(self._s)
        while status != DONE:
            self._serve(status)
            status = self._resume(self._s)

    def _serve(self, status: int) -> None:
        """Provide what the compiled decision asked for."""
        if status == NEED_TABLES:
            self._grow_tables()
        else:  # pragma: no cover - defensive
            raise RuntimeError(f"{self.name}: unknown request {status} from the compiled step")

    def _grow_tables(self) -> None:
        """Flat table arrays large enough for the current structure (twice that, at most every
        level of every arm), for :func:`build_tables` to fill."""
        a = self._arrays
        K = self.K
        L = np.sort(a.L)
        nc = 2 * (int(L[1]) - max(0, int(L[0]) - 1) + 1)
        nwin = int(a.is_win.sum())
        size = min(2 * nwin * K * nc, 2 * K ** 3)
        csize = min(2 * nwin * nc, 2 * K * K)
        self._replace(tab_gI=np.zeros(size, dtype=np.int64), tab_gS=np.zeros(size, dtype=np.int64),
                      tab_ok=np.zeros(size, dtype=np.bool_), tab_caseB=np.zeros(csize, dtype=np.bool_))

    def _replace(self, **arrays) -> None:
        """New arrays for some fields (sizes changed): the bundle is rebuilt over them."""
        self._attach(self._arrays._replace(**arrays))

    @property
    def candidates(self) -> list[tuple[int, int]]:
        """``L_C``, the current pass's list (a copy)."""
        a = self._arrays
        return [divmod(int(c), self.K) for c in a.LC[:a.reg[NLC]]]

    def decide(self, t: int, wins: np.ndarray, draws: np.ndarray) -> Decision:
        """Lines 7-13 of Algorithm 1 on the counts ``wins`` (``draws = wins + wins.T``) after round
        ``t``, as this policy decides them (its own state is left alone): check (3), line 11 and
        ``L_NC``.  For tests and inspection."""
        W = np.array(wins, dtype=np.int64)
        N = np.array(draws, dtype=np.int64)
        K = self.K
        if W.shape != (K, K) or N.shape != (K, K) or not np.array_equal(N, W + W.T) or np.any(np.diag(N)):
            raise ValueError(f"wins must be a {K}x{K} count matrix with draws = wins + wins.T")
        arrays = self.initial_state()
        arrays.W[:] = W
        arrays.N[:] = N
        reg = arrays.reg
        reg[T_], reg[NLC], reg[POS], reg[PASS_START], reg[IN_LOOP] = int(t), 1, 0, 0, 1
        arrays.LC[0] = 1 * K + 0  # a stand-in for the drawn pair (its L_R bit is cleared)
        arrays.inLR[:] = False
        saved = (self._arrays, self._s, self._calls)
        try:
            self._attach(arrays)
            self._decide()
        finally:
            self._arrays, self._s, self._calls = saved
        nxt = [divmod(int(c), K) for c in arrays.LC[:arrays.reg[NLC]]]
        nxt = [p for p in nxt if p[0] != p[1]] + [p for p in nxt if p[0] == p[1]]
        stats = dict(zip(self.stat_names, (int(x) for x in arrays.stats)))
        if arrays.stats[S_TARGETS] == 0:
            return Decision(nxt[0][0], None, None, None, nxt, stats)
        values = {a: float(arrays.wval[a]) for a in np.flatnonzero(arrays.is_win).tolist()}
        return Decision(None, int(arrays.reg[ISTAR]), arrays.Q.copy(), values, nxt, stats)

@register_policy
class ECWRMED(CopelandRMED):
    """ECW-RMED: 000's Algorithm 1 with line 11 over ``R^E`` (eqs. (4)-(5)), Theorem 5's closed form.

    Check (3) (line 8, the same as CW-RMED's) tests the observed counts against ``R_{i1}(mu_hat)``
    of eq. (2) for each empirical Copeland winner in index order (:func:`check3`); when none passes,
    line 11 takes the winner with the smallest ``C^E*_{i1}(mu_hat)`` and its closed-form allocation,
    cost ties broken towards the smaller arm index (:func:`ecw_target`).  Defaults ``alpha = 3``,
    ``beta = 0.01`` (000's experiments); ``beta = 0`` allowed; ``check_tol`` as CW-RMED's.  The readings of the loose parts of the text are listed
    in :mod:`boundcalc.policies.copeland_rmed`.  Regret is at most ``C^E* log T + o(log T)``
    (Theorem 4).

    Examples
    --------
    >>> p = ECWRMED(3)
    >>> [p.select_pair() for _ in range(1)]
    [(1, 0)]
    """

    name = "ecw-rmed"
    reference = "Komiyama, Honda & Nakagawa (ICML 2016), Algorithm 1 (ECW), Theorem 5"
    #: 2: check (3) against line 8's ``R``, as printed (0.1.0 tested ``R^E``).
    revision = 2
    State = ECWState
    kernels = (skeleton_select, ecw_update, ecw_run)
    resume = ecw_resume

    def initial_state(self) -> ECWState:
        K = self.K
        base = skeleton_state(K, self.params, len(self.stat_names))
        return ECWState(**base, keys=np.empty(K), tgt_part=np.zeros((K, K)),
                        tgt_h=np.zeros((K, K), dtype=np.int64), tgt_level=np.zeros((K, K)),
                        tgt_sel=np.zeros((K, K, K), dtype=np.int64), tgt_I=np.zeros(K),
                        tgt_dirty=np.ones(K, dtype=np.bool_), tgtI_dirty=np.ones(K, dtype=np.bool_))


_RESUME: dict = {}


def _resume_entry(kernel, s):
    """``kernel`` (a variant's ``resume``) bound to the state's type (cached): one compiled call."""
    from .kernel import bind

    key = (kernel, s._numba_type_)
    got = _RESUME.get(key)
    if got is None:
        got = bind(kernel, s)
        _RESUME[key] = got
    return got
