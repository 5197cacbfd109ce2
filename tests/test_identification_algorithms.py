"""Track-and-Stop, the baselines and ``identify``: statistics by hand, determinism, correctness, the CLI."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.special import betaln

from boundcalc import PreferenceMatrix
from boundcalc.datasets import load_example
from boundcalc.identification import ALGORITHMS, identification_bound, identify, kl_confidence, track_and_stop
from boundcalc.identification.algorithms import dkwt, knockout
from boundcalc.identification.tracking import martingale_pairs, stopping_threshold
from boundcalc.kernels.identification import kt_log_ratio, pair_evidence

# arm i beats arm j with probability 1 for i < j: every duel's outcome is known
SURE = PreferenceMatrix([[0.5, 1, 1, 1], [0, 0.5, 1, 1], [0, 0, 0.5, 1], [0, 0, 0, 0.5]])


def _kl(p, q):
    out = 0.0
    if p > 0:
        out += p * math.log(p / q)
    if p < 1:
        out += (1 - p) * math.log((1 - p) / (1 - q))
    return out


def test_kt_log_ratio_is_the_beta_mixture_and_obeys_the_regret_bound():
    for a in range(0, 60, 7):
        for b in range(0, 60, 5):
            exact = betaln(a + 0.5, b + 0.5) - betaln(0.5, 0.5) + (a + b) * math.log(2)
            assert kt_log_ratio(a, b) == pytest.approx(exact, abs=1e-9)
            n = a + b
            if n:  # KT's regret: ln P_KT >= ln P_{mu_hat} - ln(n)/2 - ln 2 (the bound the docs use)
                assert kt_log_ratio(a, b) >= n * _kl(a / n, 0.5) - 0.5 * math.log(n) - math.log(2) - 1e-9


def test_stopping_threshold_by_hand():
    assert stopping_threshold(0.05, 6) == pytest.approx(math.log(20) - 6 * math.log(1 - 1 / 6), rel=1e-12)
    with pytest.raises(ValueError, match="delta"):
        stopping_threshold(1.5, 6)
    with pytest.raises(ValueError, match="2 pairs"):
        stopping_threshold(0.05, 1)
    # the test martingale's pairs: all P pairs (Copeland), the K - 1 pairs of one arm (Condorcet), >= 2
    assert [martingale_pairs("copeland", K) for K in (2, 3, 5)] == [2, 3, 10]
    assert [martingale_pairs("condorcet", K) for K in (2, 3, 5)] == [2, 2, 4]


def test_pair_evidence_is_the_mixture_factor_and_never_negative():
    # ln((1 - rho) + rho e^kt) - ln(1 - rho) with rho = 1/n, by hand, for n = 4 and n = 10
    for n in (4, 10):
        rho = 1 / n
        for a, b in ((0, 0), (3, 1), (1, 3), (40, 2), (500, 430), (5000, 4000)):
            kt = kt_log_ratio(a, b)
            want = math.log((1 - rho) + rho * math.exp(kt)) - math.log(1 - rho) if kt < 700 else kt - math.log(n - 1)
            got = pair_evidence(a, b, -math.log(n - 1))
            assert got == pytest.approx(want, rel=1e-12, abs=1e-15) and got > 0
            assert got >= kt - math.log(n - 1)  # the per-pair prior's price is at most ln((1 - rho) / rho)


def test_track_and_stop_is_deterministic_and_correct_on_table2():
    pm = load_example("table2")
    a = track_and_stop(pm, delta=0.05, keys=(3, 4))
    b = track_and_stop(pm, delta=0.05, keys=(3, 4))
    assert (a.answer, a.n_duels) == (b.answer, b.n_duels) and a.answer == 0 and a.stopped == "identified"
    c = track_and_stop(pm, model="condorcet", delta=0.05, keys=(3, 4))
    assert c.answer == 0 and c.n_duels < a.n_duels  # the Condorcet model knows more
    budget = track_and_stop(pm, delta=1e-9, keys=(3, 4), max_duels=50)
    assert budget.answer is None and budget.stopped == "budget" and budget.n_duels == 50


def test_track_and_stop_bad_input():
    with pytest.raises(ValueError, match="delta"):
        track_and_stop(load_example("table2"), delta=0.0)
    with pytest.raises(ValueError, match="Condorcet winner"):
        track_and_stop(load_example("mslr5-noncondorcet"), model="condorcet")
    with pytest.raises(ValueError, match="tie"):
        track_and_stop([[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="model"):
        track_and_stop(load_example("table2"), model="borda")


def _compare_length(delta):
    """Knockout's COMPARE on a sure pair: the first n with 1/2 > sqrt(ln(4 n^2 / delta) / (2 n))."""
    n = 1
    while not 0.5 > math.sqrt(math.log(4 * n * n / delta) / (2 * n)):
        n += 1
    return n


def test_knockout_duels_by_hand_on_sure_outcomes():
    delta = 0.1
    ans, duels, stopped = knockout(SURE, delta, (1, 2), np.random.default_rng(0), 10**6)
    # round 1: two matches at delta/2, round 2: one at delta/4
    assert (ans, stopped) == (0, "identified")
    assert duels == 2 * _compare_length(delta / 2) + _compare_length(delta / 4)


def test_dkwt_duels_by_hand_on_sure_outcomes():
    delta, m = 0.1, 4
    gamma = delta / m
    T1 = math.ceil(8 * math.log(4 / (6 * gamma / math.pi**2)) / 0.25**2)  # phase 1: h = 1/4
    for seed in range(3):
        ans, duels, stopped = dkwt(SURE, delta, (1, 2), np.random.default_rng(seed), 10**7)
        assert (ans, stopped) == (0, "identified") and duels == m * T1  # m - 1 matches and the last one


def test_identify_rows_statistics_resume(tmp_path):
    pm = load_example("table2")
    out = tmp_path / "rows.jsonl"
    names = ["track-and-stop-condorcet", "knockout"]
    a = identify(pm, names, delta=0.1, runs=3, seed=5, out=out)
    b = identify(pm, names, delta=0.1, runs=5, seed=5, out=out)  # resumes the first 3 of each
    assert b.runner_stats["resumed"] == 6 and b.runner_stats["computed"] == 4
    key = lambda rows: {(r["algorithm"], r["run"]): r["n_duels"] for r in rows if r["run"] < 3}  # noqa: E731
    assert key(b.rows) == key(a.rows) and len(key(a.rows)) == 6
    s = b.statistics("knockout")
    n = np.array([r["n_duels"] for r in b.rows if r["algorithm"] == "knockout"], dtype=float)
    assert s["runs"] == 5 and s["mean_duels"] == pytest.approx(n.mean())
    assert s["stderr"] == pytest.approx(n.std(ddof=1) / math.sqrt(5))
    T = identification_bound(pm, "condorcet").value
    assert s["t_star"] == pytest.approx(T) and s["t_star_log"] == pytest.approx(T * math.log(10))
    assert s["ratio"] == pytest.approx(n.mean() / (T * kl_confidence(0.1)))
    d = json.loads(b.to_json())
    assert [x["algorithm"] for x in d["algorithms"]] == names and len(d["per_run"]) == 10


def test_identify_bad_input():
    with pytest.raises(ValueError, match="unknown algorithm"):
        identify(load_example("table2"), "select")
    with pytest.raises(ValueError, match="has none"):
        identify(load_example("mslr5-noncondorcet"), "knockout")
    with pytest.raises(ValueError, match="delta"):
        identify(load_example("table2"), "knockout", delta=1.0)
    assert set(ALGORITHMS) >= {"track-and-stop", "track-and-stop-condorcet", "knockout", "dkwt", "car-cond"}


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "boundcalc", *args], capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.slow
def test_cli_identify_json_and_errors():
    r = _cli("identify", "--example", "table2", "--algorithm", "knockout,track-and-stop-condorcet", "--runs", "2",
             "--delta", "0.1", "--json")  # fmt: skip
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert [a["algorithm"] for a in d["algorithms"]] == ["knockout", "track-and-stop-condorcet"]
    assert d["algorithms"][0]["t_star"] == pytest.approx(
        identification_bound(load_example("table2"), "condorcet").value
    )
    for bad, what in ((["--delta", "1"], "delta"), (["--algorithm", "nope"], "unknown algorithm")):
        args = ["identify", "--example", "table2", "--algorithm", "knockout", *bad]
        r = _cli(*args[:5], *bad) if bad[0] == "--delta" else _cli("identify", "--example", "table2", *bad)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and what in r.stderr


def _five_arms():
    return PreferenceMatrix(
        [
            [0.5, 0.65, 0.7, 0.75, 0.8],
            [0.35, 0.5, 0.65, 0.7, 0.3],
            [0.3, 0.35, 0.5, 0.65, 0.7],
            [0.25, 0.3, 0.35, 0.5, 0.65],
            [0.2, 0.7, 0.3, 0.35, 0.5],
        ]
    )


@pytest.mark.slow
def test_track_and_stop_error_rate_at_005_over_200_runs():
    res = identify(_five_arms(), "track-and-stop", delta=0.05, runs=200, seed=48)
    s = res.statistics("track-and-stop")
    se = math.sqrt(0.05 * 0.95 / 200)
    assert s["budget"] == 0 and s["error_rate"] <= 0.05 + 3 * se


@pytest.mark.slow
def test_track_and_stop_at_1e6_within_the_hard_limit_of_the_lower_bound():
    res = identify(_five_arms(), ["track-and-stop", "track-and-stop-condorcet"], delta=1e-6, runs=100, seed=48)
    for a in ("track-and-stop", "track-and-stop-condorcet"):
        s = res.statistics(a)
        assert s["errors"] == 0 and s["budget"] == 0
        # the hard limit is 5 and its target 2; the runs are benchmarks/identification.py's
        # "target" cells (same seed): 2.41 and 2.25, docs/identification.md says where the rest goes
        assert 1.0 <= s["ratio"] <= 2.5, (a, s["ratio"])


@pytest.mark.slow
def test_identify_on_dask_equals_in_process():
    pytest.importorskip("distributed")
    kw = dict(delta=0.1, runs=3, seed=7)
    names = ["knockout", "track-and-stop-condorcet"]
    local = identify(load_example("table2"), names, **kw)
    dask = identify(load_example("table2"), names, workers=2, chunk_size=1, **kw)
    strip = lambda rows: [{k: v for k, v in r.items() if k != "cpu_seconds"} for r in rows]  # noqa: E731
    assert dask.runner_stats["backend"] == "dask" and local.runner_stats["backend"] == "in-process"
    assert strip(dask.rows) == strip(local.rows)
