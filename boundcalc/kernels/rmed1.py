"""RMED1's compiled state and steps (Komiyama, Honda, Kashima & Nakagawa, COLT 2015, Algorithms 1-2);
the reading of each step is in :mod:`boundcalc.policies.rmed1`.

>>> from boundcalc.kernels.policy import bundle
>>> s = rmed_state(3, {"f_scale": 0.3, "f_power": 1.01, "n_init": 1}, 2)
>>> rmed1_select(bundle(s))   # the initial phase: the first pair drawn fewer than n_init times
(0, 1)
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .codesize import optimize_for_size
from .policy import T_, count_wn
from .stats import kl_half

#: The function whose cache entry stands for this module's (:func:`boundcalc.kernels.cached`).
CACHE_ENTRY = "rmed_update"

#: RMED's state (RMED1, RMED2 and RMED2FH): the counts, ``G = N d`` on the losing side (``G_ij = N_ij
#: d(mu_hat_ij)`` when ``mu_hat_ij < 1/2``, else 0), ``I_i = sum_j G_ij``, the list ``L_C`` (its
#: first ``reg[NLC]`` entries) and the membership flags of ``L_R`` and ``L_N``; RMED2FH's fixed
#: targets ``bfix`` (``-2`` until its main loop starts) and forced threshold ``thr = [alpha log log
#: T]`` (:mod:`boundcalc.kernels.rmed2fh`; unread by RMED1 and RMED2).  One layout for the three
#: policies: numba compiles a function of the state once per state type, so RMED's shared steps
#: (:func:`initial_pair`, :func:`rmed_update`) compile once for all three.
RMEDState = namedtuple("RMEDState", ["W", "N", "G", "I", "LC", "inLR", "inLN", "reg", "fr", "stats", "bfix", "thr"])

#: Indices of ``stats``, the policy's ``stat_names`` (``initial``, ``self_duels``).
N_INITIAL, N_SELF_DUELS = 0, 1


# reg: the round t, the position in L_C, |L_C|, the initial phase still on, the selected pair is a
# draw of the loop over L_C, n_init, the policy (RMED1, RMED2 or RMED2FH: whose select the whole-run
# kernel :func:`boundcalc.kernels.rmed2fh.rmed_run` calls); fr: f(K), RMED2's alpha and delta_floor
POS, NLC, INITIAL, IN_LOOP, N_INIT, VARIANT = 1, 2, 3, 4, 5, 6


#: ``reg[VARIANT]`` of each policy.
RMED1, RMED2, RMED2FH = 0, 1, 2


FK, ALPHA, FLOOR = 0, 1, 2


def rmed_state(K: int, params: dict, n_stats: int, thr: float = 0.0, variant: int = RMED1) -> RMEDState:
    """RMED's state at ``t = 1`` for the policy ``variant``: counts 0, ``L_C = L_R = [K]``, ``L_N``
    empty, the initial phase on; RMED2FH's targets unfixed and its forced threshold ``thr``."""
    fK = params["f_scale"] * float(K) ** params["f_power"]
    return RMEDState(
        np.zeros((K, K), dtype=np.int64),
        np.zeros((K, K), dtype=np.int64),
        np.zeros((K, K)),
        np.zeros(K),
        np.arange(K, dtype=np.int64),
        np.ones(K, dtype=np.bool_),
        np.zeros(K, dtype=np.bool_),
        np.array([1, 0, K, 1, 0, params["n_init"], variant], dtype=np.int64),
        np.array([fK, float(params.get("alpha", 0.0)), float(params.get("delta_floor", 0.0))]),
        np.zeros(n_stats, dtype=np.int64),
        np.full(K, -2, dtype=np.int64),
        np.array([float(thr)]),
    )


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def first_pair(N, thr):
    """The first pair ``a < b`` (row-major) drawn fewer than ``thr`` times, or ``(-1, -1)``:
    RMED's initial phase (``thr = n_init``) and RMED2's forced exploration (``alpha log log t``)."""
    optimize_for_size()
    K = N.shape[0]
    for a in range(K):
        for b in range(a + 1, K):
            if N[a, b] < thr:
                return a, b
    return -1, -1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def argmin_first(x):
    """The first index of the smallest entry (RMED's ``i*(t)``, ties to the smallest arm)."""
    optimize_for_size()
    m = 0
    for a in range(1, x.shape[0]):
        if x[a] < x[m]:
            m = a
    return m


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def initial_pair(s):
    """RMED's initial phase: the next pair drawn fewer than ``n_init`` times (counted in ``stats[N_INITIAL]``),
    or ``(-1, -1)`` once every pair has its draws (the phase then ends for good)."""
    optimize_for_size()
    if s.reg[INITIAL]:
        i, j = first_pair(s.N, float(s.reg[N_INIT]))  # a float threshold, as RMED2's: one compilation
        if i >= 0:
            s.stats[N_INITIAL] += 1
            s.reg[IN_LOOP] = 0
            return i, j
        s.reg[INITIAL] = 0
    return -1, -1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def rmed1_opponent(W, N, l, istar):
    """RMED1's opponent of ``l`` (Algorithm 2): ``i*`` when it is in ``O_l = {j : mu_lj <= 1/2}``
    or ``O_l`` is empty, else ``argmin_{j != l} mu_lj`` (undrawn pairs 1/2; that argmin lies in
    ``O_l``, whose members are the only arms with ``mu_lj <= 1/2``)."""
    optimize_for_size()
    K = W.shape[0]
    n_opp = np.int64(0)
    istar_opp = np.bool_(False)
    for b in range(K):
        if b != l and 2 * W[l, b] <= N[l, b]:
            n_opp += 1
            if b == istar:
                istar_opp = np.bool_(True)
    if istar_opp or n_opp == 0:
        return istar
    best = np.inf
    m = np.int64(-1)
    for b in range(K):
        if b == l:
            continue
        x = W[l, b] / N[l, b] if N[l, b] > 0 else 0.5
        if x < best:
            best = x
            m = b
    return m


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def rmed1_select(s):
    """RMED1's next pair: the initial phase, then ``(l, m)`` for ``l`` the next arm of ``L_C``."""
    i, j = initial_pair(s)
    if i >= 0:
        return i, j
    s.reg[IN_LOOP] = 1
    l = s.LC[s.reg[POS]]
    m = rmed1_opponent(s.W, s.N, l, argmin_first(s.I))
    if m == l:
        s.stats[N_SELF_DUELS] += 1
    return l, m


@njit(cache=True, no_cfunc_wrapper=True)
def rmed_update(s, i, j, won):
    """RMED's learning step (RMED1 and RMED2): the counts, ``G`` and ``I`` of the two arms; after a
    draw of the loop the list step -- ``l`` leaves ``L_R``, every arm within ``log t + f(K)`` of the
    best ``I`` joins ``L_N``, a finished pass starts the next -- then ``t`` advances."""
    optimize_for_size()
    count_wn(s.W, s.N, i, j, won)
    W = s.W
    N = s.N
    if i != j:
        for x, y in ((i, j), (j, i)):
            n = N[x, y]
            if 2 * W[x, y] < n:
                s.G[x, y] = float(n) * kl_half(W[x, y] / n)
            else:
                s.G[x, y] = 0.0
        for x in (i, j):  # I of the two arms, written out (a helper is one more compilation)
            acc = 0.0
            for y in range(W.shape[0]):
                acc += s.G[x, y]
            s.I[x] = acc
    t = s.reg[T_]
    if s.reg[IN_LOOP]:
        s.reg[IN_LOOP] = 0
        K = W.shape[0]
        pos = s.reg[POS]
        s.inLR[s.LC[pos]] = False
        istar = argmin_first(s.I)
        bound = math.log(t) + s.fr[FK]
        for a in range(K):
            if not s.inLR[a] and s.I[a] - s.I[istar] <= bound:
                s.inLN[a] = True
        pos += 1
        if pos == s.reg[NLC]:
            n = np.int64(0)
            for a in range(K):
                s.inLR[a] = s.inLN[a]
                if s.inLN[a]:
                    s.LC[n] = a
                    n += 1
                s.inLN[a] = False
            s.reg[NLC] = n
            pos = 0
        s.reg[POS] = pos
    s.reg[T_] = t + 1
