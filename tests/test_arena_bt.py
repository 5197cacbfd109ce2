"""Arena battle logs, strict one-pass reading, the Bradley-Terry fit of sparse comparison graphs,
and bootstrap output that cannot mislead.

Every count is checked against a log counted by hand; the Bradley-Terry fit against its closed
form (two arms: ``s_q - s_p = log(W_qp / W_pq)``, standard error ``1 / sqrt(n p (1 - p))``) and
against an independent computation (Hunter's 2004 MM iteration, and a generic optimiser on the
log-likelihood); every hostile input against the one line that names it.
"""

from __future__ import annotations

import json
import math
import os
import threading
import unicodedata

import numpy as np
import pytest

from boundcalc import PreferenceMatrix, PreferenceMatrixError
from boundcalc.bradley_terry import fit_bradley_terry, log_likelihood
from boundcalc.cli import main
from boundcalc.duels import DuelLogError, read_duels

# a hand-counted arena log: p-q: p wins twice, q once, one tie, one tie (bothbad);
# p-r: r wins once, p once; q-r: q once
ARENA = """model_a,model_b,winner
p,q,model_a
q,p,model_b
q,p,model_a
p,q,tie
q,p,tie (bothbad)
r,p,model_a
p,r,MODEL_A
q,r,model_a
"""
W_HALF = np.array([[0, 3, 1], [2, 0, 1], [1, 0, 0]], dtype=float)  # ties half a win to each
W_DROP = np.array([[0, 2, 1], [1, 0, 1], [1, 0, 0]], dtype=float)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- arena layout
def test_arena_log_is_recognised_by_its_header_and_counted_by_hand(tmp_path):
    log = read_duels(write(tmp_path, "arena.csv", ARENA))
    assert log.layout == "arena" and log.names == ("p", "q", "r")
    assert np.array_equal(log.wins, W_HALF) and log.n_duels == 8 and log.n_ties == 2
    assert log.tie_counts[0, 1] == 2 and log.tie_counts.sum() == 4
    drop = read_duels(write(tmp_path, "arena.csv", ARENA), ties="drop")
    assert np.array_equal(drop.wins, W_DROP) and drop.dropped == 2 and drop.n_duels == 6
    # the same log as JSON Lines, with upper-case keys, and read with format="arena"
    rows = [line.split(",") for line in ARENA.splitlines()[1:]]
    jl = "\n".join(json.dumps({"Model_A": a, "Model_B": b, "Winner": w, "turn": 1}) for a, b, w in rows)
    assert np.array_equal(read_duels(write(tmp_path, "arena.jsonl", jl)).wins, W_HALF)
    renamed = ARENA.replace("model_a,model_b,winner", "first,second,outcome", 1)
    log = read_duels(write(tmp_path, "r.csv", renamed), a="first", b="second", winner="outcome", format="arena")
    assert np.array_equal(log.wins, W_HALF)


def test_arena_log_gives_its_lower_bound_with_names(tmp_path, capsys):
    log = "model_a,model_b,winner\n" + "x,y,model_a\n" * 7 + "y,x,model_a\n" * 3 + "x,z,model_a\n" * 8
    log += "z,x,tie\n" * 2 + "y,z,model_a\n" * 6 + "z,y,model_a\n" * 4
    path = write(tmp_path, "arena.csv", log)
    assert main(["bounds", "--duels", str(path), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    pm = PreferenceMatrix.from_counts([[0, 7, 9], [3, 0, 6], [1, 4, 0]], names=["x", "y", "z"])
    from boundcalc import lower_bound

    assert rep["names"] == ["x", "y", "z"] and rep["lower_bound_winner_name"] == "x"
    assert rep["lower_bound"] == pytest.approx(lower_bound(pm).value, rel=1e-9)
    assert main(["bounds", "--duels", str(path)]) == 0
    assert "Condorcet winner x" in capsys.readouterr().out


@pytest.mark.parametrize(
    "text,match",
    [
        (
            "model_a,model_b,winner\np,q,model_a\np,q,draw\n",
            r"arena.csv: line 3, column 3 \('winner'\): winner 'draw' is not one of the arena layout's values"
            r" model_a, model_b, tie, tie \(bothbad\)",
        ),
        ("model_a,model_b,winner\np,q,\n", r"line 2, column 3 \('winner'\): winner an empty cell is not one of"),
        ("model_a,model_b,winner\np,p,tie\n", r"line 2: a duel of arm 'p' with itself"),
    ],
)
def test_bad_arena_rows_name_line_value_and_the_accepted_values(tmp_path, text, match):
    with pytest.raises(DuelLogError, match=match):
        read_duels(write(tmp_path, "arena.csv", text))


def test_a_generic_log_with_arena_winners_is_told_the_remedy(tmp_path):
    with pytest.raises(
        DuelLogError,
        match=r"neither arm .*arena layout's winner: read the log with format='arena' \(CLI --layout arena\)",
    ):
        read_duels(write(tmp_path, "log.csv", "a,b,winner\np,q,model_a\n"))


def test_installed_cli_arena_error_is_one_line(tmp_path):
    from test_cli_stdout import run_cli

    write(tmp_path, "bad.csv", "model_a,model_b,winner\np,q,model_a\nq,p,bogus\n")
    proc = run_cli("bounds", "--duels", "bad.csv", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "bad.csv: line 3, column 3 ('winner'): winner 'bogus'" in proc.stderr


# ----------------------------------------------------------------------------- read once, read strictly
@pytest.mark.slow
def test_stdin_is_read_once_past_the_first_kibibytes(tmp_path):
    """A log longer than any sniffing buffer, piped: every row counted (none lost to a reopen)."""
    from test_cli_stdout import parse_json, run_cli

    rows = "".join("p,q,p\n" if k % 3 else "q,p,p\n" for k in range(3000)) + "p,q,q\n" * 500
    text = "a,b,winner\n" + rows
    path = write(tmp_path, "log.csv", text)
    piped = parse_json(run_cli("bounds", "--duels", "-", "--json", stdin=text))
    from_file = parse_json(run_cli("bounds", "--duels", str(path), "--json"))
    assert piped["lower_bound"] == from_file["lower_bound"]
    log = read_duels(path)
    assert log.wins[0, 1] == 3000 and log.wins[1, 0] == 500


def test_a_fifo_is_read_once_and_does_not_hang(tmp_path):
    fifo = tmp_path / "log.csv"
    os.mkfifo(fifo)
    text = "a,b,winner\n" + "p,q,p\n" * 2000 + "p,q,q\n" * 1000

    def writer():
        with open(fifo, "w") as fh:
            fh.write(text)

    out = {}

    def reader():
        out["log"] = read_duels(fifo)

    tw, tr = threading.Thread(target=writer, daemon=True), threading.Thread(target=reader, daemon=True)
    tw.start()
    tr.start()
    tr.join(30)
    assert not tr.is_alive(), "reading a FIFO hung"
    assert out["log"].wins[0, 1] == 2000 and out["log"].wins[1, 0] == 1000


def test_json_lines_missing_winner_key_is_an_error_naming_the_line(tmp_path):
    text = '{"a": "p", "b": "q", "winner": "p"}\n{"a": "q", "b": "p", "winer": "q"}\n'
    with pytest.raises(
        DuelLogError, match=r"log.jsonl: line 2: no key 'winner'.*unknown key\(s\) \['winer'\]\); null is a tie"
    ):
        read_duels(write(tmp_path, "log.jsonl", text))
    # an explicit null stays a tie
    log = read_duels(write(tmp_path, "ok.jsonl", text.replace('"winer": "q"', '"winner": null')))
    assert log.n_ties == 1


def test_names_are_nfc_normalised_and_given_names_that_collide_refused(tmp_path):
    nfc, nfd = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
    assert nfc != nfd
    log = read_duels(write(tmp_path, "log.csv", f"a,b,winner\n{nfc},tea,{nfc}\ntea,{nfd},{nfd}\n"))
    assert log.names == (nfc, "tea") and log.wins[0, 1] == 2
    with pytest.raises(DuelLogError, match="the names given repeat .*NFC"):
        read_duels(tmp_path / "log.csv", names=[nfc, nfd, "tea"])


def test_reader_limits_name_file_line_limit_and_argument(tmp_path):
    path = write(tmp_path, "log.csv", "a,b,winner\np,q,p\n" + "p," + "q" * 300 + ",p\n")
    with pytest.raises(DuelLogError, match=r"log.csv: line 3: 304 characters, more than the 100 .*max_line_chars"):
        read_duels(path, max_line_chars=100)
    quoted = write(tmp_path, "q.csv", 'a,b,winner\np,q,p\n"p","' + "q" * 300 + '",p\n')
    with pytest.raises(DuelLogError, match=r"q.csv: line 3: a field longer than 200 characters.*max_field_chars"):
        read_duels(quoted, max_field_chars=200, max_line_chars=10_000)
    deep = write(tmp_path, "d.jsonl", '{"a": "p", "b": "q", "winner": "p", "x": ' + "[" * 10 + "]" * 10 + "}\n")
    with pytest.raises(DuelLogError, match=r"d.jsonl: line 1: JSON nested 11 levels deep, more than the 5 .*max_depth"):
        read_duels(deep, max_depth=5)
    with pytest.raises(DuelLogError, match=r"3 names given, more than the 2 arms read \(max_arms"):
        read_duels(path, names=["p", "q", "r"], max_arms=2)
    with pytest.raises(DuelLogError, match=r"log.csv: line 3: more than 1 duels, the limit of rows read \(max_rows"):
        read_duels(path, max_rows=1)


@pytest.mark.slow
def test_a_field_past_pythons_csv_limit_is_read_not_an_internal_error(tmp_path):
    """Python's csv module refuses fields past 131,072 characters; boundcalc's own limit is larger."""
    from test_cli_stdout import run_cli

    big = "n" * 200_000
    write(tmp_path, "log.csv", f'a,b,winner,"{big}"\np,q,p,x\nq,p,p,y\np,q,q,z\n')
    proc = run_cli("bounds", "--duels", "log.csv", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    write(tmp_path, "huge.csv", "a,b,winner\n" + f'p,q,p,"{"n" * 1_100_000}"\n')
    proc = run_cli("bounds", "--duels", "huge.csv", cwd=tmp_path)
    assert proc.returncode == 2 and "internal error" not in proc.stderr
    assert (
        "huge.csv: line 2: 1,100,008 characters, more than the 1,000,000 read per line (max_line_chars" in proc.stderr
    )


# ----------------------------------------------------------------------------- count tables with names
def test_count_table_with_a_header_row_of_names(tmp_path, capsys):
    write(tmp_path, "wins.csv", "alpha,beta,gamma\n0,3,4\n2,0,5\n1,2,0\n")
    write(tmp_path, "labelled.csv", ",alpha,beta,gamma\nalpha,0,3,4\nbeta,2,0,5\ngamma,1,2,0\n")
    for name in ("wins.csv", "labelled.csv"):
        assert main(["bounds", "--counts", str(tmp_path / name), "--json"]) == 0
        rep = json.loads(capsys.readouterr().out)
        assert rep["names"] == ["alpha", "beta", "gamma"] and rep["lower_bound_winner_name"] == "alpha"
    write(tmp_path, "bad.csv", "alpha,beta\n0,3\n")
    assert main(["bounds", "--counts", str(tmp_path / "bad.csv")]) == 2
    assert "1 rows of counts; the header names 2 arms" in capsys.readouterr().err


# ----------------------------------------------------------------------------- the Bradley-Terry fit
def test_two_arm_fit_is_the_closed_form():
    """Two arms: the MLE is s_q - s_p = log(W_qp / W_pq), with standard error 1 / sqrt(n p (1 - p))."""
    fit = fit_bradley_terry([[0, 7], [3, 0]], names=["p", "q"])
    assert fit.strengths[1] == pytest.approx(math.log(3 / 7), abs=1e-12)
    assert fit.standard_errors[1] == pytest.approx(1 / math.sqrt(10 * 0.7 * 0.3), rel=1e-9)
    assert fit.mu[0, 1] == pytest.approx(0.7, abs=1e-12)


def _mm_fit(W, iters=20000):
    """Hunter (2004)'s MM iteration for Bradley-Terry, gamma_i = w_i / sum_j n_ij / (gamma_i + gamma_j)."""
    W = np.asarray(W, dtype=float)
    n = W + W.T
    g = np.ones(len(W))
    for _ in range(iters):
        g = W.sum(1) / (n / (g[:, None] + g[None, :])).sum(1)
        g = g / g[0]
    return np.log(g)


def test_fit_agrees_with_mm_iteration_and_a_generic_optimiser():
    from scipy.optimize import minimize

    W = np.array([[0, 5, 2, 0], [3, 0, 4, 1], [1, 2.5, 0, 3], [0, 2, 1.5, 0]])  # pair (0, 3) never met
    fit = fit_bradley_terry(W)
    np.testing.assert_allclose(fit.strengths, _mm_fit(W), atol=1e-8)
    res = minimize(
        lambda x: -log_likelihood(W, np.r_[0.0, x]),
        np.zeros(3),
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-13, "maxiter": 20000},
    )
    np.testing.assert_allclose(fit.strengths[1:], res.x, atol=1e-6)
    assert fit.log_likelihood >= -res.fun - 1e-9
    # standard errors: the inverse of a finite-difference Hessian of -l at the optimum
    h, x0 = 1e-4, fit.strengths[1:]
    f = lambda x: -log_likelihood(W, np.r_[0.0, x])  # noqa: E731
    H = np.array(
        [
            [
                (
                    f(x0 + h * (np.eye(3)[a] + np.eye(3)[b]))
                    - f(x0 + h * (np.eye(3)[a] - np.eye(3)[b]))
                    - f(x0 - h * (np.eye(3)[a] - np.eye(3)[b]))
                    + f(x0 - h * (np.eye(3)[a] + np.eye(3)[b]))
                )
                / (4 * h * h)
                for b in range(3)
            ]
            for a in range(3)
        ]
    )
    np.testing.assert_allclose(fit.standard_errors[1:], np.sqrt(np.diag(np.linalg.inv(H))), rtol=1e-4)


@pytest.mark.parametrize(
    "W,match",
    [
        ([[0, np.nan], [1, 0]], r"W\[0, 1\] is nan"),
        ([[0, 2, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 2, 0]], r"disconnected: 2 components \{0, 1\}, \{2, 3\}"),
        ([[0, 2, 3], [1, 0, 1], [0, 0, 0]], r"does not exist: arm 2 never won a duel"),
        ([[0, 2, 3], [1, 0, 3], [0, 0, 0]], r"does not exist: arm 2 never won"),
        ([[0, 2, 3, 3], [1, 0, 3, 2], [0, 0, 0, 1], [0, 0, 1, 0]], r"the arms \{2, 3\} never won a duel against"),
        ([[0, 0], [0, 0]], r"disconnected"),
    ],
)
def test_hostile_counts_for_the_fit_are_named(W, match):
    with pytest.raises(PreferenceMatrixError, match=match):
        fit_bradley_terry(W)


def test_all_ties_fit_equal_strengths_and_the_tie_is_named(tmp_path, capsys):
    fit = fit_bradley_terry([[0, 2.5], [2.5, 0]])
    assert fit.strengths[1] == pytest.approx(0.0, abs=1e-12)
    path = write(tmp_path, "ties.csv", "model_a,model_b,winner\n" + "p,q,tie\n" * 5)
    assert main(["bounds", "--duels", str(path), "--model", "bradley-terry"]) == 2
    assert "exact tie" in capsys.readouterr().err
    assert main(["bounds", "--duels", str(path), "--ties", "drop"]) == 2
    assert "no duels left: all 5 were ties, dropped" in capsys.readouterr().err


def _sparse_log(tmp_path, strengths, duels, seed, skip):
    rng = np.random.default_rng(seed)
    K = len(strengths)
    pairs = [(i, j) for i in range(K) for j in range(i + 1, K) if (i, j) not in skip]
    lines = ["model_a,model_b,winner"]
    for _ in range(duels):
        i, j = pairs[rng.integers(len(pairs))]
        p = 1 / (1 + math.exp(strengths[j] - strengths[i]))
        lines.append(f"m{i},m{j},{'model_a' if rng.random() < p else 'model_b'}")
    return write(tmp_path, "sparse.csv", "\n".join(lines) + "\n")


def test_sparse_log_is_refused_with_the_two_remedies_and_fitted_with_the_model(tmp_path, capsys):
    strengths = [1.2, 0.6, 0.0, -0.5, -1.0]
    path = _sparse_log(tmp_path, strengths, 3000, 1, {(0, 3), (1, 4), (2, 4)})
    for cmd in (["bounds"], ["compare", "--keys", "ecw"], ["simulate", "--horizon", "100", "--runs", "1"]):
        assert main(cmd + ["--duels", str(path)]) == 2
        err = capsys.readouterr().err
        assert "3 pair(s) never compared: ('m0', 'm3')" in err and err.count("\n") == 1
        assert "--model bradley-terry" in err and "--prior half" in err
    assert main(["bounds", "--duels", str(path), "--model", "bradley-terry", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    bt = rep["bradley_terry"]
    assert bt["reference"] == "m0" and [a["arm"] for a in bt["arms"]] == ["m0", "m1", "m2", "m3", "m4"]
    s = [a["strength"] for a in bt["arms"]]
    se = [a["standard_error"] for a in bt["arms"]]
    assert all(abs(s[k] - (strengths[k] - strengths[0])) < 4 * se[k] + 1e-12 for k in range(5))
    assert main(["bounds", "--duels", str(path), "--prior", "half"]) == 2
    err = capsys.readouterr().err
    assert "note: 3 pair(s) never compared, e.g. (m0, m3), are filled with mu = 1/2 (--prior half)" in err


@pytest.mark.slow
def test_bootstrap_under_the_model_holds_the_true_constant(tmp_path):
    """--model bradley-terry --bootstrap 200 on a simulated sparse log: the 95% interval of the lower
    bound holds the true Bradley-Terry matrix's; winner probabilities sum to 1."""
    from scipy.special import expit
    from test_cli_stdout import parse_json, run_cli

    from boundcalc import lower_bound

    strengths = np.array([1.0, 0.5, 0.1, -0.4, -0.9])
    path = _sparse_log(tmp_path, strengths, 4000, 7, {(0, 4), (1, 3)})
    true = lower_bound(PreferenceMatrix(expit(strengths[:, None] - strengths[None, :]))).value
    rep = parse_json(
        run_cli(
            "bounds", "--duels", str(path), "--model", "bradley-terry", "--bootstrap", "200", "--json", "--workers", "0"
        )
    )
    lb = next(c for c in rep["constants"] if c["key"] == "lower_bound")
    assert lb["interval"][0] <= true <= lb["interval"][1], (lb, true)
    assert rep["meta"]["scheme"] == "bradley-terry" and lb["undefined"] == 0 and not lb["unbounded"]
    assert sum(rep["winner_probabilities"].values()) == pytest.approx(1.0, abs=1e-12)
    assert lb["meaning"].startswith("a lower bound: every consistent policy's expected regret is at least")


def test_winner_probabilities_split_co_winners_and_undefined_draws_are_counted():
    """A 3-cycle (every draw has 1 or 3 Copeland winners): P(Copeland winner) sums past 1, the
    winner probabilities to 1; resampled draws at exactly 1/2 are counted per constant."""
    from boundcalc.uncertainty import bootstrap

    W = np.array([[0, 6, 4], [4, 0, 6], [6, 4, 0]])
    res = bootstrap(W, 60, seed=2, workers=0, progress=False, keys=["ecw"])
    d = res.to_dict()
    assert sum(d["winner_probabilities"].values()) == pytest.approx(1.0, abs=1e-12)
    assert sum(d["copeland_winner_probability"].values()) > 1.0
    shares = np.zeros(3)
    for r in res.rows:
        shares[r["winners"]] += 1 / len(r["winners"])
    np.testing.assert_allclose(list(d["winner_probabilities"].values()), shares / 60, atol=1e-12)
    W2 = np.array([[0, 2, 3], [1, 0, 2], [1, 1, 0]])  # 3 duels per pair: resampled ties are common
    res2 = bootstrap(
        W2, 40, seed=0, workers=0, progress=False, keys=["ecw"], scheme="resample", tie_counts=np.zeros((3, 3))
    )
    c = res2.constant("ecw")
    tied = res2.stats["tied_draws"]
    assert tied > 0 and c["undefined"] == tied and c["n"] == 40 - tied
    assert "undefined" in res2.summary() and str(tied) in res2.summary()


# ----------------------------------------------------------------------------- the tutorial's log
def test_bundled_arena_log_is_the_scripts_output_and_small():
    import importlib.util
    from pathlib import Path

    from boundcalc.datasets import duel_log_path

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("make_arena_log", root / "scripts" / "make_arena_log.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    data = duel_log_path("arena-sim").read_text(encoding="utf-8")
    assert data == mod.make() and len(data.encode()) < 300_000
    text = (root / "docs" / "arena-logs.md").read_text(encoding="utf-8")
    log = read_duels(duel_log_path("arena-sim"))
    n = log.pair_counts
    never = sum(n[i, j] == 0 for i in range(log.K) for j in range(i + 1, log.K))
    assert log.layout == "arena" and log.n_duels == 3600 and f"{never} pair(s) never compared" in text
    from boundcalc import lower_bound

    pm = fit_bradley_terry(log.wins, log.names).matrix()
    assert f"lower bound  {lower_bound(pm).value:.8g}" in text


@pytest.mark.slow
def test_tutorial_bootstrap_interval_holds_the_true_constant():
    """The tutorial's interval, recomputed, holds the true matrix's lower bound."""
    import sys
    from pathlib import Path

    from scipy.special import expit

    from boundcalc import lower_bound
    from boundcalc.datasets import duel_log_path
    from boundcalc.uncertainty import bootstrap

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "scripts"))
    try:
        from make_arena_log import STRENGTHS
    finally:
        sys.path.pop(0)
    log = read_duels(duel_log_path("arena-sim"))
    s = np.array([STRENGTHS[n] for n in log.names])
    true = lower_bound(PreferenceMatrix(expit(s[:, None] - s[None, :]))).value
    res = bootstrap(log, 200, scheme="bradley-terry", seed=0, workers=0, progress=False)
    lo, hi = res.constant("lower_bound")["interval"]
    text = (root / "docs" / "arena-logs.md").read_text(encoding="utf-8")
    assert f"[{lo:.5g}, {hi:.5g}]" in text and lo <= true <= hi and "is inside the interval" in text
    assert lo <= true <= hi


def test_plan_says_004s_columns_hold_up_to_a_constant_factor(tmp_path, capsys):
    path = write(tmp_path, "log.csv", "a,b,winner\n" + "x,y,x\n" * 7 + "y,x,y\n" * 3 + "x,z,x\n" * 6 + "z,y,y\n" * 4)
    path.write_text(path.read_text() + "z,y,z\n" * 1 + "x,z,z\n" * 2)
    assert main(["bounds", "--duels", str(path), "--plan"]) == 0
    assert "004's columns (Theorem 4, H^C_ver) hold only up to a constant factor" in capsys.readouterr().out


@pytest.mark.parametrize(
    "text,match",
    [
        ("model_a,model_b,winner\n", "no duels (the log has no rows)"),
        ("", "empty file"),
        ("model_a,model_b,winner\n" + "p,q,tie\n" * 4, "exact tie"),
        ("model_a,model_b,winner\n" + "p,q,model_a\n" * 3 + "q,r,model_a\n" * 2, "arm 'r' never won a duel"),
        (
            "model_a,model_b,winner\np,q,model_a\nq,p,model_a\nr,s,model_a\ns,r,model_a\n",
            "the comparison graph is disconnected: 2 components {'p', 'q'}, {'r', 's'}",
        ),
        (
            "model_a,model_b,winner\nnan,q,model_a\nq,nan,model_a\nnan,q,model_a\n",
            None,
        ),  # 'nan' is a name like any other
    ],
    ids=["header-only", "empty", "all-ties", "never-wins", "disconnected", "nan-name"],
)
def test_hostile_arena_logs_under_the_model_end_in_one_line(tmp_path, capsys, text, match):
    path = write(tmp_path, "arena.csv", text)
    code = main(["bounds", "--duels", str(path), "--model", "bradley-terry", "--json"])
    cap = capsys.readouterr()
    if match is None:
        assert code == 0 and json.loads(cap.out)["names"] == ["nan", "q"]
        return
    assert code == 2 and match in cap.err and cap.err.count("\n") == 1, cap.err


def test_hostile_data_frames_and_one_pair():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"model_a": ["p", float("nan")], "model_b": ["q", "p"], "winner": ["model_a", "tie"]})
    with pytest.raises(DuelLogError, match=r"DataFrame: row 2, column 'model_a': no arm named"):
        read_duels(frame)
    one = pd.DataFrame({"model_a": ["p", "q", "p"], "model_b": ["q", "p", "q"], "winner": ["model_a"] * 3})
    fit = fit_bradley_terry(read_duels(one).wins, ("p", "q"))  # p won 2 of 3: s_q = log(1/2)
    assert fit.strengths[1] == pytest.approx(math.log(0.5), abs=1e-12)


def test_compare_json_carries_the_fit(capsys):
    assert main(["compare", "--duels", "arena-sim", "--model", "bradley-terry", "--keys", "ecw", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["bradley_terry"]["reference"] == "aurora-70b" and len(rep["bradley_terry"]["arms"]) == 12
    assert rep["rows"][0]["key"] == "ecw"


def test_matrix_names_are_nfc_and_nfd_spellings_collide():
    nfc, nfd = unicodedata.normalize("NFC", "Zoë"), unicodedata.normalize("NFD", "Zoë")
    pm = PreferenceMatrix([[0.5, 0.6], [0.4, 0.5]], names=[nfd, "x"])
    assert pm.names == (nfc, "x")
    with pytest.raises(PreferenceMatrixError, match="arm names repeat: 'Zoë' .*NFC and NFD"):
        PreferenceMatrix.from_counts([[0, 3], [1, 0]], names=[nfc, nfd])


@pytest.mark.parametrize(
    "argv,match",
    [
        (["bounds", "--example", "table2", "--model", "bradley-terry"], "--model applies to comparison data"),
        (["bounds", "--example", "table2", "--prior", "half"], "--prior applies to comparison data"),
        (["bounds", "--duels", "arena-sim", "--prior", "0.7"], "--prior applies to --bootstrap N"),
        (["bounds", "--duels", "arena-sim", "--prior", "halves"], "must be 'half'"),
        (["bounds", "--counts", "COUNTS", "--ties", "drop"], "--ties applies to --duels"),
        (["bounds", "--counts", "COUNTS", "--layout", "arena"], "--layout applies to --duels"),
    ],
)
def test_options_of_comparison_data_are_refused_where_they_do_not_apply(tmp_path, capsys, argv, match):
    (tmp_path / "c.csv").write_text("p,q\n0,3\n1,0\n")
    argv = [str(tmp_path / "c.csv") if a == "COUNTS" else a for a in argv]
    assert main(argv) == 2
    assert match in capsys.readouterr().err


def test_cli_layout_arena_with_other_column_names(tmp_path, capsys):
    text = ARENA.replace("model_a,model_b,winner", "first,second,outcome", 1)
    path = write(tmp_path, "renamed.csv", text + "p,r,model_a\n" * 2 + "q,r,model_a\n" * 3)
    argv = ["bounds", "--duels", str(path), "--columns", "first,second,outcome", "--json"]
    assert main(argv) == 2 and "--layout arena" in capsys.readouterr().err
    assert main(argv + ["--layout", "arena"]) == 0
    assert json.loads(capsys.readouterr().out)["names"] == ["p", "q", "r"]


def test_plan_under_the_model_counts_the_duels_so_far(capsys):
    assert main(["bounds", "--duels", "arena-sim", "--model", "bradley-terry", "--plan", "--json"]) == 0
    rows = {tuple(r["pair"]): r for r in json.loads(capsys.readouterr().out)["plan"]["rows"]}
    from boundcalc.datasets import duel_log_path

    log = read_duels(duel_log_path("arena-sim"))
    i, j = log.names.index("aurora-70b"), log.names.index("fjord-70b")
    assert rows[("aurora-70b", "fjord-70b")]["duels"] == log.pair_counts[i, j]
