"""RUCB: Relative Upper Confidence Bound (Zoghi, Whiteson, Munos & de Rijke, "Relative Upper
Confidence Bound for the K-Armed Dueling Bandit Problem", ICML 2014, pp. 10-18, Algorithm 1).

The ICML version of Algorithm 1 (the one paper 001 cites as [4] and runs in its Figure 1), with
its line numbers:

* line 1: ``W = 0`` (``W[i, j]`` = times ``i`` beat ``j``: the protocol's ``wins``);
* line 2: ``B = {}`` (the hypothesised best arm, at most one);
* line 4: ``U = W / N + sqrt(alpha ln t / N)`` element-wise, ``N = W + W^T``, with ``x / 0 := 1``
  for any ``x`` -- read literally: both fractions are 1 on an undrawn pair, so ``u_ij = 2``;
* line 5: ``u_ii = 1/2``;
* line 6: ``C = {c : u_cj >= 1/2 for every j}``;
* line 7: ``C`` empty: ``c`` uniform on all arms;
* line 8: ``B <- B intersect C``;
* line 9: ``|C| = 1``: ``B <- C`` and ``c`` its element;
* lines 10-11: ``|C| > 1``: ``c`` drawn from ``C`` with ``p(c) = 1/2`` for ``c in B`` and
  ``1 / (2^|B| |C \\ B|)`` otherwise (with ``B`` empty: uniform on ``C``);
* line 13: ``d = argmax_j u_jc``, ties broken uniformly at random, and ``d != c`` when ``c`` is
  among the tied arms (so ``d = c``, the exploiting self-duel, only when every other
  ``u_jc < 1/2``);
* line 14: the duel ``(c, d)``; the count of the arm that actually won is incremented (the
  protocol's :meth:`~boundcalc.policies.base.Policy.update` records ``wins[i, j]`` or
  ``wins[j, i]`` from the reported outcome -- the pitfall of public code that always credits
  ``c`` is tested against, ``tests/test_policies_dts.py``).

``alpha = 0.51`` is the experimental value of RUCB's paper and of paper 001 (Sec. 5: "For
algorithms using RUCB and RLCB, including D-TS and D-TS+, we set the scale factor
alpha = 0.51"); ``t`` is the 1-based round (``ln 1 = 0`` at the first round).

Readings where the text leaves a choice, and what was checked against public code (read, not
copied): the ICML text (line numbering above) was cross-checked with the line-numbered comments
of ``bengsV/duelpy``'s ``relative_ucb.py`` (lines 4-14) and with ``jkomiyama/duelingbanditlib``'s
``policy_rucb_icml.hpp`` (the same ``B`` rule).  Both public C++ versions differ from the text
in small ways this module does not follow: duelingbanditlib sets ``u = 1`` on undrawn pairs and
takes the first maximiser in line 13 (no random ties, ``d = c`` allowed on a tie); the D-TS
authors' ``HuasenWu/DuelingBandits`` (``Alg_RUCB.cpp``) starts from pseudo-counts
(``W = 1e-5``, ``N = 1e-6``) and also takes the first maximiser.

Written once (:mod:`boundcalc.policies.kernel`): the compiled :func:`rucb_select` over
:class:`RUCBState`; the bounds ``u_ij`` are computed where they are read
(:func:`~boundcalc.kernels.stats.ucb`, shared with D-TS and CCB; line 6's test
:func:`~boundcalc.kernels.stats.ucb_below_half` skips the square root of a pair ``i`` does not
lose empirically).  The random draws come from the policy stream, in this order per round: line 7 one index in
``[0, K)``; lines 10-11 with ``B`` empty one index in ``[0, |C|)``, with ``B = {b}`` one uniform
(``< 1/2``: ``c = b``) then, if not ``b``, one index in ``[0, |C| - 1)`` over ``C \\ {b}``
ascending; line 13 one index over the tied arms (ascending) when more than one is tied.

>>> import numpy as np
>>> p = RUCB(3, rng=np.random.default_rng(0))
>>> i, j = p.select_pair(); i != j      # every pair undrawn: u = 2 off the diagonal
True
"""

from __future__ import annotations

import numpy as np

from ..kernels.policy import plain_update
from ..kernels.rucb import RUCBState, rucb_run, rucb_select
from .base import MAX_SCALE, Real
from .kernel import CompiledPolicy
from .registry import register_policy

__all__ = ["RUCB", "RUCBState", "rucb_select", "plain_update", "rucb_run"]


@register_policy
class RUCB(CompiledPolicy):
    """RUCB, Zoghi, Whiteson, Munos & de Rijke (ICML 2014), Algorithm 1 (ICML version, with the
    hypothesised best arm ``B``).

    Hyperparameter ``alpha = 0.51`` (``> 1/2`` as the algorithm's input requires; the value of
    the paper's and of 001's experiments).  The module text gives the reading of every line and
    the order of the random draws.  ``stats``: ``"self_duels"`` (rounds with ``d = c``) and
    ``"empty_C"`` (rounds where line 7 drew ``c`` at random).
    """

    name = "rucb"
    plot_style = ("tab:brown", (0, (4, 3)), "x")
    reference = "Zoghi, Whiteson, Munos & de Rijke (ICML 2014), Algorithm 1 (RUCB)"
    hyperparameters = {
        "alpha": Real(0.51, low=0.5, low_open=True, high=MAX_SCALE, doc="confidence scale of the RUCB (> 1/2)"),
    }
    deterministic = False
    State = RUCBState
    stat_names = ("self_duels", "empty_C")
    kernels = (rucb_select, plain_update, rucb_run)

    def initial_state(self) -> RUCBState:
        K = self.K
        return RUCBState(
            np.zeros((K, K), dtype=np.int64),
            np.zeros((K, K), dtype=np.int64),
            self._stream(),
            np.empty(K, dtype=np.int64),
            np.empty(K),
            np.empty(K, dtype=np.int64),
            np.array([1, -1], dtype=np.int64),
            np.array([self.params["alpha"]]),
            np.zeros(2, dtype=np.int64),
        )
