"""RMED2FH's compiled state and steps (Komiyama, Honda, Kashima & Nakagawa, COLT 2015, Algorithm 1 with
RMED2FH); RMED's learning step and RMED2's target are shared (:mod:`boundcalc.kernels.rmed1`,
:mod:`boundcalc.kernels.rmed2`); the reading is in :mod:`boundcalc.policies.rmed2fh`.

>>> RMED2FHState._fields[-2:]   # RMED's state, the fixed targets and the forced threshold
('bfix', 'thr')
"""

from __future__ import annotations

import math

from numba import njit

from .codesize import optimize_for_size
from .policy import T_, env_more, play
from .rmed1 import (
    FLOOR,
    IN_LOOP,
    POS,
    RMED1,
    RMED2,
    VARIANT,
    RMEDState,
    argmin_first,
    first_pair,
    initial_pair,
    rmed1_opponent,
    rmed1_select,
    rmed_update,
)
from .rmed2 import N_FORCED, N_SELF_DUELS, N_TO_TARGET, N_TO_WINNER, rmed2_select, rmed2_target

#: RMED's state (:class:`~boundcalc.kernels.rmed1.RMEDState`, one layout for RMED1, RMED2 and
#: RMED2FH), whose ``bfix`` (the fixed targets, ``-2`` until the main loop starts) and ``thr =
#: [alpha log log T]`` only RMED2FH reads.
RMED2FHState = RMEDState


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
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
            s.stats[N_FORCED] += 1
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
            s.stats[N_TO_WINNER] += 1
        elif 2 * W[l, b] <= N[l, b]:
            m = b
            s.stats[N_TO_TARGET] += 1
        else:
            m = rmed1_opponent(W, N, l, istar)
    else:
        m = rmed1_opponent(W, N, l, istar)
    if m == l:
        s.stats[N_SELF_DUELS] += 1
    return l, m


@njit(cache=True, no_cfunc_wrapper=True)
def rmed_run(s, env):
    """The whole-run kernel of RMED1, RMED2 and RMED2FH: the select of the policy ``reg[VARIANT]``
    (:func:`~boundcalc.kernels.rmed1.rmed1_select`, :func:`~boundcalc.kernels.rmed2.rmed2_select`,
    :func:`rmed2fh_select`), the duel, RMED's update, to the horizon.

    One kernel for the three (they share the state type and the update): a command running two or
    three of them compiles the loop, the update and the simulator's duel once (a run kernel of each
    compiled, linked and re-optimised all of it again, about 0.4 s of CPU each on an empty cache)."""
    optimize_for_size()
    while env_more(env):
        v = s.reg[VARIANT]
        if v == RMED1:
            i, j = rmed1_select(s)
        elif v == RMED2:
            i, j = rmed2_select(s)
        else:
            i, j = rmed2fh_select(s)
        rmed_update(s, i, j, play(env, i, j))
