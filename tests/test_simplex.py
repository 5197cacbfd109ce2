"""The compiled bounded primal simplex (:mod:`boundcalc.kernels.simplex`) on 0/1 covering LPs.

Independent confirmations: the optimal value of every vertex of the LP, enumerated by brute force
(small K: every choice of ``n`` active constraints among the rows and bounds, solved densely, kept
when feasible), and HiGHS (through the LP core's :class:`~boundcalc.lp.highs.CoveringLP`): the same
optimum, and with distinct (perturbed) costs the same vertex, from the trivial basis (every
variable at its upper bound) and warm from HiGHS's own optimal basis of other costs -- the case
CW-RMED's line 11 meets (paper 000, Algorithm 1, line 11: the costs move, the rows stay).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from builders import lp_solver
from hypothesis import given, settings
from hypothesis import strategies as st

from boundcalc.kernels import DUAL_MARGIN, ROUNDING
from boundcalc.kernels.basis import AT_UPPER, SKIP
from boundcalc.kernels.cw_rmed import basis_matrix
from boundcalc.kernels.perturb import perturb_costs
from boundcalc.kernels.simplex import (
    CAPACITY,
    INFEASIBLE,
    ITERATION_LIMIT,
    OPTIMAL,
    invert_basis,
    solve_from_basis,
)
from boundcalc.lp.highs import CoveringLP


def brute_force(rows: list[np.ndarray], ub: np.ndarray, cost: np.ndarray) -> float:
    """min c.x over {A x >= 1, 0 <= x <= ub} by enumerating its vertices (inf when infeasible)."""
    n = cost.size
    A, b = [], []
    for r in rows:
        a = np.zeros(n)
        a[r] = 1.0
        A.append(a)
        b.append(1.0)
    for j in range(n):
        e = np.zeros(n)
        e[j] = 1.0
        A += [e, -e]
        b += [0.0, -ub[j]]
    A, b = np.array(A), np.array(b)
    best = np.inf
    for S in itertools.combinations(range(len(A)), n):
        M = A[list(S)]
        if abs(np.linalg.det(M)) < 1e-9:
            continue
        x = np.linalg.solve(M, b[list(S)])
        if np.all(A @ x >= b - 1e-9):
            best = min(best, float(cost @ x))
    return best


def csr(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    starts = np.zeros(len(rows) + 1, dtype=np.int64)
    starts[1:] = np.cumsum([r.size for r in rows])
    return starts, np.concatenate(rows).astype(np.int64)


def cold(cost, ub, rows, maxit=500):
    """The simplex from every variable at its upper bound (no tight row: primal feasible when every
    row has a free variable)."""
    n = cost.size
    starts, idx = csr(rows)
    x = ub.astype(float).copy()
    code = np.where(ub > 0, AT_UPPER, SKIP).astype(np.int8)
    cap = n
    bvar, trow, minv = np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap * cap)
    status, nb, piv = solve_from_basis(
        cost, ub, starts, idx, x, code, 0, bvar, trow, minv, maxit, DUAL_MARGIN, ROUNDING
    )
    return status, x, nb, piv


@st.composite
def covering_lp(draw, max_n=5, max_m=6, degenerate=False):
    n = draw(st.integers(2, max_n))
    m = draw(st.integers(1, max_m))
    rows = []
    for _ in range(m):
        mask = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        if not any(mask):
            mask[draw(st.integers(0, n - 1))] = True
        rows.append(np.flatnonzero(mask))
    ub = np.array(draw(st.lists(st.sampled_from([1.0, 1.0, 1.0, 0.0]), min_size=n, max_size=n)))
    for r in rows:  # every row keeps a free variable (the LP is feasible)
        if not np.any(ub[r] > 0):
            ub[r[0]] = 1.0
    if degenerate:  # small integer costs: many optimal vertices, ties in every ratio test
        cost = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=float)
    else:
        cost = np.array(draw(st.lists(st.floats(0.0, 10.0), min_size=n, max_size=n)))
        cost = perturb_costs(cost, 1e-6)  # CW-RMED's perturbation: one optimal vertex (generically)
    return rows, ub, cost


@settings(max_examples=150, deadline=None, derandomize=True)
@given(covering_lp())
@pytest.mark.slow
def test_cold_optimum_is_the_best_vertex(lp):
    rows, ub, cost = lp
    status, x, _, _ = cold(cost, ub, rows)
    assert status == OPTIMAL
    assert cost @ x == pytest.approx(brute_force(rows, ub, cost), rel=1e-9, abs=1e-12)
    for r in rows:
        assert x[r].sum() >= 1 - 1e-9
    assert np.all((x >= 0) & (x <= ub))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(covering_lp(degenerate=True))
@pytest.mark.slow
def test_degenerate_optimum_is_the_best_vertex(lp):
    rows, ub, cost = lp
    status, x, _, _ = cold(cost, ub, rows)
    assert status == OPTIMAL
    assert cost @ x == pytest.approx(brute_force(rows, ub, cost), abs=1e-9)


def highs_model(cost, ub, rows):
    lp = CoveringLP(cost, upper=ub, reuse_basis=False, options={"dual_simplex_cost_perturbation_multiplier": 0.0})
    lp.add_rows(rows)
    return lp


def stored_basis(lp):
    """HiGHS's last basis in the form CW-RMED's kernel keeps it (policies.cw_rmed._basis_parts)."""
    x, status, row_basic = lp.basis_status()
    status[(lp._ub <= lp._lb) & (status != 1)] = 3
    ok, bvar, _, _, minvT = basis_matrix(status, row_basic, lp._starts, lp._idx)
    status[status == 3] = SKIP
    return ok, x, status, bvar, np.flatnonzero(~row_basic), minvT


def test_warm_from_highs_basis_lands_on_highs_vertex():
    """Random 12-variable covering LPs: HiGHS solves costs c1; the costs move to c2 (distinct,
    perturbed as CW-RMED's); the simplex from HiGHS's c1 basis returns HiGHS's c2 vertex, through
    every kind of basis change (the basis grows, shrinks, and keeps its size)."""
    kinds = set()
    pivots = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        n, m = 12, int(rng.integers(8, 30))
        rows = [np.flatnonzero(rng.random(n) < 0.3) for _ in range(m)]
        rows = [r if r.size else np.array([int(rng.integers(n))]) for r in rows]
        ub = np.ones(n)
        ub[rng.random(n) < 0.1] = 0.0
        for r in rows:
            if not np.any(ub[r] > 0):
                ub[r[0]] = 1.0
        g = (np.arange(n) * 0.37) % 1.0
        c1 = rng.exponential(1.0, n) * (1 + 1e-6 * g) + 1e-6 * g
        c2 = c1 * np.exp(rng.normal(0, 0.7, n))
        lp = highs_model(c1, ub, rows)
        lp.solve()
        ok, x, code, bvar, trow, minvT = stored_basis(lp)
        assert ok
        nb = bvar.size
        cap = n
        bv, tr, minv = np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap * cap)
        bv[:nb], tr[:nb] = bvar, trow
        Minv = minvT.reshape(nb, nb).T
        for b in range(nb):
            minv[b * cap : b * cap + nb] = Minv[b]
        status, nb2, piv = solve_from_basis(
            c2, ub, lp._starts, lp._idx, x, code, nb, bv, tr, minv, 200, DUAL_MARGIN, ROUNDING
        )
        assert status == OPTIMAL
        want = highs_model(c2, ub, rows).solve().x
        np.testing.assert_allclose(x, want, atol=1e-9)
        pivots += piv
        kinds.add(int(np.sign(nb2 - nb)) if piv else None)
        # the final inverse is that of the final basis
        Mf = np.array([[1.0 if v in set(lp._idx[lp._starts[r] : lp._starts[r + 1]].tolist()) else 0.0
                        for v in bv[:nb2]] for r in tr[:nb2]])  # fmt: skip
        got = np.array([minv[b * cap : b * cap + nb2] for b in range(nb2)])
        np.testing.assert_allclose(got @ Mf, np.eye(nb2), atol=1e-9)
    assert pivots > 60 and {-1, 0, 1} <= kinds


def test_iteration_limit_and_capacity_are_reported():
    """A cap of 0 pivots on a basis that is not optimal, and buffers too small to hold the optimal
    basis: the status says so (the caller then asks HiGHS), never an answer."""
    rows = [np.array([0, 1]), np.array([1, 2]), np.array([0, 2])]
    cost, ub = np.array([1.0, 1.1, 1.2]), np.ones(3)
    status, _, _, _ = cold(cost, ub, rows, maxit=0)
    assert status == ITERATION_LIMIT
    starts, idx = csr(rows)
    x, code = np.ones(3), np.full(3, AT_UPPER, dtype=np.int8)
    # the optimum (1/2, 1/2, 1/2) has 3 basic variables; room for 1
    status, *_ = solve_from_basis(
        cost,
        ub,
        starts,
        idx,
        x,
        code,
        0,
        np.zeros(1, np.int64),
        np.zeros(1, np.int64),
        np.zeros(1),
        50,
        DUAL_MARGIN,
        ROUNDING,
    )
    assert status == CAPACITY
    status, x, nb, _ = cold(cost, ub, rows)  # with room: the fractional vertex, by hand
    assert status == OPTIMAL and nb == 3
    np.testing.assert_allclose(x, [0.5, 0.5, 0.5])


def test_invert_basis_matches_numpy_and_refuses_singular():
    rows = [np.array([0, 1]), np.array([1, 2]), np.array([0, 2]), np.array([0, 1, 2])]
    starts, idx = csr(rows)
    pos = np.array([0, 1, 2])
    minv, work = np.zeros(16), np.zeros(16)
    assert invert_basis(np.array([0, 1, 2]), np.array([0, 1, 2]), 3, starts, idx, pos, minv, 4, work)
    M = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]], float)
    np.testing.assert_allclose(minv.reshape(4, 4)[:3, :3], np.linalg.inv(M), atol=1e-15)
    # rows 0, 1 and 3 restricted to variables 0 and 2 ... a singular choice: rows {0, 1, 3} on {0, 1, 2}
    M2 = np.array([[1, 1, 0], [0, 1, 1], [1, 1, 1]], float)
    assert abs(np.linalg.det(M2)) > 0.5  # not singular: a control
    assert invert_basis(np.array([0, 1, 3]), np.array([0, 1, 2]), 3, starts, idx, pos, minv, 4, work)
    rows_s = [np.array([0, 1]), np.array([0, 1]), np.array([2])]
    s2, i2 = csr(rows_s)
    assert not invert_basis(np.array([0, 1, 2]), np.array([0, 1, 2]), 3, s2, i2, pos, minv, 4, work)


def slack_start(cost, ub, rows, maxit=500):
    """:func:`solve_from_basis` from the slack basis (every variable at 0: dual feasible)."""
    n = cost.size
    starts, idx = csr(rows)
    x = np.zeros(n)
    code = np.where(ub > 0, 0, SKIP).astype(np.int8)
    bvar, trow, minv = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n * n)
    return solve_from_basis(cost, ub, starts, idx, x, code, 0, bvar, trow, minv, maxit, DUAL_MARGIN, ROUNDING), x


@settings(max_examples=150, deadline=None, derandomize=True)
@given(covering_lp())
@pytest.mark.slow
def test_dual_from_the_slack_basis_is_the_best_vertex(lp):
    rows, ub, cost = lp
    (status, _, _), x = slack_start(cost, ub, rows)
    assert status == OPTIMAL
    assert cost @ x == pytest.approx(brute_force(rows, ub, cost), rel=1e-9, abs=1e-12)
    # distinct costs: one optimal vertex, the one HiGHS finds
    np.testing.assert_allclose(x, highs_model(cost, ub, rows).solve().x, atol=1e-9)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(covering_lp(degenerate=True))
@pytest.mark.slow
def test_dual_degenerate_optimum_is_the_best_vertex(lp):
    rows, ub, cost = lp
    (status, _, _), x = slack_start(cost, ub, rows)
    assert status == OPTIMAL
    assert cost @ x == pytest.approx(brute_force(rows, ub, cost), abs=1e-9)


def test_dual_after_new_rows_lands_on_highs_vertex():
    """A cutting plane's round: HiGHS's optimal basis of some rows, more rows added (violated at its
    optimum); the dual simplex from that basis returns HiGHS's optimum of all the rows."""
    dual_pivots = 0
    for seed in range(60):
        rng = np.random.default_rng(100 + seed)
        n, m = 12, int(rng.integers(10, 30))
        rows = [np.flatnonzero(rng.random(n) < 0.3) for _ in range(m)]
        rows = [r if r.size else np.array([int(rng.integers(n))]) for r in rows]
        ub = np.ones(n)
        g = (np.arange(n) * 0.37) % 1.0
        c = rng.exponential(1.0, n) * (1 + 1e-6 * g) + 1e-6 * g
        k = m // 2
        lp = highs_model(c, ub, rows[:k])
        lp.solve()
        ok, x, code, bvar, trow, minvT = stored_basis(lp)
        assert ok
        lp.add_rows(rows[k:])  # the rows HiGHS's basis does not know: their slacks basic
        nb, cap = bvar.size, n
        bv, tr, minv = np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap * cap)
        bv[:nb], tr[:nb] = bvar, trow
        Minv = minvT.reshape(nb, nb).T
        for b in range(nb):
            minv[b * cap : b * cap + nb] = Minv[b]
        before = x.copy()
        status, nb2, piv = solve_from_basis(
            c, ub, lp._starts, lp._idx, x, code, nb, bv, tr, minv, 300, DUAL_MARGIN, ROUNDING
        )
        assert status == OPTIMAL
        np.testing.assert_allclose(x, lp.solve().x, atol=1e-9)
        violated = min(before[r].sum() for r in rows[k:]) < 1 - 1e-9
        dual_pivots += piv if violated else 0
    assert dual_pivots > 60


def test_infeasible_is_reported():
    """A row whose every variable is fixed at 0 cannot hold: INFEASIBLE, not an answer."""
    rows = [np.array([0, 1]), np.array([2])]
    cost, ub = np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 0.0])
    (status, _, _), _ = slack_start(cost, ub, rows)
    assert status == INFEASIBLE


@pytest.mark.parametrize("example", ["table2", "fig1a", "mslr5-condorcet"])
def test_lp_core_with_the_simplex_certifies_the_same_value(example):
    """``lp_solver(simplex=True)`` (plain models, perturbed costs): the same allocation and
    constant as HiGHS's solver, certified by the dual bound from the simplex's own duals (the
    certificate's re-solve with the true costs is the primal simplex from the perturbed optimum);
    Table 2's constant is paper 000's 27.5487."""
    from boundcalc.datasets import load_example

    pm = load_example(example)
    kw = dict(lift=False, perturb=1e-6, compiled=True)
    a = lp_solver(simplex=True, **kw).solve(pm)
    b = lp_solver(**kw).solve(pm)
    assert a.status == b.status == "ok"
    assert a.stats["lp_solves"] == 0 and b.stats["lp_solves"] > 0  # no HiGHS run with the simplex
    assert a.value == pytest.approx(b.value, rel=1e-12)
    for w in b.allocations:
        np.testing.assert_allclose(a.allocations[w], b.allocations[w], atol=1e-9)
        c = a.certificates[w]
        assert c.dual_bound == pytest.approx(c.primal_bound, rel=1e-7)
    if example == "table2":
        assert round(a.value, 4) == 27.5487
