"""RMED1 (Komiyama, Honda, Kashima & Nakagawa, "Regret Lower Bound and Optimal Algorithm in Dueling
Bandit Problem", COLT 2015, Algorithms 1-2), the Condorcet algorithm paper 000 builds on.

The algorithm, as read from the paper and the first author's public C++ library
(``jkomiyama/duelingbanditlib``, ``policy/policy_rmed.hpp``, mode 1):

* Initial phase: every pair ``i < j`` is drawn ``n_init`` times (paper: ``l = 1`` for RMED1),
  pair by pair in lexicographic order.
* Empirical divergence ``I_i(t) = sum_{j: mu_hat_ij < 1/2} N_ij d(mu_hat_ij, 1/2)`` and the
  empirical best arm ``i*(t) = argmin_i I_i(t)`` (smallest index on ties).
* Main loop: ``L_C = L_R = [K]``, ``L_N = {}``.  For ``l`` in ``L_C`` (ascending): the opponents
  ``O_l = {j != l: mu_hat_lj <= 1/2}``; ``m = i*`` when ``i* in O_l`` or ``O_l`` is empty
  (``m = l = i*`` is the exploiting self-duel), otherwise ``m = argmin_{j != l} mu_hat_lj``
  (smallest index on ties).  Draw ``(l, m)``; ``L_R <- L_R \\ {l}``; every ``j`` not in
  ``L_R`` with ``I_j(t) - I_{i*}(t) <= log t + f(K)`` joins ``L_N`` (the paper's eq. (4), with
  ``I`` and ``i*`` recomputed after the draw and ``t`` the round just played, as the C++ does).
  When ``L_C`` is exhausted, ``L_C, L_R <- L_N`` and ``L_N <- {}``.
* ``f(K) = 0.3 K^1.01`` (the paper's experiments; the C++'s ``kweight``).

Differences from the C++ (all deliberate, each the paper's text): the main loop starts from
``L_C = [K]`` (the C++ starts from whatever list its updates built during the initial phase);
``mu_hat <= 1/2`` is exact (the C++ uses ``<= 0.50001``); ties in the argmin go to the smaller
index (the C++'s ``<=`` scan keeps the last).  Comparisons ``mu_hat <= 1/2`` and
``mu_hat < 1/2`` are made on integer counts (``2 W_lj <= N_lj``), so they are exact.

RMED1's regret is asymptotically ``sum_{i != w} Delta_wi / (2 d(mu_iw)) log T`` in RMED's unit
(:func:`boundcalc.bounds.rmed.rmed1`) on a Condorcet matrix; it is not meant for matrices
without a Condorcet winner.

>>> p = RMED1(3)
>>> [p.select_pair() for _ in range(1)]
[(0, 1)]
"""

from __future__ import annotations

import math

import numpy as np

from ..matrix import kl_half
from .base import Integer, Policy, Real
from .registry import register_policy

__all__ = ["RMED1", "empirical_divergence"]


def empirical_divergence(wins: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """``I_i = sum_{j: mu_hat_ij < 1/2} N_ij d(mu_hat_ij)`` per arm (RMED, COLT 2015, eq. (3)).

    Sums run over ``j`` in ascending order (sequentially, so that compiled kernels agree bit for
    bit).

    >>> empirical_divergence(np.array([[0, 1], [3, 0]]), np.array([[0, 4], [4, 0]])).round(6).tolist()
    [0.523248, 0.0]
    """
    W = np.asarray(wins)
    N = np.asarray(draws)
    losing = 2 * W < N
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = np.where(N > 0, W / np.where(N > 0, N, 1), 0.5)
    G = np.where(losing, N * kl_half(mu), 0.0)
    return np.cumsum(G, axis=1)[:, -1]


@register_policy
class RMED1(Policy):
    """RMED1, Komiyama et al. (COLT 2015), Algorithm 1 with the RMED1 subroutine (Algorithm 2).

    Hyperparameters: ``f_scale = 0.3`` and ``f_power = 1.01`` (``f(K) = f_scale K^f_power``, the
    paper's experimental choice) and ``n_init = 1`` (initial draws per pair, the paper's ``l``).
    See the module text for the reading of each step.
    """

    name = "rmed1"
    reference = "Komiyama, Honda, Kashima & Nakagawa (COLT 2015), Algorithms 1-2 (RMED1)"
    hyperparameters = {
        "f_scale": Real(0.3, low=0.0, doc="f(K) = f_scale * K**f_power in the list condition"),
        "f_power": Real(1.01, low=0.0, doc="f(K) = f_scale * K**f_power"),
        "n_init": Integer(1, low=1, doc="draws of every pair in the initial phase"),
    }
    deterministic = True
    fast_kernel = "rmed1"

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.fK = self.params["f_scale"] * float(self.K) ** self.params["f_power"]
        self._LC = list(range(self.K))
        self._LR = set(self._LC)
        self._LN: set[int] = set()
        self._pos = 0
        self._initial = True
        self._in_loop = False
        self.stats = {"initial": 0, "self_duels": 0}

    def _initial_pair(self):
        n0 = self.params["n_init"]
        for i in range(self.K):
            for j in range(i + 1, self.K):
                if self.draws[i, j] < n0:
                    return (i, j)
        return None

    def best_arm(self) -> tuple[int, np.ndarray]:
        """``(i*, I)``: the arm of smallest empirical divergence and the divergences."""
        I = empirical_divergence(self.wins, self.draws)
        return int(np.argmin(I)), I

    def _pre_loop_pair(self):
        """A draw that precedes the loop over ``L_C`` (RMED1: the initial phase), or None."""
        if self._initial:
            pair = self._initial_pair()
            if pair is not None:
                self._in_loop = False
                self.stats["initial"] += 1
                return pair
            self._initial = False
        return None

    def _rmed1_opponent(self, l: int, istar: int) -> int:
        """RMED1's opponent of ``l``: ``i*`` if it is not empirically beaten by ``l`` (or no arm is),
        else the arm ``l`` does worst against (smallest ``mu_hat_lj``, the first on ties)."""
        W, N = self.wins, self.draws
        opp = [j for j in range(self.K) if j != l and 2 * W[l, j] <= N[l, j]]
        if istar in opp or not opp:
            return istar
        best, m = math.inf, -1
        for j in range(self.K):
            if j == l:
                continue
            mu = W[l, j] / N[l, j] if N[l, j] > 0 else 0.5
            if mu < best:
                best, m = mu, j
        return m

    def _select(self) -> tuple[int, int]:
        pair = self._pre_loop_pair()
        if pair is not None:
            return pair
        self._in_loop = True
        l = self._LC[self._pos]
        istar, _ = self.best_arm()
        m = self._rmed1_opponent(l, istar)
        if m == l:
            self.stats["self_duels"] += 1
        return (l, m)

    def _learn(self, i: int, j: int, i_won: bool) -> None:
        if not self._in_loop:
            return
        self._in_loop = False
        l = self._LC[self._pos]
        self._LR.discard(l)
        istar, I = self.best_arm()
        bound = math.log(self.t) + self.fK
        for a in range(self.K):
            if a not in self._LR and I[a] - I[istar] <= bound:
                self._LN.add(a)
        self._pos += 1
        if self._pos == len(self._LC):
            self._LC = sorted(self._LN)
            self._LR = set(self._LN)
            self._LN = set()
            self._pos = 0
