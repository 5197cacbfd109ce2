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

from .codesize import optimize_for_size
from .policy import T_, env_more, play

#: IF2's state: the protocol's counts; the candidate's wins ``cw[b]`` and duels ``cn[b]`` against
#: every ``b`` since it became the candidate; the membership of ``W`` (``act``); ``reg = [t, b_hat,
#: next arm of the round robin (-1: W empty, exploit)]``; ``fr = [log(1 / delta)]``.
IFState = namedtuple("IFState", ["W", "N", "rs", "cw", "cn", "act", "reg", "fr", "stats"])

#: Indices of ``fr``: ``log(1 / delta)``.
LOG_INV_DELTA = 0
#: Indices of ``stats``, the policy's ``stat_names`` (``exploration``, ``self_duels``, ``candidate_changes``).
N_EXPLORATION, N_SELF_DUELS, N_CANDIDATE_CHANGES = 0, 1, 2

HAT, NEXT = 1, 2


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def if_radius(log_inv_delta, n):
    """``c(n) = sqrt(4 log(1 / delta) / n)`` (IF eqs. (7)-(8)); ``inf`` for ``n = 0`` (no interval)."""
    if n == 0:
        return np.inf
    return math.sqrt(4.0 * log_inv_delta / n)


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def _first_active(act, start):
    for b in range(start, act.shape[0]):
        if act[b]:
            return b
    return -1


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def if_select(s):
    """The duel ``(b_hat, b)`` of the round robin, or the exploiting ``(b_hat, b_hat)`` once ``W`` is
    empty.  ``stats = [exploration, self_duels, candidate_changes]``."""
    hb = s.reg[HAT]
    b = s.reg[NEXT]
    if b < 0:
        s.stats[N_SELF_DUELS] += 1
        return hb, hb
    s.stats[N_EXPLORATION] += 1
    return hb, b


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def if_update(s, i, j, won):
    """The outcome of ``(b_hat, b)``; at the end of a round robin lines 10-17 (removals, pruning, a
    new candidate) and the next round's first arm.  (No compiled call is handed the bundle ``s``:
    the caller would take and release a reference to it, two NRT calls, a third of a step; the
    counts are added without a branch on the outcome, a fair coin to the branch predictor.)"""
    if i != j:  # the protocol's counts (:func:`count`'s), inline and without a branch on the outcome
        s.W[i, j] += won
        s.W[j, i] += not won
        s.N[i, j] += 1
        s.N[j, i] += 1
    if s.reg[NEXT] >= 0:
        b = j
        s.cn[b] += 1
        s.cw[b] += won
        nxt = _first_active(s.act, b + 1)
        if nxt < 0:  # the round robin is over: lines 10-17
            K = s.act.shape[0]
            lt = s.fr[LOG_INV_DELTA]
            new = np.int64(-1)
            # lines 10-12 and 13 in one pass: no arm of line 13 (P_hat < 1/2) is removed by lines 10-12
            for a in range(K):
                n = s.cn[a]
                if s.act[a] and n > 0:
                    p = s.cw[a] / n
                    c = if_radius(lt, n)
                    if p > 0.5:
                        if p - c >= 0.5:  # lines 10-12
                            s.act[a] = False
                    elif new < 0 and p < 0.5 and p + c <= 0.5:  # line 13: the first such b'
                        new = a
            if new >= 0:
                for a in range(K):  # lines 14-15: IF2's pruning
                    if s.act[a] and s.cn[a] > 0 and 2 * s.cw[a] > s.cn[a]:
                        s.act[a] = False
                s.act[new] = False  # lines 16-17
                s.reg[HAT] = new
                for a in range(K):
                    s.cw[a] = 0
                    s.cn[a] = 0
                s.stats[N_CANDIDATE_CHANGES] += 1
            nxt = _first_active(s.act, np.int64(0))  # not the literal 0: one compilation of _first_active
        s.reg[NEXT] = nxt
    s.reg[T_] += 1


@njit(cache=True, no_cfunc_wrapper=True)
def if_run(s, env):
    """IF2's whole-run kernel: :func:`if_select`, the duel, :func:`if_update`, to the horizon.

    Once ``W`` is empty (``reg[NEXT] < 0``) every later round is the self-duel ``(b_hat, b_hat)``,
    whose update changes only ``t``: those rounds are played by :func:`play` alone and ``t`` and the
    ``self_duels`` counter advanced by their number -- the same duels, draws, regret and counters as
    the step-by-step loop (tests/test_policy_revisions.py), without the two calls a round."""
    optimize_for_size()
    while env_more(env) and s.reg[NEXT] >= 0:
        i, j = if_select(s)
        if_update(s, i, j, play(env, i, j))
    hb = s.reg[HAT]
    n = np.int64(0)
    while env_more(env):
        play(env, hb, hb)
        n += 1
    s.stats[N_SELF_DUELS] += n
    s.reg[T_] += n
