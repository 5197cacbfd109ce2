"""Doubler (Ailon, Karnin & Joachims, "Reducing Dueling Bandits to Cardinal Bandits", ICML 2014,
Algorithm 1 "Doubler" -- the numbering as recalled), with a UCB1 singleton bandit (Auer, Cesa-Bianchi & Fischer 2002).

Where it was read.  The ``search`` tool did not return the paper's Algorithm 1 (only pages'
openings) and the public C++ (``jkomiyama/duelingbanditlib``) has Sparring and MultiSBM of the same
paper but not Doubler; the steps below are Algorithm 1 as recalled from the paper, not checked
against the printed lines:

* a singleton bandit ``S`` over the ``K`` arms (here UCB1, the same sub-bandit as
  :mod:`~boundcalc.policies.sparring`: each arm once ascending, then the first maximiser of
  ``G_k / N_k + sqrt(alpha ln n / N_k)``, ``alpha = 2``);
* ``L``: "any element" of the arms at the start -- here one arm drawn uniformly (one index on the
  policy stream, when the policy is built);
* epoch ``i = 1, 2, ...`` of ``2^i`` rounds: ``S`` is reset; each round the left arm ``x_t`` is
  drawn uniformly from the multiset ``L`` (one index over its ``|L|`` entries on the policy stream
  when ``|L| > 1``; an arm's chance is its multiplicity over ``|L|``), the right arm is ``y_t =
  advance(S)``; the duel ``(x_t, y_t)`` is played and ``S`` gets the reward ``b_t = 1`` when
  ``y_t`` won (a self-duel's reported outcome included, as for Sparring);
* at the end of the epoch ``L`` becomes the multiset of the arms ``S`` played in it.

Doubler is deterministic but for those draws.  Setting: Condorcet (utility-based, linear link, in
the paper); its regret guarantee is an order, so ``compare`` has no constant for it.

Written once (:mod:`boundcalc.policies.kernel`): compiled :func:`doubler_select` and
:func:`doubler_update` over :class:`DoublerState`.

>>> import numpy as np
>>> p = Doubler(3, rng=np.random.default_rng(0))
>>> x, y = p.select_pair(); (x == p.first_arm, y)      # the first epoch's left arm; UCB1 starts at 0
(True, 0)
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .base import Real
from .kernel import T_, CompiledPolicy, count, env_more, play, stream_index
from .registry import register_policy
from .sparring import ucb1_arm

__all__ = ["Doubler", "DoublerState", "doubler_select", "doubler_update", "doubler_run"]

#: Doubler's state: the protocol's counts, the policy stream, UCB1's plays ``P[0]`` and rewards
#: ``G[0]`` (2-D for :func:`~boundcalc.policies.sparring.ucb1_arm`), the multiset ``L`` of the last
#: epoch (counts per arm) and the one being built; ``reg = [t, epoch i, round in the epoch, |L|]``;
#: ``fr = [alpha]``.
DoublerState = namedtuple("DoublerState", ["W", "N", "rs", "P", "G", "L", "Lnew", "reg", "fr", "stats"])
EPOCH, POS, SIZE = 1, 2, 3
_CAP = 2 ** 62


@njit(cache=True)
def doubler_select(s):
    """``x_t`` uniform from ``L``, ``y_t`` UCB1's arm.  ``stats = [self_duels, epochs]``."""
    K = s.L.shape[0]
    n = s.reg[SIZE]
    if n > 1:
        k = stream_index(s.rs, n)
        x = 0
        for a in range(K):
            if k < s.L[a]:
                x = a
                break
            k -= s.L[a]
    else:
        x = 0
        for a in range(K):
            if s.L[a] > 0:
                x = a
                break
    y = ucb1_arm(s.P, s.G, 0, s.fr[0])
    if x == y:
        s.stats[0] += 1
    return x, y


@njit(cache=True)
def doubler_update(s, i, j, won):
    """UCB1 learns ``b_t = 1`` when the right arm won; at an epoch's end ``L`` is replaced and UCB1
    reset."""
    count(s, i, j, won)
    s.P[0, j] += 1
    if not won:
        s.G[0, j] += 1
    s.Lnew[j] += 1
    pos = s.reg[POS] + 1
    e = s.reg[EPOCH]
    length = _CAP if e >= 62 else 2 ** e
    if pos >= length:
        K = s.L.shape[0]
        for a in range(K):
            s.L[a] = s.Lnew[a]
            s.Lnew[a] = 0
            s.P[0, a] = 0
            s.G[0, a] = 0
        s.reg[SIZE] = length
        s.reg[EPOCH] = e + 1
        pos = 0
        s.stats[1] += 1
    s.reg[POS] = pos
    s.reg[T_] += 1


@njit(cache=True)
def doubler_run(s, env):
    """Doubler's whole-run kernel: :func:`doubler_select`, the duel, :func:`doubler_update`."""
    while env_more(env):
        i, j = doubler_select(s)
        doubler_update(s, i, j, play(env, i, j))


@register_policy
class Doubler(CompiledPolicy):
    """Doubler, Ailon, Karnin & Joachims (ICML 2014), Algorithm 1, with a UCB1 singleton bandit.

    Hyperparameter ``alpha = 2`` (UCB1's exploration constant).  Setting: Condorcet (utility-based
    in the paper).  ``stats``: ``"self_duels"``, ``"epochs"`` (completed epochs).
    """

    name = "doubler"
    reference = "Ailon, Karnin & Joachims (ICML 2014), Algorithm 1 (Doubler) with a UCB1 bandit; Condorcet (utility-based)"
    hyperparameters = {
        "alpha": Real(2.0, low=0.0, low_open=True, doc="UCB1 exploration constant: sqrt(alpha ln n / N_k)"),
    }
    deterministic = False
    State = DoublerState
    stat_names = ("self_duels", "epochs")
    kernels = (doubler_select, doubler_update, doubler_run)

    @property
    def first_arm(self) -> int:
        """The arm ``L`` started with."""
        return self._first

    def initial_state(self) -> DoublerState:
        K = self.K
        rs = self._stream()
        self._first = int(stream_index(rs, K))
        L = np.zeros(K, dtype=np.int64)
        L[self._first] = 1
        return DoublerState(np.zeros((K, K), dtype=np.int64), np.zeros((K, K), dtype=np.int64), rs,
                            np.zeros((1, K), dtype=np.int64), np.zeros((1, K), dtype=np.int64), L,
                            np.zeros(K, dtype=np.int64), np.array([1, 1, 0, 1], dtype=np.int64),
                            np.array([self.params["alpha"]]), np.zeros(2, dtype=np.int64))
