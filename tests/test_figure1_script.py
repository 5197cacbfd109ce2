"""benchmarks/figure1.py's own arithmetic: pooling a stored summary with new runs (``--carry``) and
the paired CW-RMED - ECW-RMED difference, against the statistics of all runs computed at once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import figure1  # noqa: E402
from public_data import bundled_shared_dir  # noqa: E402  (the bundled MSLR matrix in the layout figure1.py reads)


@pytest.mark.parametrize("n1,n2", [(1, 1), (1, 5), (74, 26), (3, 2), (50, 50)])
def test_pool_is_the_statistics_of_all_runs(n1, n2):
    rng = np.random.default_rng(n1 * 100 + n2)
    x = rng.normal(3000.0, 40.0, size=(n1 + n2, 7)) * rng.uniform(0.5, 2.0, size=7)

    def stats(part):
        se = part.std(axis=0, ddof=1) / np.sqrt(len(part)) if len(part) > 1 else np.full(part.shape[1], np.nan)
        return part.mean(axis=0), se

    (m1, s1), (m2, s2), (m, s) = stats(x[:n1]), stats(x[n1:]), stats(x)
    pm, ps = figure1.pool(n1, m1, s1, n2, m2, s2)
    np.testing.assert_allclose(pm, m, rtol=1e-13)
    np.testing.assert_allclose(ps, s, rtol=1e-9)


def run(monkeypatch: pytest.MonkeyPatch, out: Path, *extra: str) -> dict:
    """``benchmarks/figure1.py`` in this process (its ``main()`` with this argv): the Table 2 test
    below runs the script as a subprocess, so these seven calls check only its arithmetic."""
    argv = ["figure1.py", "--panels", "a", "--policies", "ecw-rmed,cw-rmed", "--horizon", "400"]
    monkeypatch.setenv("BOUNDCALC_SHARED", str(bundled_shared_dir()))
    monkeypatch.setattr(sys, "argv", [*argv, "--workers", "0", "--out", str(out), *extra])
    figure1.main()
    return json.loads((out / "figure1.json").read_text())["panels"][0]


@pytest.mark.slow  # seven runs of the script (about 15 s); the Table 2 panel's test below is the quick one
def test_carry_pools_a_summary_whose_rows_are_gone_and_pairs_the_held_runs(tmp_path, monkeypatch):
    whole = run(monkeypatch, tmp_path / "whole", "--runs", "4")
    part = tmp_path / "part"
    first = run(monkeypatch, part, "--runs", "2")
    (part / "a-cw-rmed.jsonl").unlink()  # CW-RMED's rows of runs 0-1 are gone, its summary stays
    kept = run(monkeypatch, part, "--runs", "4", "--carry")
    cw, ecw = kept["policies"]["cw-rmed"], kept["policies"]["ecw-rmed"]
    assert (
        cw["runs"] == 4 and cw["carried"]["runs"] == 2 and cw["carried"]["mean"] == first["policies"]["cw-rmed"]["mean"]
    )
    assert "carried" not in ecw  # its rows are there: runs 2-3 added as usual
    for name in ("cw-rmed", "ecw-rmed"):
        np.testing.assert_allclose(kept["policies"][name]["mean"], whole["policies"][name]["mean"], rtol=1e-12)
        np.testing.assert_allclose(kept["policies"][name]["stderr"], whole["policies"][name]["stderr"], rtol=1e-9)
    # the pair: over the runs both row files hold (2-3 here, 0-3 in the whole run)
    assert (kept["paired"]["first_run"], kept["paired"]["last_run"], kept["paired"]["runs"]) == (2, 3, 2)
    w = whole["paired"]
    assert (w["first_run"], w["runs"]) == (0, 4)
    lnT = np.log(400)
    diff = (whole["policies"]["cw-rmed"]["mean"][-1] - whole["policies"]["ecw-rmed"]["mean"][-1]) / lnT
    assert w["mean"] == pytest.approx(diff, rel=1e-12)
    # a later call pools with the recorded carried part again, computing nothing new
    again = run(monkeypatch, part, "--runs", "4")
    assert again["policies"]["cw-rmed"]["carried"] == cw["carried"]
    np.testing.assert_allclose(again["policies"]["cw-rmed"]["mean"], cw["mean"], rtol=0)
    # CPU: the carried part's and the rows' own (runs 2-3), nothing counted twice
    rows = [json.loads(x) for x in (part / "a-cw-rmed.jsonl").read_text().splitlines()[1:]]
    assert sorted(r["run"] for r in rows) == [2, 3]
    assert again["policies"]["cw-rmed"]["cpu_seconds"] == pytest.approx(
        cw["carried"]["cpu_seconds"] + sum(r["cpu_seconds"] for r in rows), rel=1e-12
    )
    # fewer runs than the carried part holds: the stored entry is kept as it is
    fewer = run(monkeypatch, part, "--runs", "2")
    assert fewer["policies"]["cw-rmed"] == again["policies"]["cw-rmed"]
    # rows of every run again (here the whole job's): they replace the carried summary
    (part / "a-cw-rmed.jsonl").write_text((tmp_path / "whole" / "a-cw-rmed.jsonl").read_text())
    rows_again = run(monkeypatch, part, "--runs", "4")
    assert "carried" not in rows_again["policies"]["cw-rmed"]
    assert rows_again["policies"]["cw-rmed"]["mean"] == whole["policies"]["cw-rmed"]["mean"]
    assert rows_again["paired"]["runs"] == 4
    # a summary of another seed is not carried (stored panels are kept only for this horizon and seed)
    seed1 = tmp_path / "seed1"
    seed1.mkdir()
    (seed1 / "figure1.json").write_text((tmp_path / "whole" / "figure1.json").read_text())
    other = run(monkeypatch, seed1, "--runs", "3", "--seed", "1", "--carry")
    assert "carried" not in other["policies"]["cw-rmed"] and other["paired"]["runs"] == 3


@pytest.mark.slow
def test_table2_panel_pairs_cw_and_ecw_at_every_checkpoint_and_draw_only_redraws(tmp_path):
    """``--panels t2`` (000's Table 2, no data needed): the stored paired curve at every checkpoint
    is the per-run difference of the two policies' regrets on common random numbers, checked
    against :func:`boundcalc.simulate.simulate` run directly (one call, both policies); its mean
    is the difference of the two stored means; null at t = 1 (ln 1 = 0)."""
    from boundcalc import load_example
    from boundcalc.simulate import simulate

    out = tmp_path / "t2"
    cmd = [
        sys.executable,
        str(ROOT / "benchmarks" / "figure1.py"),
        "--panels",
        "t2",
        "--policies",
        "ecw-rmed,cw-rmed",
        "--horizon",
        "500",
        "--runs",
        "3",
        "--workers",
        "0",
        "--out",
        str(out),
    ]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    panel = json.loads((out / "figure1.json").read_text())["panels"][0]
    assert panel["panel"] == "t2" and panel["K"] == 4 and panel["lower_bound"] == pytest.approx(27.5487, abs=1e-3)
    c = panel["paired"]["curve"]
    sim = simulate(load_example("table2"), ["cw-rmed", "ecw-rmed"], horizon=500, runs=3, progress=False)
    t = sim.checkpoints
    assert c["t"] == t.tolist() and c["mean"][0] is None and c["stderr"][0] is None
    D = sim.regret("cw-rmed") - sim.regret("ecw-rmed")
    lnt = np.log(t[1:].astype(float))
    np.testing.assert_allclose(c["mean"][1:], D.mean(axis=0)[1:] / lnt, rtol=1e-12)
    np.testing.assert_allclose(c["stderr"][1:], D.std(axis=0, ddof=1)[1:] / np.sqrt(3) / lnt, rtol=1e-12)
    diff = (np.array(panel["policies"]["cw-rmed"]["mean"]) - np.array(panel["policies"]["ecw-rmed"]["mean"]))[1:] / lnt
    np.testing.assert_allclose(c["mean"][1:], diff, rtol=1e-9, atol=1e-12)
    assert panel["paired"]["mean"] == c["mean"][-1] and panel["paired"]["stderr"] == c["stderr"][-1]
    # --draw-only: nothing simulated, the same numbers, the picture redrawn
    before = (out / "figure1.json").read_text()
    (out / "figure1.png").unlink()
    res = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "figure1.py"), "--draw-only", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    assert json.loads((out / "figure1.json").read_text()) == json.loads(before)
    assert (out / "figure1.png").stat().st_size > 0 and "paired cw-rmed - ecw-rmed" in res.stdout
