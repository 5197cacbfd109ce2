"""Bad input gets exit status 2 and one line naming the option, file or entry, never a traceback, a
hang, a silent wrong number or an unclear message.  The checks run ``boundcalc.cli.main`` in-process (fast) and assert the whole of stderr
is one ``boundcalc: error: ...`` line; ``test_cli_stdout.py`` runs the installed command as a
subprocess.
"""

from __future__ import annotations

import copy
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from boundcalc.cli import main
from boundcalc.matrix import PreferenceMatrix, PreferenceMatrixError

DATA = Path(__file__).resolve().parents[1] / "boundcalc" / "data"
EXAMPLE_INSTANCE = json.loads((DATA / "cpe_chen2020_fig1.json").read_text())


def one_line_error(capsys, argv, *needles):
    """``main(argv)`` exits 2 with exactly one stderr line containing every needle; stdout empty."""
    code = main(argv)
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert code == 2, (code, cap.err)
    assert len(lines) == 1 and lines[0].startswith("boundcalc: error:"), cap.err
    for n in needles:
        assert n in lines[0], (n, lines[0])
    assert cap.out == ""
    return lines[0]


# ----------------------------------------------------------------------------- CPE instance JSON
def _instance(tmp_path, name, edit):
    d = copy.deepcopy(EXAMPLE_INSTANCE)
    edit(d)
    p = tmp_path / f"{name}.json"
    p.write_text(json.dumps(d))
    return str(p)


INSTANCE_CASES = {
    "positions-number": (lambda d: d.__setitem__("positions", 5), "'positions' must be a list; got a number"),
    "candidates-null": (lambda d: d.__setitem__("candidates", None), "'candidates' must be a list; got null"),
    "positions-lists": (lambda d: d.__setitem__("positions", [[1], [2]]), "positions[0] must be an object"),
    "position-name-list": (
        lambda d: d["positions"][0].__setitem__("position", [1, 2]),
        "positions[0].position must be a string or an integer label; got a list",
    ),
    "allow-ties-string": (lambda d: d.__setitem__("allow_ties", "no"), "'allow_ties' must be true or false"),
    "no-format": (lambda d: d.pop("format"), "lacks the 'format' entry"),
    "candidate-bool": (lambda d: d["candidates"].__setitem__(0, True), "candidates[0] must be a string or an integer"),
    "matrix-string": (lambda d: d["positions"][0].__setitem__("matrix", "abc"), "positions[0].matrix must be a list"),
    "duplicate-candidate": (lambda d: d["candidates"].append(d["candidates"][0]), "lists 'c1' twice"),
}


@pytest.mark.parametrize("case", sorted(INSTANCE_CASES))
@pytest.mark.parametrize("command", ["cpe", "explore"])
def test_cpe_instance_json_is_validated_by_type(case, command, capsys, tmp_path):
    edit, msg = INSTANCE_CASES[case]
    path = _instance(tmp_path, case, edit)
    extra = ["--algorithm", "car-cond", "--delta", "0.1", "--workers", "0"] if command == "explore" else []
    line = one_line_error(capsys, [command, path, *extra], msg)
    assert f"{case}.json" in line  # the file is named


def test_instance_json_on_a_matrix_command_says_what_it_is(capsys, tmp_path):
    path = _instance(tmp_path, "inst", lambda d: None)
    one_line_error(capsys, ["bounds", path], "CPE candidate-position instance", "boundcalc cpe")


@pytest.mark.parametrize("command", ["cpe", "explore"])
def test_stdin_for_cpe_and_explore(command, capsys, monkeypatch):
    """'-' reads an instance JSON (or a text matrix) from stdin, as the command line's docs allow."""
    extra = (
        ["--algorithm", "car-cond", "--delta", "0.1", "--runs", "1", "--workers", "0", "--json"]
        if command == "explore"
        else ["--json"]
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(EXAMPLE_INSTANCE)))
    assert main([command, "-", *extra]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out.get("name") or out.get("instance")) == "chen2020-fig1"
    # a text matrix on stdin is its one-position instance
    monkeypatch.setattr(sys, "stdin", io.StringIO("0.5 0.8\n0.2 0.5\n"))
    assert main([command, "-", *extra]) == 0
    capsys.readouterr()


# ----------------------------------------------------------------------------- --break-ties
@pytest.mark.parametrize(
    "eps, needle",
    [
        ("1e-17", "rounds to exactly 1/2"),
        ("1e-300", "rounds to exactly 1/2"),
        ("1e-12", "still a tie"),
        ("0", "must lie in (0, 1/2)"),
        ("0.7", "must lie in (0, 1/2)"),
        ("nan", "must lie in (0, 1/2)"),
        ("abc", "must be a number"),
    ],
)
@pytest.mark.parametrize("command", ["bounds", "compare", "cpe"])
def test_break_ties_refused_when_the_tie_would_stay(eps, needle, command, capsys):
    one_line_error(capsys, [command, "--example", "table2", "--break-ties", eps], "argument --break-ties", needle)


def test_break_ties_never_leaves_a_tie_in_a_matrix():
    """Before: tie_epsilon = 1e-17 left mu_01 = 1/2 yet reported winners and a bound."""
    tied = [[0.5, 0.5, 0.7], [0.5, 0.5, 0.6], [0.3, 0.4, 0.5]]
    for eps in (1e-17, 1e-12, 1e-300):
        with pytest.raises(PreferenceMatrixError, match="tie"):
            PreferenceMatrix(tied, ties="break", tie_epsilon=eps)
    pm = PreferenceMatrix(tied, ties="break", tie_epsilon=2e-12)
    assert pm.mu[0, 1] > 0.5 + 1e-12 and pm.copeland_winners.tolist() == [0]


def test_break_ties_on_an_instance_json_is_refused(capsys, tmp_path):
    path = _instance(tmp_path, "inst", lambda d: None)
    one_line_error(capsys, ["cpe", path, "--break-ties", "1e-3"], "--break-ties applies to a preference matrix")


# ----------------------------------------------------------------------------- matrices
def test_complex_matrix_is_refused(capsys, tmp_path):
    p = tmp_path / "complex.npy"
    np.save(p, np.array([[0.5, 0.6 + 1j], [0.4, 0.5]]))
    one_line_error(capsys, ["bounds", str(p)], "complex.npy", "complex dtype")
    with pytest.raises(PreferenceMatrixError, match="complex"):
        PreferenceMatrix(np.array([[0.5, 0.6 + 0j], [0.4 + 0j, 0.5]]))  # even with zero imaginary parts


def test_string_matrix_is_refused():
    with pytest.raises(PreferenceMatrixError, match="not numeric"):
        PreferenceMatrix(np.array([["a", "b"], ["c", "d"]]))


# ----------------------------------------------------------------------------- numbers on the command line
@pytest.mark.parametrize(
    "argv, needle",
    [
        (
            ["simulate", "--example", "table2", "--horizon", "1000000000000"],
            "argument --horizon/-T: must be an integer in [1, 10,000,000,000]",
        ),
        (["simulate", "--example", "table2", "--horizon", str(2**63)], "argument --horizon/-T"),
        (["simulate", "--example", "table2", "--horizon", "0"], "argument --horizon/-T"),
        (
            ["simulate", "--example", "table2", "--horizon", "100", "--runs", str(10**9)],
            "argument --runs/-R: must be an integer in [1, 1,000,000]",
        ),
        (
            ["simulate", "--example", "table2", "--horizon", "100", "--seed", "-1"],
            "argument --seed: must be an integer in [0, ",
        ),
        (
            [
                "simulate",
                "--example",
                "table2",
                "--horizon",
                "100",
                "--runs",
                "400000",
                "--policies",
                "ecw-rmed,rmed1,rucb",
            ],
            "more than one run holds",
        ),
        (
            ["explore", "--example", "table2", "-a", "car-cond", "--delta", "0.1", "--runs", str(10**9)],
            "argument --runs/-R",
        ),
        (["explore", "--example", "table2", "-a", "car-cond", "--delta", "0.1", "--seed", "-1"], "argument --seed"),
        (
            ["batch", "--example", "table2", "--size", "3", "--count", str(10**9)],
            "argument --count/-n: must be an integer in [1, 1,000,000]",
        ),
        (["batch", "--example", "table2", "--size", "3", "--count", "2", "--seed", "-5"], "argument --seed"),
        (["batch", "--example", "table2", "--size", "3", "--count", "2", "--min-gap", "0.7"], "argument --min-gap"),
        (["batch", "--example", "table2", "--size", "1", "--count", "2"], "argument --size/-k"),
        (["cpe", "--example", "chen2020-fig1", "--monte-carlo", "0"], "argument --monte-carlo"),
        (["compare", "--example", "table2", "--alpha", "0.3"], "argument --alpha"),
    ],
)
def test_out_of_range_numbers_are_refused_before_any_work(argv, needle, capsys):
    one_line_error(capsys, argv, needle)


def test_impossible_min_gap_is_refused_at_once(capsys):
    """Before: an impossible --min-gap with a huge count scanned 1000 x count candidates."""
    one_line_error(
        capsys,
        [
            "batch",
            "--example",
            "mslr5-condorcet",
            "--size",
            "3",
            "--count",
            "1000000",
            "--min-gap",
            "0.3",
            "--workers",
            "0",
        ],
        "no 3-arm submatrix has every gap >= 0.3",
    )


def test_rare_min_gap_stops_at_the_projected_budget():
    from boundcalc.batch import draw_submatrices
    from boundcalc.datasets import utility_matrix

    pm = utility_matrix(40, 0)
    gaps = np.sort(np.abs(pm.mu - 0.5)[np.triu_indices(40, 1)])
    g = float(gaps[int(0.45 * gaps.size)])  # most 12-arm subsets miss it, some arms pass the core test
    with pytest.raises(ValueError, match="would need"):
        draw_submatrices(pm, 12, 10**6, g, 0)


# ----------------------------------------------------------------------------- output paths
@pytest.mark.parametrize(
    "argv",
    [
        ["bounds", "--example", "table2", "--plot", "{d}/no/such/dir/x.png"],
        ["bounds", "--example", "table2", "--plot", "{d}/x.txt"],
        ["simulate", "--example", "table2", "--horizon", "10", "--workers", "0", "--plot", "{d}"],
        ["explore", "--example", "table2", "-a", "car-cond", "--delta", "0.1", "--workers", "0", "--plot", "{d}/x.doc"],
        ["batch", "--example", "table2", "--size", "3", "--count", "1", "--out", "{d}"],
    ],
)
def test_output_paths_checked_before_the_computation(argv, capsys, tmp_path, monkeypatch):
    import boundcalc.bounds.exact as exact

    def boom(*a, **k):  # the computation must not start
        raise AssertionError("computed before the output path was checked")

    monkeypatch.setattr(exact, "lower_bound", boom)
    argv = [a.format(d=tmp_path) for a in argv]
    one_line_error(capsys, argv, "argument --")


def test_second_writer_of_one_out_file_is_refused(capsys, tmp_path):
    """Before: two processes on one --out both exited 0 and interleaved a line."""
    from boundcalc.runner import JsonlStore

    path = tmp_path / "rows.jsonl"
    holder = JsonlStore(path, {"someone": "else"})  # another run holds the file
    try:
        one_line_error(
            capsys,
            ["batch", "--example", "table2", "--size", "3", "--count", "2", "--workers", "0", "--out", str(path)],
            "rows.jsonl is being written by another run",
        )
    finally:
        holder.close()
    assert not path.exists()  # the holder created nothing it did not write
    assert (
        main(["batch", "--example", "table2", "--size", "3", "--count", "2", "--workers", "0", "--out", str(path)]) == 0
    )


def test_tiny_epsilon_is_not_a_division_by_zero(capsys):
    """Before: explore --epsilon 1e-300 raised ZeroDivisionError (1/eps**2 underflows) in H^B_eps."""
    from boundcalc.cpe import CPEInstance
    from boundcalc.cpe.borda import borda_pac_hardness

    inst = CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]])
    # the cap 1/eps^2 binds nowhere once eps is below every gap/width: same value as at eps = 1e-3
    assert borda_pac_hardness(inst, 1e-300) == borda_pac_hardness(inst, 1e-3) == pytest.approx(200.0)
    assert (
        main(
            [
                "explore",
                "--example",
                "table2",
                "--algorithm",
                "clucb-borda-pac",
                "--epsilon",
                "1e-300",
                "--delta",
                "0.2",
                "--runs",
                "1",
                "--workers",
                "0",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["hardness"]["H^B_eps"] == pytest.approx(1600.0)  # width 2, four pairs' gaps: printed H^B 400 x 2^2


def test_near_tie_is_solved_and_an_unresolved_allocation_is_said(capsys, monkeypatch):
    """Before: mu_01 = 1/2 + 1e-10 made the cutting plane fail ("Solve error"); now solved (the value
    is the enumerated LP's) and, past the cost ratio where the cheap pairs' allocation is not
    determined, a note on stderr says so."""
    import boundcalc

    mu = [[0.5, 0.5 + 1e-9, 0.7], [0.5 - 1e-9, 0.5, 0.6], [0.3, 0.4, 0.5]]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(" ".join(repr(x) for x in r) for r in mu)))
    assert main(["bounds", "-", "--json"]) == 0
    cap = capsys.readouterr()
    assert "note: pair costs span" in cap.err
    ref = boundcalc.lower_bound(PreferenceMatrix(mu), method="enumerate").value
    assert json.loads(cap.out)["lower_bound"] == pytest.approx(ref, rel=1e-7)
