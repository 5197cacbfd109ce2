"""RCS: Relative Confidence Sampling (Zoghi, Whiteson, de Rijke & Munos, "Relative Confidence
Sampling for Efficient On-line Ranker Evaluation", WSDM 2014, pp. 73-82, Algorithm 1).

Where it was read.  The paper's abstract (arXiv 1312.3393), not its Algorithm 1; the lines below are Algorithm 1 as
described, step by step, by ``bengsV/duelpy`` (``duelpy/algorithms/relative_confidence_sampling.py``,
whose docstring paraphrases the paper's three steps and names its experimental ``alpha``), read, not
copied, and built on RUCB's confidence bounds (:mod:`boundcalc.policies.rucb`, whose lines RCS's
second step reuses).  Per round ``t`` (1-based):

* the simulated tournament: for ``i < j`` row by row, ``theta_ij ~ Beta(W_ij + 1, W_ji + 1)``,
  ``theta_ji = 1 - theta_ij``, ``theta_ii = 1/2``;
* the champion ``c``: an arm with ``theta_cj >= 1/2`` for every ``j`` (the Condorcet winner of the
  sampled matrix; with continuous draws at most one, the smallest index should two tie at exactly
  1/2); if there is none, the arm chosen as champion the fewest times so far (``B_c`` smallest;
  ties: the smallest index, as duelpy's ``argmin``); then ``B_c += 1``;
* the challenger: ``d = argmax_j u_jc`` with RUCB's bounds ``u_jc = W_jc / N_jc + sqrt(alpha ln t /
  N_jc)`` (``x / 0 := 1``: 2 on an undrawn pair) and ``u_cc = 1/2``, ties broken uniformly at
  random and ``d != c`` on a tie (RUCB's line 13 as read in :mod:`~boundcalc.policies.rucb`; so
  ``d = c``, the exploiting self-duel, only when every other ``u_jc < 1/2``);
* the duel ``(c, d)``; the winner's count is incremented (the protocol's ``update``).

``alpha = 0.501``: the value duelpy reports for the paper's RCS experiments (RUCB's own experiments
use 0.51; any ``alpha > 1/2`` is allowed).  RCS targets the Condorcet setting; the paper proves no
regret bound for it (as duelpy notes), so it has no row in ``compare``.

Written once (:mod:`boundcalc.kernels.rcs`): the compiled :func:`rcs_select` over
:class:`RCSState` and RUCB's plain update.  Random draws, from the policy stream, in order per round:
the ``K (K - 1) / 2`` Beta draws of the tournament (``i < j``, row by row; held in registers for the
round), then one index over the tied maximisers of the challenger rule when more than one.

>>> import numpy as np
>>> p = RCS(3, rng=np.random.default_rng(0))
>>> c, d = p.select_pair(); c != d       # every pair undrawn: u = 2 off the diagonal
True
"""

from __future__ import annotations

import numpy as np

from ..kernels.policy import plain_update
from ..kernels.rcs import RCSState, rcs_run, rcs_select
from .base import MAX_SCALE, Real
from .kernel import CompiledPolicy
from .registry import register_policy

__all__ = ["RCS", "RCSState", "rcs_select", "rcs_run"]


@register_policy
class RCS(CompiledPolicy):
    """RCS, Zoghi, Whiteson, de Rijke & Munos (WSDM 2014), Algorithm 1 (Relative Confidence Sampling).

    Hyperparameter ``alpha = 0.501`` (the RUCB confidence scale of the challenger, ``> 1/2``).
    Setting: Condorcet.  The module text gives the reading of every step and the order of the
    random draws.  ``stats``: ``"self_duels"`` (``d = c``) and ``"no_sampled_winner"`` (rounds
    whose sampled matrix had no Condorcet winner: the least-chosen champion).
    """

    name = "rcs"
    reference = "Zoghi, Whiteson, de Rijke & Munos (WSDM 2014), Algorithm 1 (RCS); Condorcet"
    hyperparameters = {
        "alpha": Real(
            0.501, low=0.5, low_open=True, high=MAX_SCALE, doc="confidence scale of the challenger's RUCB (> 1/2)"
        ),
    }
    deterministic = False
    State = RCSState
    stat_names = ("self_duels", "no_sampled_winner")
    kernels = (rcs_select, plain_update, rcs_run)

    def initial_state(self) -> RCSState:
        K = self.K
        return RCSState(
            np.zeros((K, K), dtype=np.int64),
            np.zeros((K, K), dtype=np.int64),
            self._stream(),
            np.zeros(2),
            np.full((K, K), 0.5),
            np.zeros(K, dtype=np.int64),
            np.empty(K),
            np.empty(K, dtype=np.int64),
            np.array([1], dtype=np.int64),
            np.array([self.params["alpha"]]),
            np.zeros(2, dtype=np.int64),
        )
