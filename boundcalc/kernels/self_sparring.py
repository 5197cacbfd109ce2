"""Self-Sparring's compiled state and steps (Sui, Zhuang, Burdick & Yue, UAI 2017, Algorithm 1, Beta
posteriors, ``m = 2``); the reading and the draws are in :mod:`boundcalc.policies.self_sparring`.

>>> SelfSparringState._fields[4:6]   # the Beta posteriors' parameters
('S', 'F')
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .policy import T_, count_wn, env_more, play
from .stats import held_beta, held_stream, store_stream

#: Self-Sparring's state: the protocol's counts, the policy stream and its Box-Muller spare, the Beta
#: parameters ``S``, ``F`` (float: ``eta`` may be fractional); ``reg = [t]``; ``fr = [eta]``.
SelfSparringState = namedtuple("SelfSparringState", ["W", "N", "rs", "spare", "S", "F", "reg", "fr", "stats"])

#: Indices of ``fr``: ``eta``.
ETA = 0
#: Indices of ``stats``, the policy's ``stat_names`` (``self_duels``).
N_SELF_DUELS = 0


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def ss_select(s):
    """Lines 3-5: two Thompson draws of the arm with the largest sampled utility.
    ``stats = [self_duels]``."""
    K = s.S.shape[0]
    g = held_stream(s.rs, s.spare)
    x0 = np.int64(0)  # int64 from the start (kernels.policy, "Compile time")
    x1 = np.int64(0)
    for k in range(2):
        best = -1.0
        arg = np.int64(0)
        for i in range(K):
            g, v = held_beta(g, s.S[i] + 1.0, s.F[i] + 1.0)
            if v > best:
                best = v
                arg = i
        if k == 0:
            x0 = arg
        else:
            x1 = arg
    store_stream(g, s.rs, s.spare)
    if x0 == x1:
        s.stats[N_SELF_DUELS] += 1
    return x0, x1


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def ss_update(s, i, j, won):
    """Lines 7-9 with ``m = 2``: the winner's ``S`` and the loser's ``F`` grow by ``eta``; a
    self-duel adds ``eta`` to both of its arm's parameters."""
    count_wn(s.W, s.N, i, j, won)
    eta = s.fr[ETA]
    if i == j:
        s.S[i] += eta
        s.F[i] += eta
    elif won:
        s.S[i] += eta
        s.F[j] += eta
    else:
        s.S[j] += eta
        s.F[i] += eta
    s.reg[T_] += 1


@njit(cache=True, no_cfunc_wrapper=True)
def ss_run(s, env):
    """Self-Sparring's whole-run kernel: :func:`ss_select`, the duel, :func:`ss_update`, to the horizon."""
    while env_more(env):
        i, j = ss_select(s)
        ss_update(s, i, j, play(env, i, j))
