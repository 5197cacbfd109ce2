"""D-TS and D-TS+: Double Thompson Sampling (Wu & Liu, "Double Thompson Sampling for Dueling
Bandits", NIPS 2016 -- paper 001), Algorithm 1 and Sec. 4.3.

D-TS, 001 Algorithm 1, with its line numbers (``B`` = the protocol's ``wins``, ``t`` the 1-based
round):

* line 4: ``u_ij = B_ij / N_ij + sqrt(alpha log t / N_ij)``, ``l_ij = B_ij / N_ij - sqrt(alpha log t / N_ij)``
  (``N = B + B^T``), ``u_ii = l_ii = 1/2``, ``x / 0 := 1`` for any ``x`` -- read literally, an
  undrawn pair has ``u = 2`` and ``l = 0`` (:func:`~boundcalc.policies.rucb.relative_bounds`);
* line 5: ``zeta_hat_i = (1 / (K - 1)) sum_{j != i} 1(u_ij > 1/2)`` (strict, as printed);
* line 6: ``C = {i : zeta_hat_i = max_j zeta_hat_j}`` -- the Copeland-winner candidates of the
  RUCB-style bounds (never empty);
* lines 7-10: for ``i < j``, ``theta1_ij ~ Beta(B_ij + 1, B_ji + 1)`` and ``theta1_ji = 1 - theta1_ij``;
* line 11: ``a1 = argmax_{i in C} sum_{j != i} 1(theta1_ij > 1/2)``, ties broken uniformly at
  random;
* line 13: ``theta2_{i a1} ~ Beta(B_{i a1} + 1, B_{a1 i} + 1)`` for every ``i != a1`` (fresh samples,
  independent of phase 1) and ``theta2_{a1 a1} = 1/2``;
* line 14: ``a2 = argmax_{i : l_{i a1} <= 1/2} theta2_{i a1}`` -- the arm whose *sampled*
  probability of beating ``a1`` is largest among the arms not confidently beating ``a1``
  (``a1`` itself always qualifies, ``l_{a1 a1} = 1/2``; ``a2 = a1`` is the self-duel).  Not a
  value of ``a1``'s own row (``theta_{a1 i}``, the probability that ``a1`` beats ``i``), the
  pitfall of public code tested against in ``tests/test_policies_dts.py``.  Ties (probability
  zero) go to the smallest index.
* lines 16-17: duel ``(a1, a2)``; the winner's count is incremented (the protocol's ``update``).

D-TS+ (001 Sec. 4.3) replaces line 11 only: with ``zeta_tilde_i = (1 / (K - 1)) sum_{j != i}
1(theta1_ij > 1/2)`` for every arm, ``zeta_tilde* = max_i zeta_tilde_i`` over all arms (as
printed; the authors' C++ takes the maximum over ``C``), ``r_ij = zeta_tilde* - (zeta_tilde_i +
zeta_tilde_j) / 2``, ``R_i = sum_{j : theta1_ij != 1/2} r_ij / D(theta1_ij || 1/2)``:
``A = {i in C : zeta_tilde_i = max_{i' in C} zeta_tilde_i'}`` and ``a1 = argmin_{i in A} R_i``
(ties, of probability zero, to the smallest index as in the C++; the sum over ``j != i`` in
ascending order).

``alpha = 0.51`` (001 Sec. 5).  Readings checked against the authors' public C++
(``HuasenWu/DuelingBandits``, ``Alg_DTS.cpp`` and ``Alg_DTS2.cpp``; read, not copied): the
second candidate maximises the fresh sample ``theta2[i][a1] ~ Beta(W[i][a1] + 1, W[a1][i] + 1)``
over arms with ``l[i][a1] <= 1/2`` (as line 14); the C++ differs from the printed text, which
this module follows, in counting ``u_ij >= 1/2`` in line 5, starting from pseudo-counts
(``W = 1e-5``, ``N = 1e-6``) and, in D-TS+, taking ``zeta*`` over ``C``.

Random draws, in order per round (what :func:`boundcalc.policies.fast.dts_run` reproduces
from its own stream): the ``K (K - 1) / 2`` Beta draws of lines 7-10 for ``(i, j)``, ``i < j``,
row by row; D-TS only: one index over the tied maximisers of line 11 (ascending) when more than
one; the ``K - 1`` Beta draws of line 13 for ``i != a1`` ascending.

>>> import numpy as np
>>> p = DTS(4, rng=np.random.default_rng(0))
>>> i, j = p.select_pair(); 0 <= i < 4 and 0 <= j < 4
True
"""

from __future__ import annotations

import numpy as np

from ..matrix import kl_half
from .base import Policy, Real
from .registry import register_policy
from .rucb import relative_bounds

__all__ = ["DTS", "DTSPlus", "copeland_candidates", "dts_plus_regret"]


def copeland_candidates(U: np.ndarray) -> np.ndarray:
    """Lines 5-6 of 001 Algorithm 1: the arms maximising ``sum_{j != i} 1(u_ij > 1/2)`` (ascending).

    >>> copeland_candidates(np.array([[0.5, 0.7, 0.2], [0.6, 0.5, 0.9], [0.9, 0.4, 0.5]])).tolist()
    [1]
    """
    U = np.asarray(U, dtype=float)
    above = U > 0.5
    np.fill_diagonal(above, False)
    score = above.sum(axis=1)
    return np.flatnonzero(score == score.max())


def dts_plus_regret(theta: np.ndarray, arms) -> np.ndarray:
    """001 Sec. 4.3: ``R_i = sum_{j != i, theta_ij != 1/2} r_ij / D(theta_ij || 1/2)`` for ``i`` in ``arms``.

    ``r_ij = zeta* - (zeta_i + zeta_j) / 2`` with ``zeta_i = (1 / (K - 1)) sum_{j != i}
    1(theta_ij > 1/2)`` and ``zeta* = max_i zeta_i`` over all arms; the sum runs over ``j``
    ascending (sequentially, as the compiled kernel does).

    >>> th = np.array([[0.5, 0.9, 0.8], [0.1, 0.5, 0.7], [0.2, 0.3, 0.5]])
    >>> r = dts_plus_regret(th, [0, 1])     # zeta = (1, 1/2, 0): R_0 = 0.25 / d(0.9) + 0.5 / d(0.8)
    >>> [round(float(x), 4) for x in r]
    [3.2733, 9.7941]
    """
    th = np.asarray(theta, dtype=float)
    K = th.shape[0]
    above = th > 0.5
    np.fill_diagonal(above, False)
    zeta = (above.sum(axis=1) / (K - 1)).tolist()
    zstar = max(zeta)
    arms = [int(i) for i in arms]
    d = kl_half(th[arms]).tolist()
    rows = th[arms].tolist()
    out = np.empty(len(arms))
    for k, i in enumerate(arms):
        s = 0.0
        zi = zeta[i]
        row, drow = rows[k], d[k]
        for j in range(K):
            if j != i and row[j] != 0.5:
                s += (zstar - 0.5 * (zi + zeta[j])) / drow[j]
        out[k] = s
    return out


@register_policy
class DTS(Policy):
    """D-TS, Wu & Liu (NIPS 2016, paper 001), Algorithm 1 (lines 1-18).

    Hyperparameter ``alpha = 0.51`` (001 Sec. 5; ``> 1/2`` as Proposition 1 and Theorem 1
    require).  The module text gives the reading of every line and the order of the random
    draws.  ``stats``: ``"self_duels"`` (``a2 = a1``), ``"eliminations"`` (rounds where the
    candidate set ``C`` of lines 5-6 left some arm out), ``"ties"`` (rounds where line 11 had
    more than one maximiser).
    """

    name = "dts"
    reference = "Wu & Liu (NIPS 2016), Algorithm 1 (D-TS)"
    hyperparameters = {
        "alpha": Real(0.51, low=0.5, low_open=True, doc="confidence scale of the RUCB/RLCB (> 1/2)"),
    }
    deterministic = False
    fast_kernel = "dts"

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self._iu = np.triu_indices(self.K, 1)
        self._others = [np.delete(np.arange(self.K), a) for a in range(self.K)]
        self._theta = np.full((self.K, self.K), 0.5)
        self.stats = {"self_duels": 0, "eliminations": 0, "ties": 0}

    # random draws (overridable, e.g. to replay the compiled kernel's stream in a test)
    def _draw_beta(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Independent ``Beta(a_k, b_k)`` draws, in the order of the arrays: ``X / (X + Y)`` with
        ``X ~ Gamma(a_k)``, ``Y ~ Gamma(b_k)`` from one ``standard_gamma`` call over ``(a, b)``
        (the same distribution as ``Generator.beta``, about three times cheaper per call)."""
        n = len(a)
        g = self.rng.standard_gamma(np.concatenate((a, b)))
        x = g[:n]
        return x / (x + g[n:])

    def _draw_index(self, n: int) -> int:
        """Uniform index in ``[0, n)``."""
        return int(self.rng.integers(n))

    # the algorithm
    def _sample_theta1(self) -> np.ndarray:
        """Lines 7-10: ``theta1`` (K x K, ``theta1_ii = 1/2``, ``theta1_ji = 1 - theta1_ij``)."""
        W = self.wins
        iu = self._iu
        s = self._draw_beta(W[iu] + 1.0, W.T[iu] + 1.0)
        th = self._theta
        th[iu] = s
        th[iu[1], iu[0]] = 1.0 - s
        return th

    def _first(self, theta: np.ndarray, C: np.ndarray) -> int:
        """Line 11: the arm of ``C`` beating the most arms under ``theta``; ties to :meth:`_tie_break`."""
        above = theta > 0.5
        np.fill_diagonal(above, False)
        score = above.sum(axis=1)[C]
        A = C[score == score.max()]
        if A.size == 1:
            return int(A[0])
        self.stats["ties"] += 1
        return self._tie_break(theta, A)

    def _tie_break(self, theta: np.ndarray, A: np.ndarray) -> int:
        """D-TS: uniformly at random among the tied arms ``A``."""
        return int(A[self._draw_index(A.size)])

    def _second(self, a1: int, L: np.ndarray) -> int:
        """Lines 13-14: ``argmax`` of fresh ``theta2_{i a1}`` over ``{i : l_{i a1} <= 1/2}``."""
        W = self.wins
        others = self._others[a1]
        th2 = np.full(self.K, 0.5)
        th2[others] = self._draw_beta(W[others, a1] + 1.0, W[a1, others] + 1.0)
        th2[L[:, a1] > 0.5] = -np.inf
        return int(np.argmax(th2))

    def _select(self) -> tuple[int, int]:
        U, L = relative_bounds(self.wins, self.draws, self.params["alpha"], self.t)
        C = copeland_candidates(U)
        if C.size < self.K:
            self.stats["eliminations"] += 1
        theta = self._sample_theta1()
        a1 = self._first(theta, C)
        a2 = self._second(a1, L)
        if a1 == a2:
            self.stats["self_duels"] += 1
        return (a1, a2)


@register_policy
class DTSPlus(DTS):
    """D-TS+, Wu & Liu (NIPS 2016, paper 001), Sec. 4.3: D-TS (Algorithm 1) with line 11's random
    tie-break replaced by the smallest estimated regret ``R_i`` (:func:`dts_plus_regret`).

    Hyperparameter ``alpha = 0.51`` (001 Sec. 5).  ``stats`` as :class:`DTS`; ``"ties"`` counts
    the rounds where ``A`` had more than one arm (and ``R`` decided).
    """

    name = "dts+"
    reference = "Wu & Liu (NIPS 2016), Sec. 4.3 (D-TS+)"
    fast_kernel = "dts_plus"

    def _tie_break(self, theta: np.ndarray, A: np.ndarray) -> int:
        """D-TS+: the tied arm of smallest estimated regret ``R_i`` (first on equal ``R``)."""
        R = dts_plus_regret(theta, A)
        return int(A[int(np.argmin(R))])
