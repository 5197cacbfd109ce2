"""Self-Sparring (Sui, Zhuang, Burdick & Yue, "Multi-dueling Bandits with Dependent Arms", UAI 2017,
Algorithm 1, the independent-arms version with Beta posteriors), with ``m = 2`` arms a round: a
dueling bandit.

Where it was read.  The paper's abstract and introduction (arXiv 1705.00253), not Algorithm 1, and
no public implementation; the steps below are Algorithm 1 as the paper describes it
in its abstract ("reduces the multi-dueling bandits problem to a conventional bandit setting that can
be solved using ... Thompson Sampling") and as recalled, with ``m = 2`` arms a round (the dueling
case).  They are not checked against the printed lines; the numbering of the paper's lines is not
claimed.  The steps:

* ``S_i = F_i = 0`` for every arm (Beta(1, 1) priors);
* for ``j = 1, ..., m`` (``m = 2``): draw ``theta_i ~ Beta(S_i + 1, F_i + 1)`` for every arm
  (fresh draws for each ``j``) and take ``x_j = argmax_i theta_i`` (ties, of probability zero, to
  the smallest index);
* play ``(x_1, x_2)``, observe ``r_12`` (1 when ``x_1`` won) and ``r_21 = 1 - r_12``;
* for every ordered pair of *positions* ``j != k``: ``S_{x_j} += eta r_jk``,
  ``F_{x_j} += eta (1 - r_jk)``.  For two different arms: the winner's ``S`` and the loser's
  ``F`` grow by ``eta``.  When ``x_1 = x_2`` (the self-duel, Self-Sparring's exploitation) the two
  position pairs give that arm ``S += eta`` and ``F += eta`` **whatever the outcome** -- so this
  policy, like the protocol, ignores a self-duel's outcome;
* ``eta = 1`` (the plain Beta-Bernoulli update; a hyperparameter, ``eta > 0``).

Self-Sparring assumes a utility-based (linear-link) preference model; it is run on any matrix, where
it targets the arm with the best Borda-like score against the sampled opponents.  Setting:
Condorcet (utility-based in the paper).  The paper proves no finite-time bound for the dueling
version (it relates its regret to Thompson sampling's), so no row in ``compare``.

Written once (:mod:`boundcalc.kernels.self_sparring`): compiled :func:`ss_select` and :func:`ss_update`
over :class:`SelfSparringState`.  Random draws, from the policy stream, per round: ``K`` Beta draws
(arms ascending) for ``x_1``, then ``K`` more for ``x_2``; held in registers for the round.

>>> import numpy as np
>>> p = SelfSparring(3, rng=np.random.default_rng(0))
>>> i, j = p.select_pair(); 0 <= i < 3 and 0 <= j < 3
True
"""

from __future__ import annotations

import numpy as np

from ..kernels.self_sparring import SelfSparringState, ss_run, ss_select, ss_update
from .base import MAX_SCALE, MIN_SCALE, Real
from .kernel import CompiledPolicy
from .registry import register_policy

__all__ = ["SelfSparring", "SelfSparringState", "ss_select", "ss_update", "ss_run"]


@register_policy
class SelfSparring(CompiledPolicy):
    """Self-Sparring, Sui, Zhuang, Burdick & Yue (UAI 2017), Algorithm 1 with Beta posteriors and
    ``m = 2``.

    Hyperparameter ``eta = 1`` (learning rate).  Setting: Condorcet (utility-based in the paper).
    ``stats``: ``"self_duels"``.
    """

    name = "self-sparring"
    reference = (
        "Sui, Zhuang, Burdick & Yue (UAI 2017), Algorithm 1 (Self-Sparring, Beta posteriors, m = 2);"
        " Condorcet (utility-based)"
    )
    hyperparameters = {
        "eta": Real(1.0, low=MIN_SCALE, high=MAX_SCALE, doc="learning rate of the Beta posterior updates"),
    }
    deterministic = False
    State = SelfSparringState
    stat_names = ("self_duels",)
    kernels = (ss_select, ss_update, ss_run)

    def initial_state(self) -> SelfSparringState:
        K = self.K
        return SelfSparringState(
            np.zeros((K, K), dtype=np.int64),
            np.zeros((K, K), dtype=np.int64),
            self._stream(),
            np.zeros(2),
            np.zeros(K),
            np.zeros(K),
            np.array([1], dtype=np.int64),
            np.array([self.params["eta"]]),
            np.zeros(1, dtype=np.int64),
        )
