"""Long work announced: the CPU-time estimate printed before ``bounds``,
``compare``, ``simulate`` and ``explore`` start, when above a minute.

The cost models' constants live in ``boundcalc/cli.py`` (the policies' in
``boundcalc/data/step_costs.json``, read by :mod:`boundcalc.policies.costs`); they must equal the
stored measurements (``benchmarks/results/long_work.json`` written by ``benchmarks/long_work.py``,
and the policies' ``benchmarks/results/policies*.json``).  The lines are checked on the installed command run as a
subprocess; a run whose estimate is hours is stopped as soon as the line has appeared."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from boundcalc import cli
from boundcalc.datasets import tournament_matrix
from boundcalc.policies import costs

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
EXE = [sys.executable, "-m", "boundcalc"]
ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _sig4(x: float) -> float:
    return float(f"{x:.4g}")


def test_lower_bound_constants_are_the_stored_fit():
    doc = json.loads((RESULTS / "long_work.json").read_text())["bounds"]
    assert cli.LB_COST_A == _sig4(doc["a"]) and cli.LB_COST_B == _sig4(doc["b"])
    # the stored fit is the least-squares line of ln(median seconds) on ln K over K >= fit_from
    rows = [r for r in doc["rows"] if r["K"] >= doc["fit_from_K"]]
    b, ln_a = np.polyfit(np.log([r["K"] for r in rows]), np.log([r["median_seconds"] for r in rows]), 1)
    assert b == pytest.approx(doc["b"], rel=1e-9) and math.exp(ln_a) == pytest.approx(doc["a"], rel=1e-9)
    for r in doc["rows"]:  # each median is the median of its stored times
        assert r["median_seconds"] == float(np.median(r["seconds"]))


def test_explore_constants_are_the_stored_measurements():
    doc = json.loads((RESULTS / "long_work.json").read_text())["explore"]["algorithms"]
    from boundcalc.cpe.algorithms import ALGORITHMS

    assert set(cli.EXPLORE_US_PER_DUEL) == set(doc) == set(ALGORITHMS)
    for name, row in doc.items():
        assert row["us_per_duel"] == pytest.approx(row["seconds"] / row["duels"] * 1e6, rel=1e-12)
        assert cli.EXPLORE_US_PER_DUEL[name] == _sig4(row["us_per_duel"]), name
        assert cli.EXPLORE_EXPRESSION[name] == row["expression"]
        ratio = float(np.mean(row["calibration_duels"])) / row["calibration_expression"]
        assert row["duels_per_expression"] == pytest.approx(ratio, rel=1e-12)
        assert cli.EXPLORE_DUELS_PER_EXPRESSION[name] == _sig4(ratio), name


def test_policy_constants_are_the_stored_benchmark_rows():
    want: dict[str, dict[int, float]] = {}
    for f in ("policies.json", "policies_baselines.json", "policies_merge.json", "policies_vdb.json"):
        for r in json.loads((RESULTS / f).read_text())["rows"]:
            d = want.setdefault(r["policy"], {})
            d[r["K"]] = max(d.get(r["K"], 0.0), r["user_us"])
    assert set(costs.STEP_US) == set(want) | {"cw-rmed"}
    from boundcalc.policies import POLICIES

    assert set(costs.STEP_US) == set(POLICIES)  # every registered policy has a cost
    # CW-RMED's cost: the re-executed cw_vs_ecw notebook's stored summary (docs/notebooks.md renders
    # it), CPU us per step on Table 2 and the larger of the two 16-arm panels, truncated
    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    import results

    panels = results.notebook_summary("cw_vs_ecw")["panels"]
    table2 = panels[0]["policies"]["cw-rmed"]["us_per_step"]
    k16 = max(p["policies"]["cw-rmed"]["us_per_step"] for p in panels if p["K"] == 16)
    assert costs.STEP_US["cw-rmed"] == (math.floor(10 * table2) / 10, float(math.floor(k16)))
    for name, (u5, u16) in costs.STEP_US.items():
        if name == "cw-rmed":
            continue
        assert (u5, u16) == (_sig4(want[name][5]), _sig4(want[name][16])), name


def test_step_costs_file_is_what_the_benchmark_writes():
    """``benchmarks/policies.py --write-costs`` writes the package's file from the stored rows."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_policies", ROOT / "benchmarks" / "policies.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    stored = json.loads((ROOT / "boundcalc" / "data" / "step_costs.json").read_text())
    assert bench.step_costs() == stored


def test_policy_cost_model_by_hand():
    u5, u16 = costs.STEP_US["dts"]  # grows with K: b = ln(u16/u5)/ln(16/5), clipped at 2
    b = min(math.log(u16 / u5) / math.log(3.2), 2.0)
    assert costs.policy_us_per_step("dts", 16) == u16 and costs.policy_us_per_step("dts", 5) == pytest.approx(u5)
    assert costs.policy_us_per_step("dts", 32) == pytest.approx(u16 * 2**b)
    assert costs.policy_us_per_step("scb", 160) == costs.STEP_US["scb"][1]  # falls with K: b clipped at 0
    u5, u16 = costs.STEP_US["cw-rmed"]
    assert math.log(u16 / u5) / math.log(3.2) > 2
    assert costs.policy_us_per_step("cw-rmed", 32) == pytest.approx(u16 * 4)  # b clipped at 2


def _first_lines(argv: list[str], until: str, timeout: float = 240) -> tuple[list[str], int | None]:
    """stderr lines of the command up to the one containing ``until`` (then the process is
    stopped), or all of them and the exit code if it ends first."""
    p = subprocess.Popen(EXE + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV)
    timer = threading.Timer(timeout, p.kill)
    timer.start()
    lines: list[str] = []
    try:
        assert p.stderr is not None
        for line in p.stderr:
            lines.append(line.rstrip("\n"))
            if until in line:
                p.kill()
                p.wait()
                return lines, None
        return lines, p.wait()
    finally:
        timer.cancel()
        if p.poll() is None:
            p.kill()
            p.wait()


def _estimates(lines: list[str]) -> list[str]:
    return [ln for ln in lines if ln.startswith("boundcalc: estimate:")]


@pytest.fixture(scope="module")
def big_matrix(tmp_path_factory) -> tuple[Path, int]:
    """The smallest K whose modelled time is above the lower bound's estimate threshold (plus 50), as a .npy file."""
    K = next(k for k in range(300, 5000, 50) if cli.lower_bound_seconds(k) > cli.LB_ESTIMATE_THRESHOLD_S) + 50
    path = tmp_path_factory.mktemp("big") / f"t{K}.npy"
    np.save(path, tournament_matrix(K, 0).mu)
    return path, K


@pytest.mark.parametrize("command", ["bounds", "compare"])
def test_large_k_prints_one_estimate_before_the_work(command, big_matrix):
    path, K = big_matrix
    lines, code = _first_lines([command, str(path)], "boundcalc: estimate:")
    assert code is None, lines  # stopped at the line: it came before the work ended
    est = _estimates(lines)
    assert len(est) == 1 and f"K = {K}" in est[0], lines
    assert f"about {cli._duration(cli.lower_bound_seconds(K))} of CPU" in est[0]


def test_no_estimate_below_the_threshold(tmp_path):
    K = 300  # the note on large matrices, but the model says seconds
    assert cli.lower_bound_seconds(K) < cli.LB_ESTIMATE_THRESHOLD_S
    path = tmp_path / "t300.npy"
    np.save(path, tournament_matrix(K, 1).mu)
    lines, code = _first_lines(["bounds", str(path)], "never printed", timeout=600)
    assert code == 0 and _estimates(lines) == [], lines
    assert any("K = 300 arms" in ln for ln in lines)  # the note is still there


@pytest.mark.slow
def test_simulate_long_horizon_estimate():
    argv = ["simulate", "--example", "table2", "--policies", "rmed1", "--runs", "1", "--workers", "0"]
    lines, code = _first_lines(argv + ["-T", "1e10"], "boundcalc: estimate:")
    assert code is None and len(_estimates(lines)) == 1, lines
    want = costs.policy_us_per_step("rmed1", 4) * 1e10 * 1e-6  # 1e10 steps x us per step
    assert f"{want / 3600:.1f} h" in _estimates(lines)[0]
    lines, code = _first_lines(argv + ["-T", "2000"], "never printed")
    assert code == 0 and _estimates(lines) == [], lines


@pytest.mark.slow
def test_explore_estimate_from_the_expression_and_the_budget(tmp_path):
    """A near tie (gap 0.001) at delta 1e-10: 004's Theorem 4 expression is ~1e6 ln(...) duels
    per run, minutes in all; Table 2 at delta 0.1 is seconds (no line)."""
    from boundcalc.cpe import CPEInstance

    mu = np.array([[0.5, 0.501, 0.501], [0.499, 0.5, 0.6], [0.499, 0.4, 0.5]])
    path = tmp_path / "near_tie.npy"
    np.save(path, mu)
    per_run = cli.explore_duels_per_run(CPEInstance.from_matrix(mu), "car-cond", 1e-10, None, 10**7)
    want = 10 * per_run * cli.EXPLORE_US_PER_DUEL["car-cond"] * 1e-6
    assert want > cli.ESTIMATE_THRESHOLD_S
    argv = ["explore", str(path), "-a", "car-cond", "--delta", "1e-10", "--runs", "10", "--workers", "0"]
    lines, code = _first_lines(argv, "boundcalc: estimate:")
    assert code is None and len(_estimates(lines)) == 1, lines
    assert cli._duration(want) in _estimates(lines)[0]
    # the budget caps it: 10 runs x 1000 duels is no estimate
    assert cli.explore_duels_per_run(CPEInstance.from_matrix(mu), "car-cond", 1e-10, None, 1000) == 1000
    # no Condorcet winner: no estimate (explore refuses the instance by name)
    cyc = CPEInstance.from_matrix([[0.5, 0.6, 0.4], [0.4, 0.5, 0.6], [0.6, 0.4, 0.5]])
    assert cli.explore_duels_per_run(cyc, "car-cond", 1e-10, None, 10**7) == 0.0
    lines, code = _first_lines(argv + ["--max-duels", "1000"], "never printed")
    assert code == 0 and _estimates(lines) == [], lines
    argv = ["explore", "--example", "table2", "-a", "car-cond", "--delta", "0.1", "--runs", "2", "--workers", "0"]
    lines, code = _first_lines(argv, "never printed")
    assert code == 0 and _estimates(lines) == [], lines


def test_docs_quote_the_stored_fit():
    doc = json.loads((RESULTS / "long_work.json").read_text())["bounds"]
    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    try:
        import results
    finally:
        sys.path.pop(0)
    text = " ".join(results.render((ROOT / "docs" / "cli.md").read_text()).split())
    assert f"grows about as K^{doc['b']:.2f}" in text
    first = next(k for k in range(300, 5000) if cli.lower_bound_seconds(k) > cli.LB_ESTIMATE_THRESHOLD_S)
    assert f"from about {round(first, -2)} arms" in text, first


@pytest.mark.slow
def test_compare_gives_no_estimate_for_a_bound_it_does_not_compute(big_matrix):
    """Before: ``compare --keys ecw`` at large K printed the lower bound's estimate."""
    path, K = big_matrix
    lines, code = _first_lines(["compare", str(path), "--keys", "ecw,rmed1"], "never printed", timeout=600)
    assert code == 0 and _estimates(lines) == [], lines


@pytest.mark.slow
def test_bootstrap_and_simulate_say_a_number_and_max_seconds_refuses(tmp_path):
    """Before: 10^6 bootstrap draws printed nothing for minutes; simulate said "can take hours"."""
    counts = tmp_path / "c.json"
    counts.write_text("[[0, 30, 40], [20, 0, 35], [10, 15, 0]]")
    argv = ["bounds", "--counts", str(counts), "--bootstrap", "1000000", "--workers", "0"]
    lines, code = _first_lines(argv, "boundcalc: estimate:")
    want = cli.bootstrap_seconds(3, 10**6)
    assert want == 10**6 * 3e-3 and cli.bootstrap_seconds(136, 1) == pytest.approx(0.0166, abs=1e-4)
    assert code is None and cli._duration(want) in _estimates(lines)[0], lines
    lines, code = _first_lines(argv + ["--max-seconds", "60"], "never printed")
    assert code == 2 and len(lines) == 1 and "--max-seconds 60" in lines[0] and cli._duration(want) in lines[0]
    sim = ["simulate", "--example", "table2", "--policies", "rmed1", "-T", "1e9", "--runs", "2", "--workers", "0"]
    lines, code = _first_lines(sim, "boundcalc: estimate:")
    cpu = costs.policy_us_per_step("rmed1", 4) * 2e9 * 1e-6
    assert code is None and any(f"about {cli._duration(cpu)} of CPU time" in ln for ln in lines), lines
