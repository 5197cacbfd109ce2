"""Beat-the-Mean (Yue & Joachims, "Beat the Mean Bandit", ICML 2011, pp. 241-248, Algorithm 1 run in
the paper's online setting: ``N = infinity``, ``delta = 1 / (2 T K)``), explore then exploit.

Where it was read.  The paper was found with the ``search`` tool (``docplayer.net/355676``,
``studylib.net/doc/7967687``, ``mlanthology.org/icml/2011/yue2011icml-beat``) but the tool returns a
page's opening only, not Algorithm 1; the lines below are Algorithm 1 as cross-checked with two
public implementations that cite it, ``jkomiyama/duelingbanditlib`` (``policy/policy_btm.hpp``, C++)
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

Written once (:mod:`boundcalc.policies.kernel`): the compiled :func:`btm_select` and
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
from collections import namedtuple

import numpy as np
from numba import njit

from .base import Integer, Real
from .kernel import T_, CompiledPolicy, count, env_more, play, stream_index
from .registry import register_policy

__all__ = ["BeatTheMean", "BTMState", "btm_radius", "btm_select", "btm_update", "btm_run"]

#: BTM's state: the protocol's counts; ``bn[b, b']``/``bw[b, b']`` the comparisons and wins of ``b``
#: chosen against ``b'`` (line 12); ``n[b]``, ``w[b]`` their sums over the working set; the
#: membership of ``W`` (``act``); scratch ``ties``; ``reg = [t, |W|]``; ``fr = [3 gamma^2
#: sqrt(log(1 / delta))]``.
BTMState = namedtuple("BTMState", ["W", "N", "rs", "bn", "bw", "n", "w", "act", "ties", "reg", "fr", "stats"])
SIZE = 1


def btm_scale(K: int, horizon: int, gamma: float) -> float:
    """``3 gamma^2 sqrt(log(1 / delta))`` with ``delta = 1 / (2 T K)``: ``c(n)`` is this over ``sqrt(n)``.

    >>> round(btm_scale(5, 10**5, 1.0), 4)     # 3 sqrt(log(10^6))
    11.1508
    """
    return 3.0 * gamma * gamma * math.sqrt(math.log(2.0 * horizon * K))


@njit(cache=True)
def btm_radius(scale, n):
    """``c*(n) = 3 gamma^2 sqrt(log(1 / delta) / n)``, 1 for ``n = 0`` (Algorithm 1 line 8)."""
    if n == 0:
        return 1.0
    return scale / math.sqrt(n)


@njit(cache=True)
def btm_select(s):
    """Lines 11-12: the least-compared arm of ``W`` against a uniform other arm of ``W``; once one arm
    is left, its self-duel.  ``stats = [exploration, self_duels, removals]``."""
    K = s.act.shape[0]
    act = s.act
    if s.reg[SIZE] == 1:
        for a in range(K):
            if act[a]:
                s.stats[1] += 1
                return a, a
    m = -1
    for a in range(K):  # line 11
        if act[a] and (m < 0 or s.n[a] < m):
            m = s.n[a]
    nt = 0
    for a in range(K):
        if act[a] and s.n[a] == m:
            s.ties[nt] = a
            nt += 1
    b = s.ties[0] if nt == 1 else s.ties[stream_index(s.rs, nt)]
    k = stream_index(s.rs, s.reg[SIZE] - 1)  # line 12, over W \ {b} ascending
    for a in range(K):
        if act[a] and a != b:
            if k == 0:
                s.stats[0] += 1
                return b, a
            k -= 1
    return b, b  # unreachable: |W| >= 2


@njit(cache=True)
def btm_update(s, i, j, won):
    """Lines 13-20: the chosen arm's counters, then the elimination test and the deletion of the
    eliminated arm's comparisons."""
    count(s, i, j, won)
    if i != j:
        s.bn[i, j] += 1
        s.n[i] += 1
        if won:
            s.bw[i, j] += 1
            s.w[i] += 1
        K = s.act.shape[0]
        act = s.act
        nstar = -1
        pmin = np.inf
        pmax = -np.inf
        amin = -1
        for a in range(K):
            if act[a]:
                p = s.w[a] / s.n[a] if s.n[a] > 0 else 0.5
                if p < pmin:
                    pmin = p
                    amin = a
                if p > pmax:
                    pmax = p
                if nstar < 0 or s.n[a] < nstar:
                    nstar = s.n[a]
        c = btm_radius(s.fr[0], nstar)
        if pmin + c <= pmax - c:  # line 16
            act[amin] = False  # lines 17-19
            for a in range(K):
                if act[a]:
                    s.n[a] -= s.bn[a, amin]
                    s.w[a] -= s.bw[a, amin]
                    s.bn[a, amin] = 0
                    s.bw[a, amin] = 0
            s.reg[SIZE] -= 1
            s.stats[2] += 1
    s.reg[T_] += 1


@njit(cache=True)
def btm_run(s, env):
    """BTM's whole-run kernel: :func:`btm_select`, the duel, :func:`btm_update`, to the horizon."""
    while env_more(env):
        i, j = btm_select(s)
        btm_update(s, i, j, play(env, i, j))


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
    reference = ("Yue & Joachims (ICML 2011), Algorithm 1 online (Beat-the-Mean), explore then exploit;"
                 " Condorcet (total order, relaxed transitivity)")
    hyperparameters = {
        "horizon": Integer(10**5, low=1, doc="horizon T in delta = 1 / (2 T K)"),
        "gamma": Real(1.0, low=0.0, low_open=True,
                      doc="relaxed stochastic transitivity in c(n) = 3 gamma^2 sqrt(log(1/delta) / n)"),
    }
    deterministic = False
    State = BTMState
    stat_names = ("exploration", "self_duels", "removals")
    kernels = (btm_select, btm_update, btm_run)

    def initial_state(self) -> BTMState:
        K = self.K
        return BTMState(np.zeros((K, K), dtype=np.int64), np.zeros((K, K), dtype=np.int64), self._stream(),
                        np.zeros((K, K), dtype=np.int64), np.zeros((K, K), dtype=np.int64),
                        np.zeros(K, dtype=np.int64), np.zeros(K, dtype=np.int64), np.ones(K, dtype=np.bool_),
                        np.empty(K, dtype=np.int64), np.array([1, K], dtype=np.int64),
                        np.array([btm_scale(K, self.params["horizon"], self.params["gamma"])]),
                        np.zeros(3, dtype=np.int64))
