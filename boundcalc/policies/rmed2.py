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
  the pitfall of issue 8 (``tests/test_policies_rmed2_savage.py``).  The numerator is floored
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

import math
from typing import Any

from numba import njit

from .base import Real
from .kernel import T_, CompiledPolicy, env_more, kl_half_c, play
from .registry import register_policy
from .rmed1 import (ALPHA, FLOOR, IN_LOOP, POS, RMED1, argmin_first, first_pair, initial_pair, rmed1_opponent,
                    rmed_state, rmed_update)

__all__ = ["RMED2", "rmed2_target", "rmed2_select", "rmed2_run"]


@njit(cache=True)
def _mu_hat(W, N, a, b):
    n = N[a, b]
    if n > 0:
        return W[a, b] / n
    return 0.5


@njit(cache=True)
def rmed2_target(W, N, istar, l, floor):
    """``b(l)``: the arm ``j`` with ``mu_hat_lj < 1/2`` minimising
    ``max(Delta_{i* l} + Delta_{i* j}, floor) / d(mu_hat_lj)`` (RMED2, COLT 2015, Algorithm 3),
    ``Delta_{i* j} = mu_hat_{i* j} - 1/2``; ``-1`` when no arm beats ``l`` empirically.
    Ties go to the smaller index.

    >>> import numpy as np
    >>> W = np.array([[0, 6, 9], [4, 0, 1], [1, 9, 0]]); N = W + W.T
    >>> rmed2_target(W, N, 0, 1, 0.01), rmed2_target(W, N, 0, 0, 0.01)
    (2, -1)
    """
    K = W.shape[0]
    dl = _mu_hat(W, N, istar, l) - 0.5
    best = math.inf
    bt = -1
    for b in range(K):
        if b == l or not 2 * W[l, b] < N[l, b]:
            continue
        num = dl + (_mu_hat(W, N, istar, b) - 0.5)
        if num < floor:
            num = floor
        x = num / kl_half_c(W[l, b] / N[l, b])
        if x < best:
            best = x
            bt = b
    return bt


@njit(cache=True)
def rmed2_select(s):
    """RMED2's next pair: the initial phase, line 1's forced exploration, then ``(l, m)`` by
    Algorithm 3 for ``l`` the next arm of ``L_C``.  ``stats = [initial, forced, self_duels,
    to_winner, to_target]``."""
    i, j = initial_pair(s)
    if i >= 0:
        return i, j
    t = s.reg[T_]
    if t >= 3:
        i, j = first_pair(s.N, s.fr[ALPHA] * math.log(math.log(t)))
        if i >= 0:
            s.stats[1] += 1
            s.reg[IN_LOOP] = 0
            return i, j
    s.reg[IN_LOOP] = 1
    W = s.W
    N = s.N
    l = s.LC[s.reg[POS]]
    istar = argmin_first(s.I)
    bt = rmed2_target(W, N, istar, l, s.fr[FLOOR])
    if bt >= 0:
        loglog = math.log(math.log(t))
        if istar != l and 2 * W[l, istar] <= N[l, istar] and N[l, istar] * loglog <= N[l, bt]:
            m = istar
            s.stats[3] += 1
        else:
            m = bt
            s.stats[4] += 1
    else:  # no arm beats l empirically: RMED1's rule (its minimiser lies among the arms l does not beat)
        m = rmed1_opponent(W, N, l, istar)
    if m == l:
        s.stats[2] += 1
    return l, m


@njit(cache=True)
def rmed2_run(s, env):
    """RMED2's whole-run kernel: :func:`rmed2_select`, the duel, RMED's update, to the horizon."""
    while env_more(env):
        i, j = rmed2_select(s)
        rmed_update(s, i, j, play(env, i, j))


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
    reference = "Komiyama, Honda, Kashima & Nakagawa (COLT 2015), Algorithms 1 and 3 (RMED2)"
    hyperparameters = {
        **RMED1.hyperparameters,
        "alpha": Real(3.0, low=0.0, doc="forced exploration: every pair drawn alpha log log t times"),
        "delta_floor": Real(0.01, low=0.0, low_open=True,
                            doc="floor of the regret numerator Delta_{i* l} + Delta_{i* j} (> 0)"),
    }
    deterministic = True
    State = RMED1.State
    stat_names = ("initial", "forced", "self_duels", "to_winner", "to_target")
    kernels = (rmed2_select, rmed_update, rmed2_run)

    def initial_state(self) -> Any:
        return rmed_state(self.K, self.params, len(self.stat_names))
