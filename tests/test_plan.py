"""boundcalc.plan: the duels per pair that 000's lower-bound allocation q* and 004's CPE hardness
call for, checked against closed forms: on a Condorcet matrix 000's LP reduces to RMED's bound,
q*_{1i} = 1/d(mu_1i) for the arms the winner must be told from (Komiyama et al. 2015), and 004's
one-position terms are 1/max(Delta^C_i, Delta^C_j)^2 and 1/(mu_{i*,i} - 1/2)^2 (Theorem 4,
Sec. 4.3), whose sums are the cpe_* constants of compare()."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import boundcalc
from boundcalc import PreferenceMatrix, kl_half
from boundcalc.cli import main
from boundcalc.plan import plan

MU = np.array([[0.5, 0.6, 0.7], [0.4, 0.5, 0.6], [0.3, 0.4, 0.5]])


def test_condorcet_matrix_against_rmed_and_004():
    pm = PreferenceMatrix(MU, names=["a", "b", "c"])
    p = plan(pm, horizon=1e4, delta=0.05)
    rows = {tuple(r["pair"]): r for r in p.rows}
    assert rows[("a", "b")]["lower_bound_q"] == pytest.approx(1 / kl_half(0.6), rel=1e-7)
    assert rows[("a", "c")]["lower_bound_q"] == pytest.approx(1 / kl_half(0.7), rel=1e-7)
    assert rows[("b", "c")]["lower_bound_q"] == pytest.approx(0.0, abs=1e-9)
    # 004: Delta^C = (0.1, 0.1, 0.2): Theorem 4 terms 100, 25, 25; H^C_ver terms 100, 25
    assert [rows[k]["cpe_condorcet"] for k in [("a", "b"), ("a", "c"), ("b", "c")]] == pytest.approx([100, 25, 25])
    assert rows[("a", "b")]["cpe_verify"] == pytest.approx(100) and rows[("b", "c")]["cpe_verify"] is None
    cmp = boundcalc.compare(pm, keys=["lower_bound", "cpe_condorcet_hardness", "cpe_condorcet_ver"])
    assert p.totals["cpe_condorcet"] == pytest.approx(cmp["cpe_condorcet_hardness"].value)
    assert p.totals["cpe_verify"] == pytest.approx(cmp["cpe_condorcet_ver"].value)
    # 000: sum over pairs of r_ij q*_ij is C*
    C = sum(pm.regret[r["arms"][0], r["arms"][1]] * r["lower_bound_q"] for r in p.rows)
    assert C == pytest.approx(cmp["lower_bound"].value, rel=1e-7)
    assert rows[("a", "b")]["needed_at_T"] == pytest.approx(rows[("a", "b")]["lower_bound_q"] * math.log(1e4))
    assert rows[("a", "b")]["needed_at_delta"] == pytest.approx(100 * math.log(20))
    assert p.rows[0]["pair"] == ["a", "b"]  # the largest q* first


def test_without_condorcet_winner_the_004_columns_say_why():
    pm = boundcalc.load_example("table2")
    pm = PreferenceMatrix(pm.mu)
    pm_nc = boundcalc.load_example("mslr5-noncondorcet")
    p = plan(pm_nc)
    assert all(r["cpe_condorcet"] is None for r in p.rows) and "no Condorcet winner" in p.meta["reasons"]["cpe"]
    assert p.totals["lower_bound_q"] > 0 and "004's Condorcet columns do not apply" in p.summary()
    lb = boundcalc.lower_bound(pm_nc)
    q = lb.allocation
    assert sorted(r["lower_bound_q"] for r in p.rows) == pytest.approx(
        sorted(q[np.triu_indices(5, 1)][q[np.triu_indices(5, 1)] > 0])
    )
    assert plan(pm).meta["condorcet_winner"] == 0


def test_duels_so_far_from_counts_and_the_cli(tmp_path, capsys):
    W = np.array([[0, 60, 70], [40, 0, 30], [30, 20, 0]])
    path = tmp_path / "wins.json"
    path.write_text(json.dumps({"counts": W.tolist(), "names": ["a", "b", "c"]}))
    assert main(["bounds", "--counts", str(path), "--plan", "--plan-horizon", "1e6", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    rows = {tuple(r["pair"]): r for r in rep["plan"]["rows"]}
    assert rows[("a", "b")]["duels"] == 100 and rows[("b", "c")]["duels"] == 50
    pm = PreferenceMatrix.from_counts(W, names=["a", "b", "c"])
    assert rows[("a", "b")]["lower_bound_q"] == pytest.approx(1 / kl_half(pm.mu[0, 1]), rel=1e-7)
    assert main(["bounds", "--counts", str(path), "--plan"]) == 0
    out = capsys.readouterr().out
    assert "q* per ln T" in out and "(a, b)" in out and "duels per ln(1/delta)" in out
    assert main(["bounds", "--counts", str(path), "--plan-delta", "0.1"]) == 2
    assert "apply to --plan" in capsys.readouterr().err


def test_bad_arguments():
    with pytest.raises(ValueError, match="horizon"):
        plan(MU, horizon=1.0)
    with pytest.raises(ValueError, match="delta"):
        plan(MU, delta=1.5)
