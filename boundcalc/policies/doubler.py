"""Doubler (Ailon, Karnin & Joachims, "Reducing Dueling Bandits to Cardinal Bandits", ICML 2014,
Algorithm 1 "Doubler" -- the numbering as recalled), with a UCB1 singleton bandit (Auer, Cesa-Bianchi & Fischer 2002).

Where it was read.  The ``search`` tool did not return the paper's Algorithm 1 (only pages'
openings) and the public C++ (``jkomiyama/duelingbanditlib``) has Sparring and MultiSBM of the same
paper but not Doubler; the steps below are Algorithm 1 as recalled from the paper, not checked
against the printed lines:

* a singleton bandit ``S`` over the ``K`` arms (here UCB1, the same sub-bandit as
  :mod:`~boundcalc.policies.sparring`: each arm once ascending, then the first maximiser of
  ``G_k / N_k + sqrt(alpha ln n / N_k)``, ``alpha = 2``);
* ``L``: "any element" of the arms at the start -- here one arm drawn uniformly (one index on the
  policy stream, when the policy is built);
* epoch ``i = 1, 2, ...`` of ``2^i`` rounds: ``S`` is reset; each round the left arm ``x_t`` is
  drawn uniformly from the multiset ``L`` (one index over its ``|L|`` entries on the policy stream
  when ``|L| > 1``; an arm's chance is its multiplicity over ``|L|``), the right arm is ``y_t =
  advance(S)``; the duel ``(x_t, y_t)`` is played and ``S`` gets the reward ``b_t = 1`` when
  ``y_t`` won (a self-duel's reported outcome included, as for Sparring);
* at the end of the epoch ``L`` becomes the multiset of the arms ``S`` played in it.

Doubler is deterministic but for those draws.  Setting: Condorcet (utility-based, linear link, in
the paper); its regret guarantee is an order, so ``compare`` has no constant for it.

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
from ..kernels.policy import stream_index
from .base import Real
from .kernel import CompiledPolicy
from .registry import register_policy

__all__ = ["Doubler", "DoublerState", "doubler_select", "doubler_update", "doubler_run"]


@register_policy
class Doubler(CompiledPolicy):
    """Doubler, Ailon, Karnin & Joachims (ICML 2014), Algorithm 1, with a UCB1 singleton bandit.

    Hyperparameter ``alpha = 2`` (UCB1's exploration constant).  Setting: Condorcet (utility-based
    in the paper).  ``stats``: ``"self_duels"``, ``"epochs"`` (completed epochs).
    """

    name = "doubler"
    reference = (
        "Ailon, Karnin & Joachims (ICML 2014), Algorithm 1 (Doubler) with a UCB1 bandit; Condorcet (utility-based)"
    )
    hyperparameters = {
        "alpha": Real(2.0, low=0.0, low_open=True, doc="UCB1 exploration constant: sqrt(alpha ln n / N_k)"),
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
