"""The identification constant T*(mu) against an independent brute force (tests/identification_brute.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from builders import random_mu, tournament_pm
from hypothesis import given, settings
from hypothesis import strategies as st
from identification_brute import brute_identification, min_alternative_value

import boundcalc
from boundcalc import PreferenceMatrix
from boundcalc.datasets import load_example
from boundcalc.identification import identification_bound, kl_confidence


def _cases(Ks, n, seed):
    rng = np.random.default_rng(seed)
    out = []
    for K in Ks:
        for t in range(n):
            kind = ("plain", "near-tie", "condorcet", "cyclic")[t % 4]
            if kind == "cyclic" and K % 2 == 0:
                kind = "plain"
            pm = tournament_pm(K, rng, kind)
            out.append(pytest.param(pm, id=f"K{K}-{kind}-{t}"))
    return out


def _check_against_brute(pm: PreferenceMatrix, model: str) -> None:
    res = identification_bound(pm, model)
    T, per = brute_identification(pm.mu, model)
    assert res.status == "ok"
    assert res.value == pytest.approx(T, rel=1e-6)
    assert set(res.per_winner) == set(per)
    for a, v in per.items():
        assert res.per_winner[a] == pytest.approx(v, rel=1e-6)
    # the returned allocation attains the sup: min over the alternatives of w . price = 1 / T*
    iu = np.triu_indices(pm.K, 1)
    w = res.allocation[iu]
    assert w.sum() == pytest.approx(1.0, abs=1e-12) and np.all(w >= 0)
    assert np.array_equal(res.allocation, res.allocation.T)
    assert min_alternative_value(pm.mu, res.winner, model, w) == pytest.approx(1.0 / T, rel=1e-6)


@pytest.mark.parametrize("pm", _cases(range(3, 6), 8, 48))
def test_copeland_model_equals_brute_force(pm):
    _check_against_brute(pm, "copeland")


@pytest.mark.slow
@pytest.mark.parametrize("pm", _cases([6, 7], 4, 4848))
def test_copeland_model_equals_brute_force_k6_k7(pm):
    _check_against_brute(pm, "copeland")


@pytest.mark.parametrize("K", [3, 4, 5, 6])
@pytest.mark.parametrize("seed", range(3))
def test_condorcet_model_equals_brute_force(K, seed):
    rng = np.random.default_rng(1000 * K + seed)
    pm = PreferenceMatrix(random_mu(K, rng, condorcet=True)).permute(rng.permutation(K))
    _check_against_brute(pm, "condorcet")


@pytest.mark.slow
def test_condorcet_model_equals_brute_force_k7():
    rng = np.random.default_rng(7)
    pm = PreferenceMatrix(random_mu(7, rng, condorcet=True)).permute(rng.permutation(7))
    _check_against_brute(pm, "condorcet")


def test_multi_winner_takes_the_smallest_answer():
    pm = load_example("mslr5-noncondorcet")  # three Copeland winners
    res = identification_bound(pm)
    assert len(res.per_winner) == 3
    assert res.value == min(res.per_winner.values())
    assert res.winner == min(res.per_winner, key=res.per_winner.get)
    T, per = brute_identification(pm.mu, "copeland")
    assert res.value == pytest.approx(T, rel=1e-6)


def test_condorcet_refutes_on_the_most_informative_loss_not_the_winner():
    # arm 2 loses to arm 0 (the winner) by 0.55 but to arm 1 by 0.95: it is refuted on (1, 2)
    pm = PreferenceMatrix([[0.5, 0.6, 0.55], [0.4, 0.5, 0.95], [0.45, 0.05, 0.5]])
    res = identification_bound(pm, "condorcet")
    assert res.extra["refuted_on"] == {1: 0, 2: 1}
    d = pm.structure.d
    assert res.value == pytest.approx(1 / d[0, 1] + 1 / d[1, 2], rel=1e-12)
    assert res.allocation[0, 2] == 0.0


def test_table2_values():
    r = identification_bound(load_example("table2"))
    assert r.value == pytest.approx(78.57062014836232, rel=1e-9)
    T, _ = brute_identification(load_example("table2").mu, "copeland")
    assert r.value == pytest.approx(T, rel=1e-7)


@settings(max_examples=25, deadline=None)
@given(K=st.integers(3, 5), seed=st.integers(0, 2**32 - 1), perm_seed=st.integers(0, 2**32 - 1))
def test_properties_condorcet_below_copeland_and_permutation(K, seed, perm_seed):
    pm = PreferenceMatrix(random_mu(K, np.random.default_rng(seed), condorcet=True))
    cop, con = identification_bound(pm), identification_bound(pm, "condorcet")
    assert con.value <= cop.value * (1 + 1e-9)  # Alt(condorcet) is a subset of Alt(copeland)
    perm = np.random.default_rng(perm_seed).permutation(K)
    pp = pm.permute(perm)
    for model in ("copeland", "condorcet"):
        a, b = identification_bound(pm, model), identification_bound(pp, model)
        assert b.value == pytest.approx(a.value, rel=1e-9)


def test_rates_scale_with_a_uniform_cost():
    # T* is homogeneous in the cost of a draw: regret c on every pair gives c T*
    from boundcalc.lp import CopelandLPSolver

    pm = load_example("mslr5-condorcet")
    K = pm.K
    base = identification_bound(pm).value
    scaled = CopelandLPSolver().solve(pm, regret=3.0 * (np.ones((K, K)) - np.eye(K))).value
    assert scaled == pytest.approx(3.0 * base, rel=1e-9)


def test_bad_input_one_line_errors():
    with pytest.raises(ValueError, match="needs a matrix with a Condorcet winner"):
        identification_bound(load_example("mslr5-noncondorcet"), "condorcet")
    with pytest.raises(ValueError, match="model must be one of"):
        identification_bound(load_example("table2"), "borda")
    with pytest.raises(ValueError, match="tie"):
        identification_bound([[0.5, 0.5], [0.5, 0.5]])
    for bad in (0.0, 1.0, -1, float("nan"), "x"):
        with pytest.raises(ValueError, match="delta"):
            kl_confidence(bad)


def test_fast_at_136_arms():
    import time

    pm = load_example("mslr-informational")
    t = time.process_time()
    r = boundcalc.identification_bound(pm)
    assert time.process_time() - t < 5.0
    assert r.status == "ok" and r.certificate is not None and not r.certificate.problems()


def test_plan_reports_the_duels_to_identify():
    from boundcalc.cli import main
    from boundcalc.plan import plan

    pm = load_example("table2")
    p = plan(pm, delta=1e-6)
    ident = p.meta["identification"]
    T = identification_bound(pm).value
    assert ident["copeland"]["duels"] == pytest.approx(T * kl_confidence(1e-6), rel=1e-12)
    assert ident["condorcet"]["t_star"] == pytest.approx(identification_bound(pm, "condorcet").value)
    assert sum(r["identify_duels"] for r in p.rows) == pytest.approx(ident["copeland"]["duels"], rel=1e-9)
    assert plan(pm).meta["identification"]["delta"] == 0.05  # the default
    assert main(["bounds", "--example", "table2", "--plan", "--delta", "1e-6"]) == 0


@settings(max_examples=30, deadline=None)
@given(K=st.integers(2, 7), seed=st.integers(0, 2**32 - 1))
def test_condorcet_t_star_below_004_verification_hardness(K, seed):
    """id_condorcet <= sum_k 1/d(mu_{i* k}) <= H^C_ver / 2 <= H^C / 2 (Pinsker; docs/identification.md)."""
    pm = PreferenceMatrix(random_mu(K, np.random.default_rng(seed), condorcet=True))
    cmp = boundcalc.compare(pm, keys=["id_condorcet", "cpe_condorcet_ver", "cpe_condorcet_hardness"])
    d = pm.structure.d
    verify = sum(1 / d[0, k] for k in range(1, K))
    assert cmp["id_condorcet"].value <= verify * (1 + 1e-12)
    assert verify <= cmp["cpe_condorcet_ver"].value / 2 * (1 + 1e-12)
    assert cmp["cpe_condorcet_ver"].value <= cmp["cpe_condorcet_hardness"].value * (1 + 1e-12)


@pytest.mark.slow
def test_results_page_shows_the_stored_runs():
    """docs/identification.md's tables are the benchmarks' renderings of their stored JSON."""
    import importlib.util
    import json
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "docs" / "hooks"))
    try:
        import results
    finally:
        sys.path.pop(0)
    page = results.render((root / "docs" / "identification.md").read_text())
    benches = {}
    for script in ("identification", "identification_duelpy", "identification_dkwt"):
        spec = importlib.util.spec_from_file_location(f"bench_{script}", root / "benchmarks" / f"{script}.py")
        assert spec is not None and spec.loader is not None
        benches[script] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(benches[script])
        report = json.loads((root / "benchmarks" / "results" / f"{script}.json").read_text())
        assert benches[script].markdown(report) in page
        if script == "identification":
            main = report
        for c in report.get("compare", []) + (report["cells"] if script == "identification_dkwt" else []):
            # the same algorithm as the public code: equal means within three standard errors
            assert abs(c["z"]) < 3.0, c
    bench = benches["identification"]
    from test_identification_algorithms import _five_arms

    assert np.array_equal(bench.load("tests-5arm").mu, _five_arms().mu)  # the page's "tests' 5-arm matrix"
    for c in main["cells"] + main["target"]:  # every error rate at most delta (three standard errors of slack)
        assert c["errors"] / c["runs"] <= c["delta"] + 3 * math.sqrt(c["delta"] * (1 - c["delta"]) / c["runs"])
        assert c["t_star"] == pytest.approx(identification_bound(bench.load(c["instance"]), c["model"]).value)
    assert f"{main['cpu_seconds']:.0f} s of CPU" in page
    # the target: within 2x of T* kl(delta, 1 - delta) at delta = 1e-6, 100 runs
    cell = [c for c in main["target"] if (c["instance"], c["algorithm"]) == ("mslr5-condorcet", "track-and-stop")]
    assert len(cell) == 1 and cell[0]["ratio"] < 2.0 and cell[0]["errors"] == 0 and cell[0]["runs"] == 100


@pytest.mark.parametrize("pm", _cases(range(3, 6), 4, 4849))
def test_glr_is_the_oracle_smallest_row(pm):
    """Track-and-Stop's statistic: inf over Alt(i1) of sum_p N_p d(mu_hat_p, lambda_p) is the smallest
    row of 000's R_{i1} at e_p = N_p d(mu_hat_p) (the sorting oracle), checked against every minimal
    alternative enumerated by the brute force, at random counts."""
    from identification_brute import alternatives

    from boundcalc.lp.constraints import CopelandFamily

    rng = np.random.default_rng(pm.K)
    iu = np.triu_indices(pm.K, 1)
    for winner in pm.copeland_winners.tolist():
        fam = CopelandFamily(pm.structure, winner)
        masks = alternatives(pm.mu, winner, "copeland")
        bits = (masks[:, None] >> np.arange(iu[0].size)[None, :]) & 1
        for _ in range(5):
            N = rng.integers(0, 500, iu[0].size).astype(float)
            e = N * pm.structure.d[iu]
            assert fam.min_row_sum(e) == pytest.approx(float((bits * e).sum(axis=1).min()), rel=1e-12, abs=1e-12)
