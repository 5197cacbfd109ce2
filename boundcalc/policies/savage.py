"""SAVAGE, Copeland variant (Urvoy, Clerot, Feraud & Naamane, "Generic Exploration and K-armed
Voting Bandits", ICML 2013 -- paper 003 -- Algorithm 1 with the Copeland independence predicate of
Sec. 4.1 / Appendix B.3, explore-then-exploit as in Appendix B.1, Algorithm 4).

The text of 003 in ``../shared/papers/`` lost its formulas in extraction; the reading below
rebuilds them from the surviving prose (Algorithm 1's structure, "forcing inclusion of the
successive confidence sets", the Copeland winner as decision function, the finite-horizon
confidence radius of eq. (1), the explore-then-exploit wrapper), from the Hoeffding/union-bound
argument of Appendix A.1, and from the first author of RMED's public C++
(``jkomiyama/duelingbanditlib``, ``policy/policy_savage.hpp``: the same radius and
``delta = 1/T``; that file implements the Condorcet variant, not this Copeland one), read, not
copied.

* Parameters: the ``N = K (K - 1) / 2`` entries ``x_ij`` (``i < j``) of the preference matrix;
  ``x_ji = 1 - x_ij``.  The hypothesis set ``H`` is a box ``[lo_ij, hi_ij]``, starting at
  ``[0, 1]``.
* Algorithm 1's loop: among the pairs still in ``W`` (the parameters the decision may depend
  on), draw the one with the fewest samples (ties: the lexicographically first ``(i, j)``,
  ``i < j``; the paper says "arbitrary"); after its outcome, ``H <- H cap {|x_ij - mu_hat_ij| <=
  c(N_ij)}`` -- the box is intersected, so the intervals only shrink (the "forced inclusion").
* Eq. (1), the finite-horizon confidence radius (Hoeffding plus a union bound over the ``N``
  parameters and ``T`` samples): ``c(n) = sqrt(log(2 N T / delta) / (2 n))`` -- always
  **positive** (``2 N T / delta >= 2``), the pitfall of issue 8 (a negated radius inverts the
  intervals and ends the exploration at once; ``tests/test_policies_rmed2_savage.py``).
  ``delta = delta_scale / T`` with ``delta_scale = 1`` (``delta = 1/T``, the C++ experiments'
  value); ``T`` is the hyperparameter ``horizon`` (SAVAGE is a finite-horizon algorithm: 001
  Sec. 5 and 002 Sec. 6 rerun it with the horizon set to each plotted ``T``; default ``10^5``).
* The Copeland independence predicate (Sec. 4.1, eq. (11)): with ``Lo_i = #{j: lo_ij > 1/2}``
  and ``Up_i = #{j: hi_ij > 1/2}`` (the smallest and largest Copeland scores of ``i`` over
  ``H``), the pair ``(i, j)`` leaves ``W`` when its winner is known (``1/2`` outside
  ``[lo_ij, hi_ij]``) or when neither arm can be a Copeland winner any more
  (``max(Up_i, Up_j) < max_k Lo_k``).  Both conditions are monotone in ``H``, so ``W`` is
  recomputed from the box (equal to removing pairs one by one).
* Exploit (Appendix B.1): once ``W`` is empty every potential winner's score is known; the
  self-duel ``(w, w)`` of ``w = argmax_k Lo_k`` (smallest index on ties) is played to the end.

>>> p = SAVAGE(3)
>>> p.select_pair(), round(p.radius(1), 4)      # sqrt(log(6 * 10^5 * 10^5) / 2)
((0, 1), 3.5226)
"""

from __future__ import annotations

import math

import numpy as np

from .base import Integer, Policy, Real
from .registry import register_policy

__all__ = ["SAVAGE", "savage_log_term", "copeland_active_pairs"]


def savage_log_term(K: int, horizon: int, delta_scale: float) -> float:
    """``log(2 N T / delta)`` of 003 eq. (1) with ``N = K(K-1)/2`` and ``delta = delta_scale / T``.

    >>> round(savage_log_term(5, 10**5, 1.0), 4)    # log(20 * 10^10)
    26.0216
    """
    delta = delta_scale / horizon
    return math.log(K * (K - 1) * horizon / delta)


def copeland_active_pairs(lo: np.ndarray, hi: np.ndarray) -> list[tuple[int, int]]:
    """The pairs ``(i, j)``, ``i < j``, that 003's Copeland predicate keeps in ``W`` (module text).

    >>> lo = np.array([[.5, .6, .1], [.3, .5, .2], [.2, .5, .5]])
    >>> hi = 1 - lo.T
    >>> copeland_active_pairs(lo, hi)   # (0, 2) and (1, 2) undecided; arm 2 can still win one
    [(0, 2), (1, 2)]
    """
    K = lo.shape[0]
    off = ~np.eye(K, dtype=bool)
    low = ((lo > 0.5) & off).sum(axis=1)
    up = ((hi > 0.5) & off).sum(axis=1)
    top = low.max()
    out = []
    for i in range(K):
        for j in range(i + 1, K):
            if lo[i, j] <= 0.5 <= hi[i, j] and max(up[i], up[j]) >= top:
                out.append((i, j))
    return out


@register_policy
class SAVAGE(Policy):
    """Copeland SAVAGE, Urvoy et al. (ICML 2013, paper 003), Algorithm 1 with the Copeland
    predicate (Sec. 4.1) and the finite-horizon radius of eq. (1), then exploit (App. B.1).

    Hyperparameters: ``horizon = 10^5`` (``T`` in the radius) and ``delta_scale = 1``
    (``delta = delta_scale / T``, in ``(0, 1]``).  ``stats``: ``"exploration"`` (rounds of
    Algorithm 1's loop) and ``"self_duels"`` (exploit rounds).
    """

    name = "savage"
    reference = "Urvoy, Clerot, Feraud & Naamane (ICML 2013), Algorithm 1, Copeland variant (SAVAGE)"
    hyperparameters = {
        "horizon": Integer(10**5, low=1, doc="horizon T of the finite-horizon confidence radius"),
        "delta_scale": Real(1.0, low=0.0, high=1.0, low_open=True,
                            doc="confidence delta = delta_scale / horizon"),
    }
    deterministic = True
    fast_kernel = "savage"

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.log_term = savage_log_term(self.K, self.params["horizon"], self.params["delta_scale"])
        self.lo = np.zeros((self.K, self.K))
        self.hi = np.ones((self.K, self.K))
        np.fill_diagonal(self.lo, 0.5)
        np.fill_diagonal(self.hi, 0.5)
        self.stats = {"exploration": 0, "self_duels": 0}

    def radius(self, n: int) -> float:
        """``c(n) = sqrt(log(2 N T / delta) / (2 n))`` (003 eq. (1)), ``n >= 1`` samples."""
        return math.sqrt(self.log_term / (2.0 * n))

    def active_pairs(self) -> list[tuple[int, int]]:
        return copeland_active_pairs(self.lo, self.hi)

    def winner(self) -> int:
        """``argmax_k Lo_k`` (smallest index on ties): the decision once ``W`` is empty."""
        off = ~np.eye(self.K, dtype=bool)
        return int(np.argmax(((self.lo > 0.5) & off).sum(axis=1)))

    def _select(self) -> tuple[int, int]:
        act = self.active_pairs()
        if not act:
            w = self.winner()
            self.stats["self_duels"] += 1
            return (w, w)
        self.stats["exploration"] += 1
        best = min(self.draws[i, j] for i, j in act)
        for i, j in act:
            if self.draws[i, j] == best:
                return (i, j)
        raise AssertionError("unreachable")  # pragma: no cover

    def _learn(self, i: int, j: int, i_won: bool) -> None:
        if i == j:
            return
        p, q = (i, j) if i < j else (j, i)
        n = int(self.draws[p, q])
        m = self.wins[p, q] / n
        c = self.radius(n)
        self.lo[p, q] = max(self.lo[p, q], m - c)
        self.hi[p, q] = min(self.hi[p, q], m + c)
        self.lo[q, p] = 1.0 - self.hi[p, q]
        self.hi[q, p] = 1.0 - self.lo[p, q]
