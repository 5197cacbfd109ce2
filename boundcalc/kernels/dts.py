"""D-TS's and D-TS+'s compiled state and steps (Wu & Liu, NIPS 2016, Algorithm 1 and Sec. 4.3); the
reading of each step and the draws it makes are in :mod:`boundcalc.policies.dts`.

>>> import numpy as np
>>> from boundcalc.policies import make_policy
>>> p = make_policy("dts", 3)
>>> pairs, won = p.run(np.array([[0.5, 0.9, 0.9], [0.1, 0.5, 0.5], [0.1, 0.5, 0.5]]), 2000, seed=1)
>>> int((pairs == 0).all(axis=1)[-500:].sum()) > 400   # the Condorcet winner's self-duels dominate
True
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .policy import T_, count_wn, env_more, play
from .stats import held_beta, held_index, held_stream, kl_half, lcb, store_stream, ucb

#: D-TS's state: the counts, the policy stream and its Box-Muller spare, ``theta1`` (K x K), scratch
#: (candidates, line 11's maximisers, scores); ``reg = [t, plus]`` (``plus``: D-TS+), ``fr = [alpha]``.
DTSState = namedtuple("DTSState", ["W", "N", "rs", "spare", "theta", "cand", "best", "score", "reg", "fr", "stats"])

#: Indices of ``fr``: ``alpha``.
ALPHA = 0
#: Indices of ``stats``, the policy's ``stat_names`` (``self_duels``, ``eliminations``, ``ties``).
N_SELF_DUELS, N_ELIMINATIONS, N_TIES = 0, 1, 2


PLUS = 1


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def dts_select(s):
    """D-TS's pair (001 Algorithm 1 lines 4-14; D-TS+'s line 11 when ``reg[PLUS]``).
    ``stats = [self_duels, eliminations, ties]``."""
    W = s.W
    N = s.N
    K = W.shape[0]
    theta = s.theta
    score = s.score
    cand = s.cand
    best = s.best
    al = s.fr[ALPHA] * math.log(s.reg[T_])
    mx = np.int64(-1)  # lines 4-6: upper Copeland scores and the candidates C
    for i in range(K):
        c = np.int64(0)
        for j in range(K):
            if j != i and ucb(W, N, al, i, j) > 0.5:
                c += 1
        score[i] = c
        if c > mx:
            mx = c
    nC = np.int64(0)
    for i in range(K):
        if score[i] == mx:
            cand[nC] = i
            nC += 1
    if nC < K:
        s.stats[N_ELIMINATIONS] += 1
    g = held_stream(s.rs, s.spare)  # the policy stream, held in registers to the end of the round
    for i in range(K):  # lines 7-10
        for j in range(i + 1, K):
            g, x = held_beta(g, W[i, j] + 1.0, W[j, i] + 1.0)
            theta[i, j] = x
            theta[j, i] = 1.0 - x
    for i in range(K):
        c = np.int64(0)
        for j in range(K):
            if j != i and theta[i, j] > 0.5:
                c += 1
        score[i] = c
    mx = np.int64(-1)  # line 11 (D-TS+: Sec. 4.3)
    for q in range(nC):
        if score[cand[q]] > mx:
            mx = score[cand[q]]
    nb = np.int64(0)  # int64 from the start (kernels.policy, "Compile time")
    for q in range(nC):
        if score[cand[q]] == mx:
            best[nb] = cand[q]
            nb += 1
    if nb == 1:
        a1 = best[0]
    else:
        s.stats[N_TIES] += 1
        if s.reg[PLUS]:
            zstar = 0.0
            for i in range(K):
                z = score[i] / (K - 1)
                if z > zstar:
                    zstar = z
            a1 = best[0]
            rbest = np.inf
            for q in range(nb):
                i = best[q]
                zi = score[i] / (K - 1)
                r = 0.0
                for j in range(K):
                    if j != i and theta[i, j] != 0.5:
                        r += (zstar - 0.5 * (zi + score[j] / (K - 1))) / kl_half(theta[i, j])
                if r < rbest:
                    rbest = r
                    a1 = i
        else:
            g, q = held_index(g, nb)
            a1 = best[q]
    a2 = a1  # lines 13-14: fresh theta2_{i a1}; argmax over l_{i a1} <= 1/2
    vbest = -np.inf
    for i in range(K):
        if i == a1:
            v = 0.5
            eligible = True
        else:
            g, v = held_beta(g, W[i, a1] + 1.0, W[a1, i] + 1.0)
            eligible = lcb(W, N, al, i, a1) <= 0.5
        if eligible and v > vbest:
            vbest = v
            a2 = i
    store_stream(g, s.rs, s.spare)
    if a1 == a2:
        s.stats[N_SELF_DUELS] += 1
    return a1, a2


@njit(cache=True, no_cfunc_wrapper=True)
def dts_run(s, env):
    """D-TS's (D-TS+'s) whole-run kernel: :func:`dts_select`, the duel, the counts, to the horizon."""
    while env_more(env):
        i, j = dts_select(s)
        won = play(env, i, j)
        count_wn(s.W, s.N, i, j, won)  # plain_update, written out (kernels.policy, "Compile time")
        s.reg[T_] += 1
