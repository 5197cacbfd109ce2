"""RMED2FH, RMED2 with a fixed horizon (Komiyama, Honda, Kashima & Nakagawa, "Regret Lower Bound and
Optimal Algorithm in Dueling Bandit Problem", COLT 2015, Algorithm 1 with the RMED2FH subroutine),
the variant whose regret the paper proves asymptotically optimal.

What was taken from where.  As for :mod:`~boundcalc.policies.rmed2` (whose readings this module
keeps), the COLT paper is not among ``../shared/papers/`` and the ``search`` tool returns no
algorithm box; RMED2FH is read from the first author's public C++ (``jkomiyama/duelingbanditlib``,
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
from collections import namedtuple
from typing import Any

import numpy as np
from numba import njit

from .base import Integer
from .kernel import T_, CompiledPolicy, env_more, play
from .registry import register_policy
from .rmed1 import FLOOR, IN_LOOP, POS, argmin_first, first_pair, initial_pair, rmed1_opponent, rmed_state, rmed_update
from .rmed2 import RMED2, rmed2_target

__all__ = ["RMED2FH", "RMED2FHState", "rmed2fh_select", "rmed2fh_run"]

#: RMED's state (:class:`~boundcalc.policies.rmed1.RMEDState`'s fields) and ``bfix`` (the fixed
#: targets, ``-2`` until the main loop starts) and ``thr = [alpha log log T]``.
RMED2FHState = namedtuple("RMED2FHState", ["W", "N", "G", "I", "LC", "inLR", "inLN", "reg", "fr", "stats",
                                           "bfix", "thr"])


@njit(cache=True)
def rmed2fh_select(s):
    """RMED2FH's next pair: the initial phase, the fixed forced exploration, then ``(l, m)`` with the
    targets fixed at the first main-loop round.  ``stats = [initial, forced, self_duels, to_winner,
    to_target]``."""
    i, j = initial_pair(s)
    if i >= 0:
        return i, j
    if s.thr[0] > 0.0:
        i, j = first_pair(s.N, s.thr[0])
        if i >= 0:
            s.stats[1] += 1
            s.reg[IN_LOOP] = 0
            return i, j
    s.reg[IN_LOOP] = 1
    W = s.W
    N = s.N
    K = W.shape[0]
    istar = argmin_first(s.I)
    if s.bfix[0] == -2:  # the first round of the main loop: fix every target
        for a in range(K):
            s.bfix[a] = rmed2_target(W, N, istar, a, s.fr[FLOOR])
    l = s.LC[s.reg[POS]]
    b = s.bfix[l]
    t = s.reg[T_]
    if b >= 0:
        loglog = math.log(math.log(t))
        if istar != l and 2 * W[l, istar] <= N[l, istar] and N[l, istar] * loglog <= N[l, b]:
            m = istar
            s.stats[3] += 1
        elif 2 * W[l, b] <= N[l, b]:
            m = b
            s.stats[4] += 1
        else:
            m = rmed1_opponent(W, N, l, istar)
    else:
        m = rmed1_opponent(W, N, l, istar)
    if m == l:
        s.stats[2] += 1
    return l, m


@njit(cache=True)
def rmed2fh_run(s, env):
    """RMED2FH's whole-run kernel: :func:`rmed2fh_select`, the duel, RMED's update, to the horizon."""
    while env_more(env):
        i, j = rmed2fh_select(s)
        rmed_update(s, i, j, play(env, i, j))


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
    kernels = (rmed2fh_select, rmed_update, rmed2fh_run)

    def initial_state(self) -> Any:
        base = rmed_state(self.K, self.params, len(self.stat_names))
        return RMED2FHState(*base, np.full(self.K, -2, dtype=np.int64),
                            np.array([rmed2fh_threshold(self.params["alpha"], self.params["horizon"])]))
