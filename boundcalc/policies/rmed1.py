"""RMED1 (Komiyama, Honda, Kashima & Nakagawa, "Regret Lower Bound and Optimal Algorithm in Dueling
Bandit Problem", COLT 2015, Algorithms 1-2), the Condorcet algorithm paper 000 builds on.

The algorithm, as read from the paper and the first author's public C++ library
(``jkomiyama/duelingbanditlib``, ``policy/policy_rmed.hpp``, mode 1):

* Initial phase: every pair ``i < j`` is drawn ``n_init`` times (paper: ``l = 1`` for RMED1),
  pair by pair in lexicographic order.
* Empirical divergence ``I_i(t) = sum_{j: mu_hat_ij < 1/2} N_ij d(mu_hat_ij, 1/2)`` and the
  empirical best arm ``i*(t) = argmin_i I_i(t)`` (smallest index on ties).
* Main loop: ``L_C = L_R = [K]``, ``L_N = {}``.  For ``l`` in ``L_C`` (ascending): the opponents
  ``O_l = {j != l: mu_hat_lj <= 1/2}``; ``m = i*`` when ``i* in O_l`` or ``O_l`` is empty
  (``m = l = i*`` is the exploiting self-duel), otherwise ``m = argmin_{j != l} mu_hat_lj``
  (smallest index on ties).  Draw ``(l, m)``; ``L_R <- L_R \\ {l}``; every ``j`` not in
  ``L_R`` with ``I_j(t) - I_{i*}(t) <= log t + f(K)`` joins ``L_N`` (the paper's eq. (4), with
  ``I`` and ``i*`` recomputed after the draw and ``t`` the round just played, as the C++ does).
  When ``L_C`` is exhausted, ``L_C, L_R <- L_N`` and ``L_N <- {}``.
* ``f(K) = 0.3 K^1.01`` (the paper's experiments; the C++'s ``kweight``).

Differences from the C++ (all deliberate, each the paper's text): the main loop starts from
``L_C = [K]`` (the C++ starts from whatever list its updates built during the initial phase);
``mu_hat <= 1/2`` is exact (the C++ uses ``<= 0.50001``); ties in the argmin go to the smaller
index (the C++'s ``<=`` scan keeps the last).  Comparisons ``mu_hat <= 1/2`` and
``mu_hat < 1/2`` are made on integer counts (``2 W_lj <= N_lj``), so they are exact.

Written once (:mod:`boundcalc.policies.kernel`): the state is :class:`RMEDState` (shared with
RMED2), the decisions the compiled :func:`rmed1_select` and :func:`rmed_update`; the class and the
whole-run kernel :func:`~boundcalc.kernels.rmed2fh.rmed_run` (RMED2's and RMED2FH's too) call the same
functions.  ``I`` is kept per arm and updated for
the two arms of each duel (O(K) per round).

RMED1's regret is asymptotically ``sum_{i != w} Delta_wi / (2 d(mu_iw)) log T`` in RMED's unit
(:func:`boundcalc.bounds.rmed.rmed1`) on a Condorcet matrix; it is not meant for matrices
without a Condorcet winner.

>>> p = RMED1(3)
>>> [p.select_pair() for _ in range(1)]
[(0, 1)]
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import Any

from ..kernels.rmed1 import RMEDState, rmed1_select, rmed_state, rmed_update
from ..kernels.rmed2fh import rmed_run
from .base import Integer, Real
from .kernel import CompiledPolicy
from .registry import register_policy

__all__ = ["RMED1", "RMEDState", "rmed1_select", "rmed_update", "rmed_run"]


def check_f(cls: type[CompiledPolicy], K: int, params: Mapping[str, Any]) -> None:
    """The RMED policies' ``check_derived``: ``f(K) = f_scale K^f_power`` must be a finite number
    (``K^f_power`` overflows first)."""
    scale, power = params["f_scale"], params["f_power"]
    if scale > 0 and math.log(scale) + power * math.log(K) > math.log(sys.float_info.max):
        raise ValueError(
            f"policy {cls.name!r}: f(K) = f_scale * K**f_power = {scale!r} * {K}**{power!r} overflows"
            " a floating-point number; choose a smaller f_power or f_scale"
        )


@register_policy
class RMED1(CompiledPolicy):
    """RMED1, Komiyama et al. (COLT 2015), Algorithm 1 with the RMED1 subroutine (Algorithm 2).

    Hyperparameters: ``f_scale = 0.3`` and ``f_power = 1.01`` (``f(K) = f_scale K^f_power``, the
    paper's experimental choice) and ``n_init = 1`` (initial draws per pair, the paper's ``l``).
    See the module text for the reading of each step.  ``stats``: ``"initial"`` (initial-phase
    draws), ``"self_duels"``.
    """

    name = "rmed1"
    plot_style = ("tab:green", "-", "^")
    reference = "Komiyama, Honda, Kashima & Nakagawa (COLT 2015), Algorithms 1-2 (RMED1)"
    hyperparameters = {
        "f_scale": Real(0.3, low=0.0, doc="f(K) = f_scale * K**f_power in the list condition"),
        "f_power": Real(1.01, low=0.0, doc="f(K) = f_scale * K**f_power"),
        "n_init": Integer(1, low=1, doc="draws of every pair in the initial phase"),
    }
    deterministic = True
    State = RMEDState
    stat_names = ("initial", "self_duels")
    kernels = (rmed1_select, rmed_update, rmed_run)

    @classmethod
    def check_derived(cls, K: int, params: Mapping[str, Any]) -> None:
        check_f(cls, K, params)

    def initial_state(self) -> RMEDState:
        return rmed_state(self.K, self.params, len(self.stat_names))
