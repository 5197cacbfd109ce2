"""The compiled per-duel parts of the identification algorithms (:mod:`boundcalc.identification`).

* :func:`track_steps` -- Track-and-Stop's loop (Garivier & Kaufmann 2016, C-tracking with forced
  exploration) and its stopping test, advanced duel by duel until it stops, the empirical
  Copeland structure changes or a re-solve time is reached (the caller re-solves the LP there);
* :func:`kt_log_ratio` -- ``ln(P_KT(x) / P_{1/2}(x))`` of ``a`` wins and ``b`` losses, the
  Krichevsky-Trofimov mixture's log likelihood ratio against a fair coin, and
  :func:`pair_evidence` -- a pair's term of the stopping statistic, ``ln(1 + e^(kt + log_odds))``;
* :func:`sequential_compare` -- one anytime sequential test of a pair (Knockout's COMPARE with
  ``epsilon = 0``: duel until ``|p_hat - 1/2| > sqrt(ln(4 n^2 / delta) / (2 n))``);
* :func:`batch_wins` -- the wins of ``i`` in ``n`` further duels of a pair (DKWT's batches).

Every duel is :func:`boundcalc.kernels.policy.duel_uniform` of the pair's code and its count so far:
the ``n``-th duel of a pair has the same outcome in every algorithm run with the same keys.

>>> round(kt_log_ratio(0, 0), 12), round(kt_log_ratio(1, 0), 12)
(0.0, 0.0)
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .lp import copeland_sums
from .policy import duel_uniform

#: The kernel whose cache entry stands for this module's (:func:`boundcalc.kernels.compile_notice`).
CACHE_ENTRY = "track_steps"

__all__ = ["kt_log_ratio", "pair_evidence", "track_steps", "sequential_compare", "batch_wins", "condorcet_statistic"]

_LOG_PI = math.log(math.pi)
_LOG2 = math.log(2.0)


@njit(cache=True, nogil=True)
def kt_log_ratio(a, b):
    """``ln(P_KT / P_{1/2})`` of ``a`` wins and ``b`` losses: ``ln B(a + 1/2, b + 1/2) - ln pi + (a + b) ln 2``
    (the Beta(1/2, 1/2) mixture of Bernoulli likelihoods, Krichevsky & Trofimov 1981)."""
    return math.lgamma(a + 0.5) + math.lgamma(b + 0.5) - math.lgamma(a + b + 1.0) - _LOG_PI + (a + b) * _LOG2


@njit(cache=True, nogil=True)
def pair_evidence(a, b, log_odds):
    """``ln(1 + e^(x))``, ``x = kt_log_ratio(a, b) + log_odds``: the pair's factor
    ``ln((1 - rho) + rho M) - ln(1 - rho)`` of the stopping rule's test martingale
    (:mod:`boundcalc.identification.tracking`) with ``M`` at its lower bound ``e^kt`` and
    ``log_odds = ln(rho / (1 - rho))``; never negative, so a pair that says little adds little."""
    x = kt_log_ratio(a, b) + log_odds
    if x > 0.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


@njit(cache=True, nogil=True)
def condorcet_statistic(E, wins):
    """``(z, a)``: with ``S_k = sum over the arms j that beat k (in wins) of E[k, j]`` (the Condorcet
    model's row "every loss of k"), ``a`` the arm of smallest ``S_k`` (the first on ties) and ``z``
    the smallest ``S_k`` over ``k != a``: the stopping statistic of the answer ``a``."""
    K = E.shape[0]
    s1 = np.inf
    s2 = np.inf
    a = 0
    for k in range(K):
        s = 0.0
        for j in range(K):
            if j != k and wins[j, k] > wins[k, j]:
                s += E[k, j]
        if s < s1:
            s2 = s1
            s1 = s
            a = k
        elif s < s2:
            s2 = s
    return s2, a


@njit(cache=True, nogil=True)
def track_steps(
    mu, wins, n_pair, cum, pi, pj, target, E, key0, key1, t, t_until, max_t,
    model, answer, can_stop, Ia, pool, mI, mS, ok, caseB, in_Ia, sums, log_odds, beta, answer_out,
):  # fmt: skip
    """Advance Track-and-Stop from duel ``t``; returns ``(t, code)``.

    Sampling (C-tracking, Garivier & Kaufmann 2016, Sec. 3.1): ``cum`` accumulates the targets mixed
    with the uniform allocation, ``(1 - P eps_t) target + eps_t`` with ``eps_t = 1 / (2 sqrt(P^2 + t))``
    (forced exploration), and the drawn pair is ``argmax_p cum_p - N_p`` (ties: the first pair).  A duel of pair ``p = (i, j)`` is ``i`` winning when
    ``duel_uniform(key0, key1, p, N_p) < mu[i, j]``.  ``E[i, j]`` holds the pair's stopping weight
    ``pair_evidence(W_ij, W_ji, log_odds)``.

    Stopping (when ``can_stop``: no tied pair and an answer of the model): the smallest row sum of
    ``E`` over the alternative of ``answer`` -- :func:`boundcalc.kernels.lp.copeland_sums` over the
    tables ``(Ia, pool, mI, mS, ok, caseB, in_Ia)`` of 000's family ``R_answer`` of the empirical
    structure (``model == 0``), or :func:`condorcet_statistic` (``model == 1``; its answer, the arm
    of smallest own row, goes to ``answer_out[0]``: no Condorcet winner of ``mu_hat`` and no untied
    pair is needed, the rows being strict losses) -- at least ``beta``.

    ``code``: 1 stopped; 2 the drawn pair changed sides of 1/2 (the structure changed: the caller
    rebuilds the tables and re-solves); 0 reached ``t_until``; 3 reached ``max_t``.
    """
    P = pi.shape[0]
    while True:
        if t >= max_t:
            return t, 3
        if t >= t_until:
            return t, 0
        eps = 0.5 / math.sqrt(P * P + t)
        mix = 1.0 - P * eps
        p = 0
        best = -np.inf
        for q in range(P):
            cum[q] += mix * target[q] + eps
            v = cum[q] - n_pair[q]
            if v > best:
                best = v
                p = q
        i = pi[p]
        j = pj[p]
        before = wins[i, j] - wins[j, i]
        if duel_uniform(key0, key1, p, n_pair[p]) < mu[i, j]:
            wins[i, j] += 1
        else:
            wins[j, i] += 1
        n_pair[p] += 1
        t += 1
        e = pair_evidence(wins[i, j], wins[j, i], log_odds)
        E[i, j] = e
        E[j, i] = e
        after = wins[i, j] - wins[j, i]
        if (before > 0) != (after > 0) or (before < 0) != (after < 0):
            return t, 2
        if can_stop:
            if model == 0:
                copeland_sums(E, answer, Ia, pool, mI, mS, ok, caseB, in_Ia, sums)
                z = np.inf
                for r in range(sums.shape[0]):
                    for c in range(sums.shape[1]):
                        if sums[r, c] < z:
                            z = sums[r, c]
            else:
                z, a = condorcet_statistic(E, wins)
                answer_out[0] = a
            if z >= beta:
                return t, 1


@njit(cache=True, nogil=True)
def sequential_compare(mu_ij, key0, key1, code, n0, delta, max_n):
    """Duel a pair until ``|p_hat - 1/2| > sqrt(ln(4 n^2 / delta) / (2 n))`` (Hoeffding with a union
    bound over ``n``: wrong with probability at most ``delta pi^2 / 12``) or ``max_n`` duels;
    ``n0`` duels of the pair happened before.  Returns ``(n, wins of the first arm)``."""
    w = 0
    n = 0
    while n < max_n:
        if duel_uniform(key0, key1, code, n0 + n) < mu_ij:
            w += 1
        n += 1
        c = math.sqrt(math.log(4.0 * n * n / delta) / (2.0 * n))
        if abs(w / n - 0.5) > c:
            break
    return n, w


@njit(cache=True, nogil=True)
def batch_wins(mu_ij, key0, key1, code, n0, n):
    """Wins of the pair's first arm in its duels ``n0 .. n0 + n - 1``."""
    w = 0
    for k in range(n):
        if duel_uniform(key0, key1, code, n0 + k) < mu_ij:
            w += 1
    return w
