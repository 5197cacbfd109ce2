"""Doubler's compiled state and steps (Ailon, Karnin & Joachims, ICML 2014, Doubler) with a UCB1 singleton
bandit (:func:`~boundcalc.kernels.stats.ucb1_arm`); the reading and the draws are in
:mod:`boundcalc.policies.doubler`.

>>> DoublerState._fields[5:7], (EPOCH, POS, SIZE)   # the multisets L and the one being built
(('L', 'Lnew'), (1, 2, 3))
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .codesize import optimize_for_size
from .policy import T_, count_wn, env_more, play
from .stats import stream_index, ucb1_arm

#: Doubler's state: the protocol's counts, the policy stream, UCB1's plays ``P[0]`` and rewards
#: ``G[0]`` (2-D for :func:`~boundcalc.kernels.stats.ucb1_arm`), the multiset ``L`` of the last
#: epoch (counts per arm) and the one being built; ``reg = [t, epoch i, round in the epoch, |L|]``;
#: ``fr = [alpha]``.
DoublerState = namedtuple("DoublerState", ["W", "N", "rs", "P", "G", "L", "Lnew", "reg", "fr", "stats"])

#: Indices of ``fr``: ``alpha``.
ALPHA = 0
#: Indices of ``stats``, the policy's ``stat_names`` (``self_duels``, ``epochs``).
N_SELF_DUELS, N_EPOCHS = 0, 1

EPOCH, POS, SIZE = 1, 2, 3
_CAP = 2**62


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def doubler_select(s):
    """``x_t`` uniform from ``L``, ``y_t`` UCB1's arm.  ``stats = [self_duels, epochs]``."""
    K = s.L.shape[0]
    n = s.reg[SIZE]
    if n > 1:
        k = stream_index(s.rs, n)
        x = np.int64(0)
        for a in range(K):
            if k < s.L[a]:
                x = a
                break
            k -= s.L[a]
    else:
        x = np.int64(0)
        for a in range(K):
            if s.L[a] > 0:
                x = a
                break
    y = ucb1_arm(s.P, s.G, 0, s.fr[ALPHA])
    if x == y:
        s.stats[N_SELF_DUELS] += 1
    return x, y


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def doubler_update(s, i, j, won):
    """UCB1 learns ``b_t = 1`` when the right arm won; at an epoch's end ``L`` is replaced and UCB1
    reset."""
    count_wn(s.W, s.N, i, j, won)
    s.P[0, j] += 1
    if not won:
        s.G[0, j] += 1
    s.Lnew[j] += 1
    pos = s.reg[POS] + 1
    e = s.reg[EPOCH]
    length = _CAP if e >= 62 else 2**e
    if pos >= length:
        K = s.L.shape[0]
        for a in range(K):
            s.L[a] = s.Lnew[a]
            s.Lnew[a] = 0
            s.P[0, a] = 0
            s.G[0, a] = 0
        s.reg[SIZE] = length
        s.reg[EPOCH] = e + 1
        pos = 0
        s.stats[N_EPOCHS] += 1
    s.reg[POS] = pos
    s.reg[T_] += 1


@njit(cache=True, no_cfunc_wrapper=True)
def doubler_run(s, env):
    """Doubler's whole-run kernel: :func:`doubler_select`, the duel, :func:`doubler_update`."""
    optimize_for_size()
    while env_more(env):
        i, j = doubler_select(s)
        doubler_update(s, i, j, play(env, i, j))
