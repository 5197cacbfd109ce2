"""Winner Stays for strong regret, WS-S (Chen & Frazier, "Dueling Bandits with Weak Regret", ICML 2017,
Algorithm 1 (WS-W) inside the strong-regret schedule of its Sec. 4 (WS-S)).

WS-S, not WS-W: boundcalc measures strong regret (both arms of a duel count), and WS-S is the
paper's variant for it; WS-W is its inner loop.

Where it was read.  The ``search`` tool finds the paper (the ICML text,
``.../ml-papers-txt/ICML/2017/dueling_bandits_with_weak_regret__b5c07448.txt``: its abstract, which
states WS-S's ``O(N^2 + N log T)`` strong regret) but returns a page's opening only; the steps below
are the algorithm as implemented and documented by ``bengsV/duelpy``
(``duelpy/algorithms/winner_stays.py``, ``WinnerStaysWeakRegret`` and ``WinnerStaysStrongRegret``,
read, not copied), which cites the paper for every step:

* WS-W keeps ``C_i`` = wins minus losses of arm ``i`` over all its duels;
* the first arm ``i_t``: among ``argmax_i C_i``, the previous round's ``i`` if it is there, else the
  previous ``j`` if it is there, else one drawn uniformly (one index over the maximisers,
  ascending, on the policy stream) -- the winner stays;
* the second arm ``j_t``: the same rule among ``argmax_{j != i_t} C_j``;
* the duel ``(i_t, j_t)``: the winner's ``C`` grows by 1, the loser's drops by 1;
* WS-S: round ``r = 1, 2, ...`` is one WS-W duel followed by ``floor(beta^r)`` self-duels of the
  arm of largest ``C`` after that duel (the smallest index on ties); ``beta = 2`` (duelpy's
  default; the paper requires ``beta > 1``).

"Previous round" is the previous WS-W duel (the exploitation self-duels in between do not move
``i`` or ``j``).  Setting: Condorcet (the paper's guarantees need a Condorcet winner; a total
order improves them).  The paper's strong-regret bound ``O(N^2 + N log T)`` is an order (no
explicit constant), reported as such in ``compare``.

Written once (:mod:`boundcalc.policies.kernel`): compiled :func:`ws_select` and :func:`ws_update`
over :class:`WSState`.  Random draws, per WS-W duel: at most one index for ``i_t``, then at most
one for ``j_t``.

>>> import numpy as np
>>> p = WinnerStays(3, rng=np.random.default_rng(0))
>>> i, j = p.select_pair(); i != j
True
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .base import Real
from .kernel import T_, CompiledPolicy, count, env_more, play, stream_index
from .registry import register_policy

__all__ = ["WinnerStays", "WSState", "ws_select", "ws_update", "ws_run"]

#: WS-S's state: the protocol's counts, the policy stream, ``C`` (wins - losses), scratch ``ties``;
#: ``reg = [t, previous i, previous j, round r, its exploitation length, exploit duels played, best
#: arm, the pending pair is a WS-W duel]``; ``fr = [beta]``.
WSState = namedtuple("WSState", ["W", "N", "rs", "C", "ties", "reg", "fr", "stats"])
PI, PJ, ROUND, LEN, DONE, BEST, WSW = 1, 2, 3, 4, 5, 6, 7
_CAP = 2 ** 62


@njit(cache=True)
def _stay(s, exclude):
    """The winner-stays choice among ``argmax_{k != exclude} C_k``."""
    K = s.C.shape[0]
    m = -(2 ** 62)
    for k in range(K):
        if k != exclude and s.C[k] > m:
            m = s.C[k]
    pi = s.reg[PI]
    pj = s.reg[PJ]
    if pi >= 0 and pi != exclude and s.C[pi] == m:
        return pi
    if pj >= 0 and pj != exclude and s.C[pj] == m:
        return pj
    nt = 0
    for k in range(K):
        if k != exclude and s.C[k] == m:
            s.ties[nt] = k
            nt += 1
    return s.ties[0] if nt == 1 else s.ties[stream_index(s.rs, nt)]


@njit(cache=True)
def ws_select(s):
    """A WS-W duel at the start of each round, else the exploiting self-duel.
    ``stats = [ws_duels, self_duels]``."""
    if s.reg[DONE] >= s.reg[LEN]:
        i = _stay(s, -1)
        j = _stay(s, i)
        s.reg[WSW] = 1
        s.stats[0] += 1
        return i, j
    s.reg[WSW] = 0
    s.stats[1] += 1
    b = s.reg[BEST]
    return b, b


@njit(cache=True)
def ws_update(s, i, j, won):
    """After a WS-W duel: ``C`` of the two arms, the next round's length and best arm; after a
    self-duel: one more of the round's exploitation."""
    count(s, i, j, won)
    if s.reg[WSW]:
        if won:
            s.C[i] += 1
            s.C[j] -= 1
        else:
            s.C[j] += 1
            s.C[i] -= 1
        s.reg[PI] = i
        s.reg[PJ] = j
        r = s.reg[ROUND] + 1
        s.reg[ROUND] = r
        x = math.floor(s.fr[0] ** r)
        s.reg[LEN] = _CAP if x >= _CAP else int(x)
        s.reg[DONE] = 0
        b = 0
        for k in range(1, s.C.shape[0]):
            if s.C[k] > s.C[b]:
                b = k
        s.reg[BEST] = b
    else:
        s.reg[DONE] += 1
    s.reg[T_] += 1


@njit(cache=True)
def ws_run(s, env):
    """WS-S's whole-run kernel: :func:`ws_select`, the duel, :func:`ws_update`, to the horizon."""
    while env_more(env):
        i, j = ws_select(s)
        ws_update(s, i, j, play(env, i, j))


@register_policy
class WinnerStays(CompiledPolicy):
    """Winner Stays for strong regret (WS-S), Chen & Frazier (ICML 2017): WS-W duels (Algorithm 1)
    interleaved with exploitation rounds of ``floor(beta^r)`` self-duels.

    Hyperparameter ``beta = 2`` (> 1).  Setting: Condorcet.  ``stats``: ``"ws_duels"`` (WS-W duels),
    ``"self_duels"`` (exploitation).
    """

    name = "winner-stays"
    reference = "Chen & Frazier (ICML 2017), Winner Stays for strong regret (WS-S, with WS-W's Algorithm 1); Condorcet"
    hyperparameters = {
        "beta": Real(2.0, low=1.0, low_open=True, doc="exploitation round r lasts floor(beta**r) self-duels (> 1)"),
    }
    deterministic = False
    State = WSState
    stat_names = ("ws_duels", "self_duels")
    kernels = (ws_select, ws_update, ws_run)

    def initial_state(self) -> WSState:
        K = self.K
        return WSState(np.zeros((K, K), dtype=np.int64), np.zeros((K, K), dtype=np.int64), self._stream(),
                       np.zeros(K, dtype=np.int64), np.empty(K, dtype=np.int64),
                       np.array([1, -1, -1, 0, 0, 0, 0, 0], dtype=np.int64), np.array([self.params["beta"]]),
                       np.zeros(2, dtype=np.int64))
