"""WS-S's compiled state and steps (Chen & Frazier, ICML 2017, Winner Stays for strong regret); the
reading and the draws are in :mod:`boundcalc.policies.winner_stays`.

>>> WSState._fields[3], (PI, PJ, ROUND, LEN, DONE, BEST, WSW)   # C = wins - losses; the registers
('C', (1, 2, 3, 4, 5, 6, 7))
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .codesize import optimize_for_size
from .policy import T_, count_wn, env_more, play
from .stats import stream_index

#: WS-S's state: the protocol's counts, the policy stream, ``C`` (wins - losses), scratch ``ties``;
#: ``reg = [t, previous i, previous j, round r, its exploitation length, exploit duels played, best
#: arm, the pending pair is a WS-W duel]``; ``fr = [beta]``.
WSState = namedtuple("WSState", ["W", "N", "rs", "C", "ties", "reg", "fr", "stats"])

#: Indices of ``fr``: ``beta``.
BETA = 0
#: Indices of ``stats``, the policy's ``stat_names`` (``ws_duels``, ``self_duels``).
N_WS_DUELS, N_SELF_DUELS = 0, 1

PI, PJ, ROUND, LEN, DONE, BEST, WSW = 1, 2, 3, 4, 5, 6, 7
_CAP = 2**62


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _stay(s, exclude):
    """The winner-stays choice among ``argmax_{k != exclude} C_k`` (compiled once for its two calls,
    ``exclude = -1`` passed as an int64: inlined twice into the inlined select, its copies cost more
    to compile than the function)."""
    optimize_for_size()
    K = s.C.shape[0]
    m = np.int64(-(2**62))
    for k in range(K):
        if k != exclude and s.C[k] > m:
            m = s.C[k]
    pi = s.reg[PI]
    pj = s.reg[PJ]
    if pi >= 0 and pi != exclude and s.C[pi] == m:
        return pi
    if pj >= 0 and pj != exclude and s.C[pj] == m:
        return pj
    nt = np.int64(0)  # int64 from the start (kernels.policy, "Compile time")
    for k in range(K):
        if k != exclude and s.C[k] == m:
            s.ties[nt] = k
            nt += 1
    return s.ties[0] if nt == 1 else s.ties[stream_index(s.rs, nt)]


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def ws_select(s):
    """A WS-W duel at the start of each round, else the exploiting self-duel.
    ``stats = [ws_duels, self_duels]``."""
    if s.reg[DONE] >= s.reg[LEN]:
        i = _stay(s, np.int64(-1))  # not the literal -1: one compilation of _stay
        j = _stay(s, i)
        s.reg[WSW] = 1
        s.stats[N_WS_DUELS] += 1
        return i, j
    s.reg[WSW] = 0
    s.stats[N_SELF_DUELS] += 1
    b = s.reg[BEST]
    return b, b


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def ws_update(s, i, j, won):
    """After a WS-W duel: ``C`` of the two arms, the next round's length and best arm; after a
    self-duel: one more of the round's exploitation."""
    count_wn(s.W, s.N, i, j, won)
    if s.reg[WSW]:
        if won:
            s.C[i] += 1
            s.C[j] -= 1
        else:
            s.C[j] += 1
            s.C[i] -= 1
        s.reg[PI] = i
        s.reg[PJ] = j
        r = s.reg[ROUND] + 1
        s.reg[ROUND] = r
        x = math.floor(s.fr[BETA] ** r)
        s.reg[LEN] = _CAP if x >= _CAP else x
        s.reg[DONE] = 0
        b = np.int64(0)
        for k in range(1, s.C.shape[0]):
            if s.C[k] > s.C[b]:
                b = k
        s.reg[BEST] = b
    else:
        s.reg[DONE] += 1
    s.reg[T_] += 1


@njit(cache=True, no_cfunc_wrapper=True)
def ws_run(s, env):
    """WS-S's whole-run kernel: :func:`ws_select`, the duel, :func:`ws_update`, to the horizon."""
    optimize_for_size()
    while env_more(env):
        i, j = ws_select(s)
        ws_update(s, i, j, play(env, i, j))
