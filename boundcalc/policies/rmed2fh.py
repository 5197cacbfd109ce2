"""RMED2FH, RMED2 with a fixed horizon (Komiyama, Honda, Kashima & Nakagawa, "Regret Lower Bound and
Optimal Algorithm in Dueling Bandit Problem", COLT 2015, Algorithm 1 with the RMED2FH subroutine),
the variant whose regret the paper proves asymptotically optimal.

What was taken from where.  As for :mod:`~boundcalc.policies.rmed2` (whose readings this module
keeps), the COLT paper's algorithm box is not among the texts read; RMED2FH is read from the first author's public C++ (``jkomiyama/duelingbanditlib``,
``policy/policy_rmed.hpp``, mode 3, ``RMED2Finite``; read, not copied).  RMED2FH differs from RMED2
in two places only:

* forced exploration with the horizon: while some pair has ``N_ij < alpha log log T`` (``T`` the
  hyperparameter ``horizon``, set by the simulator to the run's ``T``; the C++ writes
  ``log(log T + 0.01)``, this module ``log log T`` as RMED2 does with ``t``; nothing is forced for
  ``T <= 2``), the lexicographically first such pair is drawn.  The threshold does not grow with
  ``t``: this is a fixed initial exploration, after RMED1's one draw per pair;
* the targets are fixed: at the first round of the main loop, ``b(l)`` (:func:`~boundcalc.policies.rmed2.rmed2_target`,
  with that round's ``i*``) is computed for every arm ``l`` and never recomputed (``-1`` where no
  arm beats ``l`` empirically then).

The opponent of ``l = l(t)`` then follows RMED2's lines 2-6 with the fixed ``b = b(l)``:
``m = i*`` when ``i*`` is an opponent of ``l`` (``mu_hat_{l i*} <= 1/2``) and ``N_{l i*} log log t <=
N_{l b}``; else ``m = b`` when ``b`` is still an opponent of ``l`` (a fixed target can stop being
one; the C++ checks it); else RMED1's rule (``i*`` if it is an opponent or ``l`` has none -- for
``l = i*`` the exploiting self-duel -- else the opponent of smallest ``mu_hat_lj``), which is the
C++'s fall-through.  With ``b = -1`` RMED1's rule directly, as in RMED2.

Hyperparameters: RMED2's (``f_scale = 0.3``, ``f_power = 1.01``, ``n_init = 1``, ``alpha = 3``,
``delta_floor = 0.01``) and ``horizon = 10^5``.  Setting: Condorcet.  Its regret is asymptotically
the Condorcet lower bound (:func:`boundcalc.bounds.rmed.rmed_lb`, RMED's unit) -- the ``rmed_lb``
row of ``compare``.

Written once: RMED's learning step (:func:`~boundcalc.policies.rmed1.rmed_update`) over
:class:`RMED2FHState` (RMED's state and the fixed targets), this module's compiled
:func:`rmed2fh_select`.

>>> p = RMED2FH(3, horizon=1000)
>>> p.select_pair()
(0, 1)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..kernels.rmed1 import RMED2FH as _VARIANT
from ..kernels.rmed1 import rmed_state
from ..kernels.rmed2fh import RMED2FHState, rmed2fh_select, rmed_run, rmed_update
from .base import Integer
from .kernel import CompiledPolicy
from .registry import register_policy
from .rmed1 import check_f
from .rmed2 import RMED2

__all__ = ["RMED2FH", "RMED2FHState", "rmed2fh_select", "rmed_run"]


def rmed2fh_threshold(alpha: float, horizon: int) -> float:
    """``alpha log log T`` (0 for ``T <= 2``: nothing forced).

    >>> round(rmed2fh_threshold(3.0, 10**5), 4)     # 3 log(log(10^5))
    7.3304
    """
    return alpha * math.log(math.log(horizon)) if horizon >= 3 else 0.0


@register_policy
class RMED2FH(CompiledPolicy):
    """RMED2FH, Komiyama et al. (COLT 2015): RMED2 with the forced exploration ``alpha log log T`` of
    a fixed horizon and the targets ``b(l)`` fixed when the main loop starts.

    Hyperparameters: RMED2's and ``horizon = 10^5``.  Setting: Condorcet.  ``stats`` as RMED2's.
    """

    name = "rmed2fh"
    reference = "Komiyama, Honda, Kashima & Nakagawa (COLT 2015), Algorithm 1 with RMED2FH (fixed horizon); Condorcet"
    hyperparameters = {
        **RMED2.hyperparameters,
        "horizon": Integer(10**5, low=1, doc="horizon T of the forced exploration alpha log log T"),
    }
    deterministic = True
    State = RMED2FHState
    stat_names = ("initial", "forced", "self_duels", "to_winner", "to_target")
    kernels = (rmed2fh_select, rmed_update, rmed_run)

    @classmethod
    def check_derived(cls, K: int, params: Mapping[str, Any]) -> None:
        check_f(cls, K, params)

    def initial_state(self) -> Any:
        thr = rmed2fh_threshold(self.params["alpha"], self.params["horizon"])
        return rmed_state(self.K, self.params, len(self.stat_names), thr, _VARIANT)
