"""RUCB's compiled state and steps (Zoghi, Whiteson, Munos & de Rijke, ICML 2014, Algorithm 1);
the reading of each step and the draws it makes are in :mod:`boundcalc.policies.rucb`; the bounds
and the tie-break are :mod:`boundcalc.kernels.stats`'s.

With every pair undrawn, ``u = 2`` off the diagonal: every arm is a candidate (line 6) and the
opponent is another arm (line 13):

>>> from boundcalc.kernels.policy import bundle
>>> K = 3; Z = np.zeros((K, K), dtype=np.int64)
>>> s = RUCBState(Z, Z.copy(), np.array([7], dtype=np.uint64), np.empty(K, dtype=np.int64), np.empty(K),
...               np.empty(K, dtype=np.int64), np.array([1, -1]), np.array([0.51]), np.zeros(2, dtype=np.int64))
>>> c, d = rucb_select(bundle(s)); bool(c != d and s.reg[B_] == -1)
True
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .codesize import optimize_for_size
from .policy import T_, count_wn, env_more, play
from .stats import argmax_ties, stream_index, stream_uniform, ucb, ucb_below_half

#: RUCB's state: the counts, the policy stream, scratch rows (candidates, a column of ``U``, ties);
#: ``reg = [t, B]`` (``B = -1``: empty), ``fr = [alpha]``.
RUCBState = namedtuple("RUCBState", ["W", "N", "rs", "cand", "col", "ties", "reg", "fr", "stats"])

#: Indices of ``fr``: ``alpha``.
ALPHA = 0
#: Indices of ``stats``, the policy's ``stat_names`` (``self_duels``, ``empty_C``).
N_SELF_DUELS, N_EMPTY_C = 0, 1


#: Index of ``reg``: the hypothesised best arm ``B`` (-1: empty).
B_ = 1


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def rucb_select(s):
    """RUCB's pair (lines 4-13).  ``stats = [self_duels, empty_C]``."""
    W = s.W
    N = s.N
    K = W.shape[0]
    cand = s.cand
    al = s.fr[ALPHA] * math.log(s.reg[T_])
    nC = np.int64(0)  # line 6 (typed int64 from the start: see the module text)
    for i in range(K):
        ok = True
        for j in range(K):
            if j != i and ucb_below_half(W, N, al, i, j):
                ok = False
                break
        if ok:
            cand[nC] = i
            nC += 1
    B = s.reg[B_]
    if nC == 0:  # line 7
        a = stream_index(s.rs, K)
        B = -1
        s.stats[N_EMPTY_C] += 1
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
        s.stats[N_SELF_DUELS] += 1
    return a, d


@njit(cache=True, no_cfunc_wrapper=True)
def rucb_run(s, env):
    """RUCB's whole-run kernel: :func:`rucb_select`, the duel, :func:`plain_update`, to the horizon."""
    optimize_for_size()
    while env_more(env):
        i, j = rucb_select(s)
        won = play(env, i, j)
        count_wn(s.W, s.N, i, j, won)  # plain_update, written out (kernels.policy, "Compile time")
        s.reg[T_] += 1
