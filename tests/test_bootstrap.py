"""boundcalc.uncertainty (boundcalc.bootstrap): the posterior and resampling draws against hand-worked distributions, the
report (intervals, Copeland winners, structure, drivers), determinism and resuming through the
runner, the command line, and the coverage of the intervals on simulated logs whose true matrix is
known.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

import boundcalc
from boundcalc import PreferenceMatrix
from boundcalc.cli import main
from boundcalc.uncertainty import bootstrap, draw_matrix, draw_upper


# ----------------------------------------------------------------------------- the draws
def test_posterior_draw_is_the_beta_of_each_pair_in_triangle_order():
    # hand-worked: pair (0, 1) Beta(3 + 1/2, 1 + 1/2), (0, 2) Beta(0 + 1/2, 5 + 1/2), (1, 2) Beta(7.5, 2.5)
    W = np.array([[0, 3, 0], [1, 0, 7], [5, 2, 0]], dtype=float)
    for r in (0, 7):
        x = draw_upper(W, r, seed=11)
        rng = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(r,)))
        assert np.array_equal(x, rng.beta([3.5, 0.5, 7.5], [1.5, 5.5, 2.5]))
    X = np.array([draw_upper(W, r, seed=3) for r in range(4000)])
    a, b = np.array([3.5, 0.5, 7.5]), np.array([1.5, 5.5, 2.5])
    mean, var = a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))  # 0.7, 1/12, 0.75
    assert np.all(np.abs(X.mean(axis=0) - mean) < 4 * np.sqrt(var / 4000))
    for k in range(3):  # the whole distribution (fixed seed: a deterministic check)
        assert stats.kstest(X[:, k], stats.beta(a[k], b[k]).cdf).pvalue > 1e-3
    pm = draw_matrix(W, 0, seed=11, names=["p", "q", "r"])
    assert pm.names == ("p", "q", "r") and pm.mu[1, 0] == 1 - pm.mu[0, 1]


def test_prior_changes_the_beta():
    W = np.array([[0, 2.0], [0, 0]])
    x = draw_upper(W, 4, seed=0, prior=1.0)
    assert x[0] == np.random.default_rng(np.random.SeedSequence(0, spawn_key=(4,))).beta(3.0, 1.0)


def test_resample_draw_is_the_multinomial_of_the_pairs_duels():
    # pair (0, 1): 4 duels, 3 won by arm 0, none tied: mu* = Binomial(4, 3/4) / 4; mu* = 1/2 -> a tied draw
    W = np.array([[0, 3.0], [1.0, 0]])
    xs = [draw_upper(W, r, seed=2, scheme="resample") for r in range(3000)]
    tied = sum(x is None for x in xs) / len(xs)
    p_half = stats.binom(4, 0.75).pmf(2)  # 0.2109
    assert abs(tied - p_half) < 4 * math.sqrt(p_half * (1 - p_half) / 3000)
    vals = np.array([x[0] for x in xs if x is not None])
    assert set(np.unique(vals)) <= {0.0, 0.25, 0.75, 1.0}
    assert abs((vals == 1.0).mean() - stats.binom(4, 0.75).pmf(4) / (1 - p_half)) < 0.03
    # ties count half: 2 duels, one won by each side... with a tie recorded: wins 1.5 / 0.5, 1 tie
    T = np.array([[0, 1.0], [1.0, 0]])
    x = [draw_upper(np.array([[0, 1.5], [0.5, 0]]), r, seed=0, scheme="resample", tie_counts=T) for r in range(200)]
    assert {v[0] for v in x if v is not None} <= {0.25, 0.75, 1.0, 0.0}


# ----------------------------------------------------------------------------- the report
@pytest.mark.slow
def test_two_arm_report_against_the_beta_cdf():
    W = np.array([[0, 3.0], [1.0, 0]])
    res = bootstrap(W, 2000, seed=5, names=["u", "v"], workers=0, progress=False)
    p_u = 1 - stats.beta(3.5, 1.5).cdf(0.5)  # P(mu_uv > 1/2) = P(u is the Copeland winner)
    assert abs(res.winner_probability["u"] - p_u) < 4 * math.sqrt(p_u * (1 - p_u) / 2000)
    assert res.winner_probability["u"] + res.winner_probability["v"] == pytest.approx(1.0)
    assert res.structure_differs == pytest.approx(res.winner_probability["v"])
    c = res.constant("ecw")
    assert c["value"] == pytest.approx(boundcalc.ecw_bound(PreferenceMatrix([[0.5, 0.75], [0.25, 0.5]])).value)
    v = res.values("ecw")
    assert c["median"] == np.median(v) and c["interval"] == [np.quantile(v, 0.025), np.quantile(v, 0.975)]
    assert c["level"] == 0.95 and c["n"] == 2000
    d = res.to_dict()
    assert set(d["constants"][0]) >= {"value", "median", "interval", "level"}
    assert res.flip_pairs[0]["pair"] == ["u", "v"]


@pytest.mark.slow
def test_the_pair_with_few_duels_drives_the_spread():
    # (a, b) from 20 duels, every other pair from 2000 with large gaps: only (a, b)'s gap is uncertain
    W = np.array([[0, 12, 1500, 1500], [8, 0, 1500, 1500], [500, 500, 0, 1400], [500, 500, 600, 0]], float)
    res = bootstrap(W, 300, seed=0, names=list("abcd"), workers=0, progress=False)
    for key in ("lower_bound", "ecw"):
        top = res.drivers[key][0]
        assert top["pair"] == ["a", "b"] and top["rho"] < -0.5
    assert res.flip_pairs[0]["pair"] == ["a", "b"] and len(res.flip_pairs) == 1


def test_a_tied_estimate_has_no_point_value_but_intervals():
    W = np.array([[0, 5, 9], [5, 0, 8], [1, 2, 0]], float)
    with pytest.raises(boundcalc.PreferenceMatrixError, match="exactly 1/2"):
        PreferenceMatrix.from_counts(W)
    res = bootstrap(W, 100, seed=0, workers=0, progress=False)
    c = res.constant("ecw")
    assert c["value"] is None and "exactly 1/2" in c["reason"] and c["n"] == 100
    assert res.structure_differs == 1.0  # the estimate's tied pair is in neither direction


def test_bad_arguments():
    W = np.array([[0, 3.0], [1.0, 0]])
    with pytest.raises(ValueError, match="level"):
        bootstrap(W, 10, level=1.0, workers=0)
    with pytest.raises(ValueError, match="prior"):
        bootstrap(W, 10, prior=0.0, workers=0)
    with pytest.raises(ValueError, match="scheme"):
        bootstrap(W, 10, scheme="jackknife", workers=0)
    with pytest.raises(ValueError, match="never compared"):
        bootstrap(np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0.0]]), 10, scheme="resample", workers=0)
    with pytest.raises(ValueError, match="the data behind the matrix"):
        bootstrap(PreferenceMatrix([[0.5, 0.6], [0.4, 0.5]]), 10, workers=0)


# ----------------------------------------------------------------------------- runner: determinism, resuming
def test_rows_depend_on_seed_and_index_only_and_resume(tmp_path):
    W = np.array([[0, 30, 40, 5], [20, 0, 35, 9], [10, 15, 0, 4], [8, 7, 6, 0]], float)
    whole = bootstrap(W, 30, seed=9, workers=0, progress=False)
    path = tmp_path / "boot.jsonl"
    first = bootstrap(W, 12, seed=9, out=path, workers=0, progress=False)
    assert first.stats["computed"] == 12
    more = bootstrap(W, 30, seed=9, out=path, workers=0, progress=False)
    assert more.stats["resumed"] == 12 and more.stats["computed"] == 18
    for a, b in zip(whole.rows, more.rows):
        assert a["index"] == b["index"] and a["winners"] == b["winners"] and a["flips"] == b["flips"]
        for k in ("lower_bound", "ecw"):  # the warm LP: the same optimum within its tolerance
            assert a["values"][k] == pytest.approx(b["values"][k], rel=1e-7, abs=1e-9)
    assert whole.constant("ecw") == more.constant("ecw")
    with pytest.raises(boundcalc.runner.StoreMismatch, match="seed"):
        bootstrap(W, 30, seed=10, out=path, workers=0, progress=False)


@pytest.mark.slow
def test_dask_gives_the_same_rows():
    pytest.importorskip("distributed")
    W = np.array([[0, 30, 40], [20, 0, 35], [10, 15, 0]], float)
    local = bootstrap(W, 16, seed=4, keys=["ecw", "ccb"], workers=0, progress=False)
    dask = bootstrap(W, 16, seed=4, keys=["ecw", "ccb"], workers=2, chunk_size=3, progress=False)
    assert dask.stats["backend"] == "dask" and local.rows == dask.rows


# ----------------------------------------------------------------------------- the command line
def test_cli_bootstrap_from_a_duel_log(tmp_path, capsys):
    rng = np.random.default_rng(0)
    mu = {("x", "y"): 0.7, ("x", "z"): 0.8, ("y", "z"): 0.6}
    lines = ["a,b,winner"]
    for (i, j), p in mu.items():
        for _ in range(60):
            lines.append(f"{i},{j},{i if rng.random() < p else j}")
    log = tmp_path / "log.csv"
    log.write_text("\n".join(lines) + "\n")
    out = tmp_path / "rows.jsonl"
    assert (
        main(
            [
                "bounds",
                "--duels",
                str(log),
                "--bootstrap",
                "40",
                "--seed",
                "3",
                "--workers",
                "0",
                "--out",
                str(out),
                "--json",
            ]
        )
        == 0
    )
    rep = json.loads(capsys.readouterr().out)
    c = {x["key"]: x for x in rep["constants"]}
    lib = bootstrap(PreferenceMatrix.from_duels(log), 40, seed=3, workers=0, progress=False)
    assert c["ecw"]["interval"] == lib.constant("ecw")["interval"] and c["ecw"]["level"] == 0.95
    assert set(rep["copeland_winner_probability"]) == {"x", "y", "z"} and len(out.read_text().splitlines()) == 41
    assert (
        main(
            [
                "compare",
                "--duels",
                str(log),
                "--bootstrap",
                "20",
                "--keys",
                "ecw,savage_hardness",
                "--workers",
                "0",
                "--level",
                "0.9",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert (
        "90% interval" in text
        and "savage_hardness" in text
        and "P(a Copeland winner) (co-winners each count): x" in text
    )


def test_cli_bootstrap_refusals(capsys):
    assert main(["bounds", "--example", "table2", "--bootstrap", "10"]) == 2
    assert "needs comparison data" in capsys.readouterr().err
    assert main(["bounds", "--example", "table2", "--resample"]) == 2
    assert "applies to --bootstrap" in capsys.readouterr().err


# ----------------------------------------------------------------------------- coverage
TRUE = np.array([[0.5, 0.62, 0.7, 0.75], [0.38, 0.5, 0.6, 0.68], [0.3, 0.4, 0.5, 0.58], [0.25, 0.32, 0.42, 0.5]])


def simulated_counts(mu: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """Win counts of ``n`` Bernoulli duels per pair from ``mu``."""
    K = mu.shape[0]
    W = np.zeros((K, K))
    iu = np.triu_indices(K, 1)
    w = rng.binomial(n, mu[iu])
    W[iu], W[(iu[1], iu[0])] = w, n - w
    return W


@pytest.mark.slow
def test_intervals_cover_the_true_constants_on_simulated_logs():
    """30 logs of 300 duels per pair from a known 4-arm matrix (gaps 0.08-0.25); 95 % intervals
    from 100 posterior draws each.  A 95 % interval covers in about 95 % of logs; with 30 logs
    the count of covers is Binomial(30, 0.95) (sd 1.2), so at least 24 of 30 (0.8) fails only when
    coverage is far below nominal (P < 0.003 at 0.95).  benchmarks/bootstrap.py measures it on
    more logs (benchmarks/results/bootstrap_coverage.json)."""
    truth = boundcalc.compare(TRUE, keys=["lower_bound", "ecw"]).values()
    covered = {k: 0 for k in truth}
    rng = np.random.default_rng(2024)
    reps = 30
    for rep in range(reps):
        W = simulated_counts(TRUE, 300, rng)
        res = bootstrap(W, 100, seed=rep, workers=0, progress=False)
        for k in truth:
            lo, hi = res.constant(k)["interval"]
            covered[k] += lo <= truth[k] <= hi
    for k, c in covered.items():
        assert c >= 24, (k, c, reps)


def test_stored_coverage_measurement():
    """benchmarks/bootstrap.py's stored coverage (200 simulated logs per setting): it is of this
    matrix and these constants (the true values recomputed now), and at 300 duels per pair the
    95 % intervals cover in 0.85-1 of the logs (nominal 0.95; 200 logs give a s.e. of about 0.015,
    so the band is about 6 s.e. below nominal)."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "bootstrap_coverage.json"
    rep = json.loads(path.read_text())
    mu = np.array(rep["matrix"])
    truth = boundcalc.compare(mu, keys=["lower_bound", "ecw"]).values()
    for s in rep["settings"]:
        assert s["level"] == 0.95 and s["logs"] >= 100
        for k, v in s["true"].items():
            assert v == pytest.approx(truth[k], rel=1e-7)
        for k, c in s["coverage"].items():
            assert 0.85 <= c <= 1.0, (s["duels_per_pair"], k, c)
            assert s["coverage_se"][k] == pytest.approx(math.sqrt(c * (1 - c) / s["logs"]))


def test_results_page_renders_the_stored_speed_and_coverage():
    """docs/results/bootstrap.md as built: its tables and figures are the stored runs
    (bootstrap.json, bootstrap_profile.json, bootstrap_coverage.json), and what the page claims of
    them holds: 1,000 draws in-process in under a minute of wall, the same rows on Dask."""
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "docs" / "hooks"))
    import results

    page = " ".join(results.render((root / "docs" / "results" / "bootstrap.md").read_text(encoding="utf-8")).split())
    t = {
        (c["duels_per_pair"], tuple(c["keys"])): c
        for c in json.loads((root / "benchmarks" / "results" / "bootstrap.json").read_text())["configurations"]
    }
    lb = ("lower_bound", "ecw")
    n3 = (10**5, 10**4, 1000)
    assert all(t[(n, lb)]["draws"] == 1000 for n in n3) and t[(1000, ("ecw",))]["draws"] == 1000
    assert all(t[(n, lb)]["same_rows"] for n in n3)  # in-process and Dask gave the same rows
    assert all(t[(n, lb)]["wall_seconds_in_process"] < 60 for n in n3)  # under a minute
    for (n, keys), c in t.items():
        row = (
            f"| {n:,} | {', '.join(keys)} | 1,000 | {c['cpu_ms_per_draw']:.1f} ms | {c['cpu_seconds_in_process']:.0f} s"
            f" | {c['wall_seconds_in_process']:.0f} s | {c['wall_seconds_dask']:.0f} s (2 workers) | yes |"
        )
        assert row in page, row
    prof = json.loads((root / "benchmarks" / "results" / "bootstrap_profile.json").read_text())
    s1000 = next(s for s in prof["settings"] if s["duels_per_pair"] == 1000)
    assert (
        f"the true matrix's LP has {prof['true_matrix']['rows']} rows, a draw's at `10^3` duels per pair up to"
        f" {max(r['cold_per_i2_1']['rows'] for r in s1000['rows']):,} in a lifted model with a block per pool"
    ) in page
    assert f"at most {max(r['bootstrap_path']['rows'] for r in s1000['rows']):,} rows there" in page
    assert (
        f"takes {s1000['mean_cpu_ms']['previous_path']:.0f} ms a draw and the sorted pools"
        f" {s1000['mean_cpu_ms']['bootstrap_path']:.0f} ms"
    ) in page
    cov = json.loads((root / "benchmarks" / "results" / "bootstrap_coverage.json").read_text())
    for s in cov["settings"]:
        c, se = s["coverage"]["lower_bound"], s["coverage_se"]["lower_bound"]
        assert f"| {s['duels_per_pair']:,} | {s['logs']} | 0.95 | {c:.3f} +- {se:.3f} |" in page
    for s in prof["settings"]:  # the profiled draws: the bootstrap's path gives the cold solve's values
        assert max(s["max_rel_diff_to_cold"].values()) < 1e-9
        assert s["multi_winner_draws"] == sum(len(r["winners"]) > 1 for r in s["rows"])
        for r in s["rows"]:  # one winner: the sorted pools; several: Theorem 6's closed form
            m = r["bootstrap_path"]["method"]
            assert m == "cutting-plane, sorted pools" if len(r["winners"]) == 1 else m.startswith("closed-form")


def test_cli_bootstrap_options_need_bootstrap_and_a_tied_estimate_keeps_its_intervals(tmp_path, capsys):
    assert main(["bounds", "--example", "table2", "--level", "0.9"]) == 2
    assert "--level applies to --bootstrap" in capsys.readouterr().err
    log = tmp_path / "tie.csv"
    log.write_text("a,b,winner\nx,y,x\nx,y,y\nx,z,x\ny,z,y\nx,z,x\n")
    assert main(["bounds", "--duels", str(log), "--bootstrap", "30", "--plan", "--workers", "0", "--json"]) == 0
    out, err = capsys.readouterr()
    rep = json.loads(out)
    assert "no --plan" in err and "exactly 1/2" in err and "plan" not in rep
    assert rep["constants"][0]["value"] is None and rep["constants"][0]["n"] == 30


def test_each_draws_lower_bound_is_a_cold_lower_bound_of_the_drawn_matrix():
    """The bootstrap's lower bound per draw (Theorem 6's closed form with two or more Copeland
    winners, else the cutting plane) equals a cold boundcalc.lower_bound of that drawn matrix
    (its own certified LP) to the certificate's tolerance, on draws with one and with several winners."""
    from boundcalc.datasets import load_example
    from boundcalc.uncertainty import draw_matrix

    mu = load_example("mslr-informational").mu[:16, :16]
    rng = np.random.default_rng(7)
    iu = np.triu_indices(16, 1)
    W = np.zeros((16, 16))
    w = rng.binomial(200, mu[iu])
    W[iu], W[(iu[1], iu[0])] = w, 200 - w
    res = bootstrap(W, 24, seed=3, keys=["lower_bound"], workers=0, progress=False)
    n_winners = []
    for row in res.rows:
        pm = draw_matrix(W, row["index"], 3)
        n_winners.append(pm.copeland_winners.size)
        cold = boundcalc.lower_bound(pm)
        assert cold.status == "ok"
        assert row["values"]["lower_bound"] == pytest.approx(cold.value, rel=1e-7)
    assert min(n_winners) == 1 and max(n_winners) >= 2  # both paths are exercised


@pytest.mark.parametrize(
    "n, draws",
    [(10**4, 10), pytest.param(1000, 30, marks=pytest.mark.slow)],
    ids=["1e4-duels-10-draws", "1e3-duels-30-draws"],
)
def test_the_fast_path_equals_a_cold_lower_bound_on_every_draw_of_a_136_arm_matrix(n, draws):
    """The bootstrap's draws of weak data on the 136-arm MSLR matrix (what benchmarks/bootstrap.py
    times; the sorted-pool model with one Copeland winner, Theorem 6's closed form with several):
    every draw's lower bound equals boundcalc.lower_bound of the drawn matrix (the lifted cutting
    plane, certified) within the LP tolerance, and the sorted-pool path is the one that ran."""
    from boundcalc.datasets import load_example
    from boundcalc.uncertainty import _lower_bound, draw_matrix

    mu = load_example("mslr-informational").mu
    iu = np.triu_indices(136, 1)
    W = np.zeros((136, 136))
    w = np.random.default_rng(0).binomial(n, mu[iu])
    W[iu], W[(iu[1], iu[0])] = w, n - w
    res = bootstrap(W, draws, seed=0, keys=["lower_bound"], workers=0, progress=False)
    methods = set()
    for row in res.rows:
        pm = draw_matrix(W, row["index"], 0)
        cold = boundcalc.lower_bound(pm)
        assert cold.status == "ok"
        assert row["values"]["lower_bound"] == pytest.approx(cold.value, rel=1e-7)
        methods.add(_lower_bound(pm).stats.get("model", "closed form"))
    assert "sorted pools" in methods and methods <= {"sorted pools", "closed form"}  # no fallback


@pytest.mark.slow
def test_installed_cli_bootstrap_is_seeded_resumable_and_named(tmp_path):
    """As a user runs it (installed command, subprocess): the same --seed gives the same report;
    --out resumes (a longer run reads the shorter one's draws and computes only the new ones, and
    its first draws' rows are the shorter run's); the arms' names key the report."""
    from test_cli_stdout import parse_json, run_cli

    log = tmp_path / "log.csv"
    log.write_text(
        "a,b,winner\n"
        + "x,y,x\n" * 6
        + "x,y,y\n" * 3
        + "x,z,x\n" * 5
        + "x,z,z\n" * 2
        + "y,z,y\n" * 4
        + "y,z,z\n" * 3
        + "y,z,\n",
        encoding="utf-8",
    )
    args = ["compare", "--duels", "log.csv", "--keys", "lower_bound,ecw", "--workers", "0", "--json", "--seed", "4"]
    a = parse_json(run_cli(*args, "--bootstrap", "12", "--out", "rows.jsonl", cwd=tmp_path))
    again = parse_json(run_cli(*args, "--bootstrap", "12", cwd=tmp_path))
    assert (
        a["constants"] == again["constants"]
        and a["copeland_winner_probability"] == again["copeland_winner_probability"]
    )
    assert set(a["copeland_winner_probability"]) == {"x", "y", "z"} and a["meta"]["names"] == ["x", "y", "z"]
    first = (tmp_path / "rows.jsonl").read_text().splitlines()
    b = parse_json(run_cli(*args, "--bootstrap", "20", "--out", "rows.jsonl", cwd=tmp_path))
    assert b["stats"]["resumed"] == 12 and b["stats"]["computed"] == 8
    assert (tmp_path / "rows.jsonl").read_text().splitlines()[: len(first)] == first
    # the point value is the estimate's (W_xy = 6 of 9 duels, ...), the same in both runs
    assert b["constants"][0]["value"] == a["constants"][0]["value"]
    assert boundcalc.compare(PreferenceMatrix.from_duels(log), keys=["lower_bound"]).values()[
        "lower_bound"
    ] == pytest.approx(a["constants"][0]["value"], rel=1e-12)


@pytest.mark.parametrize(
    "level,label", [(0.9, "90% interval"), (0.68, "68% interval"), (0.95, "95% interval"), (0.975, "0.975 interval")]
)
def test_summary_names_the_level(level, label):
    """The table's header states the level (0.9 * 100 is 90.00000000000001 in floating point)."""
    res = bootstrap([[0, 7], [3, 0]], 20, seed=0, keys=["ecw"], level=level, workers=0, progress=False)
    assert label in res.summary()
