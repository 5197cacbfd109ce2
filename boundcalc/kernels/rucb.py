"""RUCB's compiled state and steps (Zoghi, Whiteson, Munos & de Rijke, ICML 2014, Algorithm 1);
the reading of each step and the draws it makes are in :mod:`boundcalc.policies.rucb`.

>>> W = np.array([[0, 3], [1, 0]]); N = W + W.T   # arm 0 won 3 of 4 duels against arm 1
>>> round(ucb(W, N, 0.5, 0, 1), 6), round(lcb(W, N, 0.5, 0, 1), 6)   # 3/4 +- sqrt(0.5 / 4)
(1.103553, 0.396447)
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .codesize import optimize_for_size
from .policy import T_, count_wn, env_more, play, stream_index, stream_uniform

#: RUCB's state: the counts, the policy stream, scratch rows (candidates, a column of ``U``, ties);
#: ``reg = [t, B]`` (``B = -1``: empty), ``fr = [alpha]``.
RUCBState = namedtuple("RUCBState", ["W", "N", "rs", "cand", "col", "ties", "reg", "fr", "stats"])


B_ = 1


@njit(cache=True, no_cfunc_wrapper=True)
def ucb(W, N, al, i, j):
    """``u_ij = W_ij / N_ij + sqrt(al / N_ij)`` with ``al = alpha ln t`` (RUCB line 4; 001 Algorithm 1
    line 4); ``x / 0 := 1`` gives 2 on an undrawn pair."""
    optimize_for_size()
    n = N[i, j]
    if n == 0:
        return 2.0
    return W[i, j] / n + math.sqrt(al / n)


@njit(cache=True, no_cfunc_wrapper=True)
def lcb(W, N, al, i, j):
    """``l_ij = W_ij / N_ij - sqrt(al / N_ij)`` (001 Algorithm 1 line 4); 0 on an undrawn pair."""
    optimize_for_size()
    n = N[i, j]
    if n == 0:
        return 0.0
    return W[i, j] / n - math.sqrt(al / n)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def argmax_ties(state, col, c, ties):
    """Line 13's ``argmax_j col[j]``, ties uniform on the policy stream (ascending), ``!= c`` on a tie."""
    optimize_for_size()
    K = col.shape[0]
    m = -np.inf
    for j in range(K):
        if col[j] > m:
            m = col[j]
    nt = np.int64(0)  # int64 from the start (kernels.policy, "Compile time")
    for j in range(K):
        if col[j] == m:
            ties[nt] = j
            nt += 1
    if nt > 1:
        nt = np.int64(0)
        for j in range(K):
            if col[j] == m and j != c:
                ties[nt] = j
                nt += 1
    return ties[0] if nt == 1 else ties[stream_index(state, nt)]


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def rucb_select(s):
    """RUCB's pair (lines 4-13).  ``stats = [self_duels, empty_C]``."""
    W = s.W
    N = s.N
    K = W.shape[0]
    cand = s.cand
    al = s.fr[0] * math.log(s.reg[T_])
    nC = np.int64(0)  # line 6 (typed int64 from the start: see the module text)
    for i in range(K):
        ok = True
        for j in range(K):
            if j != i and ucb(W, N, al, i, j) < 0.5:
                ok = False
                break
        if ok:
            cand[nC] = i
            nC += 1
    B = s.reg[B_]
    if nC == 0:  # line 7
        a = stream_index(s.rs, K)
        B = -1
        s.stats[1] += 1
    else:
        if B >= 0:  # line 8
            inC = np.bool_(False)
            for q in range(nC):
                if cand[q] == B:
                    inC = np.bool_(True)
            if not inC:
                B = -1
        if nC == 1:  # line 9
            a = cand[0]
            B = a
        elif B < 0:  # line 11, B empty
            a = cand[stream_index(s.rs, nC)]
        elif stream_uniform(s.rs) < 0.5:  # line 11, p(B) = 1/2
            a = B
        else:
            k = stream_index(s.rs, nC - 1)
            a = -1
            for q in range(nC):
                if cand[q] != B:
                    if k == 0:
                        a = cand[q]
                        break
                    k -= 1
    s.reg[B_] = B
    for j in range(K):  # line 13
        s.col[j] = 0.5 if j == a else ucb(W, N, al, j, a)
    d = argmax_ties(s.rs, s.col, a, s.ties)
    if d == a:
        s.stats[0] += 1
    return a, d


@njit(cache=True, no_cfunc_wrapper=True)
def plain_update(s, i, j, won):
    """The learning step of a policy whose state beyond the counts is recomputed at each select
    (RUCB, D-TS, CCB): the counts, then ``t`` advances (written out in the whole-run kernels: a
    function of the state would compile once per state type)."""
    optimize_for_size()
    count_wn(s.W, s.N, i, j, won)
    s.reg[T_] += 1


@njit(cache=True, no_cfunc_wrapper=True)
def rucb_run(s, env):
    """RUCB's whole-run kernel: :func:`rucb_select`, the duel, :func:`plain_update`, to the horizon."""
    optimize_for_size()
    while env_more(env):
        i, j = rucb_select(s)
        won = play(env, i, j)
        count_wn(s.W, s.N, i, j, won)  # plain_update, written out (kernels.policy, "Compile time")
        s.reg[T_] += 1
