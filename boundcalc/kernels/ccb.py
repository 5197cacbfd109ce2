"""CCB's compiled state and steps (Zoghi, Karnin, Whiteson & de Rijke, NIPS 2015, Algorithm 1); the
reading of each step and the draws it makes are in :mod:`boundcalc.policies.ccb`.

>>> import numpy as np
>>> from boundcalc.policies import make_policy
>>> p = make_policy("ccb", 3)
>>> pairs, won = p.run(np.array([[0.5, 0.9, 0.9], [0.1, 0.5, 0.5], [0.1, 0.5, 0.5]]), 2000, seed=1)
>>> int((pairs == 0).all(axis=1)[-500:].sum()) > 400   # the Copeland winner's self-duels dominate
True
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .codesize import optimize_for_size
from .policy import T_, count_wn, env_more, play
from .stats import argmax_ties, lcb, stream_index, stream_uniform, ucb

#: CCB's state: the counts, the policy stream, ``U`` and ``L`` (K x K), ``Cpld_up``/``Cpld_lo``,
#: ``B`` (bool K, line 2), ``Bi`` (bool K x K, ``Bi[i, k]``: ``a_k in B^i``, line 3), scratch
#: (candidates, ``B & C``, a pool, ties, a column, line 10's pairs); ``reg = [t, L_C]``, ``fr = [alpha]``.
CCBState = namedtuple(
    "CCBState",
    [
        "W",
        "N",
        "rs",
        "Uc",
        "Lc",
        "up",
        "lo",
        "B",
        "Bi",
        "cand",
        "both",
        "elems",
        "ties",
        "col",
        "xp",
        "reg",
        "fr",
        "stats",
    ],
)

#: Indices of ``fr``: ``alpha``.
ALPHA = 0
#: Indices of ``stats``, the policy's ``stat_names`` (``self_duels``, ``explore``, ``explore_eligible``, ``resets``).
N_SELF_DUELS, N_EXPLORE, N_EXPLORE_ELIGIBLE, N_RESETS = 0, 1, 2, 3


LC_ = 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _reset(s):
    """Lines 2-4: ``B`` = all arms, every ``B^i`` empty, ``L_C = K``."""
    optimize_for_size()
    K = s.B.shape[0]
    for i in range(K):
        s.B[i] = True
        for j in range(K):
            s.Bi[i, j] = False
    s.reg[LC_] = K
    s.stats[N_RESETS] += 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _ccb_pair(s):
    """CCB's pair (002 Algorithm 1 lines 6-13).  ``stats = [self_duels, explore, explore_eligible, resets]``."""
    optimize_for_size()
    W = s.W
    N = s.N
    K = W.shape[0]
    Uc = s.Uc
    Lc = s.Lc
    up = s.up
    lo = s.lo
    B = s.B
    Bi = s.Bi
    cand = s.cand
    st = s.rs
    al = s.fr[ALPHA] * math.log(s.reg[T_])
    for i in range(K):  # line 6
        for j in range(K):
            if i == j:
                Uc[i, j] = 0.5
                Lc[i, j] = 0.5
            else:
                Uc[i, j] = ucb(W, N, al, i, j)
                Lc[i, j] = lcb(W, N, al, i, j)
    mxu = np.int64(-1)  # lines 7-8
    mxl = np.int64(-1)
    for i in range(K):
        su = np.int64(0)
        sl = np.int64(0)
        for j in range(K):
            if j != i:
                if Uc[i, j] >= 0.5:
                    su += 1
                if Lc[i, j] >= 0.5:
                    sl += 1
        up[i] = su
        lo[i] = sl
        if su > mxu:
            mxu = su
        if sl > mxl:
            mxl = sl
    nC = np.int64(0)  # int64 from the start (kernels.policy, "Compile time")
    for i in range(K):
        if up[i] == mxu:
            cand[nC] = i
            nC += 1
    bad = np.bool_(False)  # line 9A
    for i in range(K):
        for j in range(K):
            if Bi[i, j] and Lc[i, j] > 0.5:
                bad = np.bool_(True)
    if bad:
        _reset(s)
    anyB = np.bool_(False)  # line 9B
    for i in range(K):
        if B[i] and up[i] < mxl:
            B[i] = False
            n = np.int64(0)
            for k in range(K):
                if Bi[i, k]:
                    n += 1
            if n != s.reg[LC_] + 1:
                for k in range(K):
                    Bi[i, k] = Uc[i, k] < 0.5
        if B[i]:
            anyB = np.bool_(True)
    if not anyB:
        _reset(s)
    elems = s.elems
    for q in range(nC):  # line 9C
        i = cand[q]
        if up[i] != lo[i]:
            continue
        B[i] = True
        for k in range(K):
            Bi[i, k] = False
        s.reg[LC_] = K - 1 - up[i]
        m = s.reg[LC_] + 1
        for j in range(K):
            if j == i:
                continue
            n = np.int64(0)
            for k in range(K):
                if Bi[j, k]:
                    elems[n] = k
                    n += 1
            if n < m:
                for k in range(K):
                    Bi[j, k] = False
            elif n > m:
                for h in range(m):  # partial Fisher-Yates
                    r = h + stream_index(st, n - h)
                    tmp = elems[h]
                    elems[h] = elems[r]
                    elems[r] = tmp
                for k in range(K):
                    Bi[j, k] = False
                for h in range(m):
                    Bi[j, elems[h]] = True
    nx = np.int64(0)  # line 10
    for i in range(K):
        for j in range(K):
            if Bi[i, j] and Lc[i, j] <= 0.5 and Uc[i, j] >= 0.5:
                s.xp[nx] = i * K + j
                nx += 1
    if nx > 0:
        s.stats[N_EXPLORE_ELIGIBLE] += 1
    if stream_uniform(st) < 0.25 and nx > 0:
        code = s.xp[stream_index(st, nx)]
        s.stats[N_EXPLORE] += 1
        a = code // K
        d = code % K
    else:
        nb = np.int64(0)  # line 11
        for q in range(nC):
            if B[cand[q]]:
                s.both[nb] = cand[q]
                nb += 1
        if nb > 0 and stream_uniform(st) < 2.0 / 3.0:
            for q in range(nb):
                cand[q] = s.both[q]
            nC = nb
        a = cand[0] if nC == 1 else cand[stream_index(st, nC)]  # line 12
        own = stream_uniform(st) < 0.5  # line 13
        if own:
            found = np.bool_(False)
            for j in range(K):
                if Bi[a, j] and Lc[j, a] <= 0.5:
                    found = np.bool_(True)
            own = found
        for j in range(K):
            s.col[j] = Uc[j, a] if Lc[j, a] <= 0.5 and (Bi[a, j] or not own) else -np.inf
        d = argmax_ties(st, s.col, a, s.ties)
    if d == a:
        s.stats[N_SELF_DUELS] += 1
    return a, d


@njit(cache=True, no_cfunc_wrapper=True)
def ccb_select(s):
    """CCB's pair (:func:`_ccb_pair`) for the protocol: the run kernel calls :func:`_ccb_pair`, which
    has no CPython wrapper to compile (kernels.policy, "Compile time")."""
    optimize_for_size()
    return _ccb_pair(s)


@njit(cache=True, no_cfunc_wrapper=True)
def ccb_run(s, env):
    """CCB's whole-run kernel: :func:`ccb_select`, the duel, the counts, to the horizon."""
    optimize_for_size()
    while env_more(env):
        i, j = _ccb_pair(s)
        won = play(env, i, j)
        count_wn(s.W, s.N, i, j, won)  # plain_update, written out (kernels.policy, "Compile time")
        s.reg[T_] += 1
