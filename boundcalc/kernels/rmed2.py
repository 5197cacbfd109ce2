"""RMED2's compiled steps (Komiyama et al., COLT 2015, Algorithms 1 and 3); the reading of each step
is in :mod:`boundcalc.policies.rmed2`."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .codesize import optimize_for_size
from .policy import T_
from .rmed1 import (
    ALPHA,
    FLOOR,
    IN_LOOP,
    POS,
    argmin_first,
    first_pair,
    initial_pair,
    rmed1_opponent,
)
from .stats import kl_half

#: Indices of ``stats``, the policy's ``stat_names`` (``forced``, ``self_duels``, ``to_winner``, ``to_target``).
N_FORCED, N_SELF_DUELS, N_TO_WINNER, N_TO_TARGET = 1, 2, 3, 4


#: The function whose cache entry stands for this module's (:func:`boundcalc.kernels.cached`).
CACHE_ENTRY = "rmed2_target"


@njit(cache=True, no_cfunc_wrapper=True)
def rmed2_target(W, N, istar, l, floor):
    """``b(l)``: the arm ``j`` with ``mu_hat_lj < 1/2`` minimising
    ``max(Delta_{i* l} + Delta_{i* j}, floor) / d(mu_hat_lj)`` (RMED2, COLT 2015, Algorithm 3),
    ``Delta_{i* j} = mu_hat_{i* j} - 1/2``; ``-1`` when no arm beats ``l`` empirically.
    Ties go to the smaller index.

    >>> import numpy as np
    >>> W = np.array([[0, 6, 9], [4, 0, 1], [1, 9, 0]]); N = W + W.T
    >>> rmed2_target(W, N, 0, 1, 0.01), rmed2_target(W, N, 0, 0, 0.01)
    (2, -1)
    """
    optimize_for_size()
    K = W.shape[0]
    dl = (W[istar, l] / N[istar, l] if N[istar, l] > 0 else 0.5) - 0.5  # mu_hat, 1/2 when undrawn
    best = math.inf
    bt = np.int64(-1)
    for b in range(K):
        if b == l or not 2 * W[l, b] < N[l, b]:
            continue
        num = dl + ((W[istar, b] / N[istar, b] if N[istar, b] > 0 else 0.5) - 0.5)
        if num < floor:
            num = floor
        x = num / kl_half(W[l, b] / N[l, b])
        if x < best:
            best = x
            bt = b
    return bt


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def rmed2_select(s):
    """RMED2's next pair: the initial phase, line 1's forced exploration, then ``(l, m)`` by
    Algorithm 3 for ``l`` the next arm of ``L_C``.  ``stats = [initial, forced, self_duels,
    to_winner, to_target]``."""
    i, j = initial_pair(s)
    if i >= 0:
        return i, j
    t = s.reg[T_]
    if t >= 3:
        i, j = first_pair(s.N, s.fr[ALPHA] * math.log(math.log(t)))
        if i >= 0:
            s.stats[N_FORCED] += 1
            s.reg[IN_LOOP] = 0
            return i, j
    s.reg[IN_LOOP] = 1
    W = s.W
    N = s.N
    l = s.LC[s.reg[POS]]
    istar = argmin_first(s.I)
    bt = rmed2_target(W, N, istar, l, s.fr[FLOOR])
    if bt >= 0:
        loglog = math.log(math.log(t))
        if istar != l and 2 * W[l, istar] <= N[l, istar] and N[l, istar] * loglog <= N[l, bt]:
            m = istar
            s.stats[N_TO_WINNER] += 1
        else:
            m = bt
            s.stats[N_TO_TARGET] += 1
    else:  # no arm beats l empirically: RMED1's rule (its minimiser lies among the arms l does not beat)
        m = rmed1_opponent(W, N, l, istar)
    if m == l:
        s.stats[N_SELF_DUELS] += 1
    return l, m
