"""SCB's compiled state and steps (Zoghi, Karnin, Whiteson & de Rijke, NIPS 2015, Algorithms 2-4);
the reading of each step and the draws it makes are in :mod:`boundcalc.policies.scb`."""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .codesize import optimize_for_size
from .policy import T_, count_wn, env_more, play
from .stats import bernoulli_kl, stream_index

#: SCB's state: the counts, the policy stream, Algorithm 4's candidates ``S`` and rewards ``R``;
#: ``reg = [t, pass t of Algorithm 4, position in S, opponent (-1: a new reward), its duels, its
#: wins, identified arm (-1: none), round r]``, ``fr = [T_r, delta_r, duels used in the round, eps]``.
SCBState = namedtuple("SCBState", ["W", "N", "rs", "S", "R", "reg", "fr", "stats"])

#: Indices of ``stats``, the policy's ``stat_names`` (``self_duels``, ``rounds``, ``identified``, ``rewards``).
N_SELF_DUELS, N_ROUNDS, N_IDENTIFIED, N_REWARDS = 0, 1, 2, 3


PASS, POS, OPP, QN, QW, WINNER, ROUND = 1, 2, 3, 4, 5, 6, 7


TR, DELTA, USED, EPS = 0, 1, 2, 3


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def scb_pair_decided(w, n, K, delta):
    """002 Algorithm 2 line 1: after ``n`` fresh duels of ``(i, j)`` with ``w`` wins of ``i``, is
    ``p_ij > 1/2`` determined at level ``delta / K^2``?

    ``|w / n - 1/2| > sqrt(ln(4 K^2 n^2 / delta) / (2 n))``: Hoeffding,
    ``P(|w/n - p| > r_n) <= 2 exp(-2 n r_n^2) = delta / (2 K^2 n^2)``, summed over ``n``:
    ``(pi^2 / 12) delta / K^2 < delta / K^2``.

    >>> scb_pair_decided(30, 30, 2, 0.1), scb_pair_decided(20, 30, 2, 0.1)
    (True, False)
    """
    if n <= 0:
        return False
    x = w / n - 0.5
    rad = math.sqrt(math.log(4.0 * K * K * float(n) * float(n) / delta) / (2.0 * n))
    return abs(x) > rad


@njit(cache=True, no_cfunc_wrapper=True)
def scb_kl_bounds(mu_hat, t, K, delta):
    """002 Algorithm 4's KL confidence interval after ``t`` rewards of mean ``mu_hat``:
    ``{q : t d(mu_hat, q) <= ln(4 t K / delta) + 2 ln ln t}`` (``ln ln t`` taken as 0 while
    ``ln t <= 1``), each end by 60 bisection steps.  Returns ``(l, u)``.

    >>> l, u = scb_kl_bounds(0.5, 100, 5, 0.01); round(l, 4), round(u, 4)
    (0.2436, 0.7564)
    """
    optimize_for_size()
    lt = math.log(float(t))
    beta = math.log(4.0 * t * K / delta) + (2.0 * math.log(lt) if lt > 1.0 else 0.0)
    lo = mu_hat
    hi = 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if t * bernoulli_kl(mu_hat, mid) <= beta:
            lo = mid
        else:
            hi = mid
    u = lo
    lo = 0.0
    hi = mu_hat
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if t * bernoulli_kl(mu_hat, mid) <= beta:
            hi = mid
        else:
            lo = mid
    return hi, u


@njit(cache=True, no_cfunc_wrapper=True)
def scb_eliminate(S, R, t, K, delta, eps):
    """002 Algorithm 4 after a pass in which every arm of ``S`` got its ``t``-th reward.

    Drops the arms with ``u_i < max_j l_j`` (``S``, a bool array, is updated in place) and
    returns the identified arm -- ``argmax l`` (smallest index on ties) -- when one arm is left
    or ``1 - max l <= (1 + eps) (1 - max u)``; else -1.  ``R[i]``: arm ``i``'s rewards so far.

    >>> import numpy as np
    >>> S = np.ones(3, dtype=bool)
    >>> int(scb_eliminate(S, np.array([200, 100, 30]), 200, 3, 0.01, 0.0)), S.tolist()
    (0, [True, False, False])
    """
    optimize_for_size()
    n = S.shape[0]
    ml = -1.0
    for i in range(n):
        if S[i]:
            l, u = scb_kl_bounds(R[i] / t, t, K, delta)
            if l > ml:
                ml = l
    left = np.int64(0)
    mu_ = -1.0
    best = np.int64(-1)
    bl = -1.0
    for i in range(n):
        if S[i]:
            # the same bounds again (the same numbers: no arrays allocated, so no numpy allocation
            # compiled; an elimination pass is rare -- once per pass of Algorithm 4)
            l, u = scb_kl_bounds(R[i] / t, t, K, delta)
            if u < ml:
                S[i] = False
            else:
                left += 1
                if u > mu_:
                    mu_ = u
                if l > bl:
                    bl = l
                    best = i
    if left == 1 or 1.0 - bl <= (1.0 + eps) * (1.0 - mu_):
        return best
    return -1


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def _new_round(s):
    """Algorithm 3 line 2: a fresh Algorithm 2 / 4 run with budget ``T_r``."""
    s.fr[USED] = 0.0
    s.reg[WINNER] = -1
    s.reg[PASS] = 1
    s.reg[POS] = 0
    s.reg[OPP] = -1
    s.reg[QN] = 0
    s.reg[QW] = 0
    for i in range(s.S.shape[0]):
        s.S[i] = True
        s.R[i] = 0


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def scb_select(s):
    """Algorithm 3 line 3's exploitation once an arm is identified, else Algorithm 2's next duel:
    the current arm of ``S`` against its ``reward`` opponent (drawn uniformly when a new ``reward``
    starts)."""
    w = s.reg[WINNER]
    if w >= 0:
        return w, w
    pos = s.reg[POS]
    while not s.S[pos]:
        pos += 1
    s.reg[POS] = pos
    if s.reg[OPP] < 0:  # Algorithm 2 line 1: a new reward(a)
        k = stream_index(s.rs, s.S.shape[0] - 1)
        s.reg[OPP] = k + 1 if k >= pos else k
        s.reg[QN] = 0
        s.reg[QW] = 0
    return pos, s.reg[OPP]


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def scb_update(s, i, j, won):
    """The outcome of ``(i, j)``: a decided ``reward`` ends (Algorithm 2), a completed pass runs
    Algorithm 4's elimination, an exhausted budget starts the next round (Algorithm 3).
    ``stats = [self_duels, rounds, identified, rewards]``."""
    count_wn(s.W, s.N, i, j, won)
    K = s.S.shape[0]
    if i == j:
        s.stats[N_SELF_DUELS] += 1
    else:
        s.reg[QN] += 1
        if won:
            s.reg[QW] += 1
        if scb_pair_decided(s.reg[QW], s.reg[QN], K, s.fr[DELTA]):
            s.stats[N_REWARDS] += 1
            if 2 * s.reg[QW] > s.reg[QN]:
                s.R[i] += 1
            s.reg[OPP] = -1
            pos = s.reg[POS] + 1
            while pos < K and not s.S[pos]:
                pos += 1
            if pos == K:  # a pass of Algorithm 4 is complete
                w = scb_eliminate(s.S, s.R, s.reg[PASS], K, s.fr[DELTA], s.fr[EPS])
                s.reg[WINNER] = w
                if w >= 0:
                    s.stats[N_IDENTIFIED] += 1
                s.reg[PASS] += 1
                pos = 0
            s.reg[POS] = pos
    s.fr[USED] += 1.0
    if s.fr[USED] >= s.fr[TR]:  # force-terminate: the next round of Algorithm 3
        s.reg[ROUND] += 1
        s.stats[N_ROUNDS] += 1
        s.fr[TR] = s.fr[TR] * s.fr[TR]
        s.fr[DELTA] = math.log(s.fr[TR]) / s.fr[TR]
        _new_round(s)
    s.reg[T_] += 1


@njit(cache=True, no_cfunc_wrapper=True)
def scb_run(s, env):
    """SCB's whole-run kernel: :func:`scb_select`, the duel, :func:`scb_update`, to the horizon."""
    optimize_for_size()
    while env_more(env):
        i, j = scb_select(s)
        scb_update(s, i, j, play(env, i, j))
