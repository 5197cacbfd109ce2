"""Interleaved Filter 2 (Yue, Broder, Kleinberg & Joachims, "The K-armed Dueling Bandits Problem",
Journal of Computer and System Sciences 78(5), 2012, pp. 1538-1556 (COLT 2009), Algorithm 2, "IF2"),
explore then exploit.

IF2, not IF1: IF2 is IF1 (the paper's Algorithm 1) with the pruning step (lines 13-15 below), the
variant whose expected regret the paper bounds by ``O((K / eps_{1,2}) log T)`` (its Theorem 2) and
the one public code runs.

Where it was read.  The paper's abstract and introduction ("The K-armed Dueling Bandits Problem"),
not its algorithm boxes; the lines below are therefore the paper's Algorithm 2 as cross-checked with two public implementations that cite it and
agree on every line: ``jkomiyama/duelingbanditlib`` (``policy/policy_if.hpp``, C++, by RMED's first
author) and ``bengsV/duelpy`` (``duelpy/algorithms/interleaved_filtering.py``), both read, not copied.
The steps of the paper's Algorithm 2 (the line numbers below number these steps; they are not
checked against the printed box, nor are the equation numbers):

* line 1: ``delta = 1 / (T K^2)``, ``T`` the horizon (hyperparameter ``horizon``, set by the
  simulator to the run's ``T`` as for SAVAGE);
* line 2: the candidate ``b_hat`` drawn uniformly from the ``K`` arms (one index on the policy stream,
  drawn when the policy is built);
* line 3: ``W = B \\ {b_hat}``;
* lines 4-5: for every ``b`` in ``W`` the estimate ``P_hat_{b_hat, b}`` = wins of ``b_hat`` over
  ``b`` / duels of the pair *since* ``b_hat`` became the candidate (eq. (6)), and the confidence
  interval ``C_hat = (P_hat - c, P_hat + c)`` with ``c(n) = sqrt(4 log(1 / delta) / n)`` (eqs.
  (7)-(8); the factor 4 in both public codes: duelpy's Hoeffding radius with ``m = 8``,
  ``sqrt(8 log(1/delta) / (2 n))``);
* line 6: while ``W`` is not empty:
* lines 7-9: one round robin -- ``b_hat`` duels every ``b`` of ``W`` once, in ascending arm order
  (the order is unspecified in the text; both public codes go ascending), as the duel
  ``(b_hat, b)``;
* lines 10-12: after the round, every ``b`` with ``P_hat > 1/2`` and ``1/2`` outside ``C_hat``
  leaves ``W``; ``C_hat`` is the open interval, so "outside" is ``P_hat - c >= 1/2`` (the C++ writes
  ``>``: equal only on a set of probability zero, since ``c`` is irrational for every ``n`` but a
  measure-zero set of horizons);
* line 13: if some ``b'`` of ``W`` has ``P_hat < 1/2`` and ``1/2`` outside ``C_hat``
  (``P_hat + c <= 1/2``): the **first** such ``b'`` in ascending order (the text says "if there
  exists"; both public codes take the first);
* lines 14-15 (IF2's pruning): every ``b`` of ``W`` with ``P_hat_{b_hat, b} > 1/2`` leaves ``W``
  (no confidence asked);
* lines 16-17: ``b_hat <- b'``, ``W <- W \\ {b'}`` (the old candidate is gone: it is not in ``W``);
  every estimate and interval is reset (counts since the new candidate start at 0);
* when ``W`` is empty, ``b_hat`` is returned, and the rest of the horizon exploits it: the self-duel
  ``(b_hat, b_hat)``.

IF assumes a total order of the arms with strong stochastic transitivity and the stochastic
triangle inequality (the paper's Sec. 2): a Condorcet setting.  On other matrices it still returns
an arm, with no guarantee.

Written once (:mod:`boundcalc.kernels.interleaved_filter`): the compiled :func:`if_select` and
:func:`if_update` over :class:`IFState`.  One random draw in all: the first candidate, one index in
``[0, K)`` on the policy stream.

>>> import numpy as np
>>> p = InterleavedFilter(3, rng=np.random.default_rng(0))
>>> b, _ = p.select_pair(); b == p.candidate
True
"""

from __future__ import annotations

import math

import numpy as np

from ..kernels.interleaved_filter import (
    HAT,
    IFState,
    if_radius,
    if_run,
    if_select,
    if_update,
)
from ..kernels.stats import stream_index
from .base import Integer
from .kernel import CompiledPolicy
from .registry import register_policy

__all__ = ["InterleavedFilter", "IFState", "if_radius", "if_select", "if_update", "if_run"]


def if_log_term(K: int, horizon: int) -> float:
    """``log(1 / delta)`` with IF2's ``delta = 1 / (T K^2)`` (line 1).

    >>> round(if_log_term(5, 10**5), 4)     # log(25 * 10^5)
    14.7318
    """
    return math.log(float(horizon) * K * K)


@register_policy
class InterleavedFilter(CompiledPolicy):
    """Interleaved Filter 2, Yue, Broder, Kleinberg & Joachims (JCSS 2012), Algorithm 2 (IF2), then
    exploit the returned arm.

    Hyperparameter ``horizon = 10^5`` (``T`` in ``delta = 1 / (T K^2)``; the simulator sets it to the
    run's horizon).  Setting: Condorcet (a total order with strong stochastic transitivity).  The
    module text gives the reading of every line.  ``stats``: ``"exploration"`` (duels of the round
    robins), ``"self_duels"`` (exploit rounds), ``"candidate_changes"`` (line 16).
    """

    name = "interleaved-filter"
    reference = (
        "Yue, Broder, Kleinberg & Joachims (JCSS 2012), Algorithm 2 (IF2), explore then exploit;"
        " Condorcet (total order)"
    )
    hyperparameters = {
        "horizon": Integer(10**5, low=1, doc="horizon T in delta = 1 / (T K^2)"),
    }
    deterministic = False
    State = IFState
    stat_names = ("exploration", "self_duels", "candidate_changes")
    kernels = (if_select, if_update, if_run)

    @property
    def candidate(self) -> int:
        """The current candidate ``b_hat`` (the returned arm once ``W`` is empty)."""
        return int(self._arrays.reg[HAT])

    def initial_state(self) -> IFState:
        K = self.K
        rs = self._stream()
        hb = int(stream_index(rs, K))  # line 2
        act = np.ones(K, dtype=np.bool_)
        act[hb] = False  # line 3
        first = 0 if hb != 0 else 1
        return IFState(
            np.zeros((K, K), dtype=np.int64),
            np.zeros((K, K), dtype=np.int64),
            rs,
            np.zeros(K, dtype=np.int64),
            np.zeros(K, dtype=np.int64),
            act,
            np.array([1, hb, first], dtype=np.int64),
            np.array([if_log_term(K, self.params["horizon"])]),
            np.zeros(3, dtype=np.int64),
        )
