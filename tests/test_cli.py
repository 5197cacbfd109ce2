"""The `boundcalc bounds` command: output, JSON, examples, stdin, and error exits."""

import io
import json
import subprocess
import sys

import numpy as np
import pytest

from boundcalc import ecw_bound, load_example, lower_bound
from boundcalc.cli import EXAMPLE_NAMES, main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", [n for n in EXAMPLE_NAMES if n != "arxiv6"])  # arxiv6's tie: test_public_data
def test_bounds_examples_json_matches_library(capsys, name):
    code, out, err = run(capsys, "bounds", "--example", name, "--json")
    assert code == 0, err
    rep = json.loads(out)
    pm = load_example(name)
    assert rep["lower_bound"] == pytest.approx(lower_bound(pm).value, rel=1e-9)
    assert rep["ecw"] == pytest.approx(ecw_bound(pm).value, rel=1e-12)
    assert rep["copeland_winners"] == pm.copeland_winners.tolist()
    assert rep["losses"] == pm.L.tolist()
    assert rep["ratio_ecw_to_lower_bound"] == pytest.approx(rep["ecw"] / rep["lower_bound"])
    assert rep["certificate"]["max_violation"] <= 1e-9
    assert "allocation" not in rep


def test_bounds_table_shows_table2_numbers(capsys):
    code, out, _ = run(capsys, "bounds", "--example", "table2")
    assert code == 0
    assert "27.5487" in out and "49.6635" in out and "Condorcet winner 0" in out
    assert "ECW / lower bound = 1.80276" in out


def test_bounds_allocation_and_enumerate(capsys, tmp_path):
    code, out, _ = run(
        capsys, "bounds", "--example", "mslr5-noncondorcet", "--json", "--allocation", "--method", "enumerate"
    )
    assert code == 0
    rep = json.loads(out)
    Q = np.array(rep["allocation"])
    pm = load_example("mslr5-noncondorcet")
    assert rep["method"] == "enumerate" and Q.shape == (5, 5)
    assert 0.5 * (pm.regret * Q).sum() == pytest.approx(rep["lower_bound"], rel=1e-9)


def test_bounds_reads_file_and_stdin(capsys, tmp_path, monkeypatch):
    pm = load_example("table2")
    p = tmp_path / "m.csv"
    np.savetxt(p, pm.mu, delimiter=",")
    code, out, _ = run(capsys, "bounds", str(p), "--json")
    assert code == 0 and json.loads(out)["lower_bound"] == pytest.approx(27.548665, abs=1e-5)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(" ".join(map(str, r)) for r in pm.mu)))
    code, out, _ = run(capsys, "bounds", "-", "--json")
    assert code == 0 and json.loads(out)["lower_bound"] == pytest.approx(27.548665, abs=1e-5)


def test_bounds_errors_exit_2_with_message(capsys, tmp_path):
    code, _, err = run(capsys, "bounds", str(tmp_path / "missing.txt"))
    assert code == 2 and "missing.txt: no such file" in err
    p = tmp_path / "tie.txt"
    p.write_text("0.5 0.5\n0.5 0.5\n")
    code, _, err = run(capsys, "bounds", str(p))
    assert code == 2 and "exact tie" in err and "--break-ties" in err
    code, out, _ = run(capsys, "bounds", str(p), "--break-ties", "0.01", "--json")
    assert code == 0 and json.loads(out)["lower_bound"] > 0
    p2 = tmp_path / "asym.txt"
    p2.write_text("0.5 0.7\n0.7 0.5\n")
    code, _, err = run(capsys, "bounds", str(p2))
    assert code == 2 and "mu + mu.T = 1" in err
    code, _, err = run(capsys, "bounds")
    assert code == 2 and "no input" in err
    code, _, err = run(capsys, "bounds", str(p2), "--example", "table2")
    assert code == 2 and "not both" in err


BAD_PATHS = {
    # name: (how to make it, what stderr must say)
    "directory": (lambda p: p.mkdir(), "is a directory"),
    "directory.json": (lambda p: p.mkdir(), "is a directory"),
    "random.bin": (lambda p: p.write_bytes(np.random.default_rng(7).bytes(2048)), "binary data (a NUL byte"),
    "random.json": (lambda p: p.write_bytes(np.random.default_rng(8).bytes(2048)), "binary data (a NUL byte"),
    "random.npy": (lambda p: p.write_bytes(np.random.default_rng(9).bytes(2048)), "not a NumPy .npy file"),
    "latin1.txt": (
        lambda p: p.write_bytes("0.5 0.6\n0.4 0.5 # \u00e9t\u00e9\n".encode("latin-1")),
        "not UTF-8 text (byte 0xe9 on line 2",
    ),
    "empty.txt": (lambda p: p.write_bytes(b""), "no numbers found"),
    "missing.txt": (lambda p: None, "missing.txt"),
}


@pytest.mark.parametrize(
    "command", [["bounds"], ["compare"], ["cpe"], ["batch", "--size", "2", "--count", "1", "--no-dask"]]
)
@pytest.mark.parametrize("name", list(BAD_PATHS))
def test_bad_path_is_a_message_and_exit_2(capsys, tmp_path, command, name):
    make, says = BAD_PATHS[name]
    p = tmp_path / name
    make(p)
    code, out, err = run(capsys, command[0], str(p), *command[1:])
    assert (code, out) == (2, "")
    assert err.startswith("boundcalc: error: ") and says in err and name in err
    assert err.count("\n") == 1  # one line, no traceback


@pytest.mark.slow
def test_bad_path_through_the_installed_command(tmp_path):
    # the real entry point, a real process: one line on stderr, no traceback, status 2
    for name in ("directory", "random.bin", "latin1.txt"):
        p = tmp_path / name
        BAD_PATHS[name][0](p)
        proc = subprocess.run(
            [sys.executable, "-m", "boundcalc", "bounds", str(p)], capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        assert "Traceback" not in proc.stderr and BAD_PATHS[name][1] in proc.stderr


def test_stdin_uses_the_file_parser(capsys, tmp_path, monkeypatch):
    # the same text gives the same matrix, or the same error (line and column), from a file and from stdin
    def stdin(data: bytes):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))

    good = b"# table 2\n0.5 0.6 0.6 0.6\n0.4,0.5,0.9,0.1\n0.4;0.1;0.5;0.9\n\n0.4 0.9 0.1 0.5 # last\n"
    stdin(good)
    code, out, _ = run(capsys, "bounds", "-", "--json")
    assert code == 0 and json.loads(out)["lower_bound"] == pytest.approx(27.548665, abs=1e-5)
    for data, says in [
        (b"0.5 0.6\n0.4 zero\n", "line 2, column 5: 'zero' is not a number"),
        (b"0.5 0.6\n0.4\n", "line 2 has 1 entry but line 1 has 2 entries"),
        (b"\xff\xfe0\x005\x00", "binary data"),
        ("0.5 0.6\n0.4 0.5 # \u00e9\n".encode("latin-1"), "not UTF-8 text (byte 0xe9 on line 2"),
        (b"", "no numbers found"),
        (b"0.5 0.5\n0.5 0.5\n", "exact tie"),
    ]:
        stdin(data)
        code, out, err = run(capsys, "bounds", "-")
        assert (code, out) == (2, "") and err.startswith("boundcalc: error: stdin: ") and says in err
        p = tmp_path / "m.txt"
        p.write_bytes(data)
        code, _, err_file = run(capsys, "bounds", str(p))
        assert code == 2 and err_file.replace(str(p), "stdin") == err


def test_stdin_takes_npy_and_npz_bytes_as_a_file_would(capsys, tmp_path, monkeypatch):
    # `boundcalc bounds - < m.npy`: the same matrix (or the same error) as from the file itself
    def stdin(data: bytes):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))

    mu = load_example("table2").mu
    np.save(tmp_path / "m.npy", mu)
    np.savez(tmp_path / "m.npz", PMat=mu, other=mu.T)
    stdin((tmp_path / "m.npy").read_bytes())
    code, out, err = run(capsys, "bounds", "-", "--json")
    assert code == 0 and json.loads(out)["lower_bound"] == pytest.approx(27.548665, abs=1e-5), err
    stdin((tmp_path / "m.npz").read_bytes())
    code, out, _ = run(capsys, "bounds", "-", "--key", "PMat", "--json")
    assert code == 0 and json.loads(out)["lower_bound"] == pytest.approx(27.548665, abs=1e-5)
    stdin((tmp_path / "m.npz").read_bytes())
    code, out, err = run(capsys, "bounds", "-")
    assert (code, out) == (2, "") and "stdin: holds 2 arrays ['PMat', 'other']" in err and "--key" in err
    _, _, err_file = run(capsys, "bounds", str(tmp_path / "m.npz"))
    assert err_file.replace(str(tmp_path / "m.npz"), "stdin") == err
    stdin(b"\x93NUMPY broken")
    code, _, err = run(capsys, "bounds", "-")
    assert code == 2 and err.startswith("boundcalc: error: stdin: unreadable NumPy file")


def test_allocation_text_prints_every_entry_at_large_k(capsys, tmp_path):
    from builders import random_mu

    mu = random_mu(40, np.random.default_rng(3))
    np.savetxt(tmp_path / "m.txt", mu)
    code, out, err = run(capsys, "bounds", str(tmp_path / "m.txt"), "--allocation")
    assert code == 0, err
    text = out.split("optimal exploration allocation q (draws per ln T):\n", 1)[1]
    assert "..." not in text  # numpy summarises arrays of more than 1,000 entries unless told not to
    assert text.count("[") == 41  # the outer bracket and one per row


def test_empty_keys_and_unknown_options_name_the_right_help(capsys):
    code, out, err = run(capsys, "compare", "--example", "table2", "--keys", "")
    assert (code, out) == (2, "") and "--keys names no constant" in err
    code, _, err = run(capsys, "batch", "--example", "table2", "--size", "3", "--count", "1", "--keys", " , ")
    assert code == 2 and "--keys names no constant" in err
    code, _, err = run(capsys, "bounds", "--example", "table2", "--bogus")
    assert code == 2 and err == "boundcalc: error: unrecognized arguments: --bogus (see 'boundcalc bounds --help')\n"
    code, _, err = run(capsys, "--bogus")
    assert code == 2 and "(see 'boundcalc --help')" in err


def test_directory_as_output_file_is_a_message(capsys, tmp_path):
    # a directory given where a file is written: exit 2 with the path, not a traceback
    code, out, err = run(
        capsys, "batch", "--example", "table2", "--size", "2", "--count", "1", "--no-dask", "--out", str(tmp_path)
    )
    assert (code, out) == (2, "") and str(tmp_path) in err and err.count("\n") == 1
    (tmp_path / "p.png").mkdir()
    code, out, err = run(capsys, "bounds", "--example", "table2", "--plot", str(tmp_path / "p.png"))
    assert (code, out) == (2, "") and "p.png" in err and err.count("\n") == 1


def test_enumerate_too_large_is_a_clear_error(capsys, tmp_path):
    from boundcalc.datasets import random_matrix

    p = tmp_path / "big.npy"
    np.save(p, random_matrix(40, 1).mu)
    code, _, err = run(capsys, "bounds", str(p), "--method", "enumerate")
    assert code == 2 and "use the cutting-plane method" in err


def test_example_help_names_every_example_and_its_source(capsys):
    assert main(["bounds", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    assert all(name in out for name in EXAMPLE_NAMES)
    assert "Komiyama, Honda & Nakagawa (2016), Table 2" in out and "Wu & Liu (2016)" in out


def test_help_lists_every_policy_and_algorithm(capsys):
    """The lists are built when the help is printed (the parser itself does not import the policy and
    algorithm modules): every registered name is there, with its paper."""
    from boundcalc.cpe.algorithms import ALGORITHMS
    from boundcalc.policies import POLICIES

    assert main(["simulate", "--help"]) == 0
    out = capsys.readouterr().out
    assert "policies (--policies NAME,...;" in out
    assert all(f"  {name:10s} {cls.reference}" in out for name, cls in POLICIES.items())
    assert main(["explore", "--help"]) == 0
    out = capsys.readouterr().out
    assert all(f"  {name:18s} {spec.paper}" in out for name, spec in ALGORITHMS.items())


def test_no_subcommand_prints_help(capsys):
    code, _, err = run(capsys)
    assert code == 2 and "bounds" in err


def test_python_dash_m_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "boundcalc", "bounds", "--example", "table2", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["ecw"] == pytest.approx(49.663496, abs=1e-5)


# ----------------------------------------------------------------------------- cpe
def test_cpe_example_reproduces_004(capsys):
    code, out, err = run(capsys, "cpe", "--example", "chen2020-fig1", "--json")
    assert code == 0, err
    rep = json.loads(out)
    # 004 Figures 1-2: Borda winner {e1, e5} scores 0.64, the Condorcet winner {e2, e5} 0.615
    assert rep["borda"]["winner"] == [["c1", "s1"], ["c4", "s2"]]
    assert rep["borda"]["winner_score"] == pytest.approx(0.64)
    assert rep["condorcet"]["winner"] == [["c2", "s1"], ["c4", "s2"]]
    assert rep["condorcet"]["winner_borda_score"] == pytest.approx(0.615)
    # hand count: s1 takes c1, c2 or c3, s2 takes c3 or c4, minus {c3-s1, c3-s2}: 5 matchings
    assert rep["maximum_matchings"] == 5 and rep["matchings_per_edge"] == [2, 2, 1, 2, 3]
    code, out, _ = run(capsys, "cpe", "--example", "chen2020-fig1")
    assert code == 0 and "B = w(M)/l = 0.64" in out and "Borda score 0.615" in out


def test_cpe_plain_matrix_and_instance_file_agree_with_compare(capsys, tmp_path):
    from boundcalc import compare
    from boundcalc.cpe import CPEInstance

    pm = load_example("mslr5-condorcet")
    p = tmp_path / "m.txt"
    np.savetxt(p, pm.mu, fmt="%.17g")
    code, out, _ = run(capsys, "cpe", str(p), "--json")
    assert code == 0
    rep = json.loads(out)
    cmp = compare(pm, keys=["cpe_borda_hardness", "cpe_condorcet_hardness", "cpe_condorcet_ver"])
    assert rep["borda"]["hardness"] == pytest.approx(cmp["cpe_borda_hardness"].value, rel=1e-12)
    assert rep["condorcet"]["hardness"] == pytest.approx(cmp["cpe_condorcet_hardness"].value, rel=1e-12)
    assert rep["condorcet"]["verification_hardness"] == pytest.approx(cmp["cpe_condorcet_ver"].value, rel=1e-12)
    inst_path = tmp_path / "inst.json"
    CPEInstance.from_matrix(pm.mu).save(inst_path)
    code, out2, _ = run(capsys, "cpe", str(inst_path), "--json")
    assert code == 0 and json.loads(out2)["borda"] == rep["borda"]


def test_cpe_errors(capsys, tmp_path):
    code, _, err = run(capsys, "cpe", str(tmp_path / "nope.json"))
    assert code == 2 and "nope.json" in err
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps({"format": "boundcalc.cpe.instance/1", "candidates": ["a"], "positions": [{"position": "s"}]})
    )
    code, _, err = run(capsys, "cpe", str(bad))
    assert code == 2 and "positions[0]" in err
    code, _, err = run(capsys, "cpe")
    assert code == 2 and "no input: give PATH" in err


def test_bounds_plot_writes_a_png(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "alloc.png"
    code, _, err = run(capsys, "bounds", "--example", "table2", "--plot", str(out))
    assert code == 0 and f"wrote {out}" in err
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = run(capsys, "bounds", "--example", "table2", "--plot", str(tmp_path / "no" / "dir.png"))
    assert code == 2 and "cannot write" in err
