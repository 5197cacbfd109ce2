"""RCS's compiled state and steps (Zoghi, Whiteson, de Rijke & Munos, WSDM 2014, Algorithm 1); the reading
of each step and the draws it makes are in :mod:`boundcalc.policies.rcs`.  The challenger is RUCB's
(:func:`~boundcalc.kernels.stats.ucb`, :func:`~boundcalc.kernels.stats.argmax_ties`).

>>> RCSState._fields[:5]   # the counts, the policy stream and its spare, the sampled tournament
('W', 'N', 'rs', 'spare', 'theta')
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .policy import T_, count_wn, env_more, play
from .stats import argmax_ties, held_beta, held_stream, store_stream, ucb

#: RCS's state: the counts, the policy stream and its Box-Muller spare, ``theta`` (K x K), the
#: champion counts ``B``, scratch (a column of ``U``, ties); ``reg = [t]``, ``fr = [alpha]``.
RCSState = namedtuple("RCSState", ["W", "N", "rs", "spare", "theta", "champ", "col", "ties", "reg", "fr", "stats"])

#: Indices of ``fr``: ``alpha``.
ALPHA = 0
#: Indices of ``stats``, the policy's ``stat_names`` (``self_duels``, ``no_sampled_winner``).
N_SELF_DUELS, N_NO_SAMPLED_WINNER = 0, 1


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def rcs_select(s):
    """RCS's pair: the simulated tournament's champion and its RUCB challenger.
    ``stats = [self_duels, no_sampled_winner]``."""
    W = s.W
    N = s.N
    K = W.shape[0]
    theta = s.theta
    g = held_stream(s.rs, s.spare)
    for i in range(K):
        for j in range(i + 1, K):
            g, x = held_beta(g, W[i, j] + 1.0, W[j, i] + 1.0)
            theta[i, j] = x
            theta[j, i] = 1.0 - x
    store_stream(g, s.rs, s.spare)
    c = np.int64(-1)
    for i in range(K):
        ok = True
        for j in range(K):
            if j != i and theta[i, j] < 0.5:
                ok = False
                break
        if ok:
            c = i
            break
    if c < 0:
        s.stats[N_NO_SAMPLED_WINNER] += 1
        c = np.int64(0)
        for i in range(1, K):
            if s.champ[i] < s.champ[c]:
                c = i
    s.champ[c] += 1
    al = s.fr[ALPHA] * math.log(s.reg[T_])
    for j in range(K):
        s.col[j] = 0.5 if j == c else ucb(W, N, al, j, c)
    d = argmax_ties(s.rs, s.col, c, s.ties)
    if d == c:
        s.stats[N_SELF_DUELS] += 1
    return c, d


@njit(cache=True, no_cfunc_wrapper=True)
def rcs_run(s, env):
    """RCS's whole-run kernel: :func:`rcs_select`, the duel, the counts, to the horizon."""
    while env_more(env):
        i, j = rcs_select(s)
        won = play(env, i, j)
        count_wn(s.W, s.N, i, j, won)  # plain_update, written out (kernels.policy, "Compile time")
        s.reg[T_] += 1
