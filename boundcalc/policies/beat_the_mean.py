"""Beat-the-Mean (Yue & Joachims, "Beat the Mean Bandit", ICML 2011, pp. 241-248, Algorithm 1 run in
the paper's online setting: ``N = infinity``, ``delta = 1 / (2 T K)``), explore then exploit.

Where it was read.  The paper's Algorithm 1 box is not among the texts read; the lines below are
Algorithm 1 as two public implementations that cite it, ``jkomiyama/duelingbanditlib`` (``policy/policy_btm.hpp``, C++)
and ``bengsV/duelpy`` (``duelpy/algorithms/beat_the_mean.py``), read, not copied.  Step by step (the
line numbers number the steps as reconstructed; they are not checked against the printed box):

* lines 2-8: the working set ``W_1 = B`` (all arms); per arm ``n_b`` (comparisons *as the chosen
  arm*) and ``w_b`` (wins among them); ``P_hat_b = w_b / n_b`` (1/2 when ``n_b = 0``), the estimate of
  the probability that ``b`` beats the mean bandit of the working set; ``n* = min_{b in W} n_b``,
  ``c* = c(n*)`` (1 when ``n* = 0``);
* line 10: while ``|W| > 1`` (online: ``N = infinity``, the horizon ends the run);
* line 11: ``b = argmin_{b in W} n_b``, ties broken at random (one index over the tied arms,
  ascending, on the policy stream, when more than one);
* line 12: ``b'`` drawn uniformly from ``W`` **without ``b``** (one index over ``W \\ {b}``
  ascending).  The text says "select b' in W at random"; both public codes leave ``b`` out, and
  under this package's protocol a self-duel is no comparison at all (its outcome carries no
  information and is ignored), so drawing ``b`` would waste the round: the reading tested here;
* lines 13-14: ``w_b += 1`` if ``b`` won, ``n_b += 1`` -- only the chosen arm's counters (``b'``'s
  are untouched), kept per opponent (``n_{b b'}``, ``w_{b b'}``) for line 18;
* lines 16-20: with ``n*`` and ``c*`` of the counts after the duel, if
  ``min_{b in W} P_hat_b + c* <= max_{b in W} P_hat_b - c*`` (as printed; the C++ writes ``<``),
  ``b_min = argmin_{b in W} P_hat_b`` (the smallest index on ties: the text does not say) leaves
  ``W`` and every comparison with ``b_min`` is deleted from the others' ``w_b`` and ``n_b``;
* then ``argmax_{b in W} P_hat_b`` -- the one arm left -- is exploited (the self-duel) to the end.

The confidence radius of the online setting (as both public codes cite it):
``c_{delta,gamma}(n) = 3 gamma^2 sqrt(log(1 / delta) / n)`` with ``delta = 1 / (2 T K)``; ``gamma``
is the relaxed stochastic transitivity the user assumes (``gamma = 1``: strong stochastic
transitivity; duelpy's default, and the factor ``3 gamma^2`` is duelpy's Hoeffding radius with
``m = 18 gamma^4``).  The C++ runs ``gamma = 1.2`` with the radius *without* the factor 3 (its
comment: "tight"), a tuning this module does not adopt (``gamma`` is a hyperparameter: ``gamma =
sqrt(1.2^2 / 3)`` gives the C++'s radius).

BTM assumes a total order with relaxed stochastic transitivity and the stochastic triangle
inequality (the paper's Sec. 2): a Condorcet setting.

Written once (:mod:`boundcalc.kernels.beat_the_mean`): the compiled :func:`btm_select` and
:func:`btm_update` over :class:`BTMState`.  Random draws, in order per exploring round: the tie of
line 11 (one index when several arms share the smallest ``n_b``), then line 12's index in
``[0, |W| - 1)``.

>>> import numpy as np
>>> p = BeatTheMean(3, rng=np.random.default_rng(0))
>>> i, j = p.select_pair(); i != j
True
"""

from __future__ import annotations

import math

import numpy as np

from ..kernels.beat_the_mean import (
    BTMState,
    btm_radius,
    btm_run,
    btm_select,
    btm_update,
)
from .base import MAX_SCALE, MIN_SCALE, Integer, Real
from .kernel import CompiledPolicy
from .registry import register_policy

__all__ = ["BeatTheMean", "BTMState", "btm_radius", "btm_select", "btm_update", "btm_run"]


def btm_scale(K: int, horizon: int, gamma: float) -> float:
    """``3 gamma^2 sqrt(log(1 / delta))`` with ``delta = 1 / (2 T K)``: ``c(n)`` is this over ``sqrt(n)``.

    >>> round(btm_scale(5, 10**5, 1.0), 4)     # 3 sqrt(log(10^6))
    11.1508
    """
    return 3.0 * gamma * gamma * math.sqrt(math.log(2.0 * horizon * K))


@register_policy
class BeatTheMean(CompiledPolicy):
    """Beat-the-Mean, Yue & Joachims (ICML 2011), Algorithm 1 online (``N = infinity``,
    ``delta = 1 / (2 T K)``), then exploit the last arm of the working set.

    Hyperparameters: ``horizon = 10^5`` (``T`` in ``delta``; the simulator sets it to the run's
    horizon) and ``gamma = 1`` (relaxed stochastic transitivity in the radius
    ``3 gamma^2 sqrt(log(1 / delta) / n)``; 1 is strong stochastic transitivity).  Setting:
    Condorcet (a total order).  ``stats``: ``"exploration"``, ``"self_duels"``, ``"removals"``.
    """

    name = "beat-the-mean"
    reference = (
        "Yue & Joachims (ICML 2011), Algorithm 1 online (Beat-the-Mean), explore then exploit;"
        " Condorcet (total order, relaxed transitivity)"
    )
    hyperparameters = {
        "horizon": Integer(10**5, low=1, doc="horizon T in delta = 1 / (2 T K)"),
        "gamma": Real(
            1.0,
            low=math.sqrt(MIN_SCALE),
            high=math.sqrt(MAX_SCALE),
            doc="relaxed stochastic transitivity in c(n) = 3 gamma^2 sqrt(log(1/delta) / n)",
        ),
    }
    deterministic = False
    State = BTMState
    stat_names = ("exploration", "self_duels", "removals")
    kernels = (btm_select, btm_update, btm_run)

    def initial_state(self) -> BTMState:
        K = self.K
        return BTMState(
            np.zeros((K, K), dtype=np.int64),
            np.zeros((K, K), dtype=np.int64),
            self._stream(),
            np.zeros((K, K), dtype=np.int64),
            np.zeros((K, K), dtype=np.int64),
            np.zeros(K, dtype=np.int64),
            np.zeros(K, dtype=np.int64),
            np.ones(K, dtype=np.bool_),
            np.empty(K, dtype=np.int64),
            np.array([1, K], dtype=np.int64),
            np.array([btm_scale(K, self.params["horizon"], self.params["gamma"])]),
            np.zeros(3, dtype=np.int64),
            np.arange(K, dtype=np.int64),
            np.full(K, 0.5),
        )
