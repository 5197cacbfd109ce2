"""Versatile-DB's compiled state and steps (Saha & Gaillard, ICML 2022, Algorithm 3, with two
Tsallis-INF sub-bandits of Zimmert & Seldin); the reading and the draws are in
:mod:`boundcalc.policies.versatile_db`.

>>> import numpy as np
>>> L = np.zeros((1, 2)); w = np.zeros((1, 2))
>>> tsallis_weights.py_func(L, w, 0, 4.0); w.round(9).tolist()   # equal losses: uniform, to 1e-12
[[0.5, 0.5]]
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .codesize import optimize_for_size
from .policy import T_, count_wn, env_more, play
from .stats import held_stream, held_uniform, store_stream

#: Versatile-DB's state: the protocol's counts, the policy stream and its Box-Muller spare, the two
#: Tsallis-INF's cumulative loss estimates ``L[s, k]`` and this round's distributions ``w[s, k]``
#: (``s = 0`` left, ``1`` right); ``reg = [t]``; ``fr = [c]`` (``eta_t = c / sqrt(t)``).
VersatileDBState = namedtuple("VersatileDBState", ["W", "N", "rs", "spare", "L", "w", "reg", "fr", "stats"])

#: Indices of ``fr``: ``c`` (``eta_t = c / sqrt(t)``).
ETA_SCALE = 0
#: Indices of ``stats``, the policy's ``stat_names`` (``self_duels``).
N_SELF_DUELS = 0


#: The two sub-bandits' rows, as numpy int64 scalars: numba types a literal ``0`` or ``1`` argument as
#: its own type and would compile each ``tsallis_*`` function once per side (kernels.policy, "Compile time").
LEFT, RIGHT = np.int64(0), np.int64(1)

#: Newton's stopping rule for the normaliser: ``sum_k w_k - 1 <= NEWTON_TOL`` (or 100 steps).
NEWTON_TOL = 1e-12


@njit(cache=True, no_cfunc_wrapper=True)
def tsallis_weights(L, w, side, eta):
    """Tsallis-INF's distribution for sub-bandit ``side`` into ``w[side]``:
    ``w_k = 4 / (eta (L_k - x))^2`` with ``x < min L`` the normaliser of ``sum_k w_k = 1``, found by
    Newton's method ``x <- x - (sum w - 1) / (eta sum w^(3/2))`` started at ``x = min L - 2 / eta``
    (where the smallest loss alone has weight 1, so the iterates decrease monotonically to the root)."""
    optimize_for_size()
    K = L.shape[1]
    m = L[side, 0]
    for k in range(1, K):
        if L[side, k] < m:
            m = L[side, k]
    x = m - 2.0 / eta
    for _ in range(100):
        S = 0.0
        D = 0.0
        for k in range(K):
            d = eta * (L[side, k] - x)
            v = 4.0 / (d * d)
            w[side, k] = v
            S += v
            D += v * math.sqrt(v)
        if S - 1.0 <= NEWTON_TOL:
            break
        x -= (S - 1.0) / (eta * D)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def tsallis_draw(w, side, u):
    """The arm of sub-bandit ``side`` for a uniform ``u``: the first ``k`` whose cumulative weight
    exceeds ``u sum_k w_k``."""
    optimize_for_size()
    K = w.shape[1]
    S = 0.0
    for k in range(K):
        S += w[side, k]
    target = u * S
    c = 0.0
    for k in range(K):
        c += w[side, k]
        if c > target:
            return k
    return K - 1


@njit(cache=True, no_cfunc_wrapper=True)
def tsallis_learn(L, w, side, arm, loss, eta):
    """Zimmert & Seldin's reduced-variance estimate added to ``L[side]``:
    ``(1[k = arm] (loss - B_k)) / w_k + B_k`` for every arm ``k``, ``B_k = 1/2`` when
    ``w_k >= eta^2`` and 0 otherwise."""
    optimize_for_size()
    K = L.shape[1]
    e2 = eta * eta
    for k in range(K):
        b = 0.5 if w[side, k] >= e2 else 0.0
        if k == arm:
            L[side, k] += (loss - b) / w[side, k] + b
        else:
            L[side, k] += b


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def vdb_select(s):
    """Algorithm 3's draws: ``x_t`` from the left Tsallis-INF, ``y_t`` from the right, one uniform
    each (left first).  ``stats = [self_duels]``."""
    eta = s.fr[ETA_SCALE] / math.sqrt(s.reg[T_])
    g = held_stream(s.rs, s.spare)
    tsallis_weights(s.L, s.w, LEFT, eta)
    g, u = held_uniform(g)
    x = tsallis_draw(s.w, LEFT, u)
    tsallis_weights(s.L, s.w, RIGHT, eta)
    g, u = held_uniform(g)
    y = tsallis_draw(s.w, RIGHT, u)
    store_stream(g, s.rs, s.spare)
    if x == y:
        s.stats[N_SELF_DUELS] += 1
    return x, y


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def vdb_update(s, i, j, won):
    """Algorithm 3's feedback: the left sub-bandit's arm ``i`` suffers loss ``1 - o_t``, the right's
    arm ``j`` loss ``o_t`` (``o_t = 1`` when ``i`` won), a self-duel's outcome included."""
    count_wn(s.W, s.N, i, j, won)
    eta = s.fr[ETA_SCALE] / math.sqrt(s.reg[T_])
    o = 1.0 if won else 0.0
    tsallis_learn(s.L, s.w, LEFT, i, 1.0 - o, eta)
    tsallis_learn(s.L, s.w, RIGHT, j, o, eta)
    s.reg[T_] += 1


@njit(cache=True, no_cfunc_wrapper=True)
def vdb_run(s, env):
    """Versatile-DB's whole-run kernel: :func:`vdb_select`, the duel, :func:`vdb_update`, to the horizon."""
    optimize_for_size()
    while env_more(env):
        i, j = vdb_select(s)
        vdb_update(s, i, j, play(env, i, j))
