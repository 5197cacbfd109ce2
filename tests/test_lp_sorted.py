"""The sorted-pool model of the lower-bound LP (:class:`boundcalc.lp.lifted.SortedPoolModel`,
:class:`boundcalc.lp.CopelandLPSolver`'s lifted model: ``lower_bound``'s and the bootstrap's path), against independent references.

* its value per Copeland winner equals the exact rational LP over every row of ``R_{i1}``
  (:func:`test_review_lp.exact_lower_bound`: 000 eq. (2) enumerated with itertools, no code shared)
  on the small tournaments of every kind, and the lifted cutting plane
  (:class:`~boundcalc.lp.online.CopelandLPSolver`, certified) on random matrices, uniform
  tournaments, near ties and drawn 136-arm MSLR matrices;
* the ordering it rests on (some optimum has every pool's values in the reverse order of its
  costs): its allocation is feasible for the whole family and so ordered, and an exact optimum,
  re-sorted so, stays feasible at the same cost -- by brute force over the rows;
* every row it holds is a row of the family at ordered points (its pool part is the sum over the
  ``m`` most expensive pairs), and its delta variables give back the pair values;
* a stall (HiGHS's tolerances) is reported as ``status="failed"``, and the bootstrap then answers
  with the lifted cutting plane.
"""

from __future__ import annotations

import numpy as np
import pytest
from builders import lp_solver, row_activity, tournament_cases
from test_review_lp import exact_lower_bound

from boundcalc import PreferenceMatrix, load_example
from boundcalc.datasets import random_matrix, tournament_matrix
from boundcalc.lp import CopelandFamily, CopelandLPSolver
from boundcalc.lp.constraints import _as_square
from boundcalc.lp.cutting import pair_costs
from boundcalc.lp.lifted import SortedPoolModel, sorted_rounds
from boundcalc.lp.structure import as_structure, structure_d, triu


def sorted_solve(st):
    """Every winner's ``C*`` on the sorted-pool model (a certified solve: no Theorem 6), with no
    fallback to the pool blocks."""
    solver = CopelandLPSolver()
    res = solver.solve_empirical(st, certify=True)
    assert solver.sorted_fallbacks == 0
    return res


def _drawn_mslr(n: int, r: int, seed: int = 0) -> PreferenceMatrix:
    """Draw ``r`` of the bootstrap of ``n`` simulated duels per pair of the 136-arm MSLR
    informational matrix (what ``benchmarks/bootstrap.py`` times)."""
    from boundcalc.uncertainty import draw_matrix

    mu = load_example("mslr-informational").mu
    iu = np.triu_indices(136, 1)
    W = np.zeros((136, 136))
    w = np.random.default_rng(seed).binomial(n, mu[iu])
    W[iu], W[(iu[1], iu[0])] = w, n - w
    return draw_matrix(W, r, seed)


def test_sorted_pools_equal_the_exact_rational_lp_on_small_tournaments():
    cases = tournament_cases(n_per_K=12, Ks=range(3, 7))
    seen_multi = 0
    for K, kind, pm in cases:
        st = as_structure(pm)
        res = sorted_solve(st)
        assert res.status == "ok", (K, kind, res.message)
        seen_multi += st.winners.size > 1
        for w in st.winners.tolist():
            assert res.per_winner[w] == pytest.approx(exact_lower_bound(st, w), rel=1e-8, abs=1e-10), (K, kind, w)
    assert seen_multi > 0  # the per-winner loop runs on several winners too


@pytest.mark.parametrize(
    "make",
    [
        lambda s: random_matrix(24, s),
        lambda s: random_matrix(40, s, condorcet=True),
        lambda s: tournament_matrix(32, s),
        lambda s: tournament_matrix(64, s),
        lambda s: tournament_matrix(48, s, low=1e-4, high=0.02),  # near ties: costs over many orders
    ],
    ids=["random-24", "condorcet-40", "tournament-32", "tournament-64", "near-tie-48"],
)
@pytest.mark.slow
def test_sorted_pools_equal_the_plain_cutting_plane(make):
    for s in range(3):
        pm = make(100 + s)
        st = as_structure(pm)
        res = sorted_solve(st)
        ref = lp_solver(lift=False).solve(pm)  # certified: violation and duality gap checked
        assert res.status == "ok" and ref.status == "ok"
        assert res.per_winner.keys() == ref.per_winner.keys()
        for w, v in ref.per_winner.items():
            assert res.per_winner[w] == pytest.approx(v, rel=1e-7), w


@pytest.mark.slow
def test_sorted_pools_equal_the_plain_cutting_plane_on_drawn_136_arm_matrices():
    """The bootstrap's weak-data draws (10^4 duels per pair), where the plain model grows large."""
    n = 10**4
    done = 0
    for r in range(12):
        pm = _drawn_mslr(n, r)
        if pm.copeland_winners.size > 1:
            continue
        st = as_structure(pm)
        res = sorted_solve(st)
        ref = lp_solver(per_i2=3, lift=False).solve(pm, certify=False)
        assert res.status == "ok" and ref.status == "ok"
        assert res.value == pytest.approx(ref.value, rel=1e-8)
        assert res.stats["rows"] < 3000 and ref.stats["rows"] > 0
        done += 1
        if done == 2:
            break
    assert done == 2


def test_the_allocation_is_feasible_and_every_pool_ordered_against_its_costs():
    for pm in (tournament_matrix(40, 5), random_matrix(30, 6), _drawn_mslr(1000, 0)):
        st = as_structure(pm)
        res = sorted_solve(st)
        costs = pair_costs(st)
        d = structure_d(st)
        for w in st.winners.tolist():
            fam = CopelandFamily(st, w)
            E = res.allocations[w] * d  # e = q d
            assert fam.max_violation(E) <= 1e-9
            assert float(costs @ E[triu(st.K)]) == pytest.approx(res.per_winner[w], rel=1e-12)
            C = _as_square(costs, st.K)
            for i2 in range(st.K):
                P = np.flatnonzero(fam.pool[i2])
                o = P[np.argsort(C[i2, P], kind="stable")]
                assert np.all(np.diff(E[i2, o]) <= 1e-12)  # cheapest largest


def test_reordering_an_exact_optimum_keeps_it_feasible_and_optimal_by_brute_force():
    """The lemma itself: for an optimum of the full LP (every row written out), sorting each pool's
    values against its costs keeps every row of R_{i1} (brute force over the enumerated rows) and
    does not raise the cost; so the ordered problem has the same optimum."""
    from boundcalc.lp.full import lower_bound_enumerate

    checked = 0
    for K, kind, pm in tournament_cases(n_per_K=8, Ks=range(4, 7), seed=11):
        st = as_structure(pm)
        full = lower_bound_enumerate(pm)
        costs = pair_costs(st)
        C = _as_square(costs, K)
        d = structure_d(st)
        for w in st.winners.tolist():
            fam = CopelandFamily(st, w)
            rows = fam.enumerate()
            E = full.allocations[w] * d
            F = E.copy()
            for i2 in range(K):
                P = np.flatnonzero(fam.pool[i2])
                o = P[np.argsort(C[i2, P], kind="stable")]
                F[i2, o] = np.sort(E[i2, P])[::-1]
                F[o, i2] = F[i2, o]
            f = F[triu(K)]
            assert all(f[r].sum() >= 1 - 1e-7 for r in rows)
            assert costs @ f <= costs @ E[triu(K)] + 1e-9 * max(1.0, costs @ E[triu(K)])
            checked += 1
    assert checked > 20


def test_every_row_of_the_model_is_a_row_of_the_family_at_ordered_points():
    """At random ordered points (each pool's values sorted against its costs) the model's rows,
    read through the delta variables, never exceed the family's smallest row sum of their
    (i2, l, case) -- with the winner blocks set by the module text's formula they are equal."""
    rng = np.random.default_rng(8)
    pm = tournament_matrix(20, 3)
    st = as_structure(pm)
    costs = pair_costs(st)
    upper = np.ones(costs.size)
    w = int(st.winners[0])
    fam = CopelandFamily(st, w)
    model = SortedPoolModel(fam, costs, upper)
    # every (i2, l, case) as a row: violated everywhere at E = 0
    model.add_cuts(np.zeros((st.K, st.K)), -np.inf, 10**6)
    assert model.cut_rows == int(fam._ok.sum())
    C = _as_square(costs, st.K)
    seq, start = model._seq, model._pool_start
    for _ in range(20):
        E = np.triu(rng.random((st.K, st.K)) * (rng.random((st.K, st.K)) < 0.7), 1)
        E = E + E.T
        for i2 in range(st.K):  # order every pool against its costs
            P = np.flatnonzero(fam.pool[i2])
            o = P[np.argsort(C[i2, P], kind="stable")]
            E[i2, o] = np.sort(E[i2, P])[::-1]
            E[o, i2] = E[i2, o]
        e = E[triu(st.K)]
        x = np.zeros(model.lp.n_vars)
        x[: e.size] = e
        # delta_s = e_(s) - e_(s+1) along each pool (positions by cost)
        for i2 in range(st.K):
            v = e[seq[start[i2] : start[i2 + 1]]]
            x[seq[start[i2] : start[i2 + 1]]] = v - np.concatenate([v[1:], [0.0]])
        assert np.allclose(model.pair_values(x), e)
        # the winner blocks at the module text's point: t = v_(k+1), u = (t - v)^+, z = SS_k
        va = e[fam.pid[w, fam.inferiors]]
        sv = np.sort(va)
        for blk in model.blocks:
            members, k, t, u, z = blk
            tt = sv[min(k, sv.size - 1)]
            x[t], x[u], x[z] = tt, np.maximum(0.0, tt - va), sv[:k].sum()
        act = row_activity(model.lp, x)
        S = fam._sums(E)
        cut = np.flatnonzero(model._row_i2 >= 0)
        cols = np.argwhere(model._lifted)
        # the cut rows were added in argwhere order of (i2, c) with per_i2 large: match by (i2, c)
        assert cut.size == cols.shape[0]
        for r, (i2, c) in zip(cut.tolist(), cols.tolist()):
            assert act[r] == pytest.approx(S[i2, c], abs=1e-9)


def test_a_stall_is_reported_and_the_bootstrap_falls_back_to_the_plain_model(monkeypatch):
    from boundcalc.uncertainty import _lower_bound

    pm = next(m for s in range(20) if (m := tournament_matrix(24, s)).copeland_winners.size == 1)
    good = _lower_bound(pm)
    assert good.stats["model"] == "sorted pools" and good.stats["cut_rows"] > 0
    monkeypatch.setattr(SortedPoolModel, "add_cuts", lambda self, *a, **k: 0)
    st = as_structure(pm)
    fam = CopelandFamily(st, int(st.winners[0]))
    model = SortedPoolModel(fam, pair_costs(st), np.ones(fam.n_vars))
    e, v, why = sorted_rounds(model, 1e-9, 3, 100)
    assert e is None and v > 1e-9 and "all in the model already" in why
    back = _lower_bound(pm)
    assert back.stats["model"] == "plain" and back.stats["block_rows"] == 0
    assert back.value == pytest.approx(good.value, rel=1e-8)


@pytest.mark.parametrize(
    "make",
    [
        lambda s: random_matrix(16, s, min_gap=0.01),
        lambda s: tournament_matrix(40, s, low=0.05, high=0.45),
        lambda s: tournament_matrix(30, s, low=1e-4, high=0.02),  # near ties
    ],
    ids=["random-16", "tournament-40", "near-tie-30"],
)
def test_lower_bound_is_the_certified_sorted_model_equal_to_the_plain_model(make):
    """The offline bound: the sorted-pool model, certified by its own Lagrangian bound (a lower
    bound on C*: the dual bound never exceeds the plain model's certified value), equal to the plain
    cutting plane's value."""
    from boundcalc import lower_bound

    for s in range(3):
        pm = make(500 + s)
        res = lower_bound(pm)
        ref = lp_solver(lift=False).solve(pm)
        assert res.status == "ok" and ref.status == "ok"
        assert res.stats["model"] == "sorted pools"
        assert res.value == pytest.approx(ref.value, rel=1e-8)
        c = res.certificate
        assert c.max_violation <= 1e-9 and abs(c.gap) <= 1e-7 * max(1.0, res.value)
        assert c.dual_bound <= ref.value * (1 + 1e-9)


def test_the_sorted_certificate_bounds_the_exact_lp_from_below():
    for K, kind, pm in tournament_cases(n_per_K=6, Ks=range(4, 7)):
        res = CopelandLPSolver().solve(pm)
        assert res.status == "ok", (K, kind)
        exact = min(exact_lower_bound(as_structure(pm), w) for w in pm.copeland_winners.tolist())
        assert res.certificate.dual_bound <= exact * (1 + 1e-9) + 1e-12
        assert res.value == pytest.approx(exact, rel=1e-8, abs=1e-10)


def test_a_stalled_sorted_model_leaves_the_answer_to_the_plain_model(monkeypatch):
    pm = tournament_matrix(40, 3)
    good = CopelandLPSolver().solve(pm)
    assert good.stats["model"] == "sorted pools"
    monkeypatch.setattr(SortedPoolModel, "add_cuts", lambda self, *a, **k: 0)
    solver = CopelandLPSolver()
    back = solver.solve(pm)
    assert back.status == "ok" and solver.sorted_fallbacks >= 1 and back.stats["model"] == "plain"
    assert back.value == pytest.approx(good.value, rel=1e-8)


@pytest.mark.slow
def test_bounds_prints_progress_lines_when_stderr_is_not_a_terminal(tmp_path):
    """``boundcalc bounds`` on a 300-arm tournament, stderr a pipe: the note and, every
    ``BOUNDCALC_PROGRESS_SECONDS``, a line; the last one names the cutting plane's winner, round,
    rows and largest violation: those of the certified solve of the last Copeland winner."""
    import json
    import os
    import re
    import subprocess
    import sys

    pm = tournament_matrix(300, 1)
    path = tmp_path / "t300.csv"
    np.savetxt(path, pm.mu, delimiter=",")
    env = dict(os.environ, BOUNDCALC_PROGRESS_SECONDS="0.001")
    proc = subprocess.run(
        [sys.executable, "-m", "boundcalc", "bounds", str(path), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert "progress follows on stderr" in lines[0]
    last = re.fullmatch(
        r"boundcalc: bounds: winner (\d+), round (\d+), ([\d,]+) rows, max violation (\S+), \d+ s", lines[-1]
    )
    assert last is not None, lines[-3:]
    winner, rounds, rows, violation = int(last[1]), int(last[2]), int(last[3].replace(",", "")), float(last[4])
    out = json.loads(proc.stdout)
    assert winner == out["copeland_winners"][-1] == pm.copeland_winners[-1]  # solved in turn, the last
    assert rounds >= 1 and 0 < rows <= out["stats"]["rows"] and violation <= 1e-9
