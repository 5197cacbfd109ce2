"""Winner Stays for strong regret, WS-S (Chen & Frazier, "Dueling Bandits with Weak Regret", ICML 2017,
Algorithm 1 (WS-W) inside the strong-regret schedule of its Sec. 4 (WS-S)).

WS-S, not WS-W: boundcalc measures strong regret (both arms of a duel count), and WS-S is the
paper's variant for it; WS-W is its inner loop.

Where it was read.  The paper's abstract (ICML 2017), which states WS-S's ``O(N^2 + N log T)``
strong regret, not its algorithm; the steps below
are the algorithm as implemented and documented by ``bengsV/duelpy``
(``duelpy/algorithms/winner_stays.py``, ``WinnerStaysWeakRegret`` and ``WinnerStaysStrongRegret``,
read, not copied), which cites the paper for every step:

* WS-W keeps ``C_i`` = wins minus losses of arm ``i`` over all its duels;
* the first arm ``i_t``: among ``argmax_i C_i``, the previous round's ``i`` if it is there, else the
  previous ``j`` if it is there, else one drawn uniformly (one index over the maximisers,
  ascending, on the policy stream) -- the winner stays;
* the second arm ``j_t``: the same rule among ``argmax_{j != i_t} C_j``;
* the duel ``(i_t, j_t)``: the winner's ``C`` grows by 1, the loser's drops by 1;
* WS-S: round ``r = 1, 2, ...`` is one WS-W duel followed by ``floor(beta^r)`` self-duels of the
  arm of largest ``C`` after that duel (the smallest index on ties); ``beta = 2`` (duelpy's
  default; the paper requires ``beta > 1``).

"Previous round" is the previous WS-W duel (the exploitation self-duels in between do not move
``i`` or ``j``).  Setting: Condorcet (the paper's guarantees need a Condorcet winner; a total
order improves them).  The paper's strong-regret bound ``O(N^2 + N log T)`` is an order (no
explicit constant), reported as such in ``compare``.

Written once (:mod:`boundcalc.kernels.winner_stays`): compiled :func:`ws_select` and :func:`ws_update`
over :class:`WSState`.  Random draws, per WS-W duel: at most one index for ``i_t``, then at most
one for ``j_t``.

>>> import numpy as np
>>> p = WinnerStays(3, rng=np.random.default_rng(0))
>>> i, j = p.select_pair(); i != j
True
"""

from __future__ import annotations

import numpy as np

from ..kernels.winner_stays import WSState, ws_run, ws_select, ws_update
from .base import Real
from .kernel import CompiledPolicy
from .registry import register_policy

__all__ = ["WinnerStays", "WSState", "ws_select", "ws_update", "ws_run"]


@register_policy
class WinnerStays(CompiledPolicy):
    """Winner Stays for strong regret (WS-S), Chen & Frazier (ICML 2017): WS-W duels (Algorithm 1)
    interleaved with exploitation rounds of ``floor(beta^r)`` self-duels.

    Hyperparameter ``beta = 2`` (> 1).  Setting: Condorcet.  ``stats``: ``"ws_duels"`` (WS-W duels),
    ``"self_duels"`` (exploitation).
    """

    name = "winner-stays"
    reference = "Chen & Frazier (ICML 2017), Winner Stays for strong regret (WS-S, with WS-W's Algorithm 1); Condorcet"
    hyperparameters = {
        "beta": Real(2.0, low=1.0, low_open=True, doc="exploitation round r lasts floor(beta**r) self-duels (> 1)"),
    }
    deterministic = False
    State = WSState
    stat_names = ("ws_duels", "self_duels")
    kernels = (ws_select, ws_update, ws_run)

    def initial_state(self) -> WSState:
        K = self.K
        return WSState(
            np.zeros((K, K), dtype=np.int64),
            np.zeros((K, K), dtype=np.int64),
            self._stream(),
            np.zeros(K, dtype=np.int64),
            np.empty(K, dtype=np.int64),
            np.array([1, -1, -1, 0, 0, 0, 0, 0], dtype=np.int64),
            np.array([self.params["beta"]]),
            np.zeros(2, dtype=np.int64),
        )
