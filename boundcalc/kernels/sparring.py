"""Sparring's compiled state and steps (Ailon, Karnin & Joachims, ICML 2014, Sparring) with two UCB1
sub-bandits (Auer, Cesa-Bianchi & Fischer 2002); the reading is in :mod:`boundcalc.policies.sparring`.
:func:`sparring_select` gives :func:`boundcalc.kernels.stats.ucb1_arm`'s arms (shared with Doubler):

>>> from boundcalc.kernels.stats import ucb1_arm
>>> P = np.array([[3, 2], [1, 4]]); G = np.array([[2, 1], [0, 3]])   # five plays a side: round t = 6
>>> no = np.zeros((2, 2), dtype=np.int64)
>>> s = SparringState(no, no.copy(), P, G, np.array([6, 0, 1]), np.array([0.5]), np.zeros(1, np.int64), G / P, 1 / np.sqrt(P))
>>> sparring_select.py_func(s) == (ucb1_arm.py_func(P, G, 0, 0.5), ucb1_arm.py_func(P, G, 1, 0.5))
True
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .codesize import optimize_for_size
from .policy import T_, env_more, play

#: Sparring's state: the protocol's counts; the two UCB1s' plays ``P[s, k]`` and rewards ``G[s, k]``
#: (``s = 0`` left, ``1`` right); ``reg = [t, left arm, right arm]`` (the arms of the last round);
#: ``fr = [alpha]``; kept by the update once an arm is played, ``M[s, k] = G[s, k] / P[s, k]`` (the
#: same division UCB1's index makes afresh: one a round instead of one per arm) and ``Q[s, k] = 1 /
#: sqrt(P[s, k])`` (for :func:`sparring_select`'s bound).
SparringState = namedtuple("SparringState", ["W", "N", "P", "G", "reg", "fr", "stats", "M", "Q"])

#: Indices of ``fr``: ``alpha``.
ALPHA = 0
#: Indices of ``stats``, the policy's ``stat_names`` (``self_duels``).
N_SELF_DUELS = 0

LEFT, RIGHT = 1, 2

#: :func:`sparring_select`'s relative margin on its bound of an index (module text of
#: :func:`sparring_select`): far wider than the few rounding errors it covers.
_SLACK = 1.0 + 1e-9


@njit(cache=True, no_cfunc_wrapper=True)
def sparring_select(s):
    """The left and the right UCB1's arms: :func:`ucb1_arm`'s choices, the same numbers, found with
    fewer of its divisions and square roots (:func:`~boundcalc.kernels.stats.ucb1_arm`).  ``stats = [self_duels]``.

    Until a side has played every arm, its first unplayed arm.  Then the first maximiser of the
    index ``v_k = M_k + sqrt(c / P_k)``, ``c = alpha ln n`` (as :func:`ucb1_arm` groups it): the index
    of the side's last arm is computed first, and another arm's index is computed (as
    :func:`ucb1_arm` computes it, ``M_k`` being its very division) only when the bound ``(M_k +
    sqrt(c) Q_k)(1 + 1e-9)`` reaches the best so far -- the bound exceeds the computed index by far
    more than its rounding (a few ulps), so a skipped arm's index is below the best and the choice,
    the first maximiser, is :func:`ucb1_arm`'s (tests/test_policy_revisions.py and the
    transcription test).  A compiled call handed the arrays would cost two reference-count calls
    per array: the steps are written out here."""
    optimize_for_size()
    K = s.P.shape[1]
    x = np.int64(0)
    y = np.int64(0)
    n_log = np.int64(-1)  # both sides have n = t - 1 plays: one log and one square root serve both
    c = 0.0
    rc = 0.0
    t = s.reg[T_]
    for side in range(2):
        arg = -1
        n = t - 1  # from round K + 1 on every arm has been played and the plays sum to t - 1
        if t <= K:
            n = np.int64(0)
            for k in range(K):
                if s.P[side, k] == 0:
                    arg = k
                    break
                n += s.P[side, k]
        if arg < 0:
            if n != n_log:
                c = s.fr[ALPHA] * math.log(n)  # alpha ln n, as ucb1_arm's alpha * ln / N_k groups it
                rc = math.sqrt(c)
                n_log = n
            arg = s.reg[1 + side]
            best = s.M[side, arg] + math.sqrt(c / s.P[side, arg])
            for k in range(K):
                if k != arg and (s.M[side, k] + rc * s.Q[side, k]) * _SLACK >= best:
                    v = s.M[side, k] + math.sqrt(c / s.P[side, k])
                    if v > best or (v == best and k < arg):
                        best = v
                        arg = k
        if side == 0:
            x = arg
        else:
            y = arg
    s.reg[LEFT] = x
    s.reg[RIGHT] = y
    if x == y:
        s.stats[N_SELF_DUELS] += 1
    return x, y


@njit(cache=True, no_cfunc_wrapper=True)
def sparring_update(s, i, j, won):
    """Reward 1 to the side whose arm won (a self-duel included), 0 to the other."""
    optimize_for_size()
    if i != j:  # the protocol's counts (:func:`count`'s), inline and without a branch on the outcome
        s.W[i, j] += won
        s.W[j, i] += not won
        s.N[i, j] += 1
        s.N[j, i] += 1
    s.P[0, i] += 1
    s.P[1, j] += 1
    s.G[0, i] += won  # no branch on the outcome (a fair coin to the branch predictor)
    s.G[1, j] += not won
    s.M[0, i] = s.G[0, i] / s.P[0, i]
    s.M[1, j] = s.G[1, j] / s.P[1, j]
    s.Q[0, i] = 1.0 / math.sqrt(s.P[0, i])
    s.Q[1, j] = 1.0 / math.sqrt(s.P[1, j])
    s.reg[T_] += 1


@njit(cache=True, no_cfunc_wrapper=True)
def sparring_run(s, env):
    """Sparring's whole-run kernel: :func:`sparring_select`, the duel, :func:`sparring_update`."""
    optimize_for_size()
    while env_more(env):
        i, j = sparring_select(s)
        sparring_update(s, i, j, play(env, i, j))
