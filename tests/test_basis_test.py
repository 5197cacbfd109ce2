"""The one warm-basis optimality test (boundcalc/kernels/basis.py: ``duals_keep_signs``), shared by
the LP core (``CoveringLP._reuse_basis``, duals from HiGHS's ``getBasisTransposeSolve``) and
CW-RMED's compiled line 11 (paper 000 = Komiyama, Honda & Nakagawa, ICML 2016, Algorithm 1;
``kernels.cw_rmed.copeland_run``, duals from its own inverse of the 0/1 basis matrix), checked
against HiGHS itself:

* CW-RMED's duals (``inverse_duals`` over ``basis_matrix``'s inverse) solve ``B^T y = c_B`` for the
  basis matrix ``B`` written out here from the model's rows and HiGHS's basic-variable list
  (numpy's dense solve), and equal HiGHS's own transpose solve;
* on random cost changes, plain (0/1 covering rows) and lifted models (blocks, auxiliary
  variables), random matrices with gaps down to 1e-7 and empirical structures with ties: where
  the test keeps the basis, HiGHS's warm ``run()`` takes 0 simplex iterations and returns the
  same solution; where it does not, HiGHS pivots (at least one iteration) or moves a boxed
  variable to its other bound (0 iterations, another solution) unless a dual lies in the margin
  between HiGHS's tolerance (1e-9) and the test's (5e-10); on plain models CW-RMED's path and the
  LP core's give the same verdict;
* the margins are defined once (``boundcalc.kernels``), and both callers run the one sign test.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from builders import empirical_state, lp_solver
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st_

import boundcalc.kernels as kernels
from boundcalc.datasets import random_matrix
from boundcalc.kernels.basis import duals_keep_signs
from boundcalc.kernels.cw_rmed import inverse_duals
from boundcalc.lp import empirical_structure
from boundcalc.lp import highs as highs_mod
from boundcalc.lp.highs import CoveringLP
from boundcalc.policies.cw_rmed import _basis_parts

PKG = Path(__file__).resolve().parents[1] / "boundcalc"
DUAL_MARGIN, ROUNDING = kernels.DUAL_MARGIN, kernels.ROUNDING


def _models(seed: int, K: int, gap: float, lift: bool, empirical: bool) -> list[CoveringLP]:
    """The warm models (one per Copeland winner) of a random matrix or empirical structure,
    solved by the LP core with HiGHS re-solving every time (``reuse_basis=False``)."""
    rng = np.random.default_rng(seed)
    if empirical:
        st = empirical_structure(empirical_state(K, rng))
    else:
        st = random_matrix(K, rng, min_gap=gap).structure
    solver = lp_solver(seed=0, lift=lift, reuse_basis=False)
    res = solver.solve_empirical(st, certify=True)  # certify: the LP, never Theorem 6's closed form
    assert res.status == "ok", res.message
    return [m for m in (solver.model(st, w) for w in st.winners.tolist()) if m is not None and m.n_rows]


def _cw_duals(parts, costs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CW-RMED's duals of the stored basis ``parts`` (``_basis_parts``) under ``costs``, over the
    tight rows, as its compiled step forms them."""
    _, _, bvar, minvT, _, _ = parts[:6]
    nb = bvar.size
    y, ymag = np.zeros(nb), np.zeros(nb)
    inverse_duals(costs, bvar, minvT.ravel(), np.zeros(nb), y, ymag)
    return y, ymag


def _cw_verdict(lp: CoveringLP, costs: np.ndarray) -> tuple[bool, np.ndarray] | None:
    """The test as CW-RMED's compiled step runs it (plain models): duals from its in-house inverse,
    judged by the shared ``duals_keep_signs``; None where CW-RMED would not keep the basis (the
    basis matrix on the tight rows not square and well conditioned)."""
    parts = _basis_parts(lp)
    if parts is None:
        return None
    x, code, bvar, _, rs, ri = parts[:6]
    y, ymag = _cw_duals(parts, costs)
    nv = code.size
    ok = duals_keep_signs(
        costs,
        y,
        ymag,
        np.ones(bvar.size, dtype=bool),
        rs,
        ri,
        np.ones(ri.size),
        code,
        DUAL_MARGIN,
        ROUNDING,
        np.zeros(nv),
        np.zeros(nv),
    )
    return bool(ok), x


def _basis_matrix(lp: CoveringLP) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``B`` (rows x rows) from the model's rows and HiGHS's basic variables (a column ``j`` is
    ``A``'s column, a basic row ``r`` its slack ``-e_r`` of ``A v - s = 0``), the basic costs'
    variables and ``A`` (rows x variables): written out with numpy, no HiGHS solve."""
    _, bv = lp.h.getBasicVariables()
    bv = np.asarray(bv, dtype=np.int64)
    m = lp.n_rows
    A = np.zeros((m, lp.n_vars))
    for r in range(m):
        s = slice(lp._starts[r], lp._starts[r + 1])
        A[r, lp._idx[s]] = lp._val[s]
    B = np.zeros((m, m))
    var = np.full(m, -1)
    for k, b in enumerate(bv.tolist()):
        if b >= 0:
            var[k] = lp._var[b]
            B[:, k] = A[:, var[k]]
        else:
            B[-1 - b, k] = -1.0
    return B, var, A


def test_cw_duals_solve_the_transposed_basis_system():
    """CW-RMED's duals from its own inverse equal, on the tight rows, numpy's ``B^{-T} c_B`` for the
    full basis matrix and HiGHS's own ``getBasisTransposeSolve``, for random costs (plain models:
    the only ones CW-RMED tests); the magnitudes bound the duals."""
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(4):
        for lp in _models(seed, 8, 0.02, False, empirical=False):
            parts = _basis_parts(lp)
            if parts is None:
                continue
            B, var, _ = _basis_matrix(lp)
            tight = ~lp.basis_status()[2]
            for _ in range(3):
                costs = rng.uniform(0.1, 50.0, lp.n)
                y, ymag = _cw_duals(parts, costs)
                cB = np.where(var >= 0, costs[np.maximum(var, 0)], 0.0)
                ref = np.linalg.solve(B.T, cB)
                np.testing.assert_allclose(y, ref[tight], rtol=1e-9, atol=1e-9 * np.abs(cB).max())
                np.testing.assert_allclose(ref[~tight], 0.0, atol=1e-9 * np.abs(cB).max())  # basic slacks
                _, hy = lp.h.getBasisTransposeSolve(cB)
                np.testing.assert_allclose(y, np.asarray(hy)[tight], rtol=1e-9, atol=1e-9 * np.abs(cB).max())
                assert np.all(ymag >= np.abs(y) - 1e-12)
                checked += 1
    assert checked >= 12


def _margin_case(lp: CoveringLP, costs: np.ndarray) -> bool:
    """Whether some dual of the stored basis under ``costs`` has the wrong sign by less than HiGHS's
    tolerance (1e-9, up to rounding): HiGHS may keep such a basis, the test does not."""
    B, var, A = _basis_matrix(lp)
    _, status, row_basic = lp.basis_status()
    c = np.concatenate([costs, np.zeros(lp.n_vars - costs.size)])
    y = np.linalg.solve(B.T, np.where(var >= 0, c[np.maximum(var, 0)], 0.0))
    worst = y[~row_basic].min(initial=np.inf)
    d = c - A.T @ y
    moves = lp._ub > lp._lb
    worst = min(worst, d[(status == 0) & moves].min(initial=np.inf), (-d[(status == 2) & moves]).min(initial=np.inf))
    return worst > -1e-9 * (1 + 1e-6)


def _check_cost_changes(lp: CoveringLP, rng: np.random.Generator, changes: int, lift: bool) -> tuple[int, int]:
    """Random cost changes of ``lp`` (a pair's cost moved a little, as online, or all at once): the
    LP core's verdicts (and, on plain models, CW-RMED's) against HiGHS's warm run.  Returns (kept,
    re-solved) counts."""
    kept = moved = 0
    base = lp.costs.copy()
    costs = base
    for k in range(changes):
        if k % 3:
            costs = costs.copy()
            p = rng.integers(costs.size)
            costs[p] *= np.exp(rng.normal(0.0, 0.05))
        else:
            costs = base * np.exp(rng.normal(0.0, 0.2, base.size))
        x0 = lp._last.x
        lp.set_costs(costs)
        core = lp._reuse_basis()  # the LP core's path: HiGHS's transpose solve, the shared sign test
        keep = core is not None
        if keep:
            assert np.array_equal(core.x, x0)
        cw = None if lift else _cw_verdict(lp, costs)
        if cw is not None:
            assert cw[0] == keep, k  # CW-RMED's path: the same verdict
            np.testing.assert_array_equal(cw[1][: lp.n], x0)
        margin = _margin_case(lp, costs)
        reused0 = lp.reused
        sol = lp.solve()  # reuse_basis=False: HiGHS runs
        assert lp.reused == reused0
        if keep:
            assert sol.simplex_iterations == 0, k
            np.testing.assert_allclose(sol.x, x0, rtol=0, atol=1e-9)
            kept += 1
        else:
            # HiGHS pivots, or flips a boxed variable to its other bound (0 iterations, another x)
            changed = sol.simplex_iterations > 0 or not np.allclose(sol.x, x0, rtol=0, atol=1e-9)
            assert changed or margin, k
            moved += 1
    return kept, moved


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st_.integers(0, 10**6),
    K=st_.integers(4, 9),
    gap=st_.sampled_from([0.05, 1e-3, 1e-7]),
    lift=st_.booleans(),
    empirical=st_.booleans(),
)
def test_kept_bases_are_those_highs_keeps(seed, K, gap, lift, empirical):
    """Where the shared test keeps a basis, HiGHS's warm run takes 0 iterations and returns its
    solution; where it does not, HiGHS pivots (or a dual is inside the margin); CW-RMED's and the
    LP core's paths agree (module text)."""
    rng = np.random.default_rng(seed + 1)
    for lp in _models(seed, K, gap, lift, empirical):
        lp.reuse_basis = False
        _check_cost_changes(lp, rng, 12, lift)


@pytest.mark.parametrize("lift", [False, pytest.param(True, marks=pytest.mark.slow)])  # lifted: 15-27 s
def test_both_verdicts_occur_on_many_cost_changes(lift):
    """200 cost changes on 9-arm models: the test keeps the basis in some and not in others,
    each verdict confirmed by HiGHS's run (the property test above, on a fixed larger sample)."""
    rng = np.random.default_rng(17)
    kept = moved = 0
    for seed in range(3):
        for lp in _models(seed, 9, 1e-3, lift, empirical=False):
            lp.reuse_basis = False
            a, b = _check_cost_changes(lp, rng, 200 // 3, lift)
            kept += a
            moved += b
    assert kept >= 40 and moved >= 10, (kept, moved)


def _assignments(name: str) -> list[str]:
    """The package modules that assign ``name`` at any level (a definition, not an import)."""
    out = []
    for p in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, (ast.AnnAssign, ast.AugAssign))
                else []
            )
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                out.append(str(p.relative_to(PKG.parent)))
    return out


@pytest.mark.parametrize("name", ["DUAL_MARGIN", "ROUNDING"])
@pytest.mark.slow
def test_the_margins_are_defined_once(name):
    """One definition of each margin, in the compiled layer's numba-free ``__init__``; the LP core
    and CW-RMED's kernel read that one (the value: half HiGHS's dual tolerance 1e-9, set on every
    model; the rounding allowance 1e-13)."""
    assert _assignments(name) == ["boundcalc/kernels/__init__.py"]
    assert getattr(highs_mod, name) is getattr(kernels, name)
    assert kernels.DUAL_MARGIN == 0.5 * 1e-9 and kernels.ROUNDING == 1e-13


@pytest.mark.slow
def test_both_callers_run_the_one_sign_test():
    """The LP core's ``_reuse_basis`` and CW-RMED's decision (``copeland_run``) both call
    ``duals_keep_signs``, and nothing else in the package compares against the margins."""
    callers = {}
    stored = set()
    users = set()
    for p in PKG.rglob("*.py"):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef):
                for node in ast.walk(fn):
                    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "duals_keep_signs":
                        callers[fn.name] = str(p.relative_to(PKG.parent))
                    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "stored_basis_optimal":
                        stored.add((str(p.relative_to(PKG.parent)), fn.name))
                    if isinstance(node, ast.Name) and node.id in ("DUAL_MARGIN", "ROUNDING"):
                        users.add((str(p.relative_to(PKG.parent)), fn.name))
    # CW-RMED's side through one function, ``stored_basis_optimal``, which the decision and the
    # compiled simplex's re-solve of a stored basis (the test on its answer) both call
    assert callers == {
        "_reuse_basis": "boundcalc/lp/highs.py",
        "stored_basis_optimal": "boundcalc/kernels/cw_rmed.py",
    }
    assert stored == {
        ("boundcalc/kernels/cw_rmed.py", "copeland_run"),
        ("boundcalc/kernels/cw_rmed.py", "resolve_from_basis"),
    }
    # the margins are read only to be passed to the sign test (and in its own doctest's module), or
    # to the compiled simplex, whose pricing and stopping rule are the test's signs and margins
    assert users == {
        ("boundcalc/lp/highs.py", "_reuse_basis"),
        ("boundcalc/kernels/cw_rmed.py", "stored_basis_optimal"),
        ("boundcalc/kernels/cw_rmed.py", "resolve_from_basis"),
        ("boundcalc/lp/highs.py", "_solve_simplex"),
    }
