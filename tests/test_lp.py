"""The LP core against independent references.

* the cutting plane (HiGHS + sorting oracle) equals the full enumeration (every row written
  out from the definition with itertools, solved by Clarabel through cvxpy);
* the separation oracle equals brute force over the enumerated rows;
* Theorem 5's closed form equals the ECW LP; Theorem 6: ECW >= LB, with equality when C >= 2;
* invariance under relabelling arms; the returned allocation is feasible and attains the value;
* paper 000's Table 2, worked by hand.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import reference
from builders import lp_solver, pm_from_upper, st_upper_and_perm, tournament_cases
from hypothesis import HealthCheck, assume, given, settings
from test_review_lp import exact_lower_bound

from boundcalc import PreferenceMatrix, ecw_bound, load_example, lower_bound
from boundcalc.datasets import random_matrix, tournament_matrix
from boundcalc.lp import CopelandFamily, CopelandLPSolver, CoveringLP, ECWFamily, SolverError, TooLargeError
from boundcalc.lp.full import ecw_enumerate, lower_bound_enumerate

RTOL = 1e-7  # two simplex vertices (incremental HiGHS model vs cvxpy's full LP)
RTOL_IPM = 1e-5  # Clarabel's interior point: costs spanning ~1e7 limit its accuracy


def d_half(p):
    """KL(p, 1/2), written out independently of boundcalc."""
    return p * np.log(2 * p) + (1 - p) * np.log(2 * (1 - p))


# ----------------------------------------------------------------------------- generators
CASES = tournament_cases()  # 300 matrices: K = 3..8, kinds plain / near-tie / condorcet / cyclic


def test_case_mix_covers_multiple_winners_and_near_ties():
    # the generator really produces what the cross-checks claim to cover
    assert len(CASES) == 300
    assert sum(pm.n_winners >= 2 for _, _, pm in CASES) >= 60
    assert sum(pm.min_gap < 1e-3 for _, _, pm in CASES) >= 30
    assert sum(pm.condorcet_winner is not None for _, _, pm in CASES) >= 60


# ----------------------------------------------------------------------------- cutting plane == enumeration
def test_compiled_tables_equal_the_numpy_reading():
    """The (i2, l, case) tables of the compiled kernel (what CW-RMED's check (3) uses) equal the family's numpy
    reading of 000 eq. (2), for every winner of random matrices, tournaments and empirical matrices with ties, whole
    families and restricted levels."""
    from boundcalc.kernels.lp import winner_tables
    from boundcalc.lp.structure import empirical_structure

    rng = np.random.default_rng(5)
    structures = [random_matrix(int(K), rng).structure for K in rng.integers(2, 12, size=15)]
    structures += [tournament_matrix(int(K), int(K)).structure for K in (6, 9, 13)]
    for _ in range(15):  # empirical: undrawn and tied pairs
        K = int(rng.integers(3, 10))
        W = rng.integers(0, 3, size=(K, K)) * (1 - np.eye(K, dtype=int))
        N = W + W.T
        structures.append(empirical_structure(np.where(N > 0, W / np.maximum(N, 1), 0.5)))
    seen = 0
    for st in structures:
        for w in st.winners.tolist():
            for levels in (None, [0], [int(st.L_sorted[1])]):
                fam = CopelandFamily(st, w, levels)
                K, ls = st.K, fam.levels
                Ia, in_Ia, pool, psize = (
                    np.empty(K, np.int64),
                    np.empty(K, bool),
                    np.empty((K, K), bool),
                    np.empty(K, np.int64),
                )
                mI, mS, gI, gS = (np.empty((K, 2 * ls.size), np.int64) for _ in range(4))
                ok, caseB = np.empty((K, 2 * ls.size), bool), np.empty(2 * ls.size, bool)
                L = st.L.astype(np.int64)
                nI = winner_tables(
                    np.array(st.beats), L, w, ls, fam.L1, Ia, in_Ia, pool, psize, mI, mS, ok, gI, gS, caseB
                )
                assert np.array_equal(fam._mI, mI) and np.array_equal(fam._mS, mS) and np.array_equal(fam._ok, ok)
                assert np.array_equal(fam._gI, gI) and np.array_equal(fam._gS, gS) and np.array_equal(fam._caseB, caseB)
                assert np.array_equal(fam.inferiors, Ia[:nI]) and np.array_equal(fam.in_Ia, in_Ia)
                assert np.array_equal(fam.pool, pool) and np.array_equal(fam.pool_size, psize)
                seen += int(ok.any())
    assert seen >= 40, seen


@pytest.mark.parametrize("K", [3] + [pytest.param(k, marks=pytest.mark.slow) for k in (4, 5, 6, 7, 8)])
def test_cutting_plane_equals_enumeration(K):
    solver = CopelandLPSolver()  # one warm solver across matrices: also exercises model rebuilds
    for _, kind, pm in [c for c in CASES if c[0] == K]:
        cp = solver.solve(pm)
        en = lower_bound_enumerate(pm)
        for w in pm.copeland_winners.tolist():
            assert cp.per_winner[w] == pytest.approx(en.per_winner[w], rel=RTOL, abs=1e-9), (kind, w)
        assert cp.value == pytest.approx(en.value, rel=RTOL, abs=1e-9)
        # the certificate is tight and checks every row
        c = cp.certificate
        assert c.max_violation <= 1e-9
        assert c.dual_bound <= cp.value * (1 + 1e-9) + 1e-9
        assert c.gap <= 1e-7 * max(1.0, cp.value)


# uniform random tournaments (the hard family: every pair's winner by a coin, gaps U(0.05, 0.5);
# large pools on both sides of every row, where the cuts are lifted)
TOURNAMENTS = [(K, tournament_matrix(K, 1000 * K + s)) for K in range(6, 10) for s in range(10)]


@pytest.mark.parametrize("K", [6, 7] + [pytest.param(k, marks=pytest.mark.slow) for k in (8, 9)])
def test_tournaments_cutting_plane_equals_enumeration(K):
    for _, pm in [c for c in TOURNAMENTS if c[0] == K]:
        en = lower_bound_enumerate(pm)
        for kw in ({}, {"lift": False}):  # the sorted-pool model and the plain cutting plane
            cp = lp_solver(**kw).solve(pm)
            assert cp.status == "ok", cp.message
            for w in pm.copeland_winners.tolist():
                assert cp.per_winner[w] == pytest.approx(en.per_winner[w], rel=RTOL, abs=1e-9), kw
            c = cp.certificate
            assert c.max_violation <= 1e-9 and c.gap <= 1e-7 * max(1.0, cp.value)


@pytest.mark.parametrize("K", [6, pytest.param(7, marks=pytest.mark.slow)])
def test_tournaments_equal_the_exact_rational_lp(K):
    for _, pm in [c for c in TOURNAMENTS if c[0] == K][:5]:
        st = pm.structure
        res = lower_bound(pm)
        for w in st.winners.tolist():
            assert res.per_winner[w] == pytest.approx(exact_lower_bound(st, w), rel=1e-9)


def test_tournament_mix_is_hard():
    # what the cases claim: Copeland winners losing about a third of their duels, several winners
    assert sum(pm.n_winners >= 2 for _, pm in TOURNAMENTS) >= 8
    assert np.mean([pm.L_sorted[0] / (pm.K - 1) for _, pm in TOURNAMENTS]) >= 0.2


@pytest.mark.parametrize("K", [3, 5] + [pytest.param(k, marks=pytest.mark.slow) for k in (7, 8)])
def test_cutting_plane_equals_independent_interior_point(K):
    # a solver that shares nothing with HiGHS: Clarabel on the full enumerated LP
    for _, kind, pm in [c for c in CASES if c[0] == K][::3]:
        cp = lower_bound(pm)
        ip = lower_bound_enumerate(pm, solver="CLARABEL")
        assert set(ip.stats["solver_per_winner"].values()) == {"CLARABEL"} and ip.stats["solver"] == "cvxpy/clarabel"
        assert cp.value == pytest.approx(ip.value, rel=RTOL_IPM, abs=1e-9), kind


@pytest.mark.parametrize("K", [3, 5, 7])
def test_enumeration_certificate_and_allocation(K):
    for _, _, pm in [c for c in CASES if c[0] == K][:10]:
        en = lower_bound_enumerate(pm)
        assert en.certificate.max_violation <= 1e-6
        assert en.certificate.dual_bound <= en.value * (1 + 1e-6) + 1e-9


# ----------------------------------------------------------------------------- separation oracle == brute force
def _reference_rows(fam, mu, winner: int, kind: str = "copeland") -> list[np.ndarray]:
    """Every row of 000's family (eq. (2), or eqs. (4)-(5) for ``kind="ecw"``) from tests/reference.py,
    as arrays of ``fam``'s variable ids; also checks ``fam.enumerate()`` against them."""
    S, I, L, _, _ = reference.structure(mu)
    ref = (reference.copeland_rows if kind == "copeland" else reference.ecw_rows)(S, I, L, winner)
    rows = [np.array(sorted(int(fam.pid[i, j]) for i, j in r)) for r in ref]
    got = {frozenset(map(int, r)) for r in fam.enumerate()}
    if kind == "ecw":
        got |= {frozenset([int(v)]) for v in fam.fixed_vars}
    assert got == {frozenset(r.tolist()) for r in rows}
    return rows


def _dense(fam, rows) -> np.ndarray:
    """0/1 matrix (rows x the family's variables) of index arrays."""
    A = np.zeros((len(rows), fam.n_vars))
    for r, idx in enumerate(rows):
        A[r, idx] = 1.0
    return A


@pytest.mark.parametrize("K", [3, 4, 5, 6, 7])
def test_separation_oracle_equals_brute_force(K):
    rng = np.random.default_rng(K)
    for _, _, pm in [c for c in CASES if c[0] == K][:20]:
        for w in pm.copeland_winners.tolist():
            fam = CopelandFamily(pm, w)
            rows = _reference_rows(fam, pm.mu, w)
            A = _dense(fam, rows)
            assert fam.n_rows() >= len(rows)
            for _ in range(5):
                # values on a coarse grid so that ties between e-values are common
                e = (
                    rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], fam.n_vars)
                    if rng.random() < 0.5
                    else rng.random(fam.n_vars) * 0.6
                )
                brute = 1.0 - (A @ e).min() if len(rows) else -np.inf
                assert fam.max_violation(e) == pytest.approx(brute, abs=1e-12)
                # every separated row is a genuine row and its violation is reported correctly
                block = fam.separate_csr(e, tol=1e-12, per_i2=3, rng=rng if rng.random() < 0.5 else None)
                found, viol = block.rows(), block.violation
                rowset = {tuple(r.tolist()) for r in rows}
                for r, v in zip(found, viol):
                    assert tuple(r.tolist()) in rowset
                    assert v == pytest.approx(1.0 - e[r].sum(), abs=1e-12)
                if brute > 1e-12:
                    assert max(viol) == pytest.approx(brute, abs=1e-12)
                else:
                    assert found == []


def test_contains_matches_enumeration_and_q_scaling():
    pm = load_example("table2")
    fam = CopelandFamily(pm, 0)
    A = _dense(fam, _reference_rows(fam, pm.mu, 0))
    rng = np.random.default_rng(0)
    for _ in range(200):
        e = rng.random(fam.n_vars)
        assert fam.contains(e) == bool((A @ e >= 1 - 1e-9).all())
    res = lower_bound(pm)
    assert fam.contains(res.allocation * pm.d)  # q scaled to e = q d
    assert not fam.contains(0.5 * res.allocation * pm.d)


def test_ecw_oracle_equals_brute_force():
    rng = np.random.default_rng(5)
    for _, _, pm in [c for c in CASES if c[0] in (4, 5, 6)][:40]:
        for w in pm.copeland_winners.tolist():
            fam = ECWFamily(pm, w)
            rows = _reference_rows(fam, pm.mu, w, kind="ecw")
            for _ in range(5):
                e = rng.random(fam.n_vars)
                vals = [e[r].sum() for r in rows]
                brute = 1.0 - min(vals) if vals else -np.inf
                assert fam.max_violation(e) == pytest.approx(brute, abs=1e-12)


# ----------------------------------------------------------------------------- ECW: Theorem 5 and 6
@pytest.mark.parametrize("K", [3, 4, 5, 6] + [pytest.param(k, marks=pytest.mark.slow) for k in (7, 8)])
def test_ecw_closed_form_equals_ecw_lp(K):
    for _, kind, pm in [c for c in CASES if c[0] == K][:25]:
        cf = ecw_bound(pm)
        lp = ecw_enumerate(pm)
        for w in pm.copeland_winners.tolist():
            assert cf.per_winner[w] == pytest.approx(lp.per_winner[w], rel=RTOL, abs=1e-9), kind
        # the closed form's allocation is feasible for R^E and attains its value
        for w, Q in cf.allocations.items():
            fam = ECWFamily(pm, w)
            E = Q * pm.d
            iu = np.triu_indices(pm.K, 1)
            assert fam.contains(E[iu])
            assert 0.5 * (pm.regret * Q).sum() == pytest.approx(cf.per_winner[w], rel=1e-12)


@pytest.mark.slow
def test_theorem6_on_all_cases():
    n_eq = 0
    for K, kind, pm in CASES:
        lb = lower_bound(pm)
        ecw = ecw_bound(pm)
        for w in pm.copeland_winners.tolist():
            assert ecw.per_winner[w] >= lb.per_winner[w] * (1 - 1e-9) - 1e-9
            if pm.n_winners >= 2:
                assert ecw.per_winner[w] == pytest.approx(lb.per_winner[w], rel=1e-7, abs=1e-9)
                n_eq += 1
    assert n_eq >= 100


def test_ecw_strictly_above_lb_somewhere():
    # Theorem 6's inequality is not an identity: Table 2 (C = 1) separates them
    pm = load_example("table2")
    assert ecw_bound(pm).value > 1.5 * lower_bound(pm).value


# ----------------------------------------------------------------------------- allocation
def test_allocation_feasible_and_attains_value():
    for K, kind, pm in CASES[::7]:
        res = lower_bound(pm)
        for w, Q in res.allocations.items():
            assert np.allclose(Q, Q.T) and np.all(np.diag(Q) == 0) and np.all(Q >= 0)
            # q_p <= 1/d(mu_p)
            assert np.all(Q * pm.d <= 1 + 1e-9)
            fam = CopelandFamily(pm, w)
            assert fam.contains(Q * pm.d, tol=1e-8)
            # sum over pairs of r_p q_p (each pair once) equals C*_{w}
            assert 0.5 * (pm.regret * Q).sum() == pytest.approx(res.per_winner[w], rel=1e-9)


# ----------------------------------------------------------------------------- permutations
@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st_upper_and_perm)
def test_invariance_under_permutation(data):
    K, upper, perm = data
    pm = pm_from_upper(K, upper)
    pp = pm.permute(perm)
    a, b = lower_bound(pm), lower_bound(pp)
    assert b.value == pytest.approx(a.value, rel=1e-7)
    # per-winner constants move with the arms: new arm k is old arm perm[k]
    for k, old in enumerate(perm):
        if old in a.per_winner:
            assert b.per_winner[k] == pytest.approx(a.per_winner[old], rel=1e-7)
    ea, eb = ecw_bound(pm), ecw_bound(pp)
    # entries that cross the diagonal are stored as 1 - u: one rounding, ~1e-12 relative near ties
    assert eb.value == pytest.approx(ea.value, rel=1e-9)
    assert ea.value >= a.value * (1 - 1e-8)


@pytest.mark.slow
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st_upper_and_perm)
def test_property_cutting_plane_equals_enumeration(data):
    K, upper, _ = data
    pm = pm_from_upper(K, upper)
    assume(all(CopelandFamily(pm, w).n_rows() < 20_000 for w in pm.copeland_winners))
    assert lower_bound(pm).value == pytest.approx(lower_bound(pm, method="enumerate").value, rel=RTOL, abs=1e-9)


# ----------------------------------------------------------------------------- Table 2, by hand
def test_table2_worked_example():
    """Paper 000, Table 2 (Sec. 4.4: about 27.5 against 49.7).

    Costs c = r/d: pairs (0, j) have r = 2/6 and d = d(0.6); pairs inside the cycle have
    r = 4/6 and d = d(0.9).  The rows for winner 0 are (hand-enumerated):
      l = 0: {01, 13}, {02, 21}, {03, 32};  l = 1: {01, 02}, {01, 03}, {02, 03},
      {02, 03, 13}, {01, 03, 12}, {01, 02, 23};  l = 2: {01, 02, 03}.
    The three pair rows force e01 + e02 + e03 >= 3/2; e0j = 1/2 and e on the cycle = 1/2
    satisfies every row, so C* = 3/2 (c_0 + c_cyc); the dual y = 1/2 on the three pair
    rows' ... certificate is checked numerically below.
    ECW fixes e0j = 1 and has no other row (each pool has one arm but needs three), so
    C^E* = 3 c_0 = 1 / d(0.6).
    """
    pm = load_example("table2")
    c0 = (2 / 6) / d_half(0.6)
    ccyc = (4 / 6) / d_half(0.9)
    res = lower_bound(pm)
    assert res.value == pytest.approx(1.5 * (c0 + ccyc), rel=1e-10)
    assert res.value == pytest.approx(27.5487, abs=1e-4)
    ecw = ecw_bound(pm)
    assert ecw.value == pytest.approx(1 / d_half(0.6), rel=1e-12)
    assert ecw.value == pytest.approx(49.6635, abs=1e-4)
    fam = CopelandFamily(pm, 0)
    got = {frozenset(map(int, r)) for r in fam.enumerate()}
    P = {}
    for i, j in itertools.combinations(range(4), 2):
        P[(i, j)] = P[(j, i)] = int(fam.pid[i, j])
    hand = [
        [(0, 1), (1, 3)],
        [(0, 2), (2, 1)],
        [(0, 3), (3, 2)],
        [(0, 1), (0, 2)],
        [(0, 1), (0, 3)],
        [(0, 2), (0, 3)],
        [(0, 2), (0, 3), (1, 3)],
        [(0, 1), (0, 3), (1, 2)],
        [(0, 1), (0, 2), (2, 3)],
        [(0, 1), (0, 2), (0, 3)],
    ]
    assert got == {frozenset(P[p] for p in row) for row in hand}
    # optimal allocation: q = (1/2)/d on every pair
    assert np.allclose(res.allocation * pm.d + np.eye(4) * 0.5, 0.5)


def test_two_arms_closed_form():
    # K = 2: the only row is {e01 >= 1}; C* = r_01 / d = (1/2) / d(mu)
    pm = PreferenceMatrix([[0.5, 0.7], [0.3, 0.5]])
    assert lower_bound(pm).value == pytest.approx(0.5 / d_half(0.7))
    assert ecw_bound(pm).value == pytest.approx(0.5 / d_half(0.7))


def test_levels_restriction_is_a_relaxation():
    for _, _, pm in CASES[::11]:
        full = lower_bound(pm).value
        for l in range(0, 3):
            part = lower_bound(pm, levels=[l]).value
            assert part <= full * (1 + 1e-9) + 1e-9


# ----------------------------------------------------------------------------- solver state and failures
def test_warm_solver_reuses_rows_and_rebuilds_on_new_structure():
    rng = np.random.default_rng(11)
    pm = random_matrix(8, rng, min_gap=0.05)
    solver = CopelandLPSolver()
    first = solver.solve(pm)
    assert first.stats["warm_start"] is False
    # same structure (signs), new gaps: warm start, same answer as a cold solve
    mu2 = 0.5 + (pm.mu - 0.5) * rng.uniform(0.3, 1.0, (8, 8))
    mu2 = np.triu(mu2, 1)
    mu2 = mu2 + np.tril(1 - mu2.T, -1)
    np.fill_diagonal(mu2, 0.5)
    pm2 = PreferenceMatrix(mu2)
    assert np.array_equal(pm2.beats, pm.beats)
    warm = solver.solve(pm2)
    assert warm.stats["warm_start"] is True
    assert warm.value == pytest.approx(CopelandLPSolver().solve(pm2).value, rel=1e-9)
    # a different structure rebuilds
    pm3 = pm.permute(list(range(1, 8)) + [0])
    assert solver.solve(pm3).stats["warm_start"] is False
    assert solver.contains(pm2, warm.allocation, warm.winner)
    assert not solver.contains(pm2, 0.0 * warm.allocation, warm.winner)


def test_solver_failure_is_reported_not_swallowed():
    lp = CoveringLP(np.ones(3))
    lp.add_rows([np.array([], dtype=np.int64)])  # 0 >= 1: infeasible
    with pytest.raises(SolverError, match="Infeasible"):
        lp.solve()
    with pytest.raises(ValueError, match="finite"):
        CoveringLP(np.array([1.0, np.inf]))


def test_enumeration_refuses_large_families():
    pm = random_matrix(14, 0)
    with pytest.raises(TooLargeError, match="use the cutting-plane method"):
        lower_bound(pm, method="enumerate", max_rows=1000)
    with pytest.raises(ValueError, match="unknown method"):
        lower_bound(pm, method="simplex")


def test_non_winner_rejected():
    pm = load_example("table2")
    with pytest.raises(ValueError, match="not a Copeland winner"):
        CopelandFamily(pm, 1)


def test_custom_regret_validation():
    pm = load_example("table2")
    with pytest.raises(ValueError, match="symmetric"):
        lower_bound(pm, regret=np.triu(np.ones((4, 4))))
    with pytest.raises(ValueError, match="4x4"):
        lower_bound(pm, regret=np.ones((3, 3)))
