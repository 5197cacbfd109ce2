"""Sparring (Ailon, Karnin & Joachims, "Reducing Dueling Bandits to Cardinal Bandits", ICML 2014,
Sec. 5, Algorithm 4 "Sparring"), with two UCB1 sub-bandits (Auer, Cesa-Bianchi & Fischer, Machine Learning
47, 2002, "UCB1").

Sparring, not Sparring-Exp3: the reduction runs any two singleton multi-armed bandit algorithms
("left" and "right") against each other; the paper's analysis is for sub-bandits with adversarial
guarantees (Exp3-like), and its experiments and the public C++ run UCB.  This module uses UCB1, as
``jkomiyama/duelingbanditlib`` (``policy/policy_sparring.hpp`` with ``policy/policy_ucb.hpp``, read,
not copied) does, so the two can be set side by side (``benchmarks/baselines.py``).

Where it was read.  The paper's abstract and the C++, checked against the printed Algorithm 4 (PMLR v32,
``ailon14.pdf``, p. 6): line 4 ``x_t <- advance(S_L); y_t <- advance(S_R)``, line 6
``feedback(S_L, 1[b_t = 0]); feedback(S_R, 1[b_t = 1])`` (``b_t = 1``: "y_t is chosen", Sec. 2):

* each round the left bandit proposes ``x``, the right bandit ``y``; the duel ``(x, y)`` is played;
* the left bandit gets reward 1 when ``x`` won and 0 otherwise, the right bandit the complement --
  also on a self-duel ``x = y``, whose outcome is a fair coin under the model (``mu_xx = 1/2``): the
  reported outcome is used (as the C++ does), the one place where a policy of this package reads a
  self-duel's outcome; were it ignored, the two identical deterministic sub-bandits would propose
  the same arm forever and never compare two arms;
* UCB1 (Auer et al. 2002, Fig. 1): each arm once first (ascending: the arm of smallest index not yet
  played), then ``argmax_k G_k / N_k + sqrt(alpha ln n / N_k)`` with ``n`` the sub-bandit's plays so
  far (``alpha = 2``: UCB1's own constant; the C++'s experiments run 2.5) -- ties to the smallest
  index (the C++'s first maximiser).

Sparring is deterministic: its pairs are a function of the outcomes.  Setting: Condorcet (a
utility-based, linear-link model in the paper).  The paper's guarantee is for sub-bandits with
adversarial guarantees, not for UCB1, so ``compare`` has no row for it.

Written once (:mod:`boundcalc.kernels.sparring`): compiled :func:`sparring_select` and
:func:`sparring_update` over :class:`SparringState`.

>>> p = Sparring(3)
>>> p.select_pair()          # both UCB1s start with arm 0: a self-duel
(0, 0)
"""

from __future__ import annotations

import numpy as np

from ..kernels.sparring import (
    SparringState,
    sparring_run,
    sparring_select,
    sparring_update,
)
from .base import MAX_SCALE, MIN_SCALE, Real
from .kernel import CompiledPolicy
from .registry import register_policy

__all__ = ["Sparring", "SparringState", "sparring_select", "sparring_update", "sparring_run"]


@register_policy
class Sparring(CompiledPolicy):
    """Sparring, Ailon, Karnin & Joachims (ICML 2014), Algorithm 4, with two UCB1 sub-bandits.

    Hyperparameter ``alpha = 2`` (UCB1's exploration constant ``sqrt(alpha ln n / N_k)``; Auer et
    al.'s UCB1 is ``alpha = 2``).  Setting: Condorcet (utility-based in the paper).  ``stats``:
    ``"self_duels"``.
    """

    name = "sparring"
    reference = (
        "Ailon, Karnin & Joachims (ICML 2014), Algorithm 4 (Sparring) with UCB1 sub-bandits; Condorcet (utility-based)"
    )
    hyperparameters = {
        "alpha": Real(2.0, low=MIN_SCALE, high=MAX_SCALE, doc="UCB1 exploration constant: sqrt(alpha ln n / N_k)"),
    }
    deterministic = True
    State = SparringState
    stat_names = ("self_duels",)
    kernels = (sparring_select, sparring_update, sparring_run)

    def initial_state(self) -> SparringState:
        K = self.K
        return SparringState(
            np.zeros((K, K), dtype=np.int64),
            np.zeros((K, K), dtype=np.int64),
            np.zeros((2, K), dtype=np.int64),
            np.zeros((2, K), dtype=np.int64),
            np.array([1, 0, 0], dtype=np.int64),
            np.array([self.params["alpha"]]),
            np.zeros(1, dtype=np.int64),
            np.zeros((2, K)),
            np.zeros((2, K)),
        )
