"""D-TS and D-TS+: Double Thompson Sampling (Wu & Liu, "Double Thompson Sampling for Dueling
Bandits", NIPS 2016 -- paper 001), Algorithm 1 and Sec. 4.3.

D-TS, 001 Algorithm 1, with its line numbers (``B`` = the protocol's ``wins``, ``t`` the 1-based
round):

* line 4: ``u_ij = B_ij / N_ij + sqrt(alpha log t / N_ij)``, ``l_ij = B_ij / N_ij - sqrt(alpha log t / N_ij)``
  (``N = B + B^T``), ``u_ii = l_ii = 1/2``, ``x / 0 := 1`` for any ``x`` -- read literally, an
  undrawn pair has ``u = 2`` and ``l = 0`` (:func:`~boundcalc.kernels.stats.ucb`, :func:`~boundcalc.kernels.stats.lcb`);
* line 5: ``zeta_hat_i = (1 / (K - 1)) sum_{j != i} 1(u_ij > 1/2)`` (strict, as printed);
* line 6: ``C = {i : zeta_hat_i = max_j zeta_hat_j}`` -- the Copeland-winner candidates of the
  RUCB-style bounds (never empty);
* lines 7-10: for ``i < j``, ``theta1_ij ~ Beta(B_ij + 1, B_ji + 1)`` and ``theta1_ji = 1 - theta1_ij``;
* line 11: ``a1 = argmax_{i in C} sum_{j != i} 1(theta1_ij > 1/2)``, ties broken uniformly at
  random;
* line 13: ``theta2_{i a1} ~ Beta(B_{i a1} + 1, B_{a1 i} + 1)`` for every ``i != a1`` (fresh samples,
  independent of phase 1) and ``theta2_{a1 a1} = 1/2``;
* line 14: ``a2 = argmax_{i : l_{i a1} <= 1/2} theta2_{i a1}`` -- the arm whose *sampled*
  probability of beating ``a1`` is largest among the arms not confidently beating ``a1``
  (``a1`` itself always qualifies, ``l_{a1 a1} = 1/2``; ``a2 = a1`` is the self-duel).  Not a
  value of ``a1``'s own row (``theta_{a1 i}``, the probability that ``a1`` beats ``i``), the
  pitfall of public code tested against in ``tests/test_policies_dts.py``.  Ties (probability
  zero) go to the smallest index.
* lines 16-17: duel ``(a1, a2)``; the winner's count is incremented (the protocol's ``update``).

D-TS+ (001 Sec. 4.3) replaces line 11 only: with ``zeta_tilde_i = (1 / (K - 1)) sum_{j != i}
1(theta1_ij > 1/2)`` for every arm, ``zeta_tilde* = max_i zeta_tilde_i`` over all arms (as
printed; the authors' C++ takes the maximum over ``C``), ``r_ij = zeta_tilde* - (zeta_tilde_i +
zeta_tilde_j) / 2``, ``R_i = sum_{j : theta1_ij != 1/2} r_ij / D(theta1_ij || 1/2)``:
``A = {i in C : zeta_tilde_i = max_{i' in C} zeta_tilde_i'}`` and ``a1 = argmin_{i in A} R_i``
(ties, of probability zero, to the smallest index as in the C++; the sum over ``j != i`` in
ascending order).

``alpha = 0.51`` (001 Sec. 5).  Readings checked against the authors' public C++
(``HuasenWu/DuelingBandits``, ``Alg_DTS.cpp`` and ``Alg_DTS2.cpp``; read, not copied): the
second candidate maximises the fresh sample ``theta2[i][a1] ~ Beta(W[i][a1] + 1, W[a1][i] + 1)``
over arms with ``l[i][a1] <= 1/2`` (as line 14); the C++ differs from the printed text, which
this module follows, in counting ``u_ij >= 1/2`` in line 5, starting from pseudo-counts
(``W = 1e-5``, ``N = 1e-6``) and, in D-TS+, taking ``zeta*`` over ``C``.

Written once (:mod:`boundcalc.policies.kernel`): the compiled :func:`dts_select` over
:class:`DTSState` (D-TS+ is the same function with its flag set).  Random draws, from the policy
stream, in order per round: the ``K (K - 1) / 2`` Beta draws of lines 7-10 for ``(i, j)``, ``i < j``,
row by row; D-TS only: one index over the tied maximisers of line 11 (ascending) when more than
one; the ``K - 1`` Beta draws of line 13 for ``i != a1`` ascending.  The stream is held in registers
for the round (:func:`~boundcalc.kernels.stats.held_stream`) and stored at its end: the same
numbers as the array-held stream, 1.2-1.5x faster per round.

>>> import numpy as np
>>> p = DTS(4, rng=np.random.default_rng(0))
>>> i, j = p.select_pair(); 0 <= i < 4 and 0 <= j < 4
True
"""

from __future__ import annotations

import numpy as np

from ..kernels.dts import DTSState, dts_run, dts_select
from ..kernels.policy import plain_update
from .base import MAX_SCALE, Real
from .kernel import CompiledPolicy
from .registry import register_policy

__all__ = ["DTS", "DTSPlus", "DTSState", "dts_select", "dts_run"]


@register_policy
class DTS(CompiledPolicy):
    """D-TS, Wu & Liu (NIPS 2016, paper 001), Algorithm 1 (lines 1-18).

    Hyperparameter ``alpha = 0.51`` (001 Sec. 5; ``> 1/2`` as Proposition 1 and Theorem 1
    require).  The module text gives the reading of every line and the order of the random
    draws.  ``stats``: ``"self_duels"`` (``a2 = a1``), ``"eliminations"`` (rounds where the
    candidate set ``C`` of lines 5-6 left some arm out), ``"ties"`` (rounds where line 11 had
    more than one maximiser).
    """

    name = "dts"
    plot_style = ("tab:purple", "-.", "v")
    reference = "Wu & Liu (NIPS 2016), Algorithm 1 (D-TS)"
    hyperparameters = {
        "alpha": Real(0.51, low=0.5, low_open=True, high=MAX_SCALE, doc="confidence scale of the RUCB/RLCB (> 1/2)"),
    }
    deterministic = False
    State = DTSState
    stat_names = ("self_duels", "eliminations", "ties")
    kernels = (dts_select, plain_update, dts_run)
    _plus = 0

    def initial_state(self) -> DTSState:
        K = self.K
        return DTSState(
            np.zeros((K, K), dtype=np.int64),
            np.zeros((K, K), dtype=np.int64),
            self._stream(),
            np.zeros(2),
            np.full((K, K), 0.5),
            np.empty(K, dtype=np.int64),
            np.empty(K, dtype=np.int64),
            np.zeros(K, dtype=np.int64),
            np.array([1, self._plus], dtype=np.int64),
            np.array([self.params["alpha"]]),
            np.zeros(3, dtype=np.int64),
        )


@register_policy
class DTSPlus(DTS):
    """D-TS+, Wu & Liu (NIPS 2016, paper 001), Sec. 4.3: D-TS (Algorithm 1) with line 11's random
    tie-break replaced by the smallest estimated regret ``R_i`` (first on equal ``R``; module text).

    Hyperparameter ``alpha = 0.51`` (001 Sec. 5).  ``stats`` as :class:`DTS`; ``"ties"`` counts
    the rounds where ``A`` had more than one arm (and ``R`` decided).
    """

    name = "dts+"
    plot_style = ("tab:pink", ":", "P")
    reference = "Wu & Liu (NIPS 2016), Sec. 4.3 (D-TS+)"
    _plus = 1
