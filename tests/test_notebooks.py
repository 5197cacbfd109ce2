"""Execute the notebooks with nbclient (a python3 kernel of this interpreter) and check what they print.

``notebooks/table1.ipynb`` reproduces paper 000's Table 1 on the public MSLR matrix with a small
count here (``BOUNDCALC_TABLE1_COUNT``, default 200 in this test); without the data it must run
through and say the data are absent.

``notebooks/cw_vs_ecw.ipynb`` (000 Figure 1 style regret curves) runs at ``T = 300``, 2 runs
(``BOUNDCALC_CWECW_*``): its Table 2 numbers must equal the simulator's for the same seed, the MSLR
panels (when the data exist) must be one Condorcet and one non-Condorcet 16-arm draw.

``notebooks/dueling_policies.ipynb`` (001 and 000 Figure 1 panels, every registered policy) runs at
``T = 300``, 2 runs (``BOUNDCALC_DUEL_*``): its numbers must equal the simulator's for the same seed.

``notebooks/cpe_exploration.ipynb`` (004's five pure-exploration algorithms, sample complexity
against hardness; exact vs Frank-Wolfe oracle) runs on two 2-position instances, 2 runs
(``BOUNDCALC_CPEX_*``): its numbers must equal ``explore()``'s for the same seed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each notebook runs for seconds: the whole suite runs them, -m 'not slow' does not

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

REPO = Path(__file__).resolve().parents[1]
from public_data import bundled_shared_dir  # noqa: E402

SHARED = bundled_shared_dir()  # the bundled MSLR matrices in the layout the notebooks read
MSLR = SHARED / "data" / "public" / "nightingal3_MSLR_Informational_PMat.npz"
TABLE1 = REPO / "notebooks" / "table1.ipynb"
PAPER = {"lower_bound": 6.7e2, "ecw": 7.3e2, "ccb": 8.8e5}  # 000 Table 1, 000's unit


def execute(path: Path):
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    return nb


def printed(nb) -> str:
    out = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                out.append(o["text"])
            elif "data" in o and "text/plain" in o["data"]:
                out.append(o["data"]["text/plain"])
    return "\n".join(out)


def summary_line(nb) -> dict:
    lines = [ln for ln in printed(nb).splitlines() if ln.startswith("table1-summary: ")]
    assert len(lines) == 1, "the notebook must print one machine-readable summary"
    return json.loads(lines[0][len("table1-summary: ") :])


def test_table1_notebook_reproduces_the_paper(monkeypatch):
    count = int(os.environ.get("BOUNDCALC_TABLE1_COUNT", "200"))
    monkeypatch.setenv("BOUNDCALC_TABLE1_COUNT", str(count))
    monkeypatch.setenv("BOUNDCALC_SHARED", str(SHARED))
    nb = execute(TABLE1)
    rep = summary_line(nb)
    assert rep["count"] == count
    s = {x["key"]: x for x in rep["summary"]}
    for key, paper in PAPER.items():
        assert s[key]["n_000"] == count
        # 200 submatrices: s.e. about 4 % of the mean; the paper's numbers have two digits
        assert 0.8 * paper < s[key]["mean_000"] < 1.2 * paper, (key, s[key]["mean_000"], paper)
    assert s["ecw"]["mean_000"] >= s["lower_bound"]["mean_000"]  # 000 Theorem 6, on average too
    images = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) == 1  # the ECW / lower-bound plot
    table = printed(nb)[printed(nb).index("mean / paper") :].splitlines()
    lb = next(ln for ln in table if ln.startswith("optimal (000 Thm 2)")).split()
    assert lb[4:6] == ["6.7e+02", f"{s['lower_bound']['mean_000']:.4g}"]  # paper, mean side by side


def test_table1_notebook_without_data_says_so(monkeypatch, tmp_path):
    monkeypatch.setenv("BOUNDCALC_SHARED", str(tmp_path))  # an empty directory: no data
    monkeypatch.setenv("BOUNDCALC_TABLE1_COUNT", "5")
    nb = execute(TABLE1)
    text = printed(nb)
    assert "The public MSLR matrix is absent" in text
    assert "skipped" in summary_line(nb)


# ----------------------------------------------------------------------------- cw_vs_ecw.ipynb
CWECW = REPO / "notebooks" / "cw_vs_ecw.ipynb"


def cwecw_summary(nb) -> dict:
    lines = [ln for ln in printed(nb).splitlines() if ln.startswith("cw_vs_ecw-summary: ")]
    assert len(lines) == 1, "the notebook must print one machine-readable summary"
    return json.loads(lines[0][len("cw_vs_ecw-summary: ") :])


def _run_cwecw(monkeypatch, shared: Path):
    monkeypatch.setenv("BOUNDCALC_CWECW_HORIZON", "300")  # CI size (the notebook's default is 10^5)
    monkeypatch.setenv("BOUNDCALC_CWECW_RUNS", "2")
    monkeypatch.setenv("BOUNDCALC_CWECW_SEED", "0")
    monkeypatch.setenv("BOUNDCALC_CWECW_WORKERS", "0")
    monkeypatch.setenv("BOUNDCALC_SHARED", str(shared))
    nb = execute(CWECW)
    return nb, cwecw_summary(nb)


def _check_table2_panel(panel):
    """000 Table 2: C* = 27.5, C^E* = 49.7; the notebook's numbers are the simulator's for its seed."""
    from boundcalc.datasets import load_example
    from boundcalc.simulate import simulate

    assert panel["K"] == 4 and panel["condorcet"]
    assert abs(panel["lower_bound"] - 27.5487) < 1e-3 and abs(panel["ecw"] - 49.6635) < 1e-3
    assert set(panel["policies"]) == {"cw-rmed", "ecw-rmed", "rmed1"}
    ref = simulate(load_example("table2"), ["cw-rmed", "ecw-rmed", "rmed1"], horizon=300, runs=2, seed=0, bounds=False)
    for name, got in panel["policies"].items():
        assert got["mean"] == ref.mean(name)[-1] and got["stderr"] == ref.stderr(name)[-1]


def test_cw_vs_ecw_notebook(monkeypatch):
    """Figure 1 style panels: Table 2 always, the two 16-arm MSLR submatrices when the data exist."""
    nb, rep = _run_cwecw(monkeypatch, SHARED)
    assert (rep["horizon"], rep["runs"], rep["seed"]) == (300, 2, 0)
    assert rep["have_data"] == MSLR.exists()
    panels = rep["panels"]
    _check_table2_panel(panels[0])
    images = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) == 1  # one figure, a panel per matrix
    if not MSLR.exists():
        assert len(panels) == 1
        return
    assert [(p["K"], p["condorcet"]) for p in panels[1:]] == [(16, True), (16, False)]
    for p in panels[1:]:
        assert 0 < p["lower_bound"] <= p["ecw"] * (1 + 1e-9)  # 000 Theorem 6, (8)
    # the non-Condorcet draw has several Copeland winners: C* = C^E* (000 Theorem 6, (9))
    assert len(panels[2]["copeland_winners"]) >= 2
    assert abs(panels[2]["lower_bound"] - panels[2]["ecw"]) <= 1e-6 * panels[2]["ecw"]


def test_cw_vs_ecw_notebook_without_data(monkeypatch, tmp_path):
    nb, rep = _run_cwecw(monkeypatch, tmp_path)  # an empty directory: no data
    assert "The public MSLR matrix is absent" in printed(nb)
    assert rep["have_data"] is False and len(rep["panels"]) == 1
    _check_table2_panel(rep["panels"][0])


# ----------------------------------------------------------------------------- dueling_policies.ipynb
DUEL = REPO / "notebooks" / "dueling_policies.ipynb"


def _run_duel(monkeypatch, shared: Path):
    """``dueling_policies.ipynb`` at T = 300, 2 runs (CW-RMED included at that size)."""
    for k, v in {"HORIZON": "300", "RUNS": "2", "SEED": "0", "WORKERS": "0", "CW_HORIZON": "", "CW_RUNS": ""}.items():
        monkeypatch.setenv(f"BOUNDCALC_DUEL_{k}", v)
    monkeypatch.setenv("BOUNDCALC_SHARED", str(shared))
    nb = execute(DUEL)
    lines = [ln for ln in printed(nb).splitlines() if ln.startswith("dueling_policies-summary: ")]
    assert len(lines) == 1, "the notebook must print one machine-readable summary"
    return nb, json.loads(lines[0][len("dueling_policies-summary: ") :])


def test_dueling_policies_notebook(monkeypatch):
    """001 Figure 1 panels (both MSLR5 matrices) and 000 Figure 1 panels (Table 2, a 16-arm MSLR draw),
    every registered policy; the numbers are the simulator's for the same seed."""
    from boundcalc.datasets import load_example
    from boundcalc.policies import policy_names
    from boundcalc.simulate import simulate

    nb, rep = _run_duel(monkeypatch, SHARED)
    assert (rep["horizon"], rep["runs"], rep["seed"]) == (300, 2, 0)
    assert rep["have_data"] == MSLR.exists()
    assert set(rep["policies"]) == set(policy_names()) and "cw-rmed" in rep["policies"]
    panels = {p["panel"]: p for p in rep["panels"]}
    expected = ["mslr5-condorcet", "mslr5-noncondorcet", "Table 2 (000)"]
    assert list(panels)[:3] == expected and len(panels) == (4 if MSLR.exists() else 3)
    t2 = panels["Table 2 (000)"]
    assert abs(t2["lower_bound"] - 27.5487) < 1e-3 and abs(t2["ecw"] - 49.6635) < 1e-3  # 000 Table 2
    assert panels["mslr5-condorcet"]["condorcet"] and not panels["mslr5-noncondorcet"]["condorcet"]
    for name in expected:
        p = panels[name]
        assert set(p["policies"]) == set(policy_names())
        assert all(v["horizon"] == 300 and v["runs"] == 2 for v in p["policies"].values())
        assert 0 < p["lower_bound"] <= p["ecw"] * (1 + 1e-9)  # 000 Theorem 6, (8)
    # independent re-run of one panel through the simulator: the same numbers for the same seed
    ref = simulate(
        load_example("mslr5-noncondorcet"), ["dts", "ecw-rmed", "cw-rmed"], horizon=300, runs=2, seed=0, bounds=False
    )
    for name in ("dts", "ecw-rmed", "cw-rmed"):
        got = panels["mslr5-noncondorcet"]["policies"][name]
        assert got["mean"] == ref.mean(name)[-1] and got["stderr"] == ref.stderr(name)[-1]
    images = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) == 1  # one figure, a panel per matrix
    if MSLR.exists():
        p16 = panels["MSLR K = 16, Condorcet"]
        assert p16["K"] == 16 and p16["condorcet"]
    else:
        assert "The public MSLR matrix is absent" in printed(nb)


# ----------------------------------------------------------------------------- cpe_exploration.ipynb
CPEX = REPO / "notebooks" / "cpe_exploration.ipynb"


def test_cpe_exploration_notebook(monkeypatch):
    """004's five algorithms on a family of two small random instances (2 runs each, 004's example left
    out: CLUCB-Borda-Exact needs ~10^6 duels there) and the exact vs Frank-Wolfe oracle on 2 and 3
    positions; the numbers are explore()'s for the same seed, the oracle's value bounds Frank-Wolfe's."""
    from boundcalc.cpe import borda_winner, condorcet_winner
    from boundcalc.cpe.algorithms import ALGORITHMS
    from boundcalc.explore import explore

    env = {
        "RUNS": "2",
        "SEED": "0",
        "INSTANCES": "2",
        "POSITIONS": "2",
        "EXAMPLE": "0",
        "H_MAX": "100",
        "ORACLE_POSITIONS": "2,3",
        "ORACLE_REPS": "1",
        "FW_MAX_ITER": "20",
        "WORKERS": "0",
    }
    for k, v in env.items():
        monkeypatch.setenv(f"BOUNDCALC_CPEX_{k}", v)
    monkeypatch.setenv("PYTHONPATH", str(REPO))  # the kernel imports this checkout
    nb = execute(CPEX)
    lines = [ln for ln in printed(nb).splitlines() if ln.startswith("cpe_exploration-summary: ")]
    assert len(lines) == 1, "the notebook must print one machine-readable summary"
    rep = json.loads(lines[0][len("cpe_exploration-summary: ") :])
    assert (rep["runs"], rep["seed"], len(rep["instances"])) == (2, 0, 2)
    rows = rep["explore"]
    assert {r["algorithm"] for r in rows} == set(ALGORITHMS) and len(rows) == 2 * len(ALGORITHMS)
    assert all(r["correct_rate"] == 1.0 and r["H^B"] <= 100 for r in rows)
    # independent re-run of one family member: the same instance draw, winners and duel counts
    from boundcalc.explore import random_cpe_instance

    inst = random_cpe_instance(2, 2, 2020, gap=0.3, spread=0.1)
    for name in ("car-cond", "clucb-borda-pac"):
        got = next(r for r in rows if r["algorithm"] == name and r["instance"].startswith("random-0"))
        eps = 0.05 if ALGORITHMS[name].needs_epsilon else None
        ref = explore(inst, name, delta=0.05, epsilon=eps, runs=2, seed=0)
        assert got["n_duels"] == ref.n_duels.tolist()
        win = borda_winner(inst) if ALGORITHMS[name].target == "borda" else condorcet_winner(inst)
        assert got["winner"] == [list(e) for e in inst.matching_edges(win)]
    oracle = rep["oracle"]
    assert [r["positions"] for r in oracle] == [2, 3]
    for r in oracle:  # Frank-Wolfe returns a feasible x: its value is at most the exact maximum
        assert r["fw"] <= r["exact"] + 1e-7 and r["gap"] >= -1e-7
        assert r["gap"] <= r["fw_gap_bound"] + 1e-7  # its own certificate bounds the true difference
    images = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) == 1  # one figure: Borda and Condorcet panels


FIG1 = REPO / "notebooks" / "figure1.ipynb"
FIG1_JSON = REPO / "benchmarks" / "results" / "figure1" / "figure1.json"


@pytest.mark.skipif(not FIG1_JSON.exists(), reason="no stored Figure 1 run")
def test_figure1_notebook_reads_the_stored_run():
    """000's Figure 1 panels from the stored full-scale run: the lower bound is drawn at 64 arms too,
    every lower bound is at most ECW's constant (000 Theorem 6, (8)), one figure."""
    nb = execute(FIG1)
    line = [ln for ln in printed(nb).splitlines() if ln.startswith("figure1-summary: ")]
    assert len(line) == 1
    rep = json.loads(line[0][len("figure1-summary: ") :])
    assert rep["K"] == [16, 16, 64] and all(v > 0 for v in rep["lower_bound"])
    stored = json.loads(FIG1_JSON.read_text())
    for p in stored["panels"]:
        assert p["lower_bound"] <= p["ecw"] * (1 + 1e-9)
        assert {"ecw-rmed", "rmed1", "dts", "ccb", "rucb"} <= set(p["policies"])
    # the longer runs (panel (a) to 10^6, Table 2 to 10^7): one figure each, the paired CW - ECW
    # difference at T as stored
    longer = [
        n for n in ("figure1-1e6", "table2-1e7") if (REPO / "benchmarks" / "results" / n / "figure1.json").exists()
    ]
    images = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) == 1 + len(longer)
    line = [ln for ln in printed(nb).splitlines() if ln.startswith("paired-summary: ")]
    assert len(line) == 1
    pairs = json.loads(line[0][len("paired-summary: ") :])
    for n in longer:
        rep = json.loads((REPO / "benchmarks" / "results" / n / "figure1.json").read_text())
        for p in rep["panels"]:
            if "paired" in p:
                got = pairs[f"{n}/{p['panel']}"]
                assert (got["mean"], got["stderr"], got["runs"]) == (
                    p["paired"]["mean"],
                    p["paired"]["stderr"],
                    p["paired"]["runs"],
                )
