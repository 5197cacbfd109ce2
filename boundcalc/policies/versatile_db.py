"""Versatile-DB (Saha & Gaillard, "Versatile Dueling Bandits: Best-of-both-World Analyses for Online
Learning from Preferences", ICML 2022, Algorithm 3), with two Tsallis-INF sub-bandits (Zimmert &
Seldin, "Tsallis-INF: An Optimal Algorithm for Stochastic and Adversarial Bandits", JMLR 2021,
Algorithm 1 with the reduced-variance loss estimates): a dueling bandit.

Where it was read.  The paper's abstract, not its Algorithm 3 box, is among the texts read.  The
steps below are read in the public
JAX implementation ``stephen-huan/dueling-bandit`` at commit ``0ea36c6`` (read, not copied):
``bandit/algorithms/vdb.py`` lines 15-60 (``vdb_ind``, "algorithm 3 of [5]": two independent
sub-bandits) and lines 64-106 (``vdb``, "remark 2": one shared distribution, both arms drawn from it,
each estimate halved), and ``bandit/algorithms/tsallis_inf.py`` line 18 (learning rate
``4 / sqrt(t)`` with the reduced-variance estimates, "theorem 1" of Zimmert & Seldin), line 26 (the
weights ``4 / (eta (L - x))^2``), lines 68-96 (Newton's method for the normaliser ``x``, "algorithm 2"
of Zimmert & Seldin) and lines 100-111 (the estimates, ``B = 1/2 * (w_i >= eta^2)``).  The steps:

* two Tsallis-INF instances, left and right, each with cumulative loss estimates ``L_k = 0``;
* round ``t`` (from 1): ``eta_t = c / sqrt(t)``, ``c = 4``; each side's distribution
  ``w_k = 4 / (eta_t (L_k - x))^2`` with ``x < min_k L_k`` such that ``sum_k w_k = 1``;
  ``x_t ~ w^left``, ``y_t ~ w^right`` (independently);
* play ``(x_t, y_t)``, observe ``o_t`` (1 when ``x_t`` won); the left suffers loss ``1 - o_t`` on
  ``x_t``, the right loss ``o_t`` on ``y_t``;
* each side adds the reduced-variance estimate ``(1[k = arm] (loss - B_k)) / w_k + B_k`` to every
  ``L_k``, ``B_k = 1/2`` when ``w_k >= eta_t^2``, else 0.

Reading choices (each tested in ``tests/test_policies_baselines.py``):

* **The variant**: Algorithm 3 as stated, two independent sub-bandits (the implementation's
  ``vdb_ind``), not Remark 2's shared distribution (its ``vdb``).
* **The estimate**: Zimmert & Seldin's reduced-variance estimate adds ``B_k`` to *every* arm's
  ``L_k`` (its unbiasedness: ``E = w_k (loss - B_k) / w_k + B_k = loss``, as recalled from their
  Section 3).  The implementation's ``loss_estimator`` (lines 100-111) adds ``(loss - B) / w + B`` to
  the played arm only, which is biased (``E = loss - B + w B``); this module follows the paper.
* **The normaliser**: Newton's method started at ``x = min L - 2 / eta`` (the smallest loss alone
  has weight 1 there, the sum at least 1), from where the iterates decrease monotonically to the
  root (the sum is convex and increasing in ``x``), stopped when ``sum w - 1 <= 1e-12`` (the
  implementation's tolerance) or after 100 steps.  The implementation warm-starts from the last
  ``x`` and falls back to bisection; both solve the same equation to the same tolerance.
* **The draw**: one uniform ``u`` of the policy stream per side (left first), the arm the first
  ``k`` whose cumulative weight exceeds ``u sum_k w_k``.
* **The self-duel**: the reported outcome of ``x_t = y_t`` (a fair coin under the model) is fed to
  both sides like any other, as Algorithm 3's reduction and the implementation do.
* **The default** ``c = 4``: the implementation's value (``tsallis_inf.py`` line 18), Zimmert &
  Seldin's rate for the reduced-variance estimates; the paper's experiments' value was not read.

Setting: Condorcet (the paper's regret is against a Condorcet winner).  The paper's bound is read from
its abstract only, an order ``O(sum_i log T / Delta_i)`` with no constant: ``compare``'s row
``versatile_db_hardness`` (:mod:`boundcalc.bounds.baselines`) reports that hardness and says it is an
order.

Written once (:mod:`boundcalc.kernels.versatile_db`): compiled :func:`vdb_select` and
:func:`vdb_update` over :class:`VersatileDBState`.

>>> import numpy as np
>>> p = VersatileDB(3, rng=np.random.default_rng(0))
>>> i, j = p.select_pair(); 0 <= i < 3 and 0 <= j < 3
True
"""

from __future__ import annotations

import numpy as np

from ..kernels.versatile_db import VersatileDBState, vdb_run, vdb_select, vdb_update
from .base import MAX_SCALE, MIN_SCALE, Real
from .kernel import CompiledPolicy
from .registry import register_policy

__all__ = ["VersatileDB", "VersatileDBState", "vdb_select", "vdb_update", "vdb_run"]


@register_policy
class VersatileDB(CompiledPolicy):
    """Versatile-DB, Saha & Gaillard (ICML 2022), Algorithm 3 with two Tsallis-INF sub-bandits.

    Hyperparameter ``c = 4`` (learning rate ``eta_t = c / sqrt(t)``).  Setting: Condorcet.
    ``stats``: ``"self_duels"``.
    """

    name = "versatile-db"
    reference = (
        "Saha & Gaillard (ICML 2022), Algorithm 3 (Versatile-DB) with Tsallis-INF sub-bandits"
        " (Zimmert & Seldin, reduced-variance estimates); Condorcet"
    )
    hyperparameters = {
        "c": Real(4.0, low=MIN_SCALE, high=MAX_SCALE, doc="Tsallis-INF learning rate eta_t = c / sqrt(t)"),
    }
    deterministic = False
    State = VersatileDBState
    stat_names = ("self_duels",)
    kernels = (vdb_select, vdb_update, vdb_run)

    def initial_state(self) -> VersatileDBState:
        K = self.K
        return VersatileDBState(
            np.zeros((K, K), dtype=np.int64),
            np.zeros((K, K), dtype=np.int64),
            self._stream(),
            np.zeros(2),
            np.zeros((2, K)),
            np.zeros((2, K)),
            np.array([1], dtype=np.int64),
            np.array([self.params["c"]]),
            np.zeros(1, dtype=np.int64),
        )
