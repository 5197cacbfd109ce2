"""The statistics every policy kernel computes, written once: the random streams (the simulator's
duel draw and the policies' SplitMix64 stream), the Bernoulli divergences, the confidence bounds of
the RUCB family and UCB1, and the argmax with its tie-break.

The duel stream (the simulator's environment)
    The ``n``-th duel (``n = 0, 1, ...``) of the unordered pair ``lo <= hi`` in a run with keys
    ``(key0, key1)`` uses ``u = duel_uniform(key0, key1, lo * K + hi, n)``; arm ``lo`` wins when
    ``u < mu[lo, hi]``.  ``u`` is a SplitMix64 output (Steele, Lea & Flood, OOPSLA 2014) of a
    per-pair stream, so two policies given the same keys see the same outcome for the same draw
    of the same pair (common random numbers), whatever else they draw.

The policy stream (randomized policies: RUCB, D-TS, D-TS+, CCB, SCB)
    SplitMix64 -- ``state += 0x9E3779B97F4A7C15; output = mix64(state)`` -- started from a 64-bit
    seed.  From its outputs: uniforms ``(x >> 11) 2^-53`` on [0, 1); indices ``floor(u n)``;
    standard normals by Box-Muller in pairs (``r = sqrt(-2 ln(1 - u1))``: ``r cos(2 pi u2)`` is
    returned, ``r sin(2 pi u2)`` kept in ``spare`` -- a float64 array ``[has_spare, value]`` -- for
    the next call); Gamma(a), a >= 1, by Marsaglia & Tsang (ACM TOMS 2000); Beta(a, b) =
    X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b).  Each policy's module text lists the draws it
    makes, in order.

Divergences
    :func:`kl_half` is ``KL(p, 1/2)`` (paper 000's ``d(p)``, the LP core's empirical structure and
    every policy that weighs a count by its divergence: RMED1/2, D-TS, the Copeland RMED family);
    :func:`bernoulli_kl` the general ``KL(p, q)`` of SCB's confidence bounds.

Confidence bounds
    :func:`ucb` and :func:`lcb` are RUCB's ``u_ij = W_ij / N_ij +- sqrt(alpha ln t / N_ij)`` (read by
    RUCB, D-TS, CCB, RCS, the Merge family's batches), with ``x / 0 := 1`` (``u = 2``, ``l = 0`` on an
    undrawn pair); :func:`ucb1_arm` UCB1's arm of a sub-bandit (Sparring, Doubler).

Tie-break
    :func:`argmax_ties` is the argmax of a column with ties broken uniformly at random on the policy
    stream (one index over the tied positions, ascending), leaving out a given position when it is
    among several tied ones (RUCB line 13: ``d != c`` on a tie); a single maximiser draws nothing.
    :func:`ucb1_arm` takes the first maximiser (no draw).

>>> duel_uniform(np.uint64(1), np.uint64(2), 3, 0) == duel_uniform_py(1, 2, 3, 0)
True
>>> round(kl_half(0.9), 6), kl_half(1.0) == kl_half(0.0)
(0.368064, True)
>>> round(bernoulli_kl(0.5, 0.25), 6), bernoulli_kl(1.0, 1.0), bernoulli_kl(0.5, 0.0)
(0.143841, 0.0, inf)
>>> W = np.array([[0, 3], [1, 0]]); N = W + W.T   # arm 0 won 3 of 4 duels against arm 1
>>> round(ucb(W, N, 0.5, 0, 1), 6), round(lcb(W, N, 0.5, 0, 1), 6)   # 3/4 +- sqrt(0.5 / 4)
(1.103553, 0.396447)
>>> P = np.array([[1, 1], [1, 0]]); G = np.array([[1, 0], [0, 0]])
>>> ucb1_arm.py_func(P, G, 0, 2.0), ucb1_arm.py_func(P, G, 1, 2.0)   # 1 + sqrt(2 ln 2) beats 0 + it; arm 1 unplayed
(0, 1)
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit

from .codesize import optimize_for_size

__all__ = [
    "duel_uniform",
    "duel_uniform_py",
    "stream_next",
    "stream_uniform",
    "stream_index",
    "stream_normal",
    "stream_gamma",
    "stream_beta",
    "held_stream",
    "store_stream",
    "held_next",
    "held_uniform",
    "held_index",
    "held_normal",
    "held_gamma",
    "held_beta",
    "kl_half",
    "bernoulli_kl",
    "ucb",
    "ucb_below_half",
    "lcb",
    "ucb1_arm",
    "argmax_ties",
]


# ----------------------------------------------------------------------------- SplitMix64 streams
_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB


def _mix64_py(z: int) -> int:
    z = ((z ^ (z >> 30)) * _M1) & _MASK
    z = ((z ^ (z >> 27)) * _M2) & _MASK
    return z ^ (z >> 31)


def duel_uniform_py(key0: int, key1: int, code: int, n: int) -> float:
    """Pure-Python :func:`duel_uniform` (the reference the compiled one is tested against)."""
    s = _mix64_py((key0 + (code + 1) * _GOLDEN) & _MASK) ^ key1
    z = _mix64_py((s + (n + 1) * _GOLDEN) & _MASK)
    return (z >> 11) * (1.0 / 9007199254740992.0)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _mix64(z):
    z = (z ^ (z >> numba.uint64(30))) * numba.uint64(_M1)
    z = (z ^ (z >> numba.uint64(27))) * numba.uint64(_M2)
    return z ^ (z >> numba.uint64(31))


@njit(cache=True, no_cfunc_wrapper=True)
def duel_uniform(key0, key1, code, n):
    """Uniform on [0, 1) for the ``n``-th duel of pair ``code`` under keys ``(key0, key1)`` (uint64)."""
    g = numba.uint64(_GOLDEN)
    s = _mix64(numba.uint64(key0) + numba.uint64(code + 1) * g) ^ numba.uint64(key1)
    z = _mix64(s + numba.uint64(n + 1) * g)
    return float(z >> numba.uint64(11)) * (1.0 / 9007199254740992.0)


# Each draw is written once, on a stream held in registers, ``g = (state, has_spare, spare)``: each
# ``held_*`` function returns the advanced ``g`` with its draw.  A loop of many draws loads the
# stream once (:func:`held_stream`) and stores it once (:func:`store_stream`) instead of reading and
# writing the arrays at every draw (D-TS's K^2 / 2 Beta draws a round: 1.2-1.5x faster); the array
# forms (``stream_*``) are the same functions between a load and a store.
@njit(cache=True, no_cfunc_wrapper=True)
def held_stream(state, spare):
    """The stream ``state`` and Box-Muller ``spare`` arrays as a register-held ``g``."""
    return (state[0], spare[0] != 0.0, spare[1])


@njit(cache=True, no_cfunc_wrapper=True)
def store_stream(g, state, spare):
    """Write the register-held stream ``g`` back into its arrays."""
    state[0] = g[0]
    spare[0] = 1.0 if g[1] else 0.0
    spare[1] = g[2]


@njit(cache=True, no_cfunc_wrapper=True)
def held_next(g):
    """The next SplitMix64 output of a register-held stream: ``(g, z)``."""
    st = g[0] + numba.uint64(_GOLDEN)
    return (st, g[1], g[2]), _mix64(st)


@njit(cache=True, no_cfunc_wrapper=True)
def held_uniform(g):
    """Uniform on [0, 1) (53 bits) from a register-held stream: ``(g, u)``."""
    g, z = held_next(g)
    return g, float(z >> numba.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, no_cfunc_wrapper=True)
def held_index(g, n):
    """:func:`stream_index` of a register-held stream: ``(g, k)``."""
    g, u = held_uniform(g)
    k = np.int64(u * n)  # int() would compile numba's overload of int (kernels.policy, "Compile time")
    return g, (k if k < n else n - 1)


@njit(cache=True, no_cfunc_wrapper=True)
def held_normal(g):
    """Standard normal by Box-Muller in pairs, the sine of a pair kept as the spare: ``(g, x)``."""
    if g[1]:
        return (g[0], False, g[2]), g[2]
    g, u1 = held_uniform(g)
    g, u2 = held_uniform(g)
    r = math.sqrt(-2.0 * math.log(1.0 - u1))
    w = 2.0 * math.pi * u2
    return (g[0], True, r * math.sin(w)), r * math.cos(w)


@njit(cache=True, no_cfunc_wrapper=True)
def held_gamma(g, a):
    """Gamma(a, 1) for ``a >= 1`` by Marsaglia & Tsang's squeeze-and-reject method: ``(g, x)``."""
    d = a - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        g, x = held_normal(g)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        g, u = held_uniform(g)
        x2 = x * x
        if u < 1.0 - 0.0331 * x2 * x2:
            return g, d * v
        if u > 0.0 and math.log(u) < 0.5 * x2 + d * (1.0 - v + math.log(v)):
            return g, d * v


@njit(cache=True, no_cfunc_wrapper=True)
def held_beta(g, a, b):
    """Beta(a, b) for ``a, b >= 1`` as ``X / (X + Y)``, X ~ Gamma(a) drawn first: ``(g, x)``."""
    g, x = held_gamma(g, a)
    g, y = held_gamma(g, b)
    return g, x / (x + y)


@njit(cache=True, no_cfunc_wrapper=True)
def stream_next(state):
    """Next SplitMix64 output of the stream ``state`` (a uint64 array of length 1, advanced)."""
    g, z = held_next((state[0], np.bool_(False), 0.0))
    state[0] = g[0]
    return z


@njit(cache=True, no_cfunc_wrapper=True)
def stream_uniform(state):
    """Uniform on [0, 1) (53 bits) (:func:`held_uniform`)."""
    g, u = held_uniform((state[0], np.bool_(False), 0.0))
    state[0] = g[0]
    return u


@njit(cache=True, no_cfunc_wrapper=True)
def stream_index(state, n):
    """Uniform index in [0, n): ``floor(u n)`` (:func:`held_index`)."""
    g, k = held_index((state[0], np.bool_(False), 0.0), n)
    state[0] = g[0]
    return k


@njit(cache=True, no_cfunc_wrapper=True)
def stream_normal(state, spare):
    """Standard normal by Box-Muller in pairs (the sine of a pair waits in ``spare``)."""
    g, x = held_normal(held_stream(state, spare))
    store_stream(g, state, spare)
    return x


@njit(cache=True, no_cfunc_wrapper=True)
def stream_gamma(state, spare, a):
    """Gamma(a, 1) for ``a >= 1`` (:func:`held_gamma`)."""
    g, x = held_gamma(held_stream(state, spare), a)
    store_stream(g, state, spare)
    return x


@njit(cache=True, no_cfunc_wrapper=True)
def stream_beta(state, spare, a, b):
    """Beta(a, b) for ``a, b >= 1`` (:func:`held_beta`)."""
    g, x = held_beta(held_stream(state, spare), a, b)
    store_stream(g, state, spare)
    return x


# ----------------------------------------------------------------------------- divergences
@njit(cache=True, nogil=True)
def kl_half(p):
    """``d(p) = KL(p, 1/2) = p log(2p) + (1 - p) log(2(1 - p))`` (paper 000 Sec. 2), evaluated as
    ``x atanh(x) + log1p(-x^2) / 2`` with ``x = 2p - 1`` (full relative accuracy near a tie), ``log 2``
    at ``p`` in {0, 1}: what :func:`boundcalc.matrix.kl_half` computes in numpy, bit for bit."""
    x = 2.0 * p - 1.0
    if abs(x) >= 1.0:
        return math.log(2.0)
    return x * math.atanh(x) + 0.5 * math.log1p(-x * x)


@njit(cache=True, no_cfunc_wrapper=True)
def bernoulli_kl(p, q):
    """``d(p, q) = p ln(p / q) + (1 - p) ln((1 - p) / (1 - q))`` with ``0 ln 0 = 0`` (``inf`` when
    ``q`` gives no mass where ``p`` does).
    """
    optimize_for_size()
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


# ----------------------------------------------------------------------------- confidence bounds and the argmax
@njit(cache=True, no_cfunc_wrapper=True)
def ucb(W, N, al, i, j):
    """``u_ij = W_ij / N_ij + sqrt(al / N_ij)`` with ``al = alpha ln t`` (RUCB line 4; 001 Algorithm 1
    line 4); ``x / 0 := 1`` gives 2 on an undrawn pair."""
    optimize_for_size()
    n = N[i, j]
    if n == 0:
        return 2.0
    return W[i, j] / n + math.sqrt(al / n)


@njit(cache=True, no_cfunc_wrapper=True)
def ucb_below_half(W, N, al, i, j):
    """``ucb(W, N, al, i, j) < 1/2`` (RUCB line 6's test), without the square root when ``2 W_ij >=
    N_ij``: then ``W_ij / N_ij >= 1/2`` exactly, its rounded quotient too (rounding is monotonic),
    and adding the non-negative root cannot bring the sum below it -- the same answer, bit for bit.
    False on an undrawn pair (``u = 2``)."""
    optimize_for_size()
    n = N[i, j]
    if n == 0 or 2 * W[i, j] >= n:
        return False
    return W[i, j] / n + math.sqrt(al / n) < 0.5


@njit(cache=True, no_cfunc_wrapper=True)
def lcb(W, N, al, i, j):
    """``l_ij = W_ij / N_ij - sqrt(al / N_ij)`` (001 Algorithm 1 line 4); 0 on an undrawn pair."""
    optimize_for_size()
    n = N[i, j]
    if n == 0:
        return 0.0
    return W[i, j] / n - math.sqrt(al / n)


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def ucb1_arm(P, G, side, alpha):
    """UCB1's arm for sub-bandit ``side``: the first unplayed arm, else the first maximiser of
    ``G_k / N_k + sqrt(alpha ln n / N_k)``."""
    K = P.shape[1]
    n = np.int64(0)
    for k in range(K):
        if P[side, k] == 0:
            return k
        n += P[side, k]
    ln = math.log(n)
    best = -np.inf
    arg = np.int64(0)
    for k in range(K):
        v = G[side, k] / P[side, k] + math.sqrt(alpha * ln / P[side, k])
        if v > best:
            best = v
            arg = k
    return arg


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def argmax_ties(state, col, c, ties):
    """Line 13's ``argmax_j col[j]``, ties uniform on the policy stream (ascending), ``!= c`` on a tie."""
    optimize_for_size()
    K = col.shape[0]
    m = -np.inf
    for j in range(K):
        if col[j] > m:
            m = col[j]
    nt = np.int64(0)  # int64 from the start (kernels.policy, "Compile time")
    for j in range(K):
        if col[j] == m:
            ties[nt] = j
            nt += 1
    if nt > 1:
        nt = np.int64(0)
        for j in range(K):
            if col[j] == m and j != c:
                ties[nt] = j
                nt += 1
    return ties[0] if nt == 1 else ties[stream_index(state, nt)]
