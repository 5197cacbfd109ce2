"""The LP core's online surface against independent references.

* empirical matrices with exact ties: the family is the definition's with tied pairs in no row,
  and the cutting plane equals an LP written out here with itertools and solved by scipy;
* ``violation``: the amount equals brute force over the enumerated rows; the rows it returns are
  rows of the family and the first is a most violated one;
* the structure-keyed LRU (two structures alternating stay warm), pickling, seeded tie-breaks
  (reproducible; the value never depends on the seed), lifted or plain cuts (same values);
* failures are reported (status "failed", message), never returned as optimal.
"""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest
from builders import empirical_state, lp_solver
from scipy.optimize import linprog

from boundcalc import PreferenceMatrix, load_example
from boundcalc.datasets import random_matrix
from boundcalc.lp import (
    CopelandFamily,
    CopelandLPSolver,
    ECWFamily,
    ecw_allocation,
    ecw_bound,
    ecw_empirical,
    empirical_structure,
)
from boundcalc.lp.constraints import pair_ids


# ----------------------------------------------------------------------------- references
def definition_rows(mu: np.ndarray, winner: int) -> list[frozenset]:
    """Rows of R_{winner} for an empirical matrix, from 000 eq. (2) with ties read as
    "in neither S nor I" (the reading of 000 Algorithm 1 in boundcalc.lp.structure): written out with itertools, sharing no code with boundcalc."""
    K = mu.shape[0]
    beats = lambda i, j: mu[i, j] > 0.5  # noqa: E731
    S = {i: [j for j in range(K) if beats(j, i)] for i in range(K)}
    I = {i: [j for j in range(K) if beats(i, j)] for i in range(K)}
    L = {i: len(S[i]) for i in range(K)}
    Ls = sorted(L.values())
    L1, L2 = Ls[0], Ls[1]
    a = winner
    rows = set()
    for i2 in range(K):
        if i2 == a:
            continue
        pool = [j for j in S[i2] if j != a]
        for l in range(max(0, L1 - 1), L2 + 1):
            size_I = l + 1 - L1
            if size_I < 0 or size_I > len(I[a]):
                continue
            for Iset in itertools.combinations(I[a], size_I):
                size_S = max(0, L[i2] - l - (1 if i2 in Iset else 0))
                if size_S > len(pool):
                    continue
                for Sset in itertools.combinations(pool, size_S):
                    pairs = {tuple(sorted((a, j))) for j in Iset} | {tuple(sorted((i2, j))) for j in Sset}
                    rows.add(frozenset(pairs))
    return sorted(rows, key=sorted)


def d_half(p):
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p > 0, p * np.log(2 * np.where(p > 0, p, 1)), 0.0)
        b = np.where(p < 1, (1 - p) * np.log(2 * np.where(p < 1, 1 - p, 1)), 0.0)
    return a + b


def reference_value(mu: np.ndarray, winner: int) -> float:
    """C*_{winner}(mu) by scipy's linprog on the written-out LP in the raw variables q."""
    K = mu.shape[0]
    rows = definition_rows(mu, winner)
    L = np.array([(mu[:, i] > 0.5).sum() for i in range(K)])
    pairs = list(itertools.combinations(range(K), 2))
    col = {p: k for k, p in enumerate(pairs)}
    r = np.array([(L[i] + L[j] - 2 * L.min()) / (2 * (K - 1)) for i, j in pairs])
    d = np.array([d_half(mu[i, j]) for i, j in pairs])
    if not rows:
        return 0.0
    A = np.zeros((len(rows), len(pairs)))
    for k, row in enumerate(rows):
        for p in row:
            A[k, col[p]] = d[col[p]]
    ub = np.where(d > 0, 1 / np.where(d > 0, d, 1), 0.0)
    res = linprog(r, A_ub=-A, b_ub=-np.ones(len(rows)), bounds=list(zip(np.zeros(len(pairs)), ub)), method="highs")
    assert res.status == 0, res.message
    return float(res.fun)


STATES = [empirical_state(K, np.random.default_rng(100 + s)) for K in (3, 4, 5, 6) for s in range(15)]


def test_states_have_ties():
    n_ties = [empirical_structure(m).ties for m in STATES]
    assert sum(t > 0 for t in n_ties) >= 40


# ----------------------------------------------------------------------------- empirical ties
def test_empirical_d_and_ties():
    s = empirical_structure([[0.5, 1.0, 0.5], [0.0, 0.5, 0.25], [0.5, 0.75, 0.5]])
    assert s.d[0, 1] == np.log(2) and s.d[1, 0] == np.log(2)  # d(0) = d(1) = log 2, no NaN
    assert s.d[0, 2] == 0.0 and not s.beats[0, 2] and not s.beats[2, 0]
    assert s.L.tolist() == [0, 2, 0] and s.winners.tolist() == [0, 2]
    with pytest.raises(ValueError, match=r"mu_hat\[i, j\] \+ mu_hat\[j, i\] = 1"):
        empirical_structure([[0.5, 0.7], [0.7, 0.5]])
    with pytest.raises(ValueError, match="finite"):
        empirical_structure([[0.5, np.nan], [np.nan, 0.5]])
    # a user's matrix still refuses exact ties
    with pytest.raises(ValueError, match="tie"):
        PreferenceMatrix([[0.5, 0.5], [0.5, 0.5]])


@pytest.mark.parametrize("k", range(0, len(STATES), 3))
def test_empirical_family_is_the_definition(k):
    mu = STATES[k]
    st = empirical_structure(mu)
    pid = pair_ids(mu.shape[0])
    for w in st.winners.tolist():
        fam = CopelandFamily(st, w)
        got = {frozenset(map(int, r)) for r in fam.enumerate()}
        want = {frozenset(int(pid[i, j]) for i, j in row) for row in definition_rows(mu, w)}
        assert got == want


@pytest.mark.parametrize("k", range(len(STATES)))
def test_empirical_cutting_plane_equals_written_out_lp(k):
    mu = STATES[k]
    st = empirical_structure(mu)
    res = CopelandLPSolver().solve_empirical(mu, certify=True)
    assert res.status == "ok", res.message
    for w in st.winners.tolist():
        ref = reference_value(mu, w)
        assert res.per_winner[w] == pytest.approx(ref, rel=1e-7, abs=1e-9)
    # tied pairs are never explored
    tied = ~(st.beats | st.beats.T) & ~np.eye(mu.shape[0], dtype=bool)
    assert np.all(res.allocation[tied] == 0)


def test_empirical_equals_validated_when_no_ties():
    pm = random_matrix(7, 3, min_gap=0.01)
    a = CopelandLPSolver().solve(pm)
    b = CopelandLPSolver().solve_empirical(pm.mu)
    assert b.value == pytest.approx(a.value, rel=1e-12)
    assert ecw_empirical(pm.mu).value == pytest.approx(ecw_bound(pm).value, rel=1e-12)


def test_ecw_on_empirical_states_is_feasible_and_dominates_lb():
    # Theorem 6 on empirical structures, ties included; the closed form's allocation lies in R^E
    for mu in STATES:
        st = empirical_structure(mu)
        lb = CopelandLPSolver().solve_empirical(mu)
        ecw = ecw_empirical(mu, certify=True)
        assert ecw.status == "ok", ecw.message
        for w in st.winners.tolist():
            assert ecw.per_winner[w] >= lb.per_winner[w] * (1 - 1e-9) - 1e-12


# ----------------------------------------------------------------------------- violation queries
def test_violation_equals_brute_force_and_names_real_rows():
    rng = np.random.default_rng(7)
    solver = CopelandLPSolver()
    for mu in STATES:
        st = empirical_structure(mu)
        K = mu.shape[0]
        for w in st.winners.tolist():
            rows = definition_rows(mu, w)
            for scale in (0.0, 0.3, 3.0, 30.0):
                q = rng.random((K, K)) * scale
                q = np.triu(q, 1) + np.triu(q, 1).T
                if rng.random() < 0.5:  # many equal values: ties in the oracle's sort
                    q = np.round(q)
                viol = solver.violation(mu, q, w)
                lhs = [sum(q[i, j] * st.d[i, j] for i, j in row) for row in rows]
                brute = 1.0 - min(lhs) if rows else -np.inf
                assert viol.amount == pytest.approx(brute, abs=1e-12)
                assert solver.contains(mu, q, w) == (brute <= 1e-9)
                if brute > 1e-9:
                    assert viol.rows, "a violated q must name rows"
                    rowset = set(rows)
                    for r in viol.rows:
                        assert frozenset(map(tuple, r.tolist())) in rowset
                    first = viol.rows[0]
                    assert 1.0 - sum(q[i, j] * st.d[i, j] for i, j in first) == pytest.approx(brute, abs=1e-12)
                else:
                    assert viol.rows == []


def test_violation_of_the_optimum_is_zero_and_of_less_is_positive():
    pm = load_example("table2")
    solver = CopelandLPSolver()
    res = solver.solve(pm)
    assert solver.violation(pm.mu, res.allocation, 0).amount <= 1e-9
    half = solver.violation(pm.mu, 0.5 * res.allocation, 0)
    assert half.amount == pytest.approx(0.5, abs=1e-9)  # every binding row drops to 1/2
    # over-drawing never hurts: the box q <= 1/d does not apply to observed counts
    assert solver.violation(pm.mu, 100 * res.allocation, 0).amount < 0


# ----------------------------------------------------------------------------- cache, pickle, seeds
def test_lru_keeps_two_alternating_structures_warm():
    rng = np.random.default_rng(3)
    pm = random_matrix(10, rng, min_gap=0.05)
    other = pm.permute(list(range(1, 10)) + [0])
    solver = CopelandLPSolver(cache_size=4)
    ref = {id(pm): CopelandLPSolver().solve(pm).value, id(other): CopelandLPSolver().solve(other).value}
    seen = []
    for m in [pm, other, pm, other, pm]:
        r = solver.solve(m)
        assert r.value == pytest.approx(ref[id(m)], rel=1e-10)
        seen.append(r.stats["rows_added"])
    assert seen[2] == 0 and seen[3] == 0 and seen[4] == 0  # both models found warm
    small = CopelandLPSolver(cache_size=1)
    small.solve(pm), small.solve(other)
    assert small.solve(pm).stats["rows_added"] > 0  # evicted: rebuilt cold, same value
    assert small.solve(pm).value == pytest.approx(ref[id(pm)], rel=1e-10)


def test_solver_pickles_and_rebuilds_models():
    pm = random_matrix(9, 5, min_gap=0.02)
    solver = lp_solver(seed=4, per_i2=2)
    v = solver.solve(pm).value
    clone = pickle.loads(pickle.dumps(solver))
    assert clone.per_i2 == 2 and clone.seed == 4
    r = clone.solve(pm)
    assert r.value == pytest.approx(v, rel=1e-12) and r.stats["warm_start"] is False


def test_seeded_tie_breaks_are_reproducible_and_never_change_the_value():
    pm = random_matrix(12, 8, min_gap=0.02)
    a, b = CopelandLPSolver(seed=1).solve(pm), CopelandLPSolver(seed=1).solve(pm)
    assert a.stats["rows_added"] == b.stats["rows_added"] and a.value == b.value
    assert np.array_equal(a.allocation, b.allocation)
    values = [CopelandLPSolver(seed=s).solve(pm).value for s in range(6)]
    assert max(values) - min(values) <= 1e-9 * values[0]


@pytest.mark.parametrize(
    "kw",
    [
        dict(per_i2=3, lift=False),
        dict(per_i2=8, lift=False, seed=5),
        dict(lift=False),
        dict(sorted_per_i2=1),
        dict(warm_rows=0, seed=5),
    ],
)
def test_options_change_the_path_not_the_value(kw):
    for s in range(12):
        pm = random_matrix(8 + s % 5, 40 + s, min_gap=0.01)
        ref = CopelandLPSolver().solve(pm).value  # the sorted-pool model
        assert lp_solver(**kw).solve(pm).value == pytest.approx(ref, rel=1e-9)


def test_random_tie_break_spreads_rows_over_i2():
    # at e = 0 every value ties; with per-i2 random orders different i2 offer different winner
    # pairs, in index order they all offer the same ones (the cause of slow convergence)
    pm = random_matrix(14, 2, min_gap=0.05, condorcet=True)
    fam = CopelandFamily(pm, 0)
    zero = np.zeros(fam.n_vars)
    winner_pairs = set(fam.pid[0, fam.inferiors].tolist())

    def first_winner_pairs(block):
        return {frozenset(set(r.tolist()) & winner_pairs) for r in block.rows()}

    fixed = first_winner_pairs(fam.separate_csr(zero, per_i2=1))
    rand = first_winner_pairs(fam.separate_csr(zero, per_i2=1, rng=np.random.default_rng(0)))
    assert len(rand) > len(fixed)


# ----------------------------------------------------------------------------- failures and validation
def test_failure_is_reported_with_a_message():
    pm = random_matrix(12, 9, min_gap=0.01)
    res = lp_solver(max_rounds=1, lift=False).solve(pm)
    assert res.status == "failed" and "no convergence in 1 rounds" in res.message
    assert not res.success
    from boundcalc import lower_bound

    assert lower_bound(pm).status == "ok"
    with pytest.raises(ValueError, match="max_rounds"):
        CopelandLPSolver(max_rounds=0)


def test_custom_regret_validated_once_for_every_method():
    pm = load_example("table2")
    neg = -np.ones((4, 4))
    from boundcalc import lower_bound

    for call in (
        lambda: ecw_bound(pm, regret=neg),
        lambda: lower_bound(pm, regret=neg),
        lambda: lower_bound(pm, regret=neg, method="enumerate"),
        lambda: CopelandLPSolver().solve_empirical(pm.mu, regret=neg),
    ):
        with pytest.raises(ValueError, match="non-negative"):
            call()
    nan = np.ones((4, 4))
    nan[1, 2] = nan[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"finite; entry \(1, 2\)"):
        ecw_bound(pm, regret=nan)


def test_ecw_allocation_is_theorem5_on_structures():
    # a hand-worked case: arm 0 beats 1 and 2, arm 1 beats 2; unit costs.
    # R^E_0: e01 = e02 = 1; i2 = 2 has pool {1} and needs |S| = L_2 - L_0 + 1 = 3 > 1: no row;
    # i2 = 1 has pool {} (0 excluded): no row.  So C^E* = c01 + c02 = 2.
    beats = np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]], dtype=bool)
    v, E = ecw_allocation(beats, np.ones((3, 3)), 0)
    assert v == 2.0 and E[0, 1] == 1 and E[0, 2] == 1 and E[1, 2] == 0
    # against the ECW family's oracle on the empirical states
    for mu in STATES[::4]:
        st = empirical_structure(mu)
        from boundcalc.lp.ecw import _cost_matrix

        C = _cost_matrix(st)
        for w in st.winners.tolist():
            v, E = ecw_allocation(st.beats, C, w)
            assert ECWFamily(st, w).max_violation(E[np.triu_indices(st.K, 1)]) <= 1e-12


def test_theorem6_shortcut_equals_the_lp():
    # online (certify=False) re-solves with C >= 2 and no ties use 000 Theorem 6; the LP agrees
    n = 0
    for s in range(60):
        pm = random_matrix(5 + s % 6, 500 + s, min_gap=0.02)
        if pm.n_winners < 2:
            continue
        n += 1
        fast = CopelandLPSolver().solve_empirical(pm.mu)
        assert fast.method == "closed-form (000 Theorem 6)"
        lp = CopelandLPSolver().solve_empirical(pm.mu, certify=True)
        assert lp.method == "cutting-plane"
        for w in pm.copeland_winners.tolist():
            assert fast.per_winner[w] == pytest.approx(lp.per_winner[w], rel=1e-9, abs=1e-12)
        # the shortcut's allocation is feasible for every row of R_w and attains the value
        for w, Q in fast.allocations.items():
            assert CopelandFamily(pm, w).contains(Q * pm.d, tol=1e-9)
            assert 0.5 * (pm.regret * Q).sum() == pytest.approx(fast.per_winner[w], rel=1e-12)
    assert n >= 5
    # ties or a single winner: the LP is used
    assert CopelandLPSolver().solve_empirical(load_example("table2").mu).method == "cutting-plane"


@pytest.mark.parametrize("K", [20, 28])
def test_lifted_and_plain_cuts_agree_on_larger_matrices(K):
    # the sorted-pool model and the plain cutting plane: one value, tight certificates
    for seed in range(3):
        pm = random_matrix(K, 900 + seed, min_gap=0.005)
        runs = [lp_solver(lift=lift).solve(pm) for lift in (True, False)]
        assert [r.status for r in runs] == ["ok"] * 2
        assert [r.stats["model"] for r in runs] == ["sorted pools", "plain"]
        for r in runs:
            assert r.value == pytest.approx(runs[0].value, rel=1e-9)
            assert r.certificate.max_violation <= 1e-9
            assert abs(r.certificate.gap) <= 1e-7 * r.value


# ----------------------------------------------------------------------------- compiled kernels
def test_compiled_kernels_equal_the_numpy_code():
    """Both paths of the LP core (the caller's ``compiled=``) give the same oracle sums, Theorem 5 allocations and
    rows to the last bit; the structure's d against the textbook KL."""
    from boundcalc.lp.ecw import _cost_matrix, ecw_allocation
    from boundcalc.matrix import kl_half

    rng = np.random.default_rng(17)
    for k, mu in enumerate(STATES + [random_matrix(K, 60 + K).mu for K in (2, 7, 12, 20)]):
        st = empirical_structure(mu)
        # d against the textbook KL, written out independently (0 on ties and the diagonal)
        tied = ~(st.beats | st.beats.T)
        assert np.allclose(st.d, np.where(tied, 0.0, d_half(mu)), rtol=1e-12, atol=1e-300)
        assert np.allclose(st.d, np.where(tied, 0.0, kl_half(mu)), rtol=1e-14, atol=0)
        C = _cost_matrix(st)
        for w in st.winners.tolist():
            fam = CopelandFamily(st, w, compiled=True)
            ref = CopelandFamily(st, w, compiled=False)
            for _ in range(3):
                E = rng.random((st.K, st.K)) * rng.choice([0.0, 0.5, 2.0])
                E = np.round(np.triu(E, 1) + np.triu(E, 1).T, int(rng.integers(0, 3)))  # ties too
                S = fam._sums(E)
                assert np.array_equal(S, ref._sums(E)) and np.array_equal(S, fam._sums_numpy(E))
                a, b = fam.separate_csr(E, per_i2=2), ref.separate_csr(E, per_i2=2)
                assert np.array_equal(a.starts, b.starts) and np.array_equal(a.idx, b.idx)
                assert np.array_equal(a.violation, b.violation)
            v1, E1 = ecw_allocation(st.beats, C, w, compiled=True)
            v2, E2 = ecw_allocation(st.beats, C, w, compiled=False)
            assert v1 == v2  # the same sums in the same order
            assert np.array_equal(E1, E2)  # the same pairs: equal costs are taken in arm order


def test_numpy_and_compiled_solves_agree():
    # the caller's choice of path gives the same structures and values, online and one-shot
    for mu in STATES[::5]:
        a = lp_solver(compiled=True).solve_empirical(mu, certify=True)
        b = lp_solver(compiled=False).solve_empirical(mu, certify=True)
        assert a.value == b.value and a.stats["rounds"] == b.stats["rounds"]
    for K in (5, 30):
        pm = random_matrix(K, 7)
        a, b = lp_solver(compiled=True).solve(pm), lp_solver(compiled=False).solve(pm)
        assert a.value == b.value and a.certificate.max_violation == b.certificate.max_violation


def test_violation_refuses_bad_rates():
    pm = load_example("table2")
    solver = CopelandLPSolver()
    q = np.zeros((4, 4))
    q[0, 2] = 5.0  # one direction only
    with pytest.raises(ValueError, match="symmetric"):
        solver.violation(pm.mu, q, 0)
    with pytest.raises(ValueError, match="non-negative"):
        solver.violation(pm.mu, -np.ones((4, 4)), 0)
    with pytest.raises(ValueError, match="finite"):
        solver.violation(pm.mu, np.full((4, 4), np.inf), 0)
    v = solver.violation(pm.mu, np.zeros((4, 4)), 0, tol=0.5)
    assert v.amount == 1.0 and not v.satisfied and v.tol == 0.5


def test_duality_gap_out_of_tolerance_is_a_failure():
    # the certificate's second channel: a gap above gap_tol fails the solve (here any gap, even 0,
    # exceeds a negative tolerance); without certify there is no dual bound to act on
    pm = random_matrix(8, 21, min_gap=0.02)
    res = CopelandLPSolver(gap_tol=-1.0).solve(pm)
    assert res.status == "failed" and "duality gap" in res.message and res.value is None
    assert CopelandLPSolver(gap_tol=-1.0).solve(pm, certify=False).status == "ok"


@pytest.mark.parametrize("lift", [True, False])
def test_basis_kept_under_new_costs_is_optimal_by_scipy(lift):
    """A model whose rows and bounds are unchanged answers new costs from its last basis when that
    stays optimal (no HiGHS run; ``CoveringLP.reused``), else HiGHS re-solves.  Either way the
    answer's cost equals the optimum of scipy's interior point (another method, another model) on
    the same rows, lifted blocks included, and its objective is of the new costs (HiGHS gets them
    only before it runs); both branches are exercised."""
    pm = random_matrix(9, np.random.default_rng(11), min_gap=0.02)
    solver = lp_solver(seed=0, lift=lift)
    st = pm.structure
    w = int(st.winners[0])
    solver.solve_empirical(st)
    lp = solver.model(st, w)
    rng = np.random.default_rng(3)
    base = lp.costs.copy()
    reused0, runs0 = lp.reused, lp.solves
    costs = base
    for k in range(40):
        if k % 4:  # as online: one pair's cost moves a little
            costs = costs.copy()
            costs[rng.integers(costs.size)] *= np.exp(rng.normal(0.0, 1e-3))
        else:
            costs = base * np.exp(rng.normal(0.0, 0.3, base.size))
        rows0 = lp.n_rows
        lp.set_costs(costs)
        sol = lp.solve()
        assert lp.n_rows == rows0
        n, nv = lp.n, lp.n_vars
        c = np.concatenate([costs, np.zeros(nv - n)])
        A = np.zeros((lp.n_rows, nv))
        for r in range(lp.n_rows):
            s = slice(lp._starts[r], lp._starts[r + 1])
            A[r, lp._idx[s]] = lp._val[s]
        ref = linprog(c, A_ub=-A, b_ub=-lp._lo, bounds=list(zip(lp._lb, lp._ub)), method="highs-ipm")
        assert ref.status == 0
        assert float(costs @ sol.x) == pytest.approx(ref.fun, rel=1e-7, abs=1e-9), k
        assert sol.objective == pytest.approx(float(costs @ sol.x), rel=1e-9, abs=1e-12), k  # HiGHS had these costs
        assert np.all(A @ np.concatenate([sol.x, sol.aux]) >= lp._lo - 1e-7)
    assert lp.reused - reused0 >= 5 and lp.solves - runs0 >= 5, (lp.reused - reused0, lp.solves - runs0)


def test_one_time_loading_is_reported_apart_from_the_solve():
    # a compiled solve loads the kernels before its clock starts (stats["load_seconds"], once per
    # process); the numpy path loads nothing; the value is the same
    pm = random_matrix(6, 2)
    a = lp_solver(compiled=True).solve(pm)
    b = lp_solver(compiled=True).solve(pm)
    c = CopelandLPSolver().solve(pm)
    assert a.stats["load_seconds"] >= 0.0 and b.stats["load_seconds"] == 0.0 and c.stats["load_seconds"] == 0.0
    assert a.value == b.value == c.value
    e = lp_solver(compiled=True).solve_empirical(STATES[0])
    assert e.stats["load_seconds"] == 0.0
