"""CCB: Copeland Confidence Bound (Zoghi, Karnin, Whiteson & de Rijke, "Copeland Dueling Bandits",
NIPS 2015 -- paper 002), Algorithm 1.

002 Algorithm 1, with its line numbers (``W`` = the protocol's ``wins``, ``t`` the 1-based round;
``B^i`` is the set of "potential to beat ``a_i``" arms, ``L_C`` the estimated largest number of
losses of a Copeland winner):

* lines 1-4: ``W = 0``; ``B = {a_1, ..., a_K}``; ``B^i = {}`` for every ``i``; ``L_C = K``;
* line 6: ``U = W / N + sqrt(alpha ln t / N)``, ``L = W / N - sqrt(alpha ln t / N)``
  (``N = W + W^T``), ``u_ii = l_ii = 1/2``; ``x / 0 := 1`` read literally as in RUCB (an
  undrawn pair has ``u = 2``, ``l = 0``; :func:`~boundcalc.kernels.stats.ucb`, :func:`~boundcalc.kernels.stats.lcb`);
* line 7: ``Cpld_up(a_i) = #{k != i : u_ik >= 1/2}``, ``Cpld_lo(a_i) = #{k != i : l_ik >= 1/2}``
  (``>=`` as printed);
* line 8: ``C_t = {a_i : Cpld_up(a_i) = max_j Cpld_up(a_j)}``;
* line 9A: if some ``i`` and ``a_j in B^i`` have ``l_ij > 1/2``, reset ``B``, ``L_C`` and every
  ``B^k`` (lines 2-4);
* line 9B: every ``a_i in B`` with ``Cpld_up(a_i) < Cpld_lo(a_j)`` for some ``j`` leaves ``B``,
  and if ``|B^i| != L_C + 1`` then ``B^i = {a_k : u_ik < 1/2}``; if ``B`` is then empty, reset
  (lines 2-4);
* line 9C: for every ``a_i in C_t`` (ascending) with ``Cpld_up(a_i) = Cpld_lo(a_i)``:
  ``B = B + {a_i}``, ``B^i = {}``, ``L_C = K - 1 - Cpld_up(a_i)``; then for every ``j != i``:
  ``|B^j| < L_C + 1`` empties ``B^j``, ``|B^j| > L_C + 1`` keeps ``L_C + 1`` of its elements
  chosen uniformly at random;
* line 10: with probability 1/4, ``(c, d)`` uniform on ``{(i, j) : a_j in B^i, l_ij <= 1/2 <=
  u_ij}`` if that set is non-empty, and skip to line 14;
* line 11: if ``B`` and ``C_t`` meet, with probability 2/3 ``C_t = B & C_t``;
* line 12: ``a_c`` uniform on ``C_t``;
* line 13: with probability 1/2 the set ``B^c`` is ``B^c_t``, otherwise all arms; ``d = argmax
  {u_jc : a_j in B^c, l_jc <= 1/2}``; "if there is a tie, ``d`` is not allowed to be equal to
  ``c``" -- ties otherwise broken uniformly at random (as RUCB's line 13 in this package).
  The champion may duel itself: ``c`` is in "all arms" with ``l_cc = u_cc = 1/2``, so ``d = c``
  (the exploiting self-duel) whenever every other eligible ``u_jc < 1/2``.  Public code that
  drops ``c`` from this argmax never exploits (tested against in
  ``tests/test_policies_ccb_scb.py``).
* line 14: duel ``(a_c, a_d)``; the protocol's ``update`` increments the count of the arm that won.

Readings where the text leaves a choice:

* line 13 with ``B^c = B^c_t`` and no ``a_j in B^c_t`` with ``l_jc <= 1/2`` (e.g. ``B^c_t``
  empty, the usual state of a Copeland winner after line 9C): the argmax over the empty set is
  read as the argmax over all arms.  The D-TS authors' C++ (``HuasenWu/DuelingBandits``,
  ``Alg_CCB.cpp``; read, not copied) does the same: it computes the all-arms choice first and
  overwrites it only when the ``B^c_t`` search finds an arm.
* line 9A's sets ``B^i`` never contain ``a_i`` (line 9B's ``u_ii = 1/2`` is not ``< 1/2``).
* the coin of line 10 is drawn every round; the coin of line 11 whenever ``B & C_t`` is non-empty;
  the index of line 12 only when ``|C_t| > 1``; the coin of line 13 every round that reaches it.

What public code gets wrong, and this module does not: the same C++ creates a fresh
``std::default_random_engine{}`` inside every ``pull`` (the same seed each round), so line 9C's
random subset is the same permutation every time -- the generator must be created once and
advanced (a generator must not be reseeded every step); here the policy stream is seeded
once per policy (per run in the simulator) and only advances.  The C++ also
starts from pseudo-counts (``W = 1e-5``, ``N = 1e-6``), takes the first maximiser in line 13
(``d = c`` allowed on a tie) and tests ``rand() / RAND_MAX <= p``; this module follows the text.

``alpha = 0.51``: 002 requires ``alpha > 1/2``; 001 Sec. 5 ran CCB on the MSLR matrices with
"for algorithms using RUCB and RLCB ... the scale factor alpha = 0.51" (002's experimental
appendix, which would give its own value, is not in ``../shared/papers``).

Written once (:mod:`boundcalc.policies.kernel`): the compiled :func:`ccb_select` over
:class:`CCBState`.  The random draws, from the policy stream, in order per round: line 9C, for each trimmed ``B^j`` (``i`` ascending, then ``j`` ascending),
``m = L_C + 1`` indices of a partial Fisher-Yates shuffle of ``B^j``'s elements listed ascending
(the ``q``-th draws an index in ``[0, n - q)`` and swaps position ``q`` with ``q`` plus it; the
first ``m`` positions are kept); line 10 one uniform, then, if it is ``< 1/4`` and the set is
non-empty, one index over the set listed ``(i, j)`` row-major; line 11 one uniform (``< 2/3``
restricts); line 12 one index over ``C_t`` ascending when ``|C_t| > 1``; line 13 one uniform
(``< 1/2``: ``B^c_t``) and one index over the tied arms (ascending) when more than one is tied.

>>> import numpy as np
>>> p = CCB(4, rng=np.random.default_rng(0))
>>> i, j = p.select_pair(); i != j      # every pair undrawn: u = 2 off the diagonal
True
"""

from __future__ import annotations

import numpy as np

from ..kernels.ccb import CCBState, ccb_run, ccb_select
from ..kernels.policy import plain_update
from .base import MAX_SCALE, Real
from .kernel import CompiledPolicy
from .registry import register_policy

__all__ = ["CCB", "CCBState", "ccb_select", "ccb_run"]


@register_policy
class CCB(CompiledPolicy):
    """CCB, Zoghi, Karnin, Whiteson & de Rijke (NIPS 2015, paper 002), Algorithm 1 (lines 1-15).

    Hyperparameter ``alpha = 0.51`` (``> 1/2`` as Algorithm 1's input requires; the value 001
    Sec. 5 used for CCB).  The module text gives the reading of every line and the order of the
    random draws.  State: ``B`` (bool ``K``, line 2), ``Bi`` (bool ``K x K``, ``Bi[i, k]``: ``a_k
    in B^i``, line 3), ``L_C`` (line 4).  ``stats``: ``"self_duels"`` (``d = c``), ``"explore"``
    (rounds decided by line 10), ``"explore_eligible"`` (rounds where line 10's set was
    non-empty), ``"resets"`` (lines 9A and 9B's resets).
    """

    name = "ccb"
    plot_style = ("tab:orange", "-", "D")
    reference = "Zoghi, Karnin, Whiteson & de Rijke (NIPS 2015), Algorithm 1 (CCB)"
    hyperparameters = {
        "alpha": Real(0.51, low=0.5, low_open=True, high=MAX_SCALE, doc="confidence scale of the U/L bounds (> 1/2)"),
    }
    deterministic = False
    State = CCBState
    stat_names = ("self_duels", "explore", "explore_eligible", "resets")
    kernels = (ccb_select, plain_update, ccb_run)

    def initial_state(self) -> CCBState:
        K = self.K
        z = lambda dt=np.int64: np.zeros(K, dtype=dt)  # noqa: E731
        return CCBState(
            np.zeros((K, K), dtype=np.int64),
            np.zeros((K, K), dtype=np.int64),
            self._stream(),
            np.zeros((K, K)),
            np.zeros((K, K)),
            z(),
            z(),
            np.ones(K, dtype=np.bool_),
            np.zeros((K, K), dtype=np.bool_),
            z(),
            z(),
            z(),
            z(),
            np.zeros(K),
            np.zeros(K * K, dtype=np.int64),
            np.array([1, K], dtype=np.int64),
            np.array([self.params["alpha"]]),
            np.zeros(4, dtype=np.int64),
        )
