"""The lifted LP model (:mod:`boundcalc.lp.lifted`), the compiled row builder, and the LP core on
near ties, against independent references.

* the two identities the lifted blocks rest on, by brute force over sorted values;
* every row a sorted-pool model holds is satisfied at points of ``R_{i1}`` moved to the order of
  the costs (block variables set by the module text's formula), so no optimum is cut off -- on
  random matrices and tournaments;
* the model grows without deleting, within its bound; ``stats`` report its size and the pair
  columns a row uses;
* a model derived from another structure's (``derive=True``) solves to the exact optimum;
* the compiled row builder equals its own Python source, and its hashes equal ``row_hashes``;
* near ties: pairs down to 1.1e-16 from 1/2 solved by both methods and equal
  to an exact rational LP; HiGHS's failures answered by the fallbacks; cvxpy's failures reported
  as ``SolverError``; one HiGHS thread count in a process whatever solved first;
  ``check_conditioning``.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from builders import lp_solver, row_activity
from test_review_lp import exact_lower_bound

from boundcalc import PreferenceMatrix, load_example, lower_bound
from boundcalc.datasets import random_matrix, tournament_matrix
from boundcalc.lp import (
    MIN_SOLVABLE_GAP,
    CopelandFamily,
    CopelandLPSolver,
    CoveringLP,
    SolverError,
    check_conditioning,
    empirical_structure,
)
from boundcalc.lp.constraints import RowBlock, _zobrist, row_hashes
from boundcalc.lp.ecw import _cost_matrix, ecw_allocation


def smallest_sum(v, k) -> float:
    return float(sum(sorted(v)[:k]))


# ----------------------------------------------------------------------------- the identities
def test_k_smallest_sum_identities_by_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(400):
        n = int(rng.integers(1, 9))
        v = np.round(rng.random(n), int(rng.integers(1, 3)))  # ties are common
        s = np.sort(v)
        for k in range(0, n + 1):
            ss = smallest_sum(v, k)
            # LP duality: k t - sum (t - v)^+ <= SS_k for every t, equality on [v_(k), v_(k+1)]
            for t in np.concatenate([v, rng.random(4), [0.0, 1.0]]):
                assert k * t - np.maximum(0.0, t - v).sum() <= ss + 1e-12
            for t in ([s[k - 1]] if k else [0.0]) + ([s[k]] if k < n else []):
                assert k * t - np.maximum(0.0, t - v).sum() == pytest.approx(ss, abs=1e-12)
            if k == n:
                continue
            # the shared winner block: at t = v_(k+1), leaving out any one i gives SS_k of the rest
            t = s[k]
            u = np.maximum(0.0, t - v)
            for i in range(n):
                rest = np.delete(v, i)
                assert k * t - (u.sum() - u[i]) == pytest.approx(smallest_sum(rest, k), abs=1e-12)


def _block_values(model, e: np.ndarray) -> np.ndarray:
    """Every variable of ``model`` at the pair point ``e``, block variables by the module text's
    formula: ``t = v_(k+1)`` (``v_(k)`` when ``k = |V|``), ``u = (t - v)^+``, ``z = k t - sum u``."""
    lp = model.lp
    full = np.zeros(lp.n_vars)
    full[: lp.n] = e
    for members, k, t, u, z in model.blocks:
        v = e[members]
        s = np.sort(v)
        tv = s[k] if k < s.size else s[-1]
        uv = np.maximum(0.0, tv - v)
        full[t], full[u], full[z] = tv, uv, k * tv - uv.sum()
    return full


def _feasible_points(pm, w, res, rng):
    st = pm.structure
    iu = np.triu_indices(pm.K, 1)
    x = (res.allocations[w] * pm.d)[iu]
    yield x
    yield ecw_allocation(st.beats, _cost_matrix(st), w)[1][iu]  # R^E is inside R (000 Theorem 6)
    for _ in range(3):  # covering rows: raising values keeps a point feasible
        yield np.minimum(1.0, x + rng.random(x.size) * rng.choice([0.05, 0.5]) * (rng.random(x.size) < 0.3))
    fam = CopelandFamily(pm, w)
    for _ in range(12):  # random points scaled onto R: every order of the values occurs
        e = rng.random(x.size) * (rng.random(x.size) < rng.choice([0.5, 1.0]))
        s = fam.min_row_sum(e)
        if s > 0:
            yield np.minimum(1.0, e / s)  # a row with a clipped entry holds through that entry


def _sorted_values(model, e: np.ndarray) -> np.ndarray:
    """Every variable of the sorted-pool ``model`` at the pair point ``e`` with each pool's values
    moved to the reverse order of its costs (the class text's exchange): the slot of position ``s``
    holds ``delta_s = e_(s) - e_(s+1)``; the winner blocks as :func:`_block_values`."""
    full = _block_values(model, e)
    ps = model._pool_start
    for i2 in range(model.family.K):
        a, b = ps[i2], ps[i2 + 1]
        vals = np.sort(e[model._seq_now[a:b]])[::-1]  # the largest value on the cheapest pair
        full[model._seq[a:b]] = vals - np.append(vals[1:], 0.0)
    return full


def test_sorted_model_rows_never_cut_off_a_feasible_point():
    """Every row of a solved sorted-pool model holds at points of ``R_{i1}`` moved to the order of
    the costs, at no higher cost: the model's optimum is at most ``C*_{i1}``."""
    rng = np.random.default_rng(40)
    mats = [random_matrix(K, 70 + K, min_gap=0.01) for K in (5, 8, 12, 16)]
    mats += [tournament_matrix(K, 80 + K) for K in (7, 10, 14, 20)]
    n_blocks = 0
    for pm in mats:
        solver = lp_solver()
        res = solver.solve(pm)
        assert res.status == "ok", res.message
        for w in pm.copeland_winners.tolist():
            model = solver._entry(pm.structure, w).sorted
            n_blocks += model.winner_blocks
            fam = CopelandFamily(pm, w)
            for e in _feasible_points(pm, w, res, rng):
                assert fam.max_violation(e) <= 1e-9
                full = _sorted_values(model, e)
                assert np.all(model.lp._lb - 1e-12 <= full) and np.all(full <= model.lp._ub + 1e-12)
                assert np.all(row_activity(model.lp, full) >= model.lp._lo - 1e-9)
                assert model.lp.costs @ full[: model.lp.n] <= model.pair_costs @ e * (1 + 1e-12) + 1e-12
    assert n_blocks > 0  # winner blocks were built and checked


@pytest.mark.parametrize("lift", [False, True])
def test_model_grows_without_deleting_and_reports_its_size(lift):
    pm = tournament_matrix(24, 4)
    assert pm.n_winners == 1  # stats sum over winners; one model here
    solver = lp_solver(lift=lift)
    res = solver.solve(pm)
    s = res.stats
    assert s["rows_removed"] == 0 and s["rows_readded"] == 0
    assert s["rows"] == s["cut_rows"] + s["block_rows"] == s["rows_added"]
    w = res.winner
    ent = solver._entry(pm.structure, w)
    model = ent.sorted if lift else ent.model
    fam = model.family
    if lift:  # one row per (i2, l, case), and the winner blocks (|I| + 1 rows each)
        assert model.cut_rows <= int(fam._ok.sum())
        assert s["block_rows"] == model.winner_blocks * (fam.inferiors.size + 1) > 0
    else:
        assert s["block_rows"] == 0 and s["model"] == "plain"
    # the pair columns are exactly the pairs some row uses
    used = np.unique(np.concatenate(model.lp.rows))
    used = used[used < model.lp.n]
    assert s["pair_columns"] == used.size <= fam.n_vars
    if not lift:  # a pair in no row has e = 0
        x = (res.allocation * pm.d)[np.triu_indices(pm.K, 1)]
        assert np.all(np.delete(x, used) == 0)
    # warm re-solves over moved costs keep adding to the same model, never deleting
    rng = np.random.default_rng(1)
    for _ in range(5):
        mu = 0.5 + (pm.mu - 0.5) * rng.uniform(0.5, 1.0, pm.mu.shape)
        mu = np.triu(mu, 1) + np.tril(1 - np.triu(mu, 1).T, -1) + 0.5 * np.eye(pm.K)
        r = solver.solve(PreferenceMatrix(mu), winners=[w])
        assert r.status == "ok" and r.stats["rows_removed"] == 0


def _highs_matrix(lp) -> np.ndarray:
    """The constraint matrix HiGHS holds, rows x variables (dense; small models only)."""
    a = lp.h.getLp().a_matrix_
    start, index, value = np.asarray(a.start_), np.asarray(a.index_), np.asarray(a.value_)
    A = np.zeros((lp.n_rows, lp.n_vars))
    for c in range(lp.n_cols):
        A[index[start[c] : start[c + 1]], lp._var[c]] = value[start[c] : start[c + 1]]
    return A


def test_derived_covering_lp_is_a_copy_its_source_keeps():
    """``CoveringLP.derived`` drops the rows it is told, takes the new costs, and shares nothing
    its source writes to: columns added to either later (pair variables the other never had) land
    in that model's HiGHS matrix only, and both solve to their own optimum (hand-worked)."""
    lp = CoveringLP(np.arange(1.0, 6.0))
    lp.add_rows([np.array([0, 1]), np.array([1, 2])])
    assert lp.solve().objective == pytest.approx(2.0)  # x1
    new = lp.derived(np.array([0]), np.ones(5), np.ones(5))
    assert (new.n_rows, lp.n_rows) == (1, 2)
    new.add_rows([np.array([3, 4])])  # columns the source has not got
    lp.add_rows([np.array([2, 4])])
    for m in (lp, new):
        dense = np.zeros((m.n_rows, m.n_vars))
        for r, idx in enumerate(m.rows):
            dense[r, idx] = 1.0
        np.testing.assert_array_equal(_highs_matrix(m), dense)
    assert lp.solve().objective == pytest.approx(4.0)  # x0 + x2 covers {0,1}, {1,2}, {2,4}
    assert new.solve().objective == pytest.approx(2.0)  # one of {1, 2} and one of {3, 4}


def _empirical_walk(rng, Ks, seed0: int, steps: int = 20):
    """Empirical structures walked by flips, ties made and undone: per ``K`` a random matrix
    (``seed0 + K``), then ``steps`` times one pair set to 1/2, flipped, or drawn anew."""
    from boundcalc.lp.structure import empirical_structure

    for K in Ks:
        mu = random_matrix(K, seed0 + K, min_gap=0.05).mu.copy()
        for _ in range(steps):
            i, j = rng.choice(K, 2, replace=False)
            mu[i, j] = rng.choice([0.5, 1.0 - mu[i, j], rng.uniform(0.05, 0.95)])
            mu[j, i] = 1.0 - mu[i, j]
            yield empirical_structure(mu)


@pytest.mark.slow
def test_derived_models_on_empirical_structures_equal_the_exact_lp():
    """Empirical structures with exact ties (a tied pair is in no row and bounded by 0), walked by
    flips, ties made and undone: every value of a solver that derives its models equals the exact
    rational LP over every row of 000 eq. (2)."""
    rng = np.random.default_rng(75)
    solver = lp_solver(derive=True, cache_size=2)
    checked = 0
    for st in _empirical_walk(rng, (5, 6, 7), 76):
        res = solver.solve_empirical(st, certify=True)  # certify: the LP, never Theorem 6
        assert res.status == "ok", res.message
        for w, v in res.per_winner.items():
            assert v == pytest.approx(exact_lower_bound(st, w), rel=1e-9, abs=1e-12)
            checked += 1
    assert solver.derived >= 10 and checked >= 30, (solver.derived, checked)


# ----------------------------------------------------------------------------- the compiled row builder
def _ordered(vals: np.ndarray, tb: np.ndarray, members: np.ndarray) -> np.ndarray:
    """``members`` (ascending arm indices) sorted by ``(vals[j], tb[j], j)`` by two stable sorts."""
    m1 = members[np.argsort(tb[members], kind="mergesort")]
    return m1[np.argsort(vals[m1], kind="mergesort")]


def _rows_reference(fam, E, sums, tol, per_i2, tb, z1, z2):
    """:func:`boundcalc.kernels.lp.copeland_rows` written in numpy from 000 Sec. 4.1.1: per violated ``i2``, its
    ``per_i2`` columns of smallest sums, each row the ``mI`` smallest of ``I_a \\ {i2}``, ``(a, i2)`` in case B and
    the ``mS`` smallest of the pool (equal values by ``tb``, then arm)."""
    a, pid, Ia = fam.winner, fam.pid, fam.inferiors
    npick = min(per_i2, sums.shape[1])
    pick_v, rows = [], []
    for i2 in range(fam.K):
        if not (1.0 - sums[i2].min() > tol):
            continue
        corder = np.argsort(sums[i2], kind="mergesort")
        porder = _ordered(E[i2], tb[i2], np.flatnonzero(fam.pool[i2]))
        word = _ordered(E[a], tb[i2], Ia[Ia != i2])
        for c in corder[:npick].tolist():
            s = sums[i2, c]
            if not (1.0 - s > tol):
                break
            own = pid[a, [i2]] if fam._caseB[c] else pid[a, :0]
            rows.append(np.concatenate([pid[a, word[: fam._mI[i2, c]]], own, pid[i2, porder[: fam._mS[i2, c]]]]))
            pick_v.append(1.0 - s)
    starts = np.zeros(len(rows) + 1, dtype=np.int64)
    starts[1:] = np.cumsum([r.size for r in rows], dtype=np.int64)
    idx = np.concatenate(rows) if rows else np.empty(0, dtype=np.int64)
    h1, h2 = (np.array([z[r].sum(dtype=np.uint64) for r in rows], dtype=np.uint64) for z in (z1, z2))
    return len(rows), np.array(pick_v, dtype=float), starts, idx, h1, h2


def test_compiled_row_builder_equals_a_numpy_reference():
    """The compiled row builder (:func:`boundcalc.kernels.lp.copeland_rows`) and a numpy reference written here give
    the same rows, violations and hashes."""
    from boundcalc.kernels.lp import copeland_rows as compiled

    rng = np.random.default_rng(9)
    n_rows = 0
    for k in range(30):
        pm = (
            tournament_matrix(int(rng.integers(3, 14)), 300 + k)
            if k % 2
            else random_matrix(int(rng.integers(3, 14)), k)
        )
        for w in pm.copeland_winners.tolist():
            fam = CopelandFamily(pm, w)
            E = np.round(rng.random((pm.K, pm.K)) * rng.choice([0.3, 1.0]), int(rng.integers(0, 3)))
            E = np.triu(E, 1) + np.triu(E, 1).T
            S = fam._sums(E)
            tb = rng.random((pm.K, pm.K)) if k % 3 else np.zeros((pm.K, pm.K))
            for per_i2 in (1, int(rng.integers(2, 5))):
                a = compiled(E, *fam.oracle_args(), fam.pid, S, tb, 1e-9, per_i2, *_zobrist(fam.n_vars))
                b = _rows_reference(fam, E, S, 1e-9, per_i2, tb, *_zobrist(fam.n_vars))
                assert a[0] == b[0]
                for x, y in zip(a[1:], b[1:]):
                    assert np.array_equal(x, y)
                h1, h2 = row_hashes(RowBlock(a[2], a[3], a[1]), fam.n_vars)
                assert np.array_equal(h1, a[4]) and np.array_equal(h2, a[5])
                n_rows += a[0]
    assert n_rows > 100


# ----------------------------------------------------------------------------- near ties
def _with_pair(mu: np.ndarray, i: int, j: int, value: float) -> np.ndarray:
    mu = mu.copy()
    mu[i, j], mu[j, i] = value, 1.0 - value
    return mu


def _exact(pm) -> float:
    st = pm.structure
    return min(exact_lower_bound(st, w) for w in st.winners.tolist())


@pytest.mark.parametrize(
    "name, eps",
    [("mslr5-condorcet", 1e-10), ("mslr5-condorcet", 1e-11), ("table2", 1e-11), ("mslr5-noncondorcet", 1e-11)],
)
def test_near_ties_on_bundled_matrices_equal_the_exact_lp(name, eps):
    # before the fix: the cutting plane ended in HiGHS's "Solve error" at 1e-10 (costs ~6e18) and
    # "Unknown" at 1e-11 (costs past HiGHS's infinite_cost 1e20); the enumeration raised cvxpy's
    # ValueError at 1e-11
    pm = PreferenceMatrix(_with_pair(load_example(name).mu, 0, 1, 0.5 + eps))
    ref = _exact(pm)
    for method in ("cutting-plane", "enumerate"):
        res = lower_bound(pm, method=method)
        assert res.value == pytest.approx(ref, rel=1e-9), method


@pytest.mark.slow
def test_near_ties_down_to_the_last_double_equal_the_exact_lp():
    # a user's matrix takes gaps above 1e-12 (PreferenceMatrix reads closer ones as ties): both
    # methods; an empirical matrix takes any gap a double holds: the cutting plane
    rng = np.random.default_rng(7)
    n = 0
    for _ in range(8):
        K = int(rng.integers(3, 7))
        mu = random_matrix(K, rng).mu
        iu = np.triu_indices(K, 1)
        for t in rng.choice(iu[0].size, int(rng.integers(1, 4)), replace=False):
            mu = _with_pair(mu, iu[0][t], iu[1][t], 0.5)
        for eps in (1e-8, 1e-11, 1.5e-12):
            pm = PreferenceMatrix(mu, ties="break", tie_epsilon=eps)
            ref = _exact(pm)
            for method in ("cutting-plane", "enumerate"):
                assert lower_bound(pm, method=method).value == pytest.approx(ref, rel=1e-9), (method, eps)
                n += 1
        for eps in (1e-14, 1.2e-16):
            emp = np.where(mu == 0.5, mu + eps * np.triu(np.ones((K, K)), 1) - eps * np.tril(np.ones((K, K)), -1), mu)
            assert check_conditioning(emp).solvable
            st = empirical_structure(emp)
            assert st.ties == 0
            ref = min(exact_lower_bound(st, w) for w in st.winners.tolist())
            res = CopelandLPSolver().solve_empirical(emp, certify=True)
            assert res.status == "ok" and res.value == pytest.approx(ref, rel=1e-9), eps
            n += 1
    assert n == 64


def test_near_ties_on_larger_matrices_agree_across_cut_kinds():
    rng = np.random.default_rng(11)
    for K in (12, 24):
        mu = random_matrix(K, rng).mu
        iu = np.triu_indices(K, 1)
        for t in rng.choice(iu[0].size, 4, replace=False):
            mu = _with_pair(mu, iu[0][t], iu[1][t], 0.5)
        pm = PreferenceMatrix(mu, ties="break", tie_epsilon=2e-12)
        vals = [lp_solver(lift=lift).solve(pm) for lift in (True, False)]
        assert all(r.status == "ok" for r in vals)
        assert max(r.value for r in vals) == pytest.approx(min(r.value for r in vals), rel=1e-9)


def test_check_conditioning():
    mu = np.array([[0.5, 0.5, 0.7], [0.5, 0.5, 0.6], [0.3, 0.4, 0.5]])
    well = check_conditioning(PreferenceMatrix(mu, ties="break", tie_epsilon=1e-3))
    assert well.solvable and well.allocation_resolved and well.min_gap == pytest.approx(1e-3)
    assert "well posed" in well.message
    far = check_conditioning(PreferenceMatrix(mu, ties="break", tie_epsilon=2e-12))
    assert far.solvable and not far.allocation_resolved and "allocation" in far.message
    assert far.cost_ratio > 1e20
    # an array is read as an empirical matrix: a tie left in place (1/2 + 1e-17 is 1/2) is reported
    gone = check_conditioning(mu + 1e-17 * (mu == 0.5))
    assert not gone.solvable and gone.min_gap == 0 and "not defined" in gone.message
    last = mu.copy()
    last[0, 1], last[1, 0] = np.nextafter(0.5, 1.0), 1.0 - np.nextafter(0.5, 1.0)
    assert check_conditioning(last).solvable
    assert MIN_SOLVABLE_GAP == np.nextafter(0.5, 1.0) - 0.5
    with pytest.raises(TypeError, match="not a Structure"):  # a structure holds no gaps
        check_conditioning(PreferenceMatrix(mu, ties="break", tie_epsilon=1e-3).structure)


# ----------------------------------------------------------------------------- HiGHS and cvxpy failures
def test_fallback_answers_a_failed_warm_solve(monkeypatch):
    lp = CoveringLP(np.array([1.0, 2.0, 3.0]))
    lp.add_rows([np.array([0, 1]), np.array([1, 2])])
    real = CoveringLP._run
    calls = []

    def flaky(self):
        calls.append(1)
        return "Solve error" if len(calls) <= 2 else real(self)  # warm and first fallback fail

    monkeypatch.setattr(CoveringLP, "_run", flaky)
    sol = lp.solve()
    assert sol.fallback == "presolve" and lp.fallbacks == 1
    assert sol.objective == pytest.approx(2.0) and sol.x.tolist() == [0.0, 1.0, 0.0]
    monkeypatch.setattr(CoveringLP, "_run", lambda self: "Solve error")
    with pytest.raises(SolverError, match="dual simplex: 'Solve error'; cold dual simplex.*interior point"):
        lp.solve()


def test_cvxpy_failures_are_solver_errors(monkeypatch):
    import cvxpy as cp

    def broken(self, *a, **k):
        raise ValueError("Cannot unpack invalid solution")

    monkeypatch.setattr(cp.Problem, "solve", broken)
    with pytest.raises(SolverError, match="HIGHS: ValueError: Cannot unpack.*CLARABEL"):
        lower_bound(load_example("table2"), method="enumerate")


@pytest.mark.slow  # the full suite
def test_one_highs_thread_count_whatever_solves_first():
    # HiGHS has one thread scheduler per process; cvxpy's HiGHS used to make it with the default
    # count, after which every model asking for one thread ended "Not Set"
    code = (
        "from boundcalc import load_example, lower_bound\n"
        "pm = load_example('table2')\n"
        "a = lower_bound(pm, method='enumerate').value\n"
        "b = lower_bound(pm).value\n"
        "assert abs(a - b) < 1e-9 * b, (a, b)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=120)
