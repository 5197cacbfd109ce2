"""Doubler (Ailon, Karnin & Joachims, "Reducing Dueling Bandits to Cardinal Bandits", ICML 2014,
Sec. 3, Algorithm 2 "Doubler"), with a UCB1 singleton bandit (Auer, Cesa-Bianchi & Fischer 2002).

Where it was read.  Line by line in the printed Algorithm 2 (PMLR v32, ``ailon14.pdf``,
p. 5, from the ``mlresearch/v32`` repository): line 2 "L <- an arbitrary singleton in X", line 5
``reset(S)`` at each epoch, line 6 "for j = 1...2^i" from ``i = 1``, line 7 "choose x_t uniformly
from L", line 8 ``y_t <- advance(S)``, line 10 ``feedback(S, b_t)`` with ``b_t = 1`` meaning "y_t is
chosen" (Sec. 2), line 13 "L <- the multi-set of arms played as y_t in the last for-loop" -- the
steps below.  The paper's SBM is its Algorithm 1 (UCB,
index ``mu_hat_x + sqrt((alpha + 2) ln(t) / (2 t_x))``, every arm once first, ``t`` counting the
play being chosen); UCB1 below (Auer et al.'s, ``sqrt(2 ln n / N_k)`` with ``n`` the plays so far)
is that index at the paper's ``alpha = 2`` (``(2 + 2) / 2 = 2``) but for the clock (``ln n``
against the paper's ``ln(n + 1)``), a difference kept (UCB1 as its authors state it):

* a singleton bandit ``S`` over the ``K`` arms (here UCB1, the same sub-bandit as
  :mod:`~boundcalc.policies.sparring`: each arm once ascending, then the first maximiser of
  ``G_k / N_k + sqrt(alpha ln n / N_k)``, ``alpha = 2``);
* ``L``: "an arbitrary singleton in X" at the start -- here one arm drawn uniformly (one index on the
  policy stream, when the policy is built);
* epoch ``i = 1, 2, ...`` of ``2^i`` rounds: ``S`` is reset; each round the left arm ``x_t`` is
  drawn uniformly from the multiset ``L`` (one index over its ``|L|`` entries on the policy stream
  when ``|L| > 1``; an arm's chance is its multiplicity over ``|L|``), the right arm is ``y_t =
  advance(S)``; the duel ``(x_t, y_t)`` is played and ``S`` gets the reward ``b_t = 1`` when
  ``y_t`` won (a self-duel's reported outcome included, as for Sparring);
* at the end of the epoch ``L`` becomes the multiset of the arms ``S`` played in it.

Doubler is deterministic but for those draws.  Setting: Condorcet (utility-based, linear link, in
the paper); its regret guarantee (Corollary 3.3, ``O(H log^2 T)``) is an order: ``compare``'s
``doubler_order`` row reports ``H``.

Written once (:mod:`boundcalc.kernels.doubler`): compiled :func:`doubler_select` and
:func:`doubler_update` over :class:`DoublerState`.

>>> import numpy as np
>>> p = Doubler(3, rng=np.random.default_rng(0))
>>> x, y = p.select_pair(); (x == p.first_arm, y)      # the first epoch's left arm; UCB1 starts at 0
(True, 0)
"""

from __future__ import annotations

import numpy as np

from ..kernels.doubler import DoublerState, doubler_run, doubler_select, doubler_update
from ..kernels.stats import stream_index
from .base import MAX_SCALE, MIN_SCALE, Real
from .kernel import CompiledPolicy
from .registry import register_policy

__all__ = ["Doubler", "DoublerState", "doubler_select", "doubler_update", "doubler_run"]


@register_policy
class Doubler(CompiledPolicy):
    """Doubler, Ailon, Karnin & Joachims (ICML 2014), Algorithm 2, with a UCB1 singleton bandit.

    Hyperparameter ``alpha = 2`` (UCB1's exploration constant).  Setting: Condorcet (utility-based
    in the paper).  ``stats``: ``"self_duels"``, ``"epochs"`` (completed epochs).
    """

    name = "doubler"
    reference = (
        "Ailon, Karnin & Joachims (ICML 2014), Algorithm 2 (Doubler) with a UCB1 bandit; Condorcet (utility-based)"
    )
    hyperparameters = {
        "alpha": Real(2.0, low=MIN_SCALE, high=MAX_SCALE, doc="UCB1 exploration constant: sqrt(alpha ln n / N_k)"),
    }
    deterministic = False
    State = DoublerState
    stat_names = ("self_duels", "epochs")
    kernels = (doubler_select, doubler_update, doubler_run)

    @property
    def first_arm(self) -> int:
        """The arm ``L`` started with."""
        return self._first

    def initial_state(self) -> DoublerState:
        K = self.K
        rs = self._stream()
        self._first = int(stream_index(rs, K))
        L = np.zeros(K, dtype=np.int64)
        L[self._first] = 1
        return DoublerState(
            np.zeros((K, K), dtype=np.int64),
            np.zeros((K, K), dtype=np.int64),
            rs,
            np.zeros((1, K), dtype=np.int64),
            np.zeros((1, K), dtype=np.int64),
            L,
            np.zeros(K, dtype=np.int64),
            np.array([1, 1, 0, 1], dtype=np.int64),
            np.array([self.params["alpha"]]),
            np.zeros(2, dtype=np.int64),
        )
