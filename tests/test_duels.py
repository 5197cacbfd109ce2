"""Matrices from comparison data (boundcalc.duels, PreferenceMatrix.from_counts / from_duels) and
arm names through results, tables and the command line.

Every estimate is checked against counts made by hand from the rows of the log (a tie is half a
win to each), in every input format; every bad input against the message that names it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import boundcalc
from boundcalc import PreferenceMatrix, PreferenceMatrixError
from boundcalc.cli import main
from boundcalc.duels import DuelLogError, read_duels
from boundcalc.matrix import read_counts

# a hand-counted log: x-y: x, x, y, tie (W_xy = 2.5, W_yx = 1.5); x-z: x, z, x (2, 1);
# y-z: y, y, y, z, tie (3.5, 1.5)
ROWS = [
    ("x", "y", "x"),
    ("y", "x", "x"),
    ("x", "y", "y"),
    ("y", "x", ""),
    ("x", "z", "x"),
    ("z", "x", "z"),
    ("x", "z", "x"),
    ("y", "z", "y"),
    ("z", "y", "y"),
    ("y", "z", "y"),
    ("y", "z", "z"),
    ("z", "y", ""),
]
W_HAND = np.array([[0, 2.5, 2], [1.5, 0, 3.5], [1, 1.5, 0]])
MU_HAND = np.array([[0.5, 2.5 / 4, 2 / 3], [1.5 / 4, 0.5, 3.5 / 5], [1 / 3, 1.5 / 5, 0.5]])


def write_csv(path, rows, header="a,b,winner"):
    path.write_text(header + "\n" + "".join(",".join(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_jsonl(path, rows, keys=("a", "b", "winner")):
    lines = [json.dumps({keys[0]: a, keys[1]: b, keys[2]: (w or None)}) for a, b, w in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- counts and estimates
def test_from_counts_is_wins_over_duels():
    pm = PreferenceMatrix.from_counts(W_HAND, names=["x", "y", "z"])
    np.testing.assert_allclose(pm.mu, MU_HAND, rtol=0, atol=1e-15)
    assert pm.names == ("x", "y", "z") and pm.labels() == ["x", "y", "z"]
    assert np.array_equal(pm.counts, W_HAND) and pm.tie_counts is None
    assert pm.condorcet_winner == 0 and pm.label(pm.condorcet_winner) == "x"


@pytest.mark.parametrize("fmt", ["dataframe", "csv", "jsonl", "parquet"])
def test_every_format_gives_the_hand_counts(tmp_path, fmt):
    if fmt == "dataframe":
        pd = pytest.importorskip("pandas")
        table = pd.DataFrame(ROWS, columns=["a", "b", "winner"]).replace({"winner": {"": None}})
    elif fmt == "csv":
        table = write_csv(tmp_path / "log.csv", ROWS)
    elif fmt == "jsonl":
        table = write_jsonl(tmp_path / "log.jsonl", ROWS)
    else:
        pa = pytest.importorskip("pyarrow")
        import pyarrow.parquet as pq

        table = tmp_path / "log.parquet"
        pq.write_table(
            pa.table({"a": [r[0] for r in ROWS], "b": [r[1] for r in ROWS], "winner": [r[2] or None for r in ROWS]}),
            table,
        )
    log = read_duels(table)
    assert log.names == ("x", "y", "z") and log.n_duels == 12 and log.n_ties == 2
    np.testing.assert_array_equal(log.wins, W_HAND)
    assert log.tie_counts[0, 1] == log.tie_counts[1, 0] == 1 and log.tie_counts[1, 2] == 1
    pm = PreferenceMatrix.from_duels(table)
    np.testing.assert_allclose(pm.mu, MU_HAND, rtol=0, atol=1e-15)
    assert pm.names == ("x", "y", "z")


def test_other_columns_and_a_given_order(tmp_path):
    path = write_csv(tmp_path / "log.csv", [(w, a, b) for a, b, w in ROWS], header="won,left,right")
    pm = PreferenceMatrix.from_duels(path, a="left", b="right", winner="won", names=["z", "y", "x"])
    assert pm.names == ("z", "y", "x")
    np.testing.assert_allclose(pm.mu, MU_HAND[::-1, ::-1], rtol=0, atol=1e-15)


def test_numbers_as_arm_names_in_json_lines(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"a": 1, "b": 2, "winner": 1}\n{"a": 2, "b": 1, "winner": 1}\n{"a": 2, "b": 1, "winner": 2}\n')
    pm = PreferenceMatrix.from_duels(path)
    assert pm.names == ("1", "2") and pm.mu[0, 1] == pytest.approx(2 / 3)


# ----------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    "text,match",
    [
        ("a,b,winner\nx,y,x\nx,y,q\n", r"log.csv: line 3, column 3 \('winner'\): winner 'q' is neither arm"),
        ("a,b,winner\nx,y,x\n,y,y\n", r"line 3, column 1 \('a'\): no arm named"),
        ("a,b,winner\nx,x,x\n", r"line 2: a duel of arm 'x' with itself"),
        ("left,b,winner\nx,y,x\n", r"no column 'a' \(for 'a'\); the columns are \['left', 'b', 'winner'\]"),
        ("a,b,winner\n", r"no duels"),
        ("a,b,winner\nx,y\n", r"line 2 has 2 fields; the header has 3"),
    ],
)
def test_bad_csv_is_named_by_line_and_column(tmp_path, text, match):
    path = tmp_path / "log.csv"
    path.write_text(text)
    with pytest.raises(DuelLogError, match=match):
        read_duels(path)


def test_bad_json_lines(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"a": "x", "b": "y", "winner": "x"}\n{"a": "x", "b": \n')
    with pytest.raises(DuelLogError, match=r"log.jsonl: line 2, column \d+: not valid JSON"):
        read_duels(path)
    path.write_text('{"a": "x", "winner": "x"}\n')
    with pytest.raises(DuelLogError, match=r"line 1: no key 'b'"):
        read_duels(path)


def test_limits_are_enforced(tmp_path):
    path = write_csv(tmp_path / "log.csv", ROWS)
    with pytest.raises(DuelLogError, match="more than 5 duels"):
        read_duels(path, max_rows=5)
    with pytest.raises(DuelLogError, match="bytes, more than a duel log may have"):
        read_duels(path, max_bytes=10)
    with pytest.raises(DuelLogError, match="more than 2 distinct arms"):
        read_duels(path, max_arms=2)
    with pytest.raises(DuelLogError, match="line 6, column 2 \\('b'\\): arm 'z' is not among the names"):
        read_duels(path, names=["x", "y"])


def test_never_compared_and_exact_half_name_the_arms_and_the_remedy():
    W = np.array([[0, 3, 0], [1, 0, 2], [0, 2, 0]])
    with pytest.raises(PreferenceMatrixError, match=r"pair\(s\) never compared: \('a', 'c'\).*ties='break'.*bootstrap"):
        PreferenceMatrix.from_counts(W, names=["a", "b", "c"])
    W[0, 2] = 1
    with pytest.raises(
        PreferenceMatrixError,
        match=r"exactly 1/2 for pair\(s\) \('b', 'c'\) \(2 wins each of 4 duels\)"
        r".*--break-ties EPS.*--bootstrap N",
    ):
        PreferenceMatrix.from_counts(W, names=["a", "b", "c"])
    pm = PreferenceMatrix.from_counts(W, names=["a", "b", "c"], ties="break", tie_epsilon=1e-3)
    assert pm.mu[1, 2] == 0.5 + 1e-3  # broken in favour of the lower index, as for a matrix


@pytest.mark.parametrize(
    "W,match",
    [
        ([[0, -1], [1, 0]], r"W\[0, 1\] = -1 < 0"),
        ([[0, np.nan], [1, 0]], r"W\[0, 1\] is nan"),
        ([[0, 1, 2]], "square"),
        ([[0]], "at least 2 arms"),
        # a matrix of probabilities passed as counts (mu would come out the
        # same, but as if from one duel per pair): refused
        ([[0, 0.6], [0.4, 0]], r"W\[0, 1\] = 0.6 is not a number of wins"),
        ([[0, 2.25], [1, 0]], r"W\[0, 1\] = 2.25 is not a number of wins"),
    ],
)
def test_bad_counts(W, match):
    with pytest.raises(PreferenceMatrixError, match=match):
        PreferenceMatrix.from_counts(W)


def test_names_are_checked_and_follow_submatrices():
    with pytest.raises(PreferenceMatrixError, match="repeat"):
        PreferenceMatrix([[0.5, 0.6], [0.4, 0.5]], names=["a", "a"])
    with pytest.raises(PreferenceMatrixError, match="3 names for 2 arms"):
        PreferenceMatrix([[0.5, 0.6], [0.4, 0.5]], names=["a", "b", "c"])
    with pytest.raises(PreferenceMatrixError, match=r"\('p', 'q'\)"):
        PreferenceMatrix([[0.5, 0.5], [0.5, 0.5]], names=["p", "q"])
    pm = PreferenceMatrix(MU_HAND, names=["x", "y", "z"])
    assert pm.submatrix([2, 0]).names == ("z", "x") and pm.permute([1, 2, 0]).names == ("y", "z", "x")
    assert PreferenceMatrix(pm).names == pm.names and PreferenceMatrix(MU_HAND).label(2) == 2


# ----------------------------------------------------------------------------- the command line
def test_cli_duels_bounds_json_carries_names(tmp_path, capsys):
    path = write_csv(tmp_path / "log.csv", ROWS)
    assert main(["bounds", "--duels", str(path), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    pm = PreferenceMatrix(MU_HAND)
    assert rep["names"] == ["x", "y", "z"] and rep["lower_bound_winner_name"] == "x"
    assert rep["per_winner"][0]["name"] == "x"
    assert rep["lower_bound"] == pytest.approx(boundcalc.lower_bound(pm).value, rel=1e-9)
    assert main(["bounds", "--duels", str(path)]) == 0
    out = capsys.readouterr().out
    assert "arms: 0 x, 1 y, 2 z" in out and "Condorcet winner x" in out and "(winner x," in out


def test_cli_counts_json_with_names_and_compare(tmp_path, capsys):
    path = tmp_path / "wins.json"
    path.write_text(json.dumps({"counts": W_HAND.tolist(), "names": ["x", "y", "z"]}))
    assert read_counts(path)[1] == ("x", "y", "z")
    assert main(["compare", "--counts", str(path), "--keys", "lower_bound,ccb", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["names"] == ["x", "y", "z"] and rep["rows"][0]["winner_name"] == "x"
    txt = tmp_path / "wins.txt"
    np.savetxt(txt, W_HAND)
    assert main(["compare", "--counts", str(txt), "--names", "p,q,r", "--keys", "ecw", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["winner_name"] == "p"


def test_cli_refusals(tmp_path, capsys):
    path = write_csv(tmp_path / "log.csv", ROWS)
    assert main(["bounds", "--duels", str(path), "--example", "table2"]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["bounds", "--names", "a,b"]) == 2
    assert "--names applies to comparison data" in capsys.readouterr().err
    assert main(["bounds", "--duels", str(path), "--columns", "a,b"]) == 2
    assert "three column names" in capsys.readouterr().err
    tie = write_csv(tmp_path / "tie.csv", [("x", "y", "x"), ("x", "y", "y")])
    assert main(["bounds", "--duels", str(tie)]) == 2
    assert "exactly 1/2 for pair(s) ('x', 'y')" in capsys.readouterr().err
    assert main(["bounds", "--duels", str(tie), "--break-ties", "0.01", "--json"]) == 0


def test_cli_simulate_on_a_duel_log(tmp_path, capsys):
    path = write_csv(tmp_path / "log.csv", ROWS)
    assert (
        main(
            [
                "simulate",
                "--duels",
                str(path),
                "--policies",
                "rmed1",
                "--horizon",
                "200",
                "--runs",
                "2",
                "--workers",
                "0",
                "--json",
            ]
        )
        == 0
    )
    rep = json.loads(capsys.readouterr().out)
    assert rep["lower_bound"] == pytest.approx(boundcalc.lower_bound(PreferenceMatrix(MU_HAND)).value, rel=1e-9)


def test_allocation_plot_shows_names(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from boundcalc.plot import plot_allocation

    pm = PreferenceMatrix(MU_HAND, names=["x", "y", "z"])
    fig = plot_allocation(pm, boundcalc.lower_bound(pm))
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert sorted(ticks) == ["x", "y", "z"] and "winner x" in fig._suptitle.get_text()


def test_half_wins_are_counts():
    """Ties are half a win to each arm: W = 2.5 / 1.5 is a count (the hand log's x-y pair)."""
    assert PreferenceMatrix.from_counts([[0, 2.5], [1.5, 0]]).mu[0, 1] == 2.5 / 4


@pytest.mark.parametrize(
    "name,text,opt,match",
    [
        ("empty.csv", "a,b,winner\n", "--duels", "empty.csv: no duels"),
        ("zero.csv", "", "--duels", "zero.csv: empty file (expected a header line a,b,winner)"),
        (
            "unknown.csv",
            "a,b,winner\nx,y,x\nx,y,z\n",
            "--duels",
            "unknown.csv: line 3, column 3 ('winner'): winner 'z' is neither arm of the duel ('x' vs 'y'); leave it empty",
        ),
        ("self.csv", "a,b,winner\nx,y,x\ny,y,y\n", "--duels", "self.csv: line 3: a duel of arm 'y' with itself"),
        ("nan.csv", "0,3\nnan,0\n", "--counts", "nan.csv: W[1, 0] is nan: win counts must be finite"),
        ("neg.csv", "0,3\n-1,0\n", "--counts", "neg.csv: W[1, 0] = -1 < 0"),
        ("probs.csv", "0,0.6\n0.4,0\n", "--counts", "probs.csv: W[0, 1] = 0.6 is not a number of wins"),
    ],
)
def test_installed_cli_names_bad_comparison_data(tmp_path, name, text, opt, match):
    """As a user runs it (the installed command, a subprocess): exit 2 and one line naming file, line and column."""
    from test_cli_stdout import run_cli

    (tmp_path / name).write_text(text, encoding="utf-8")
    proc = run_cli("bounds", opt, name, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout
    assert match in proc.stderr
    assert "Traceback" not in proc.stderr
