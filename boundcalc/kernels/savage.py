"""SAVAGE's compiled state and steps (Urvoy, Clerot, Feraud & Naamane, ICML 2013, Algorithm 1);
the reading of each step is in :mod:`boundcalc.policies.savage`."""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .policy import T_, count_wn, env_more, play

#: SAVAGE's state: the counts, the box ``[lo, hi]`` of every ``x_ij``, the Copeland score bounds
#: ``Lo`` (``low``) and ``Up`` (``up``); ``reg = [t, W empty, exploited arm]``, ``fr = [log(2 N T / delta)]``.
SAVAGEState = namedtuple("SAVAGEState", ["W", "N", "lo", "hi", "low", "up", "reg", "fr", "stats"])

#: Indices of ``fr``: ``log(2 N T / delta)``.
LOG_TERM = 0
#: Indices of ``stats``, the policy's ``stat_names`` (``exploration``, ``self_duels``).
N_EXPLORATION, N_SELF_DUELS = 0, 1


DONE, WINNER = 1, 2


def savage_log_term(K: int, horizon: int, delta_scale: float) -> float:
    """``log(2 N T / delta)`` of 003 eq. (1) with ``N = K(K-1)/2`` and ``delta = delta_scale / T``.

    >>> round(savage_log_term(5, 10**5, 1.0), 4)    # log(20 * 10^10)
    26.0216
    """
    delta = delta_scale / horizon
    q = K * (K - 1) * horizon / delta if delta > 0 else math.inf
    if math.isfinite(q):
        return math.log(q)
    # delta_scale / T underflows or the quotient overflows: the same logarithm, summed
    return math.log(K * (K - 1)) + 2 * math.log(horizon) - math.log(delta_scale)


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def savage_select(s):
    """Algorithm 1's next pair: the undecided pair of ``W`` with the fewest samples (the
    lexicographically first on ties), or the exploiting self-duel once ``W`` is empty.
    ``stats = [exploration, self_duels]``."""
    if not s.reg[DONE]:
        K = s.W.shape[0]
        low = s.low
        up = s.up
        top = low[0]
        for a in range(1, K):
            if low[a] > top:
                top = low[a]
        bi = np.int64(-1)
        bj = np.int64(-1)
        bn = np.int64(0)
        for a in range(K):
            for b in range(a + 1, K):
                if s.lo[a, b] <= 0.5 <= s.hi[a, b] and (up[a] >= top or up[b] >= top):
                    if bi < 0 or s.N[a, b] < bn:
                        bi = a
                        bj = b
                        bn = s.N[a, b]
        if bi >= 0:
            s.stats[N_EXPLORATION] += 1
            return bi, bj
        s.reg[DONE] = 1
        w = np.int64(0)
        for a in range(1, K):
            if low[a] > low[w]:
                w = a
        s.reg[WINNER] = w
    s.stats[N_SELF_DUELS] += 1
    w = s.reg[WINNER]
    return w, w


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def savage_update(s, i, j, won):
    """The outcome of ``(i, j)``, ``i < j``: the box is intersected with ``|x_ij - mu_hat_ij| <= c(N_ij)``
    (003 eq. (1)) and the Copeland score bounds of the two arms follow."""
    count_wn(s.W, s.N, i, j, won)
    if i != j:
        K = s.W.shape[0]
        lo = s.lo
        hi = s.hi
        n = s.N[i, j]
        m = s.W[i, j] / n
        r = math.sqrt(s.fr[LOG_TERM] / (2.0 * n))
        old_lo = lo[i, j] > 0.5
        old_hi = hi[i, j] > 0.5
        v = m - r  # max(lo_ij, m - r) and min(hi_ij, m + r) as Python's max/min (no overload compiled)
        if v > lo[i, j]:
            lo[i, j] = v
        v = m + r
        if v < hi[i, j]:
            hi[i, j] = v
        lo[j, i] = 1.0 - hi[i, j]
        hi[j, i] = 1.0 - lo[i, j]
        # Copeland score bounds: (i, j)'s entries only (lo_ji > 1/2 iff hi_ij < 1/2, etc.)
        s.low[i] += np.int64(lo[i, j] > 0.5) - np.int64(old_lo)
        s.up[i] += np.int64(hi[i, j] > 0.5) - np.int64(old_hi)
        s.low[j] = 0
        s.up[j] = 0
        for b in range(K):
            if b != j:
                s.low[j] += lo[j, b] > 0.5
                s.up[j] += hi[j, b] > 0.5
    s.reg[T_] += 1


@njit(cache=True, no_cfunc_wrapper=True)
def savage_run(s, env):
    """SAVAGE's whole-run kernel: :func:`savage_select`, the duel, :func:`savage_update`, to the horizon."""
    while env_more(env):
        i, j = savage_select(s)
        savage_update(s, i, j, play(env, i, j))
