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
  **positive** (``2 N T / delta >= 2``), a pitfall of public code (a negated radius inverts the
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

Written once (:mod:`boundcalc.policies.kernel`): the compiled :func:`savage_select` and
:func:`savage_update` over :class:`SAVAGEState`; the Copeland score bounds ``Lo``/``Up`` are kept
up to date per duel (only the drawn pair's box changes), and once ``W`` is empty the winner's
self-duel is replayed to the end without recomputation.

>>> import math
>>> p = SAVAGE(3)
>>> p.select_pair(), round(math.sqrt(savage_log_term(3, 10**5, 1.0) / 2), 4)   # c(1) of eq. (1)
((0, 1), 3.5226)
"""

from __future__ import annotations

import numpy as np

from ..kernels.savage import (
    SAVAGEState,
    savage_log_term,
    savage_run,
    savage_select,
    savage_update,
)
from .base import Integer, Real
from .kernel import CompiledPolicy
from .registry import register_policy

__all__ = ["SAVAGE", "SAVAGEState", "savage_log_term", "savage_select", "savage_update", "savage_run"]


@register_policy
class SAVAGE(CompiledPolicy):
    """Copeland SAVAGE, Urvoy et al. (ICML 2013, paper 003), Algorithm 1 with the Copeland
    predicate (Sec. 4.1) and the finite-horizon radius of eq. (1), then exploit (App. B.1).

    Hyperparameters: ``horizon = 10^5`` (``T`` in the radius) and ``delta_scale = 1``
    (``delta = delta_scale / T``, in ``(0, 1]``).  ``stats``: ``"exploration"`` (rounds of
    Algorithm 1's loop) and ``"self_duels"`` (exploit rounds).
    """

    name = "savage"
    plot_style = ("tab:gray", (0, (6, 2)), "*")
    reference = "Urvoy, Clerot, Feraud & Naamane (ICML 2013), Algorithm 1, Copeland variant (SAVAGE)"
    hyperparameters = {
        "horizon": Integer(10**5, low=1, doc="horizon T of the finite-horizon confidence radius"),
        "delta_scale": Real(1.0, low=0.0, high=1.0, low_open=True, doc="confidence delta = delta_scale / horizon"),
    }
    deterministic = True
    State = SAVAGEState
    stat_names = ("exploration", "self_duels")
    kernels = (savage_select, savage_update, savage_run)

    def initial_state(self) -> SAVAGEState:
        K = self.K
        lo = np.zeros((K, K))
        hi = np.ones((K, K))
        np.fill_diagonal(lo, 0.5)
        np.fill_diagonal(hi, 0.5)
        lt = savage_log_term(K, self.params["horizon"], self.params["delta_scale"])
        return SAVAGEState(
            np.zeros((K, K), dtype=np.int64),
            np.zeros((K, K), dtype=np.int64),
            lo,
            hi,
            np.zeros(K, dtype=np.int64),
            np.full(K, K - 1, dtype=np.int64),
            np.array([1, 0, 0], dtype=np.int64),
            np.array([lt]),
            np.zeros(2, dtype=np.int64),
        )
