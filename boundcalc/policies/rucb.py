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

The random draws, in order per round (what the compiled kernel
:func:`boundcalc.policies.fast.rucb_run` reproduces from its own stream): line 7 one index in
``[0, K)``; lines 10-11 with ``B`` empty one index in ``[0, |C|)``, with ``B = {b}`` one uniform
(``< 1/2``: ``c = b``) then, if not ``b``, one index in ``[0, |C| - 1)`` over ``C \\ {b}``
ascending; line 13 one index over the tied arms (ascending) when more than one is tied.

>>> import numpy as np
>>> p = RUCB(3, rng=np.random.default_rng(0))
>>> i, j = p.select_pair(); i != j      # every pair undrawn: u = 2 off the diagonal
True
"""

from __future__ import annotations

import math

import numpy as np

from .base import Policy, Real
from .registry import register_policy

__all__ = ["RUCB", "relative_bounds"]


def relative_bounds(wins: np.ndarray, draws: np.ndarray, alpha: float, t: int) -> tuple[np.ndarray, np.ndarray]:
    """Relative upper and lower confidence bounds ``(U, L)`` (RUCB, ICML 2014, Algorithm 1 lines
    4-5; paper 001, Algorithm 1 line 4).

    ``u_ij = W_ij / N_ij + sqrt(alpha ln t / N_ij)`` and ``l_ij = W_ij / N_ij - sqrt(alpha ln t / N_ij)``
    with ``N = W + W^T``; ``x / 0 := 1`` for any ``x`` (so an undrawn pair has ``u = 2``,
    ``l = 0``); ``u_ii = l_ii = 1/2``.  ``t`` is the 1-based round.

    >>> U, L = relative_bounds(np.array([[0, 3], [1, 0]]), np.array([[0, 4], [4, 0]]), 0.5, 1)
    >>> U.tolist(), L.tolist()            # ln 1 = 0: the bounds are the empirical means
    ([[0.5, 0.75], [0.25, 0.5]], [[0.5, 0.75], [0.25, 0.5]])
    >>> relative_bounds(np.zeros((2, 2)), np.zeros((2, 2)), 0.51, 7)[0].tolist()
    [[0.5, 2.0], [2.0, 0.5]]
    """
    W = np.asarray(wins, dtype=float)
    N = np.asarray(draws, dtype=float)
    played = N > 0
    Nn = np.where(played, N, 1.0)
    mean = np.where(played, W / Nn, 1.0)
    rad = np.where(played, np.sqrt(alpha * math.log(t) / Nn), 1.0)
    U = mean + rad
    L = mean - rad
    np.fill_diagonal(U, 0.5)
    np.fill_diagonal(L, 0.5)
    return U, L


@register_policy
class RUCB(Policy):
    """RUCB, Zoghi, Whiteson, Munos & de Rijke (ICML 2014), Algorithm 1 (ICML version, with the
    hypothesised best arm ``B``).

    Hyperparameter ``alpha = 0.51`` (``> 1/2`` as the algorithm's input requires; the value of
    the paper's and of 001's experiments).  The module text gives the reading of every line and
    the order of the random draws.  ``stats``: ``"self_duels"`` (rounds with ``d = c``) and
    ``"empty_C"`` (rounds where line 7 drew ``c`` at random).
    """

    name = "rucb"
    reference = "Zoghi, Whiteson, Munos & de Rijke (ICML 2014), Algorithm 1 (RUCB)"
    hyperparameters = {
        "alpha": Real(0.51, low=0.5, low_open=True, doc="confidence scale of the RUCB (> 1/2)"),
    }
    deterministic = False
    fast_kernel = "rucb"

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self._B = -1  # the hypothesised best arm (line 2: empty)
        self.stats = {"self_duels": 0, "empty_C": 0}

    # random draws (overridable, e.g. to replay the compiled kernel's stream in a test)
    def _draw_index(self, n: int) -> int:
        """Uniform index in ``[0, n)``."""
        return int(self.rng.integers(n))

    def _draw_uniform(self) -> float:
        """Uniform on ``[0, 1)``."""
        return float(self.rng.random())

    def _select(self) -> tuple[int, int]:
        K = self.K
        U, _ = relative_bounds(self.wins, self.draws, self.params["alpha"], self.t)
        C = np.flatnonzero((U >= 0.5).all(axis=1))  # line 6 (u_cc = 1/2 passes)
        if C.size == 0:  # line 7
            c = self._draw_index(K)
            self._B = -1  # line 8: B intersect {} = {}
            self.stats["empty_C"] += 1
        else:
            if self._B >= 0 and self._B not in C:  # line 8
                self._B = -1
            if C.size == 1:  # line 9
                c = int(C[0])
                self._B = c
            elif self._B < 0:  # line 11 with B = {}: uniform on C
                c = int(C[self._draw_index(C.size)])
            elif self._draw_uniform() < 0.5:  # line 11: p(B) = 1/2
                c = self._B
            else:  # line 11: 1 / (2 |C \ B|) each
                rest = C[C != self._B]
                c = int(rest[self._draw_index(rest.size)])
        col = U[:, c]  # line 13: d = argmax_j u_jc
        ties = np.flatnonzero(col == col.max())
        if ties.size > 1:
            ties = ties[ties != c]  # on a tie d != c
        d = int(ties[0]) if ties.size == 1 else int(ties[self._draw_index(ties.size)])
        if d == c:
            self.stats["self_duels"] += 1
        return (c, d)
