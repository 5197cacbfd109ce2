"""IF2's compiled state and steps (Yue, Broder, Kleinberg & Joachims, JCSS 2012, Algorithm 2, "IF2");
the reading of each step and the one draw it makes are in :mod:`boundcalc.policies.interleaved_filter`.

>>> round(if_radius.py_func(math.log(100.0), 4), 6)   # sqrt(4 log(100) / 4) = sqrt(log 100)
2.145966
>>> if_radius.py_func(1.0, 0)   # no duel yet: no interval
inf
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .policy import T_, count, env_more, play

#: IF2's state: the protocol's counts; the candidate's wins ``cw[b]`` and duels ``cn[b]`` against
#: every ``b`` since it became the candidate; the membership of ``W`` (``act``); ``reg = [t, b_hat,
#: next arm of the round robin (-1: W empty, exploit)]``; ``fr = [log(1 / delta)]``.
IFState = namedtuple("IFState", ["W", "N", "rs", "cw", "cn", "act", "reg", "fr", "stats"])
HAT, NEXT = 1, 2


@njit(cache=True)
def if_radius(log_inv_delta, n):
    """``c(n) = sqrt(4 log(1 / delta) / n)`` (IF eqs. (7)-(8)); ``inf`` for ``n = 0`` (no interval)."""
    if n == 0:
        return np.inf
    return math.sqrt(4.0 * log_inv_delta / n)


@njit(cache=True)
def _first_active(act, start):
    for b in range(start, act.shape[0]):
        if act[b]:
            return b
    return -1


@njit(cache=True)
def if_select(s):
    """The duel ``(b_hat, b)`` of the round robin, or the exploiting ``(b_hat, b_hat)`` once ``W`` is
    empty.  ``stats = [exploration, self_duels, candidate_changes]``."""
    hb = s.reg[HAT]
    b = s.reg[NEXT]
    if b < 0:
        s.stats[1] += 1
        return hb, hb
    s.stats[0] += 1
    return hb, b


@njit(cache=True)
def if_update(s, i, j, won):
    """The outcome of ``(b_hat, b)``; at the end of a round robin lines 10-17 (removals, pruning, a
    new candidate) and the next round's first arm."""
    count(s, i, j, won)
    if s.reg[NEXT] >= 0:
        b = j
        s.cn[b] += 1
        if won:
            s.cw[b] += 1
        nxt = _first_active(s.act, b + 1)
        if nxt < 0:  # the round robin is over: lines 10-17
            K = s.act.shape[0]
            lt = s.fr[0]
            for a in range(K):  # lines 10-12
                if s.act[a] and s.cn[a] > 0:
                    p = s.cw[a] / s.cn[a]
                    if p > 0.5 and p - if_radius(lt, s.cn[a]) >= 0.5:
                        s.act[a] = False
            new = -1
            for a in range(K):  # line 13: the first b' that confidently beats b_hat
                if s.act[a] and s.cn[a] > 0:
                    p = s.cw[a] / s.cn[a]
                    if p < 0.5 and p + if_radius(lt, s.cn[a]) <= 0.5:
                        new = a
                        break
            if new >= 0:
                for a in range(K):  # lines 14-15: IF2's pruning
                    if s.act[a] and s.cn[a] > 0 and 2 * s.cw[a] > s.cn[a]:
                        s.act[a] = False
                s.act[new] = False  # lines 16-17
                s.reg[HAT] = new
                for a in range(K):
                    s.cw[a] = 0
                    s.cn[a] = 0
                s.stats[2] += 1
            nxt = _first_active(s.act, 0)
        s.reg[NEXT] = nxt
    s.reg[T_] += 1


@njit(cache=True)
def if_run(s, env):
    """IF2's whole-run kernel: :func:`if_select`, the duel, :func:`if_update`, to the horizon."""
    while env_more(env):
        i, j = if_select(s)
        if_update(s, i, j, play(env, i, j))
