"""SCB: Scalable Copeland Bandits (Zoghi, Karnin, Whiteson & de Rijke, "Copeland Dueling Bandits",
NIPS 2015 -- paper 002), Algorithm 3 over Algorithms 2 and 4.

002 Algorithm 3 (SCB), with its line numbers:

* line 1: rounds ``r = 1, 2, ...``;
* line 2: ``T_r = 2^(2^r)`` (4, 16, 256, 65536, 2^32, ...; the "squaring trick" of Sec. 4.2);
  run Algorithm 2 with failure probability ``delta_r = ln(T_r) / T_r`` (natural log) "in order
  to find an exact Copeland winner (eps = 0)", force-terminated once the round has used ``T_r``
  duels;
* line 3: if Algorithm 2 returned an arm ``a_i`` after ``T_0 < T_r`` duels, duel ``(a_i, a_i)``
  for the remaining ``T_r - T_0`` rounds.  Each round starts afresh (its own Algorithm 2 run,
  no statistics carried over -- line 2 "run Algorithm 2").

002 Algorithm 2 (approximate Copeland bandit solver), line 1: ``reward(i)`` draws ``j != i``
uniformly and "query the pair ``(a_i, a_j)`` sufficiently many times in order to determine w.p.
at least ``1 - delta / K^2`` whether ``p_ij > 1/2``"; it returns 1 if ``p_ij > 1/2``, else 0.
Line 2 runs Algorithm 4 on these rewards.  Readings: every call of ``reward(i)`` queries afresh
(its own samples: the text's "query ... sufficiently many times" and the per-call sample count
of Lemma 6's proof sketch); "sufficiently many" is a sequential test at level ``delta / K^2``:
stop after ``n`` duels when ``|w / n - 1/2| > sqrt(ln(4 K^2 n^2 / delta) / (2 n))`` (Hoeffding
with a union bound over ``n``, :func:`scb_pair_decided`).

002 Algorithm 4 (KL-based arm elimination), "a slight modification of Algorithm 2 in [22]"
(002's reference [22] is Cappe, Garivier, Maillard, Munos & Stoltz, "Kullback-Leibler upper
confidence bounds for optimal sequential allocation", Ann. Statist. 2013).  Its pseudo-code is in
002's Appendix J, which ``../shared/papers`` lacks; rebuilt from 002's text (Sec. 4.2: "an
elimination tournament with confidence regions based on the KL-divergence"; Sec. 5.2's proof
sketch: ``reward(i)`` is a Bernoulli variable of mean about ``cpld(a_i)``; Definition 4: ``a_i``
is an eps-Copeland winner when ``1 - cpld(a_i) <= (1 - cpld(a_1)) (1 + eps)``) and from two
public implementations, read, not copied: ``bengsV/duelpy`` (``kl_divergence_based_pac.py``,
which quotes Appendix J's confidence level ``ln(4 t K / delta) + 2 ln ln t``, drops arms with
``u_i < max_j l_j``, stops when ``(1 - max l) / (1 - max u) <= 1 + eps`` or one candidate is
left, returns ``argmax l``) and the D-TS authors' ``HuasenWu/DuelingBandits`` (``Alg_SCB.cpp``:
the same tournament round-robin over the remaining arms, stopping when one arm is left, ``T_r``
squared each round, ``delta = ln(T_r) / T_r``).  What this module takes:

* ``S = [K]``; passes ``t = 1, 2, ...``: each arm of ``S`` (ascending) gets one ``reward``;
* after pass ``t``: ``mu_hat_i = R_i / t``; ``[l_i, u_i] = {q : t d(mu_hat_i, q) <= ln(4 t K /
  delta) + 2 ln ln t}`` (``d`` the Bernoulli KL divergence; ``ln ln t`` read as 0 while ``ln t
  <= 1``, where it is negative or undefined), ends by bisection (:func:`scb_kl_bounds`);
* drop every arm with ``u_i < max_j l_j``; stop with ``argmax_i l_i`` (smallest index on ties)
  when one arm is left or ``1 - max l <= (1 + eps) (1 - max u)`` (the ratio rule written without
  its division, so ``max u = 1`` is no special case); :func:`scb_eliminate`.  With ``eps = 0``
  the ratio rule needs ``max l >= max u``, which a finite sample never gives (the leader's own
  ``u > l``): only the one-arm rule stops, as in both public implementations.

``eps`` is the hyperparameter ``eps`` (default 0, Algorithm 3 line 2).  The reading for several
Copeland winners of equal score (``mslr5-noncondorcet`` has three): their rewards have the same
mean, so with ``eps = 0`` none is ever eliminated, Algorithm 2 never returns and every round runs
to its budget, dueling the co-winners against uniform opponents, outside the winners as often
as not.  Its share of rounds outside the Copeland winners does not fall there.  This is the
paper's algorithm, not a defect to repair: 002 Sec. 5 assumes no ties (Assumption A) and its
Theorem 5 / Lemma 6 bounds are in terms of the smallest gap, vacuous with co-winners.  With
``eps > 0`` the ratio rule can stop once the co-winners' intervals are narrow enough (about
``eps (1 - cpld) / 2`` on each side), returning one of them (an eps-Copeland winner).

Where the public code differs and this module follows the text: duelpy keeps one preference
estimate across SCB rounds and across ``reward`` calls and counts ``t`` as the total of all
arms' rewards (starting at 2 each); the C++ reuses a pair's earlier samples (a decided pair is
never queried again), decides a pair by a KL test against 1/2 with ``ln(4 T_r K) + 2 max(1,
ln max(1, ln t))`` scaled by a tuning factor, and starts ``T_r`` at 1000 (squared each round).

Written once (:mod:`boundcalc.policies.kernel`): the compiled :func:`scb_select` and
:func:`scb_update` over :class:`SCBState`, with the helpers :func:`scb_pair_decided`,
:func:`scb_kl_bounds` and :func:`scb_eliminate`; a round costs O(1) per duel and O(K) per completed
pass.  The random draws, from the policy stream: one index in ``[0, K - 1)`` per ``reward(i)`` call
(the opponent: ``j = k`` if ``k < i`` else ``k + 1``); nothing else is random.

>>> import numpy as np
>>> p = SCB(3, rng=np.random.default_rng(0))
>>> i, j = p.select_pair(); (i, j != i, p.T_r)
(0, True, 4.0)
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .base import Real
from .kernel import T_, CompiledPolicy, count, env_more, play, stream_index
from .registry import register_policy

__all__ = ["SCB", "SCBState", "scb_pair_decided", "scb_kl_bounds", "scb_eliminate", "bernoulli_kl", "scb_select",
           "scb_update", "scb_run"]

#: SCB's state: the counts, the policy stream, Algorithm 4's candidates ``S`` and rewards ``R``;
#: ``reg = [t, pass t of Algorithm 4, position in S, opponent (-1: a new reward), its duels, its
#: wins, identified arm (-1: none), round r]``, ``fr = [T_r, delta_r, duels used in the round, eps]``.
SCBState = namedtuple("SCBState", ["W", "N", "rs", "S", "R", "reg", "fr", "stats"])
PASS, POS, OPP, QN, QW, WINNER, ROUND = 1, 2, 3, 4, 5, 6, 7
TR, DELTA, USED, EPS = 0, 1, 2, 3


@njit(cache=True)
def bernoulli_kl(p, q):
    """``d(p, q) = p ln(p / q) + (1 - p) ln((1 - p) / (1 - q))`` with ``0 ln 0 = 0`` (``inf`` when
    ``q`` gives no mass where ``p`` does).

    >>> round(bernoulli_kl(0.5, 0.25), 6), bernoulli_kl(1.0, 1.0), bernoulli_kl(0.5, 0.0)
    (0.143841, 0.0, inf)
    """
    s = 0.0
    if p > 0.0:
        if q <= 0.0:
            return math.inf
        s += p * math.log(p / q)
    if p < 1.0:
        if q >= 1.0:
            return math.inf
        s += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return s


@njit(cache=True)
def scb_pair_decided(w, n, K, delta):
    """002 Algorithm 2 line 1: after ``n`` fresh duels of ``(i, j)`` with ``w`` wins of ``i``, is
    ``p_ij > 1/2`` determined at level ``delta / K^2``?

    ``|w / n - 1/2| > sqrt(ln(4 K^2 n^2 / delta) / (2 n))``: Hoeffding,
    ``P(|w/n - p| > r_n) <= 2 exp(-2 n r_n^2) = delta / (2 K^2 n^2)``, summed over ``n``:
    ``(pi^2 / 12) delta / K^2 < delta / K^2``.

    >>> scb_pair_decided(30, 30, 2, 0.1), scb_pair_decided(20, 30, 2, 0.1)
    (True, False)
    """
    if n <= 0:
        return False
    x = w / n - 0.5
    rad = math.sqrt(math.log(4.0 * K * K * float(n) * float(n) / delta) / (2.0 * n))
    return abs(x) > rad


@njit(cache=True)
def scb_kl_bounds(mu_hat, t, K, delta):
    """002 Algorithm 4's KL confidence interval after ``t`` rewards of mean ``mu_hat``:
    ``{q : t d(mu_hat, q) <= ln(4 t K / delta) + 2 ln ln t}`` (``ln ln t`` taken as 0 while
    ``ln t <= 1``), each end by 60 bisection steps.  Returns ``(l, u)``.

    >>> l, u = scb_kl_bounds(0.5, 100, 5, 0.01); round(l, 4), round(u, 4)
    (0.2436, 0.7564)
    """
    lt = math.log(float(t))
    beta = math.log(4.0 * t * K / delta) + (2.0 * math.log(lt) if lt > 1.0 else 0.0)
    lo = mu_hat
    hi = 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if t * bernoulli_kl(mu_hat, mid) <= beta:
            lo = mid
        else:
            hi = mid
    u = lo
    lo = 0.0
    hi = mu_hat
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if t * bernoulli_kl(mu_hat, mid) <= beta:
            hi = mid
        else:
            lo = mid
    return hi, u


@njit(cache=True)
def scb_eliminate(S, R, t, K, delta, eps):
    """002 Algorithm 4 after a pass in which every arm of ``S`` got its ``t``-th reward.

    Drops the arms with ``u_i < max_j l_j`` (``S``, a bool array, is updated in place) and
    returns the identified arm -- ``argmax l`` (smallest index on ties) -- when one arm is left
    or ``1 - max l <= (1 + eps) (1 - max u)``; else -1.  ``R[i]``: arm ``i``'s rewards so far.

    >>> S = np.ones(3, dtype=bool)
    >>> int(scb_eliminate(S, np.array([200, 100, 30]), 200, 3, 0.01, 0.0)), S.tolist()
    (0, [True, False, False])
    """
    n = S.shape[0]
    L = np.full(n, -1.0)
    U = np.full(n, -1.0)
    ml = -1.0
    for i in range(n):
        if S[i]:
            l, u = scb_kl_bounds(R[i] / t, t, K, delta)
            L[i] = l
            U[i] = u
            if l > ml:
                ml = l
    left = 0
    mu_ = -1.0
    best = -1
    bl = -1.0
    for i in range(n):
        if S[i]:
            if U[i] < ml:
                S[i] = False
            else:
                left += 1
                if U[i] > mu_:
                    mu_ = U[i]
                if L[i] > bl:
                    bl = L[i]
                    best = i
    if left == 1 or 1.0 - bl <= (1.0 + eps) * (1.0 - mu_):
        return best
    return -1


@njit(cache=True)
def _new_round(s):
    """Algorithm 3 line 2: a fresh Algorithm 2 / 4 run with budget ``T_r``."""
    s.fr[USED] = 0.0
    s.reg[WINNER] = -1
    s.reg[PASS] = 1
    s.reg[POS] = 0
    s.reg[OPP] = -1
    s.reg[QN] = 0
    s.reg[QW] = 0
    for i in range(s.S.shape[0]):
        s.S[i] = True
        s.R[i] = 0


@njit(cache=True)
def scb_select(s):
    """Algorithm 3 line 3's exploitation once an arm is identified, else Algorithm 2's next duel:
    the current arm of ``S`` against its ``reward`` opponent (drawn uniformly when a new ``reward``
    starts)."""
    w = s.reg[WINNER]
    if w >= 0:
        return w, w
    pos = s.reg[POS]
    while not s.S[pos]:
        pos += 1
    s.reg[POS] = pos
    if s.reg[OPP] < 0:  # Algorithm 2 line 1: a new reward(a)
        k = stream_index(s.rs, s.S.shape[0] - 1)
        s.reg[OPP] = k + 1 if k >= pos else k
        s.reg[QN] = 0
        s.reg[QW] = 0
    return pos, s.reg[OPP]


@njit(cache=True)
def scb_update(s, i, j, won):
    """The outcome of ``(i, j)``: a decided ``reward`` ends (Algorithm 2), a completed pass runs
    Algorithm 4's elimination, an exhausted budget starts the next round (Algorithm 3).
    ``stats = [self_duels, rounds, identified, rewards]``."""
    count(s, i, j, won)
    K = s.S.shape[0]
    if i == j:
        s.stats[0] += 1
    else:
        s.reg[QN] += 1
        if won:
            s.reg[QW] += 1
        if scb_pair_decided(s.reg[QW], s.reg[QN], K, s.fr[DELTA]):
            s.stats[3] += 1
            if 2 * s.reg[QW] > s.reg[QN]:
                s.R[i] += 1
            s.reg[OPP] = -1
            pos = s.reg[POS] + 1
            while pos < K and not s.S[pos]:
                pos += 1
            if pos == K:  # a pass of Algorithm 4 is complete
                w = scb_eliminate(s.S, s.R, s.reg[PASS], K, s.fr[DELTA], s.fr[EPS])
                s.reg[WINNER] = w
                if w >= 0:
                    s.stats[2] += 1
                s.reg[PASS] += 1
                pos = 0
            s.reg[POS] = pos
    s.fr[USED] += 1.0
    if s.fr[USED] >= s.fr[TR]:  # force-terminate: the next round of Algorithm 3
        s.reg[ROUND] += 1
        s.stats[1] += 1
        s.fr[TR] = s.fr[TR] * s.fr[TR]
        s.fr[DELTA] = math.log(s.fr[TR]) / s.fr[TR]
        _new_round(s)
    s.reg[T_] += 1


@njit(cache=True)
def scb_run(s, env):
    """SCB's whole-run kernel: :func:`scb_select`, the duel, :func:`scb_update`, to the horizon."""
    while env_more(env):
        i, j = scb_select(s)
        scb_update(s, i, j, play(env, i, j))


@register_policy
class SCB(CompiledPolicy):
    """SCB, Zoghi, Karnin, Whiteson & de Rijke (NIPS 2015, paper 002), Algorithm 3 with
    Algorithms 2 and 4.

    Hyperparameter ``eps = 0`` (Algorithm 3 line 2: an exact Copeland winner); ``eps > 0`` is
    Algorithm 2's approximation parameter, used by Algorithm 4's stopping rule ``(1 - max l) /
    (1 - max u) <= 1 + eps``.  ``T_r`` and ``delta_r`` are fixed by Algorithm 3 (:attr:`T_r`).
    The module text gives the reading of every line, the rebuilt Algorithm 4, the behaviour with
    several Copeland winners and the order of the random draws.  ``stats``: ``"self_duels"``
    (line 3's exploitation), ``"rounds"`` (Algorithm 3 rounds started), ``"identified"`` (rounds
    where Algorithm 2 returned an arm), ``"rewards"`` (completed ``reward`` calls).
    """

    name = "scb"
    reference = "Zoghi, Karnin, Whiteson & de Rijke (NIPS 2015), Algorithms 2-4 (SCB)"
    hyperparameters = {
        "eps": Real(0.0, low=0.0, doc="Algorithm 2's approximation parameter (>= 0; 0 = exact "
                                      "Copeland winner, Algorithm 3 line 2)"),
    }
    deterministic = False
    State = SCBState
    stat_names = ("self_duels", "rounds", "identified", "rewards")
    kernels = (scb_select, scb_update, scb_run)

    def initial_state(self) -> SCBState:
        K = self.K
        Tr = 4.0
        return SCBState(np.zeros((K, K), dtype=np.int64), np.zeros((K, K), dtype=np.int64), self._stream(),
                        np.ones(K, dtype=np.bool_), np.zeros(K, dtype=np.int64),
                        np.array([1, 1, 0, -1, 0, 0, -1, 1], dtype=np.int64),
                        np.array([Tr, math.log(Tr) / Tr, 0.0, self.params["eps"]]),
                        np.array([0, 1, 0, 0], dtype=np.int64))

    @property
    def T_r(self) -> float:
        """Algorithm 3's budget of the current round (``2^(2^r)``)."""
        return float(self._arrays.fr[TR])
