"""Beat-the-Mean's compiled state and steps (Yue & Joachims, ICML 2011, Algorithm 1 online); the reading
of each step and the draws it makes are in :mod:`boundcalc.policies.beat_the_mean`.

>>> btm_radius.py_func(3.0, 9), btm_radius.py_func(3.0, 0)   # 3 / sqrt(9); c* = 1 when n* = 0 (line 8)
(1.0, 1.0)
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .policy import T_, count, env_more, play, stream_index

#: BTM's state: the protocol's counts; ``bn[b, b']``/``bw[b, b']`` the comparisons and wins of ``b``
#: chosen against ``b'`` (line 12); ``n[b]``, ``w[b]`` their sums over the working set; the
#: membership of ``W`` (``act``); scratch ``ties``; ``reg = [t, |W|]``; ``fr = [3 gamma^2
#: sqrt(log(1 / delta))]``.
BTMState = namedtuple("BTMState", ["W", "N", "rs", "bn", "bw", "n", "w", "act", "ties", "reg", "fr", "stats"])
SIZE = 1


@njit(cache=True)
def btm_radius(scale, n):
    """``c*(n) = 3 gamma^2 sqrt(log(1 / delta) / n)``, 1 for ``n = 0`` (Algorithm 1 line 8)."""
    if n == 0:
        return 1.0
    return scale / math.sqrt(n)


@njit(cache=True)
def btm_select(s):
    """Lines 11-12: the least-compared arm of ``W`` against a uniform other arm of ``W``; once one arm
    is left, its self-duel.  ``stats = [exploration, self_duels, removals]``."""
    K = s.act.shape[0]
    act = s.act
    if s.reg[SIZE] == 1:
        for a in range(K):
            if act[a]:
                s.stats[1] += 1
                return a, a
    m = -1
    for a in range(K):  # line 11
        if act[a] and (m < 0 or s.n[a] < m):
            m = s.n[a]
    nt = 0
    for a in range(K):
        if act[a] and s.n[a] == m:
            s.ties[nt] = a
            nt += 1
    b = s.ties[0] if nt == 1 else s.ties[stream_index(s.rs, nt)]
    k = stream_index(s.rs, s.reg[SIZE] - 1)  # line 12, over W \ {b} ascending
    for a in range(K):
        if act[a] and a != b:
            if k == 0:
                s.stats[0] += 1
                return b, a
            k -= 1
    return b, b  # unreachable: |W| >= 2


@njit(cache=True)
def btm_update(s, i, j, won):
    """Lines 13-20: the chosen arm's counters, then the elimination test and the deletion of the
    eliminated arm's comparisons."""
    count(s, i, j, won)
    if i != j:
        s.bn[i, j] += 1
        s.n[i] += 1
        if won:
            s.bw[i, j] += 1
            s.w[i] += 1
        K = s.act.shape[0]
        act = s.act
        nstar = -1
        pmin = np.inf
        pmax = -np.inf
        amin = -1
        for a in range(K):
            if act[a]:
                p = s.w[a] / s.n[a] if s.n[a] > 0 else 0.5
                if p < pmin:
                    pmin = p
                    amin = a
                if p > pmax:
                    pmax = p
                if nstar < 0 or s.n[a] < nstar:
                    nstar = s.n[a]
        c = btm_radius(s.fr[0], nstar)
        if pmin + c <= pmax - c:  # line 16
            act[amin] = False  # lines 17-19
            for a in range(K):
                if act[a]:
                    s.n[a] -= s.bn[a, amin]
                    s.w[a] -= s.bw[a, amin]
                    s.bn[a, amin] = 0
                    s.bw[a, amin] = 0
            s.reg[SIZE] -= 1
            s.stats[2] += 1
    s.reg[T_] += 1


@njit(cache=True)
def btm_run(s, env):
    """BTM's whole-run kernel: :func:`btm_select`, the duel, :func:`btm_update`, to the horizon."""
    while env_more(env):
        i, j = btm_select(s)
        btm_update(s, i, j, play(env, i, j))
