"""The pure-exploration simulator (boundcalc.explore) and ``boundcalc explore``.

Checks against independent numbers: the winners are :mod:`boundcalc.cpe`'s (LP + exact
verification, and brute force over the matchings of 004's example), the PAC criterion on 004's
own Borda scores (0.64 and 0.615, Figures 1-2), the Clopper-Pearson limit at zero errors
(``1 - 0.05^(1/R)``), the per-run rows against ``run_algorithm`` called directly with the
recorded seed.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from boundcalc.cli import main
from boundcalc.cpe import (
    CPEInstance,
    NoWinnerError,
    borda_scores_by_enumeration,
    borda_winner,
    condorcet_winner,
    cpe_report,
    load_cpe_example,
    pairwise_preferences,
)
from boundcalc.cpe.algorithms import ALGORITHMS, run_algorithm
from boundcalc.cpe.base import ExplorationResult
from boundcalc.explore import (
    compute_hardness,
    explore,
    explore_task,
    plot_sample_complexity,
    random_cpe_instance,
    run_seed,
)
from boundcalc.runner import StoreMismatch

EXAMPLE = load_cpe_example()
# a clear one-position instance: candidate 0 beats every other by >= 0.3 (Borda and Condorcet winner)
CLEAR = np.array([[0.5, 0.8, 0.9], [0.2, 0.5, 0.7], [0.1, 0.3, 0.5]])
FAST = {"delta": 0.05, "runs": 2, "seed": 3}


def labels(inst, M):
    return [list(e) for e in inst.matching_edges(M)]


def brute_condorcet(inst):
    """The Condorcet winner by enumeration: the matching with f(M, M') > 1/2 for every other M'."""
    Ms = borda_scores_by_enumeration(inst)[0]
    F = pairwise_preferences(inst, Ms)
    np.fill_diagonal(F, np.inf)
    win = np.flatnonzero(F.min(axis=1) > 0.5)
    return tuple(int(e) for e in Ms[win[0]]) if win.size else None


def brute_borda(inst):
    Ms, B = borda_scores_by_enumeration(inst)
    return tuple(int(e) for e in Ms[int(np.argmax(B))])


# ----------------------------------------------------------------------------- 004's example
@pytest.fixture(scope="module")
def example_runs():
    """CLUCB-Borda-PAC (epsilon 0.02 < the Borda gap 0.025 of the runner-up's score, so only the
    winner is epsilon-optimal) and CAR-Cond on 004's example, 2 runs each (~8 s; CLUCB-Borda-Exact
    needs ~10^6 duels there)."""
    return {
        "clucb-borda-pac": explore(EXAMPLE, "clucb-borda-pac", epsilon=0.02, **FAST),
        "car-cond": explore(EXAMPLE, "car-cond", **FAST),
    }


def test_json_schema_and_winners_on_004_example(example_runs):
    rep = cpe_report(EXAMPLE)
    for name, res in example_runs.items():
        d = json.loads(res.to_json())
        for key in ("algorithm", "delta", "runs", "winner", "correct_rate", "samples", "hardness"):
            assert key in d, key
        assert set(d["samples"]) >= {"mean", "stderr", "min", "max"}
        assert d["algorithm"] == name and d["delta"] == 0.05 and d["runs"] == 2 and len(d["per_run"]) == 2
        # the winner is cpe's, and the brute-force one over the matchings of the example
        if ALGORITHMS[name].target == "borda":
            assert d["winner"] == labels(EXAMPLE, borda_winner(EXAMPLE)) == rep["borda"]["winner"]
            assert d["winner"] == labels(EXAMPLE, brute_borda(EXAMPLE)) == [["c1", "s1"], ["c4", "s2"]]
        else:
            assert d["winner"] == labels(EXAMPLE, condorcet_winner(EXAMPLE)) == rep["condorcet"]["winner"]
            assert d["winner"] == labels(EXAMPLE, brute_condorcet(EXAMPLE)) == [["c2", "s1"], ["c4", "s2"]]
        # a clear instance: every run right (004's example has Delta^B_min = 0.05, Delta^C_min = 0.025)
        assert d["correct_rate"] == 1.0 and d["error_rate"] == 0.0
        assert all(r["matching"] == d["winner"] and r["stopped"] == "identified" for r in d["per_run"])
        n = np.array([r["n_duels"] for r in d["per_run"]], dtype=float)
        s = d["samples"]
        assert s["mean"] == pytest.approx(n.mean()) and (s["min"], s["max"]) == (n.min(), n.max())
        assert s["stderr"] == pytest.approx(n.std(ddof=1) / math.sqrt(2))
        # zero errors in R = 2 runs: the one-sided 95 % Clopper-Pearson limit is 1 - 0.05^(1/2)
        assert d["error_rate_upper95"] == pytest.approx(1 - 0.05**0.5, rel=1e-9)
        h = d["hardness"]
        assert h["H^B"] == pytest.approx(rep["borda"]["hardness"], rel=1e-12)
        assert h["H^C"] == pytest.approx(rep["condorcet"]["hardness"], rel=1e-12)
        assert h["H^C_ver"] == pytest.approx(rep["condorcet"]["verification_hardness"], rel=1e-12)
        assert h["width"] == rep["width"] == 4
        if name == "car-cond":
            assert h["H^B_eps"] is None and "theorem1" in h["reasons"]  # no epsilon
        else:  # H^B_eps = sum_e min(width^2 / gap^2, 1/eps^2), width 4, gaps 0.05, 0.05, 0.3, 0.5, 0.5
            assert h["H^B_eps"] == pytest.approx(sum(min(16 / g**2, 2500.0) for g in (0.05, 0.05, 0.3, 0.5, 0.5)))
        # 004's example: Borda gaps 0.05, 0.05, 0.3, 0.5, 0.5 (w units) -> H^B = 2/0.05^2 + 1/0.3^2 + 2/0.5^2
        assert h["H^B"] == pytest.approx(800 + 1 / 0.09 + 8, rel=1e-12)
        # Theorem 3's expression is H^B ln(1/delta); Theorem 6's sums over the edges outside M^C_*
        assert h["expressions"]["theorem3"] == pytest.approx(h["H^B"] * math.log(20), rel=1e-12)


def test_rows_are_run_algorithm_with_the_recorded_seed(example_runs):
    res = example_runs["clucb-borda-pac"]
    for r in res.rows:
        assert r["seed"] == run_seed(FAST["seed"], r["run"])
        one = run_algorithm("clucb-borda-pac", EXAMPLE, delta=0.05, epsilon=0.02, seed=r["seed"])
        assert one.n_duels == r["n_duels"] and list(one.matching) == r["matching"]
    assert res.rows[0]["n_duels"] != res.rows[1]["n_duels"]  # the runs differ


def test_pac_correctness_is_epsilon_optimality(monkeypatch):
    """004 Theorem 1: CLUCB-Borda-PAC is right when B(Out) >= B(M^B_*) - epsilon.  On 004's example
    B(M^B_*) = 0.64 and the Condorcet winner has B = 0.615 (Figures 1-2): an output of the
    Condorcet winner is right for epsilon = 0.03, wrong for epsilon = 0.02."""
    import boundcalc.cpe.algorithms as ex

    Mc = condorcet_winner(EXAMPLE)
    monkeypatch.setattr(ex, "run_algorithm", lambda *a, **k: ExplorationResult("clucb-borda-pac", Mc, 17))
    for eps, ok in ((0.03, True), (0.02, False)):
        res = explore(EXAMPLE, "clucb-borda-pac", delta=0.1, epsilon=eps, runs=2, seed=0)
        assert res.correct.tolist() == [ok, ok]
        assert [r["exact"] for r in res.rows] == [False, False]
        assert [r["score"] for r in res.rows] == pytest.approx([0.615, 0.615], abs=1e-12)
        assert res.hardness["H^B_eps"] is not None
    monkeypatch.setattr(
        ex, "run_algorithm", lambda *a, **k: ExplorationResult("clucb-borda-pac", None, 50, stopped="budget")
    )
    res = explore(EXAMPLE, "clucb-borda-pac", delta=0.1, epsilon=0.5, runs=3, seed=0, max_duels=50)
    assert res.correct_rate == 0.0 and res.statistics()["stopped"] == {"budget": 3}
    assert res.statistics()["error_rate_upper95"] == 1.0


# ----------------------------------------------------------------------------- seeds and workers
def test_seed_reproducibility_and_prefix():
    a = explore(CLEAR, "car-cond", delta=0.1, runs=5, seed=11)
    b = explore(CLEAR, "car-cond", delta=0.1, runs=5, seed=11)
    c = explore(CLEAR, "car-cond", delta=0.1, runs=3, seed=11)
    d = explore(CLEAR, "car-cond", delta=0.1, runs=5, seed=12)
    key = [(r["seed"], r["n_duels"], r["matching"]) for r in a.rows]
    assert key == [(r["seed"], r["n_duels"], r["matching"]) for r in b.rows]
    assert key[:3] == [(r["seed"], r["n_duels"], r["matching"]) for r in c.rows]  # run r depends on (seed, r) only
    assert [r["seed"] for r in d.rows] != [r["seed"] for r in a.rows]
    assert len({r["seed"] for r in a.rows}) == 5


@pytest.mark.slow
def test_numbers_independent_of_workers_and_chunks(tmp_path):
    kw = dict(delta=0.1, runs=6, seed=5)
    ref = explore(CLEAR, "car-verify", **kw)
    dask = explore(CLEAR, "car-verify", workers=2, chunk_size=1, **kw)
    assert dask.runner_stats["backend"] == "dask" and ref.runner_stats["backend"] == "in-process"

    def strip(res):
        return [{k: v for k, v in r.items() if k != "seconds"} for r in res.rows]

    assert strip(dask) == strip(ref)
    # resumable store: a rerun computes nothing and returns the same rows
    path = tmp_path / "runs.jsonl"
    first = explore(CLEAR, "car-verify", out=path, **kw)
    again = explore(CLEAR, "car-verify", out=path, **kw)
    assert again.runner_stats["resumed"] == 6 and again.runner_stats["computed"] == 0
    assert strip(again) == strip(first) == strip(ref)
    # the file records the algorithm's decisions revision; one without (written before boundcalc
    # recorded it) holds revision 1's runs and resumes; another revision is refused
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    assert head["boundcalc_run"]["revision"] == 1
    del head["boundcalc_run"]["revision"]
    path.write_text("\n".join([json.dumps(head)] + lines[1:]) + "\n")
    assert explore(CLEAR, "car-verify", out=path, **kw).runner_stats["computed"] == 0
    head["boundcalc_run"]["revision"] = 2
    path.write_text("\n".join([json.dumps(head)] + lines[1:]) + "\n")
    with pytest.raises(StoreMismatch, match="other decisions.*car-verify revision 2 in the file, 1 here.*overwrite"):
        explore(CLEAR, "car-verify", out=path, **kw)


def test_a_worker_of_other_decisions_refuses_the_task(monkeypatch):
    """A task carries the client's revision of the algorithm; a process whose algorithm has another
    (a Dask worker with another boundcalc) raises instead of returning a row."""
    import boundcalc.explore as explore_module

    def stale(task, shared):
        return explore_task(task, dict(shared, revision=7))

    monkeypatch.setattr(explore_module, "explore_task", stale)
    with pytest.raises(RuntimeError, match="car-cond is revision 1, the run's 7: a worker with another boundcalc"):
        explore(CLEAR, "car-cond", delta=0.1, runs=1, seed=0)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(algorithm="nope", delta=0.1), "unknown algorithm"),
        (dict(algorithm="car-cond", delta=0.0), "delta must lie in (0, 1)"),
        (dict(algorithm="car-cond", delta=1.0), "delta must lie in (0, 1)"),
        (dict(algorithm="clucb-borda-pac", delta=0.1), "give the accuracy epsilon"),
        (dict(algorithm="clucb-borda-pac", delta=0.1, epsilon=0.0), "epsilon must be > 0"),
        (dict(algorithm="car-cond", delta=0.1, epsilon=0.1), "takes no epsilon"),
        (dict(algorithm="car-cond", delta=0.1, runs=0), r"runs must be an integer in \[1, "),
        (
            dict(algorithm="car-cond", delta=0.1, runs=10**7),
            r"runs must be an integer in \[1, 1,000,000\]; got 10000000",
        ),
        (dict(algorithm="car-cond", delta=0.1, seed=-1), r"seed must be an integer in \[0, "),
    ],
)
def test_explore_refuses_bad_input(kw, msg):
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        explore(CLEAR, **kw)


def test_missing_condorcet_winner_is_a_clear_error():
    cyc = np.array([[0.5, 0.6, 0.4], [0.4, 0.5, 0.6], [0.6, 0.4, 0.5]])  # a 3-cycle: no Condorcet winner
    with pytest.raises(NoWinnerError, match="no Condorcet winning matching"):
        explore(cyc, "car-parallel", delta=0.1, runs=1)


# ----------------------------------------------------------------------------- CLI
def test_cli_json_and_plot(tmp_path, capsys):
    out = tmp_path / "sc.png"
    code = main(
        [
            "explore",
            "--example",
            "chen2020-fig1",
            "--algorithm",
            "clucb-borda-pac",
            "--epsilon",
            "0.02",
            "--delta",
            "0.05",
            "--runs",
            "2",
            "--seed",
            "3",
            "--workers",
            "0",
            "--json",
            "--plot",
            str(out),
        ]
    )
    assert code == 0
    d = json.loads(capsys.readouterr().out)
    assert d["winner"] == [["c1", "s1"], ["c4", "s2"]] and d["runs"] == 2 and d["correct_rate"] == 1.0
    # the same numbers as the library call (same seed)
    ref = explore(EXAMPLE, "clucb-borda-pac", delta=0.05, epsilon=0.02, runs=2, seed=3)
    assert [r["n_duels"] for r in d["per_run"]] == ref.n_duels.tolist()
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000
    # the table; a one-position instance of a bundled matrix; an instance JSON file
    assert (
        main(["explore", "--example", "table2", "-a", "car-cond", "--delta", "0.1", "--runs", "2", "--workers", "0"])
        == 0
    )
    text = capsys.readouterr().out
    assert "condorcet winner: (0, s)" in text and "H^C" in text
    path = tmp_path / "inst.json"
    CPEInstance.from_matrix(CLEAR, candidates=["a", "b", "c"], name="clear").save(path)
    assert (
        main(
            [
                "explore",
                str(path),
                "-a",
                "clucb-borda-pac",
                "--delta",
                "0.1",
                "--epsilon",
                "0.1",
                "--runs",
                "2",
                "--workers",
                "0",
                "--json",
            ]
        )
        == 0
    )
    d = json.loads(capsys.readouterr().out)
    assert d["winner"] == [["a", "s"]] and d["epsilon"] == 0.1 and d["hardness"]["H^B_eps"] is not None


@pytest.mark.parametrize("name", ["clucb-borda-pac", "clucb-borda-exact", "car-cond", "car-verify", "car-parallel"])
def test_cli_runs_each_algorithm_name(name, capsys):
    """Every command-line name of 004's algorithms runs through ``boundcalc explore`` and finds Table 2's
    winner (arm 0 beats every arm: Borda and Condorcet winner of the one-position instance)."""
    argv = [
        "explore",
        "--example",
        "table2",
        "--algorithm",
        name,
        "--delta",
        "0.05",
        "--runs",
        "2",
        "--seed",
        "1",
        "--workers",
        "0",
        "--json",
        "--no-progress",
    ]
    if name == "clucb-borda-pac":
        argv += ["--epsilon", "0.05"]
    assert main(argv) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["algorithm"] == name and d["winner"] == [[0, "s"]] and d["correct_rate"] == 1.0
    assert d["samples"]["min"] > 0


@pytest.mark.parametrize(
    "argv, msg",
    [
        (["--example", "chen2020-fig1", "-a", "nope", "--delta", "0.1"], "unknown algorithm 'nope'"),
        (
            ["--example", "chen2020-fig1", "-a", "car-cond", "--delta", "1.5"],
            "argument --delta: must be a number > 0 and < 1; got '1.5'",
        ),
        (
            ["--example", "chen2020-fig1", "-a", "car-cond", "--delta", "0"],
            "argument --delta: must be a number > 0 and < 1",
        ),
        (["--example", "chen2020-fig1", "-a", "clucb-borda-pac", "--delta", "0.1"], "give --epsilon"),
        (["--example", "chen2020-fig1", "-a", "car-cond", "--delta", "0.1", "--epsilon", "0.1"], "takes no --epsilon"),
        (
            [
                "--example",
                "chen2020-fig1",
                "-a",
                "clucb-borda-pac",
                "--delta",
                "0.1",
                "--epsilon",
                "-1",
                "--workers",
                "0",
            ],
            "argument --epsilon: must be a number > 0",
        ),
        (
            ["--example", "mslr5-noncondorcet", "-a", "car-cond", "--delta", "0.1", "--workers", "0"],
            "no Condorcet winning matching",
        ),
        (["-a", "car-cond", "--delta", "0.1"], "no input: give PATH"),
        (["/nonexistent/x.json", "-a", "car-cond", "--delta", "0.1"], "x.json: no such file"),
        (
            ["--example", "table2", "-a", "car-cond", "--delta", "0.1", "--runs", "0", "--workers", "0"],
            "argument --runs/-R: must be an integer in [1, ",
        ),
    ],
)
def test_cli_bad_input_exits_2(argv, msg, capsys):
    assert main(["explore", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("boundcalc: error:") and msg in err, err


# ----------------------------------------------------------------------------- family, plot
def test_random_instances_and_family_plot(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    insts = [random_cpe_instance(2, 2, s, gap=g) for s, g in ((0, 0.4), (0, 0.3))]
    for inst in insts:
        assert inst.n_positions == 2 and inst.n_edges == 4
        assert condorcet_winner(inst) == brute_condorcet(inst) is not None
        assert borda_winner(inst) == brute_borda(inst)
    assert random_cpe_instance(2, 2, 0, gap=0.4) == insts[0]  # seeded
    res = [
        explore(i, a, delta=0.1, runs=2, seed=0, epsilon=0.1 if a == "clucb-borda-pac" else None)
        for i in insts
        for a in ("car-cond", "clucb-borda-pac")
    ]
    ax = plot_sample_complexity(res)
    assert ax.get_xscale() == ax.get_yscale() == "log"
    series = [c for c in ax.containers]  # one errorbar container per algorithm
    assert len(series) == 2
    ys = sorted(float(y) for c in series for y in c.lines[0].get_ydata())
    assert ys == pytest.approx(sorted(float(r.n_duels.mean()) for r in res))
    xs = sorted(float(x) for c in series for x in c.lines[0].get_xdata())
    assert xs == pytest.approx(sorted(r.hardness_value() for r in res))
    ax.figure.savefig(tmp_path / "f.png")
    with pytest.raises(ValueError, match="gap"):
        random_cpe_instance(2, 2, 0, gap=0.6)


def test_compute_hardness_pac_and_reasons():
    h = compute_hardness(EXAMPLE, 0.05, 0.1)
    # H^B_eps = sum_e min(width^2/gap^2, 1/eps^2) with width 4 and 004's gaps (0.05, 0.05, 0.3, 0.5, 0.5)
    gaps = [0.05, 0.05, 0.3, 0.5, 0.5]
    assert h["H^B_eps"] == pytest.approx(sum(min(16 / g**2, 100.0) for g in gaps), rel=1e-9)
    assert h["expressions"]["theorem1"] == pytest.approx(h["H^B_eps"] * math.log(h["H^B_eps"] / 0.05), rel=1e-12)
    # 004's example has |p - 1/2| = 1/2 on some pair: the explicit lower bounds' conditions fail, with a reason
    assert h["lower_bounds"]["theorem3"]["value"] is None and "gamma" in h["lower_bounds"]["theorem3"]["reason"]
    # two arms, p = 0.55: both explicit constants apply, at the largest valid gamma (hand-worked)
    lb = compute_hardness(CPEInstance.from_matrix([[0.5, 0.55], [0.45, 0.5]]), 0.05)["lower_bounds"]
    # Theorem 3: |M|/(|M| - |M_e|) = 2 <= (1 - 4g)/(4g) -> g = 1/12; w = (0.525, 0.475), H^B = 2/0.05^2
    g = 1 / 12
    assert lb["theorem3"]["gamma"] == pytest.approx(g, rel=1e-8)
    assert lb["theorem3"]["value"] == pytest.approx(0.2 * g * (1 - g) * 0.5**2 * math.log(20) * 800, rel=1e-7)
    # Theorem 6: g < 1/(2(2 + l)) = 1/6; one edge outside M^C_*, Delta^C = 0.05
    g = 1 / 6
    assert lb["theorem6"]["gamma"] == pytest.approx(g, rel=1e-8)
    assert lb["theorem6"]["value"] == pytest.approx(0.4 * g * (1 - g) / 0.05**2 * math.log(20), rel=1e-7)
    two = CPEInstance.from_matrix([[0.5, 0.55], [0.45, 0.5]])
    assert "delta in (0, 0.1)" in compute_hardness(two, 0.2)["lower_bounds"]["theorem6"]["reason"]
