"""Brute-force references written from the definitions, sharing no code with boundcalc.

Everything here follows paper 000 (Komiyama, Honda & Nakagawa, ICML 2016) as plainly as possible:
the Copeland structure (Sec. 2), every row of ``R_{i1}`` (eq. (2)) and of ``R^E_{i1}`` (eqs. (4)-(5))
enumerated with :mod:`itertools`, and the LPs solved whole by :func:`scipy.optimize.linprog` in the
unnormalised variables ``q`` (box ``0 <= q_p <= 1/d_p``).  Tests compare boundcalc's cutting plane,
oracle, closed forms and online decisions with these; a bug in boundcalc's own enumeration
(``CopelandFamily.enumerate``) can therefore not hide in a test.

Empirical matrices (000 Algorithm 1) are covered too: an undrawn pair has ``mu_hat = 1/2``, a tied
pair lies in neither ``S`` nor ``I``, has ``d = 0`` and lies in no row (its ``q`` is 0).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.optimize import linprog

__all__ = [
    "kl_half",
    "structure",
    "structure_of_counts",
    "copeland_rows",
    "ecw_rows",
    "pair_regret",
    "lp",
    "lower_bound",
    "ecw_constant",
    "min_row_sum",
]


def kl_half(p: float) -> float:
    """``d(p) = p log(2p) + (1 - p) log(2(1 - p))`` with ``0 log 0 = 0``."""
    out = 0.0
    for x in (p, 1.0 - p):
        if x > 0:
            out += x * math.log(2.0 * x)
    return out


def structure(mu):
    """``(S, I, L, winners, d)``: superiors/inferiors per arm, losses, Copeland winners, and ``d`` per
    unordered pair ``(i, j), i < j`` (0 on an exact tie, which lies in neither S nor I)."""
    mu = np.asarray(mu, dtype=float)
    K = mu.shape[0]
    S = [{j for j in range(K) if j != i and mu[i, j] < 0.5} for i in range(K)]  # arms that beat i
    I = [{j for j in range(K) if j != i and mu[i, j] > 0.5} for i in range(K)]  # arms i beats
    L = [len(S[i]) for i in range(K)]
    winners = [i for i in range(K) if L[i] == min(L)]
    d = {(i, j): (0.0 if mu[i, j] == 0.5 else kl_half(float(mu[i, j]))) for i in range(K) for j in range(i + 1, K)}
    return S, I, L, winners, d


def structure_of_counts(W, N):
    """:func:`structure` of the empirical matrix ``mu_hat = W / N`` (1/2 where undrawn), and ``mu_hat``."""
    W, N = np.asarray(W), np.asarray(N)
    K = W.shape[0]
    mu = np.full((K, K), 0.5)
    for i in range(K):
        for j in range(K):
            if i != j and N[i, j] > 0:
                mu[i, j] = W[i, j] / N[i, j]
    return (mu, *structure(mu))


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def copeland_rows(S, I, L, i1, levels=None) -> list[frozenset]:
    """Every row ``P_IS`` of ``R_{i1}`` (000 eq. (2)), as frozensets of pairs ``(lo, hi)``:
    for ``i2 != i1``, ``l`` in ``max(0, L(1) - 1) .. L(2)``, ``I`` a subset of ``I_{i1}`` with
    ``|I| = l + 1 - L(1)`` and ``S`` a subset of ``S_{i2} \\ {i1}`` with
    ``|S| = max(0, L_{i2} - l - [i2 in I])``.  ``levels`` (optional) keeps only the rows of those
    ``l`` (a restricted family: a relaxation of the LP)."""
    K = len(L)
    Ls = sorted(L)
    L1, L2 = Ls[0], Ls[1]
    rows = set()
    for i2 in range(K):
        if i2 == i1:
            continue
        pool = sorted(S[i2] - {i1})
        for l in range(max(0, L1 - 1), L2 + 1):
            if levels is not None and l not in levels:
                continue
            size_I = l + 1 - L1
            if size_I < 0:
                continue
            for Iset in itertools.combinations(sorted(I[i1]), size_I):
                size_S = max(0, L[i2] - l - (1 if i2 in Iset else 0))
                for Sset in itertools.combinations(pool, size_S):
                    row = {_pair(i1, j) for j in Iset} | {_pair(i2, j) for j in Sset}
                    if row:
                        rows.add(frozenset(row))
    return sorted(rows, key=sorted)


def ecw_rows(S, I, L, i1) -> list[frozenset]:
    """Every row of ``R^E_{i1}`` (000 eqs. (4)-(5)): ``{(i1, j)}`` for each ``j in I_{i1}`` (read as
    ``e >= 1``), and for each ``i2 != i1`` every ``S`` subset of ``S_{i2} \\ {i1}`` of size
    ``L_{i2} - L_{i1} + 1``."""
    K = len(L)
    rows = {frozenset({_pair(i1, j)}) for j in I[i1]}
    for i2 in range(K):
        if i2 == i1:
            continue
        size = L[i2] - L[i1] + 1
        pool = sorted(S[i2] - {i1})
        if 0 < size <= len(pool):
            for Sset in itertools.combinations(pool, size):
                rows.add(frozenset(_pair(i2, j) for j in Sset))
    return sorted(rows, key=sorted)


def pair_regret(L, i: int, j: int) -> float:
    """000's regret of the pair: ``(L_i + L_j - 2 L(1)) / (2 (K - 1))``."""
    return (L[i] + L[j] - 2 * min(L)) / (2.0 * (len(L) - 1))


def min_row_sum(rows, q, d) -> float:
    """``min over rows of sum_{p in row} q_p d_p`` (inf without rows)."""
    return min((sum(q[p] * d[p] for p in row) for row in rows), default=math.inf)


def lp(rows, d, L, costs=None):
    """The whole LP ``min sum_p c_p q_p`` over ``q`` with every row ``sum_{p in row} q_p d_p >= 1`` and
    ``0 <= q_p <= 1/d_p``, by scipy's linprog (HiGHS).  ``c`` is 000's regret unless ``costs`` (a dict
    over pairs) is given.  Returns ``(value, q)`` with ``q`` a dict over every pair (0 on ties)."""
    pairs = [p for p in sorted(d) if d[p] > 0]
    if not pairs or not rows:
        return 0.0, {p: 0.0 for p in d}
    col = {p: k for k, p in enumerate(pairs)}
    c = np.array([costs[p] if costs is not None else pair_regret(L, *p) for p in pairs])
    A = np.zeros((len(rows), len(pairs)))
    for r, row in enumerate(rows):
        for p in row:
            A[r, col[p]] = -d[p]
    res = linprog(c, A_ub=A, b_ub=-np.ones(len(rows)), bounds=[(0.0, 1.0 / d[p]) for p in pairs], method="highs")
    assert res.status == 0, res.message
    q = {p: 0.0 for p in d}
    q.update({p: float(res.x[col[p]]) for p in pairs})
    return float(res.fun), q


def lower_bound(mu) -> tuple[float, dict]:
    """``(min over Copeland winners of C*_{i1}, {i1: C*_{i1}})`` (000 Theorem 2) by enumeration."""
    S, I, L, winners, d = structure(mu)
    per = {a: lp(copeland_rows(S, I, L, a), d, L)[0] for a in winners}
    return min(per.values()), per


def ecw_constant(mu) -> tuple[float, dict]:
    """``(min over Copeland winners of C^E*_{i1}, {i1: C^E*_{i1}})`` (000 Theorem 4) by enumeration."""
    S, I, L, winners, d = structure(mu)
    per = {a: lp(ecw_rows(S, I, L, a), d, L)[0] for a in winners}
    return min(per.values()), per
