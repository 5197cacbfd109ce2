"""RMED2 (Komiyama, Honda, Kashima & Nakagawa, "Regret Lower Bound and Optimal Algorithm in Dueling
Bandit Problem", COLT 2015, Algorithm 1 with the RMED2 subroutine, Algorithm 3), the asymptotically
optimal sibling of :mod:`~boundcalc.policies.rmed1`.

What was taken from where.  The COLT paper is not among ``../shared/papers/``; the algorithm is
read from what 000 says of it (Sec. 3.1) (the lower bound it attains, its opponent rule) and
from the first author's public C++ library (``jkomiyama/duelingbanditlib``,
``policy/policy_rmed.hpp``, mode 2), read, not copied.  The skeleton (Algorithm 1: initial
phase, lists ``L_C, L_R, L_N``, the empirical divergence ``I_i`` and ``i* = argmin I``, the list
condition ``I_j - I_{i*} <= log t + f(K)``) is RMED1's, inherited unchanged from
:class:`~boundcalc.policies.rmed1.RMED1` (see its module text for the reading of each step).
RMED2 changes only how the opponent ``m(t)`` of ``l(t)`` is chosen (Algorithm 3):

* line 1 (forced exploration): while some pair has ``N_ij < alpha log log t``, draw the
  lexicographically first such pair (``t`` advances; ``l(t)`` is not consumed).  ``alpha = 3``
  (the C++'s ``alpha1``, the paper's experiments).  For ``t <= 2`` (``log log t <= 0`` or
  undefined) nothing is forced (the C++ writes ``log(log t + 0.01)``; this module keeps the
  paper's ``log log t``);
* the target opponent ``b(l) = argmin_{j: mu_hat_lj < 1/2} (Delta_{i* l} + Delta_{i* j}) /
  d(mu_hat_lj)`` with ``Delta_{i* j} = mu_hat_{i* j} - 1/2`` (``Delta_{i* i*} = 0``): the
  *regret* of the pair ``(l, j)`` in RMED's unit (times 2), **positive** -- not its negative,
  a pitfall of public code (``tests/test_policies_rmed2_savage.py``).  The numerator is floored
  at ``delta_floor = 0.01`` as in the C++ (an empirical ``i*`` that is not yet an empirical
  Condorcet winner can make it <= 0; without a floor the argmin would then prefer the least
  informative pair).  Ties go to the smaller index;
* this ``b`` is the LP core's RMED row: 000's Copeland LP restricted to ``l = 0`` with RMED's
  regret (:func:`boundcalc.bounds.rmed.rmed_regret_matrix`) has one disjoint row
  ``sum_{j beats l} e_lj d(mu_lj) >= 1`` per non-winner ``l``, whose optimum puts everything on
  the cheapest ``j`` -- the closed form above, which is what the paper's Algorithm 3 uses and
  what this class evaluates (tested equal to ``CopelandLPSolver(levels=[0]).solve_empirical``
  with that regret on empirical matrices, floor inactive);
* lines 2-6: ``m = i*`` when ``i*`` is an opponent of ``l`` (``mu_hat_{l i*} <= 1/2``) and
  ``N_{l i*} <= N_{l b(l)} / log log t`` (evaluated as ``N_{l i*} log log t <= N_{l b(l)}``,
  which for ``log log t <= 0`` always holds); otherwise ``m = b(l)``.  When no arm beats ``l``
  empirically (``b`` undefined) RMED1's rule is used (``m = i*`` if ``i*`` is an opponent or
  ``l`` has none -- for ``l = i*`` the exploiting self-duel -- else the opponent of smallest
  ``mu_hat_lj``), which is what the C++'s fall-through does.

``f(K) = 0.3 K^1.01`` and the one initial draw per pair are RMED1's (the paper's experiments).
Written once: RMED1's state (:class:`~boundcalc.policies.rmed1.RMEDState`) and learning step
(:func:`~boundcalc.policies.rmed1.rmed_update`), this module's compiled :func:`rmed2_select`.
RMED2's regret is asymptotically the Condorcet lower bound
(:func:`boundcalc.bounds.rmed.rmed_lb`) in RMED's unit on a Condorcet matrix.

>>> p = RMED2(3)
>>> p.select_pair()
(0, 1)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..kernels.rmed1 import RMED2 as _VARIANT
from ..kernels.rmed2 import rmed2_select, rmed2_target
from ..kernels.rmed2fh import rmed_run
from .base import Real
from .kernel import CompiledPolicy
from .registry import register_policy
from .rmed1 import RMED1, check_f, rmed_state, rmed_update

__all__ = ["RMED2", "rmed2_target", "rmed2_select", "rmed_run"]


@register_policy
class RMED2(CompiledPolicy):
    """RMED2, Komiyama et al. (COLT 2015), Algorithm 1 with the RMED2 subroutine (Algorithm 3).

    Hyperparameters: RMED1's ``f_scale = 0.3``, ``f_power = 1.01``, ``n_init = 1``; ``alpha = 3``
    (forced exploration ``N_ij >= alpha log log t``) and ``delta_floor = 0.01`` (floor of the
    regret numerator, from the authors' C++).  See the module text for the reading of each line.
    ``stats``: ``"initial"``, ``"forced"``, ``"self_duels"``, ``"to_winner"`` (line 3: ``m = i*``
    chosen by the ``N_{l i*}`` test), ``"to_target"`` (``m = b(l)``).
    """

    name = "rmed2"
    plot_style = ("tab:olive", "-.", "<")
    reference = "Komiyama, Honda, Kashima & Nakagawa (COLT 2015), Algorithms 1 and 3 (RMED2)"
    hyperparameters = {
        **RMED1.hyperparameters,
        "alpha": Real(3.0, low=0.0, doc="forced exploration: every pair drawn alpha log log t times"),
        "delta_floor": Real(
            0.01, low=0.0, low_open=True, doc="floor of the regret numerator Delta_{i* l} + Delta_{i* j} (> 0)"
        ),
    }
    deterministic = True
    State = RMED1.State
    stat_names = ("initial", "forced", "self_duels", "to_winner", "to_target")
    kernels = (rmed2_select, rmed_update, rmed_run)

    @classmethod
    def check_derived(cls, K: int, params: Mapping[str, Any]) -> None:
        check_f(cls, K, params)

    def initial_state(self) -> Any:
        return rmed_state(self.K, self.params, len(self.stat_names), variant=_VARIANT)
