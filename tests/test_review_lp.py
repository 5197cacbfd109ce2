"""Reviewer's regression tests for the LP core.

The reference here is an *exact* rational LP: the dual of the written-out covering LP
``min c.e, 0 <= e <= 1, A e >= 1`` (rows from ``tests/reference.py``: 000 eq. (2) enumerated
with itertools, sharing no code with boundcalc's ``CopelandFamily``) is ``max 1.y - 1.z, A^T y - z <= c, y, z >= 0``; with
``c >= 0`` the origin is a feasible basis, so Bland's-rule primal simplex in
:class:`fractions.Fraction` needs no phase 1 and gives the LP optimum exactly (strong duality),
whatever the spread of the costs.  It shares no solver with HiGHS, cvxpy or Clarabel.
"""

from __future__ import annotations

import pickle
from fractions import Fraction

import numpy as np
import pytest
import reference
from builders import lp_solver

from boundcalc import PreferenceMatrix
from boundcalc.lp import CopelandLPSolver, lower_bound_enumerate
from boundcalc.lp.structure import empirical_structure


def _exact_dual_simplex(rows: list[set[int]], c: list[Fraction], n: int) -> Fraction:
    """``max sum y - sum z`` s.t. ``A^T y - z <= c``, ``y, z >= 0`` (exact, Bland's rule)."""
    m = len(rows)
    nv = m + n
    T = []
    for j in range(n):
        row = [Fraction(0)] * (nv + n + 1)
        for r, rw in enumerate(rows):
            if j in rw:
                row[r] = Fraction(1)
        row[m + j] = Fraction(-1)
        row[nv + j] = Fraction(1)
        row[-1] = c[j]
        T.append(row)
    obj = [Fraction(-1)] * m + [Fraction(1)] * n + [Fraction(0)] * (n + 1)
    basis = [nv + j for j in range(n)]
    while True:
        enter = next((k for k in range(nv + n) if obj[k] < 0), None)
        if enter is None:
            return obj[-1]
        best = None
        for i in range(n):
            if T[i][enter] > 0:
                ratio = T[i][-1] / T[i][enter]
                if best is None or ratio < best[0] or (ratio == best[0] and basis[i] < basis[best[1]]):
                    best = (ratio, i)
        assert best is not None, "dual unbounded: the covering LP would be infeasible"
        i = best[1]
        piv = T[i][enter]
        T[i] = [v / piv for v in T[i]]
        for k in range(n):
            if k != i and T[k][enter] != 0:
                f = T[k][enter]
                T[k] = [a - f * b for a, b in zip(T[k], T[i])]
        f = obj[enter]
        obj = [a - f * b for a, b in zip(obj, T[i])]
        basis[i] = enter


def exact_lower_bound(st, winner: int, regret=None, levels=None) -> float:
    """``C*_{winner}`` by the exact rational LP over every row of ``R_{winner}``.

    The rows come from :func:`reference.copeland_rows` (000 eq. (2) enumerated with itertools, no
    code shared with boundcalc's ``CopelandFamily``), on the superiors/inferiors read off
    ``st.beats``; the regret is :func:`reference.pair_regret` unless ``regret`` is given.  Only the
    divergences ``st.d`` are boundcalc's (its ``kl_half`` keeps full accuracy at near ties, where
    the textbook form does not, and is tested on its own)."""
    beats = np.asarray(st.beats, dtype=bool)
    K = beats.shape[0]
    S = [set(np.flatnonzero(beats[:, i]).tolist()) for i in range(K)]
    I = [set(np.flatnonzero(beats[i, :]).tolist()) for i in range(K)]
    L = [len(x) for x in S]
    rows = reference.copeland_rows(S, I, L, winner, levels=levels)
    if not rows:
        return 0.0
    pairs = list(zip(*np.triu_indices(K, 1)))
    col = {(int(i), int(j)): k for k, (i, j) in enumerate(pairs)}
    d = np.array([st.d[i, j] for i, j in pairs])
    R = np.array(
        [reference.pair_regret(L, int(i), int(j)) if regret is None else float(regret[i, j]) for i, j in pairs]
    )
    c = np.where(d > 0, R / np.where(d > 0, d, 1.0), 0.0)
    val = _exact_dual_simplex([{col[p] for p in row} for row in rows], [Fraction(float(x)) for x in c], len(pairs))
    return float(val)


def _mu(K: int, upper) -> np.ndarray:
    mu = np.full((K, K), 0.5)
    iu = np.triu_indices(K, 1)
    mu[iu] = upper
    mu[(iu[1], iu[0])] = 1.0 - np.asarray(upper, dtype=float)
    return mu


# Two Copeland winners (arms 0 and 1 lose once each), no ties: Theorem 6's shortcut applies.
MU_C2 = _mu(4, [0.6, 0.3, 0.7, 0.8, 0.65, 0.4])


def test_exact_reference_reproduces_table2():
    from boundcalc.datasets import load_example
    from boundcalc.lp.structure import as_structure

    st = as_structure(load_example("table2"))
    assert exact_lower_bound(st, int(st.winners[0])) == pytest.approx(27.5487, abs=1e-4)  # 000 Table 2


@pytest.mark.parametrize("levels", [[0], [1]])
def test_solve_empirical_with_levels_is_not_answered_by_theorem6(levels):
    pm = PreferenceMatrix(MU_C2)
    assert pm.n_winners == 2
    st = empirical_structure(MU_C2)
    expected = min(exact_lower_bound(st, w, levels=levels) for w in st.winners.tolist())
    # the written-out LP agrees with the exact one (levels restrict the family, a relaxation)
    assert lower_bound_enumerate(pm, levels=levels).value == pytest.approx(expected, rel=1e-9)
    solver = CopelandLPSolver(levels=levels)
    assert solver.solve_empirical(MU_C2, certify=True).value == pytest.approx(expected, rel=1e-9)
    # the online default (certify=False) must give the same number
    assert solver.solve_empirical(MU_C2).value == pytest.approx(expected, rel=1e-9)


def _near_tie_cases(n: int, seed: int):
    """Random 3..5-arm matrices, ~40 % of the pairs within 1e-8 .. 3e-6 of 1/2 (costs up to ~1e16)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        K = int(rng.integers(3, 6))
        m = K * (K - 1) // 2
        u = rng.uniform(0.02, 0.98, m)
        near = rng.random(m) < 0.4
        u[near] = 0.5 + rng.choice([-1, 1], near.sum()) * 10.0 ** rng.uniform(-8, -5.5, near.sum())
        out.append(_mu(K, u))
    return out


@pytest.mark.parametrize("kw", [dict(), dict(per_i2=3, lift=False), dict(lift=False)])
def test_near_ties_match_the_exact_rational_lp(kw):
    solver = lp_solver(**kw)
    for mu in _near_tie_cases(25, seed=61):
        st = empirical_structure(mu)
        expected = min(exact_lower_bound(st, w) for w in st.winners.tolist())
        for certify in (True, False):
            res = solver.solve_empirical(mu, certify=certify)
            assert res.status == "ok", res.message
            assert res.value == pytest.approx(expected, rel=1e-8, abs=1e-12)


def test_one_warm_solver_over_interleaved_structures_regrets_and_ties():
    """One small-cache solver for many matrices that share a few structures, switching regret,
    certify, ties, violation queries and a pickle round trip: every value equals the exact LP."""
    rng = np.random.default_rng(7)
    bases = []
    for b in range(6):
        K = int(rng.integers(3, 6))
        m = K * (K - 1) // 2
        bases.append((K, rng.random(m) < 0.5, rng.random(m) < (0.25 if b % 2 else 0.0)))
    solver = CopelandLPSolver(cache_size=2)
    for t in range(60):
        K, sign, tie = bases[int(rng.integers(len(bases)))]
        g = np.minimum(10.0 ** rng.uniform(-5, -0.31, sign.size), 0.5)
        u = np.where(sign, 0.5 + g, 0.5 - g)
        u[tie] = 0.5
        mu = _mu(K, u)
        st = empirical_structure(mu)
        R = None
        if t % 3 == 0:
            R = rng.uniform(0, 2, (K, K))
            R = (R + R.T) / 2
            np.fill_diagonal(R, 0.0)
        for w in st.winners.tolist():
            res = solver.solve_empirical(mu, regret=R, winners=[w], certify=bool(t % 2))
            assert res.status == "ok", res.message
            assert res.value == pytest.approx(exact_lower_bound(st, w, regret=R), rel=1e-8, abs=1e-12)
        if t % 5 == 0:
            q = rng.random((K, K))
            solver.violation(mu, q + q.T, int(st.winners[0]))
        if t % 17 == 0:
            solver = pickle.loads(pickle.dumps(solver))
