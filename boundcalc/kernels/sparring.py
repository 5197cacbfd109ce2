"""Sparring's compiled state and steps (Ailon, Karnin & Joachims, ICML 2014, Sparring) with two UCB1
sub-bandits (Auer, Cesa-Bianchi & Fischer 2002); the reading is in :mod:`boundcalc.policies.sparring`.
:func:`ucb1_arm` is shared with Doubler (:mod:`boundcalc.kernels.doubler`).

>>> P = np.array([[1, 1], [1, 0]]); G = np.array([[1, 0], [0, 0]])
>>> ucb1_arm.py_func(P, G, 0, 2.0), ucb1_arm.py_func(P, G, 1, 2.0)   # 1 + sqrt(2 ln 2) beats 0 + it; arm 1 unplayed
(0, 1)
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .policy import T_, count, env_more, play

#: Sparring's state: the protocol's counts; the two UCB1s' plays ``P[s, k]`` and rewards ``G[s, k]``
#: (``s = 0`` left, ``1`` right); ``reg = [t]``; ``fr = [alpha]``.
SparringState = namedtuple("SparringState", ["W", "N", "P", "G", "reg", "fr", "stats"])


@njit(cache=True)
def ucb1_arm(P, G, side, alpha):
    """UCB1's arm for sub-bandit ``side``: the first unplayed arm, else the first maximiser of
    ``G_k / N_k + sqrt(alpha ln n / N_k)``."""
    K = P.shape[1]
    n = 0
    for k in range(K):
        if P[side, k] == 0:
            return k
        n += P[side, k]
    ln = math.log(n)
    best = -np.inf
    arg = 0
    for k in range(K):
        v = G[side, k] / P[side, k] + math.sqrt(alpha * ln / P[side, k])
        if v > best:
            best = v
            arg = k
    return arg


@njit(cache=True)
def sparring_select(s):
    """The left and the right UCB1's arms.  ``stats = [self_duels]``."""
    x = ucb1_arm(s.P, s.G, 0, s.fr[0])
    y = ucb1_arm(s.P, s.G, 1, s.fr[0])
    if x == y:
        s.stats[0] += 1
    return x, y


@njit(cache=True)
def sparring_update(s, i, j, won):
    """Reward 1 to the side whose arm won (a self-duel included), 0 to the other."""
    count(s, i, j, won)
    s.P[0, i] += 1
    s.P[1, j] += 1
    if won:
        s.G[0, i] += 1
    else:
        s.G[1, j] += 1
    s.reg[T_] += 1


@njit(cache=True)
def sparring_run(s, env):
    """Sparring's whole-run kernel: :func:`sparring_select`, the duel, :func:`sparring_update`."""
    while env_more(env):
        i, j = sparring_select(s)
        sparring_update(s, i, j, play(env, i, j))
