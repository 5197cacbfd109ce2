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

from .codesize import optimize_for_size
from .policy import T_, env_more, play
from .stats import held_index

#: BTM's state: the protocol's counts; ``bn[b, b']``/``bw[b, b']`` the comparisons and wins of ``b``
#: chosen against ``b'`` (line 12); ``n[b]``, ``w[b]`` their sums over the working set; the
#: membership of ``W`` (``act``); scratch ``ties``; ``reg = [t, |W|]``; ``fr = [3 gamma^2
#: sqrt(log(1 / delta))]``; ``mem[:|W|]`` the arms of ``W`` ascending; ``p[b] = w_b / n_b`` (1/2
#: while ``n_b = 0``), kept for the arms of ``W`` (recomputed for ``b`` after its duel and for
#: every arm after a removal: the same divisions as computing it afresh each round).
BTMState = namedtuple(
    "BTMState", ["W", "N", "rs", "bn", "bw", "n", "w", "act", "ties", "reg", "fr", "stats", "mem", "p"]
)

#: Indices of ``fr``: ``3 gamma^2 sqrt(log(1 / delta))``.
RADIUS_SCALE = 0
#: Indices of ``stats``, the policy's ``stat_names`` (``exploration``, ``self_duels``, ``removals``).
N_EXPLORATION, N_SELF_DUELS, N_REMOVALS = 0, 1, 2

SIZE = 1


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def btm_radius(scale, n):
    """``c*(n) = 3 gamma^2 sqrt(log(1 / delta) / n)``, 1 for ``n = 0`` (Algorithm 1 line 8)."""
    if n == 0:
        return 1.0
    return scale / math.sqrt(n)


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def btm_select(s):
    """Lines 11-12: the least-compared arm of ``W`` against a uniform other arm of ``W``; once one arm
    is left, its self-duel.  ``stats = [exploration, self_duels, removals]``.

    ``W`` is read from ``mem`` (ascending), so the tied arms of line 11 and ``W \\ {b}`` of line 12
    are taken in ascending order as the module text says; ``ties`` holds positions in ``mem``.
    (No state array is bound to a local name: each such name costs the step two reference-count
    calls, the cost of a whole cheap step.)"""
    size = s.reg[SIZE]
    if size == 1:
        s.stats[N_SELF_DUELS] += 1
        return s.mem[0], s.mem[0]
    m = s.n[s.mem[0]]
    for q in range(1, size):  # line 11
        if s.n[s.mem[q]] < m:  # min, without compiling numba's overload
            m = s.n[s.mem[q]]
    nt = np.int64(0)  # int64 from the start (kernels.policy, "Compile time")
    for q in range(size):
        s.ties[nt] = q
        nt += s.n[s.mem[q]] == m
    g = (s.rs[0], np.bool_(False), 0.0)  # the policy stream as scalars (stream_index's own steps: no array handed on)
    qb = 0
    if nt > 1:
        g, qb = held_index(g, nt)
    qb = s.ties[qb]
    g, k = held_index(g, size - 1)  # line 12, over W \ {b} ascending
    s.rs[0] = g[0]
    s.stats[N_EXPLORATION] += 1
    return s.mem[qb], s.mem[k if k < qb else k + 1]


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def btm_update(s, i, j, won):
    """Lines 13-20: the chosen arm's counters, then the elimination test and the deletion of the
    eliminated arm's comparisons."""
    if i != j:  # the protocol's counts (:func:`count`'s), inline and without a branch on the outcome
        s.W[i, j] += won
        s.W[j, i] += not won
        s.N[i, j] += 1
        s.N[j, i] += 1
    if i != j:
        s.bn[i, j] += 1
        s.n[i] += 1
        s.bw[i, j] += won
        s.w[i] += won
        s.p[i] = s.w[i] / s.n[i]
        size = s.reg[SIZE]
        nstar = s.n[s.mem[0]]
        pmin = np.inf
        pmax = -np.inf
        qmin = np.int64(-1)
        for q in range(size):
            pa = s.p[s.mem[q]]
            if pa < pmin:
                pmin = pa
                qmin = q
            if pa > pmax:
                pmax = pa
            if s.n[s.mem[q]] < nstar:
                nstar = s.n[s.mem[q]]
        c = btm_radius(s.fr[RADIUS_SCALE], nstar)
        if pmin + c <= pmax - c:  # line 16
            _remove(s, qmin)  # lines 17-19
    s.reg[T_] += 1


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def _remove(s, qmin):
    """Lines 17-19: the arm at position ``qmin`` of ``mem`` leaves ``W``; its comparisons leave the
    others' counters."""
    size = s.reg[SIZE]
    amin = s.mem[qmin]
    s.act[amin] = False
    for q in range(qmin, size - 1):
        s.mem[q] = s.mem[q + 1]
    size -= 1
    for q in range(size):
        a = s.mem[q]
        s.n[a] -= s.bn[a, amin]
        s.w[a] -= s.bw[a, amin]
        s.bn[a, amin] = 0
        s.bw[a, amin] = 0
        s.p[a] = s.w[a] / s.n[a] if s.n[a] > 0 else 0.5
    s.reg[SIZE] = size
    s.stats[N_REMOVALS] += 1


@njit(cache=True, no_cfunc_wrapper=True)
def btm_run(s, env):
    """BTM's whole-run kernel: :func:`btm_select`, the duel, :func:`btm_update`, to the horizon.

    Once one arm is left (``reg[SIZE] = 1``) every later round is its self-duel, whose update changes
    only ``t``: those rounds are played by :func:`play` alone and ``t`` and the ``self_duels``
    counter advanced by their number -- the same duels, draws, regret and counters as the
    step-by-step loop (tests/test_policy_revisions.py), without the two calls a round."""
    optimize_for_size()
    while env_more(env) and s.reg[SIZE] > 1:
        i, j = btm_select(s)
        btm_update(s, i, j, play(env, i, j))
    if env_more(env):  # one arm left: its self-duel, whose update changes only t, to the horizon
        a = s.mem[0]
        n = np.int64(0)
        while env_more(env):
            play(env, a, a)
            n += 1
        s.stats[N_SELF_DUELS] += n
        s.reg[T_] += n
