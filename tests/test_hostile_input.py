"""Issue 32: hostile input and faults.  One test per class; each failed on the code before its fix
(a traceback, an allocation of the declared size, a hang, a silent use of an edited row, ...).

Most run ``boundcalc.cli.main`` in-process and assert one ``boundcalc: error:`` line and exit 2;
the Dask and stdin cases run the installed command as a subprocess.
"""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from boundcalc.cli import main
from boundcalc.matrix import PreferenceMatrix, PreferenceMatrixError

ROOT = Path(__file__).resolve().parents[1]
EXE = [sys.executable, "-m", "boundcalc"]
ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def one_line_error(capsys, argv, *needles, code=2):
    got = main(argv)
    cap = capsys.readouterr()
    # the one-time compile notice (an empty numba cache: which tests ran first in this process and
    # on this cache decides whether it appears) is information, not part of the error
    lines = [ln for ln in cap.err.strip().splitlines() if not ln.startswith("boundcalc: compiling the numba kernels")]
    assert got == code, (got, cap.err)
    assert len(lines) == 1 and lines[0].startswith("boundcalc: "), cap.err
    for n in needles:
        assert n in lines[0], (n, lines[0])
    assert cap.out == ""
    return lines[0]


# ----------------------------------------------------------------------------- 1. bounded before used
def _npy_header(shape, dtype="<f8") -> bytes:
    import io

    from numpy.lib import format as npf

    buf = io.BytesIO()
    npf.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buf.getvalue()


def test_npy_header_declaring_a_huge_array_is_refused_before_allocation(tmp_path, capsys):
    """Before: numpy's 'Unable to allocate 74.5 GiB' traceback for 64 bytes of data."""
    p = tmp_path / "huge.npy"
    p.write_bytes(_npy_header((100000, 100000)) + b"\0" * 64)
    one_line_error(capsys, ["bounds", str(p)], "huge.npy", "(100000, 100000)", "MAX_ENTRIES")
    # within the entry limit but more than the bytes present: a truncated file, said so
    p.write_bytes(_npy_header((3, 3)) + b"\0" * 64)
    one_line_error(capsys, ["bounds", str(p)], "72 bytes", "only 64 bytes")
    # the same inside an .npz member
    import zipfile

    z = tmp_path / "huge.npz"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("mu.npy", _npy_header((100000, 100000)) + b"\0" * 64)
    one_line_error(capsys, ["bounds", str(z)], "huge.npz[mu]", "MAX_ENTRIES")
    with pytest.raises(PreferenceMatrixError, match="MAX_ENTRIES"):
        PreferenceMatrix.from_file(z)


def test_deep_json_and_long_numbers_are_refused(tmp_path, capsys):
    """Before: RecursionError traceback (JSON nested past the parser's limit)."""
    p = tmp_path / "deep.json"
    p.write_text("[" * 100000 + "]" * 100000)
    one_line_error(capsys, ["bounds", str(p)], "deep.json", "nested 100000 levels", "MAX_JSON_DEPTH")
    one_line_error(capsys, ["cpe", str(p)], "nested 100000 levels")
    p.write_text("[[0.5, 1" + "0" * 5000 + "], [0.5, 0.5]]")
    one_line_error(capsys, ["bounds", str(p)], "more than 400 digits")
    t = tmp_path / "long.txt"
    t.write_text("0.5 0." + "7" * 5000 + "\n0.3 0.5\n")
    one_line_error(capsys, ["bounds", str(t)], "long.txt", "more than 400 digits")


def test_depth_counter_skips_strings():
    from boundcalc.io import json_depth

    assert json_depth(b'{"a": [[1, 2], [3]], "s": "[[[[[[ {{{"}') == 3  # by hand
    assert json_depth(b"[]") == 1 and json_depth(b'"[["') == 0


def test_special_files_are_refused_as_input_and_output(tmp_path, capsys):
    """Before: a FIFO as --out blocked the run for ever; /dev/zero as PATH filled the memory."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    one_line_error(capsys, ["bounds", str(fifo)], "fifo", "FIFO", "'-'")
    one_line_error(capsys, ["bounds", "/dev/zero"], "/dev/zero", "character device")
    one_line_error(
        capsys,
        ["simulate", "--example", "table2", "-T", "10", "--workers", "0", "--out", str(fifo)],
        "argument --out/-o",
        "not a regular file",
    )
    one_line_error(capsys, ["bounds", "--example", "table2", "--plot", "/dev/null"], "argument --plot")
    one_line_error(
        capsys,
        ["batch", "--example", "table2", "--size", "3", "--count", "1", "--out", str(tmp_path / ("x" * 400))],
        "argument --out/-o",
        "too long",
    )


def test_endless_stdin_is_bounded(monkeypatch):
    import boundcalc.io as bio

    monkeypatch.setattr(bio, "MAX_INPUT_BYTES", 1000)

    class Endless:
        def read(self, n=-1):
            assert n > 0  # never an unbounded read
            return (b"0.5 " * (n // 4 + 1))[:n]

    monkeypatch.setattr(sys, "stdin", type("S", (), {"buffer": Endless(), "closed": False})())
    with pytest.raises(PreferenceMatrixError, match="more than 0 MiB.*endless stream"):
        bio.read_source("-")


def test_closed_stdin_is_one_line():
    """Before: `boundcalc bounds - <&-` raised AttributeError."""
    proc = subprocess.run(
        EXE + ["bounds", "-"],
        capture_output=True,
        text=True,
        env=ENV,
        stdin=subprocess.DEVNULL,
        timeout=120,
        preexec_fn=lambda: os.close(0),
    )
    assert proc.returncode == 2 and proc.stderr.strip() == (
        "boundcalc: error: stdin: standard input is closed; give a file, or pipe the matrix in"
    ), proc.stderr


@pytest.mark.parametrize("value", ["0**-1", "7**999999999", "10**5", "1e999999999", "9" * 100, "0x10", "1.5"])
def test_integer_options_are_never_evaluated(value, capsys):
    """Before: '0**-1' raised ZeroDivisionError, '7**999999999' ran for minutes before its range check."""
    one_line_error(
        capsys, ["cpe", "--example", "chen2020-fig1", "--seed", value], "argument --seed", "must be an integer"
    )


@pytest.mark.parametrize(
    "value, expected", [("1e5", 100000), ("100000", 100000), ("100_000", 100000), ("2.5e3", 2500), (" 7 ", 7)]
)
def test_integer_options_read_as_numbers(value, expected):
    from boundcalc.cli import _int_option

    assert _int_option(0, 10**6)(value) == expected


def test_from_bytes_sniffs_every_format(tmp_path):
    mu = np.array([[0.5, 0.75], [0.25, 0.5]])
    np.save(tmp_path / "m.npy", mu)
    np.savez(tmp_path / "m.npz", mu=mu)
    for data in [
        (tmp_path / "m.npy").read_bytes(),
        (tmp_path / "m.npz").read_bytes(),
        json.dumps({"mu": mu.tolist()}).encode(),
        b"0.5, 0.75\n0.25, 0.5\n",
    ]:
        assert PreferenceMatrix.from_bytes(data).mu.tolist() == mu.tolist()


# ----------------------------------------------------------------------------- 3. one line for every failure
def test_unexpected_exception_is_one_line_and_debug_shows_the_traceback(capsys, monkeypatch):
    import boundcalc.cli as cli

    def boom(args):
        raise KeyError("surprise")

    parser = cli.build_parser()
    args = parser.parse_args(["bounds", "--example", "table2"])
    monkeypatch.setattr(cli, "_cmd_bounds", boom)
    monkeypatch.setattr(cli, "build_parser", lambda: _with_func(parser, boom))
    assert main(["bounds", "--example", "table2"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1 and "internal error: KeyError" in err and "--debug" in err
    assert main(["--debug", "bounds", "--example", "table2"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and err.strip().splitlines()[-1].startswith("boundcalc: internal error")
    del args


def _with_func(parser, fn):
    for action in parser._subparsers._group_actions:
        action.choices["bounds"].set_defaults(func=fn)
    return parser


@pytest.mark.parametrize(
    "exc, code, needle",
    [
        (MemoryError(), 1, "out of memory"),
        (OSError(28, "No space left on device", "rows.jsonl"), 1, "rows.jsonl: No space left on device"),
        (OSError(13, "Permission denied", "x"), 2, "x: Permission denied"),
        (RecursionError("maximum recursion depth exceeded"), 2, "nested too deeply"),
        (OverflowError("(34, 'Numerical result out of range')"), 2, "out of the representable range"),
    ],
)
def test_failure_classes_map_to_exit_codes(exc, code, needle):
    from boundcalc.cli import failure_line

    got, line = failure_line(exc)
    assert got == code and needle in line and "\n" not in line


def test_compare_never_reports_ok_for_a_non_finite_value(capsys):
    """Before: `compare --alpha 1e308` printed inf (CSV) / null (JSON) with status ok.  The command
    line refuses such an alpha at parse time; the API marks the row failed, never ok."""
    import boundcalc as bc

    res = bc.compare(bc.load_example("table2"), alpha=1e308, keys=["dts_prop1", "lower_bound"])
    rows = {r.key: r for r in res.rows}
    assert rows["dts_prop1"].status == "failed" and rows["dts_prop1"].value is None
    assert "not finite" in rows["dts_prop1"].message
    assert rows["lower_bound"].status == "ok" and rows["lower_bound"].value == pytest.approx(27.548665, abs=1e-5)
    code = main(["compare", "--example", "table2", "--alpha", "1e308", "--keys", "dts_prop1,lower_bound", "--json"])
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert code == 2 and cap.out == "" and len(lines) == 1 and "--alpha" in lines[0] and "1e+12" in lines[0]


def test_hyperparameter_overflow_names_the_option(capsys):
    """Before: `--param rmed1.f_power=1e308` ended in an OverflowError traceback."""
    one_line_error(
        capsys,
        [
            "simulate",
            "--example",
            "table2",
            "-T",
            "200",
            "--runs",
            "1",
            "--workers",
            "0",
            "--policies",
            "rmed1",
            "--param",
            "rmed1.f_power=1e308",
        ],
        "--param rmed1.f_power=1e308",
        "overflows",
    )


# ----------------------------------------------------------------------------- 4. CPE at extreme confidence
def test_log_confidence_is_exact_where_the_quotient_overflows():
    from boundcalc.cpe.algorithms import _Delta, _log_conf, _log_conf_any

    # by hand: ln(4 * 2 * (1e6)^3 / 1e-300) = ln 8 + 18 ln 10 + 300 ln 10
    want = math.log(8) + 318 * math.log(10)
    assert _log_conf(2, 10**6, 1e-300) == pytest.approx(want, rel=1e-14)
    assert math.isfinite(_log_conf(2, 10**6, 5e-324))
    # CAR-Parallel's delta / 2^(k+1) past the normal floats keeps its logarithm
    d = _Delta(1e-300, 100)
    assert _log_conf_any(2, 10, d) == pytest.approx(math.log(8000) + 300 * math.log(10) + 100 * math.log(2), rel=1e-14)
    assert _log_conf_any(2, 10, _Delta(0.05, 1)) == math.log(4.0 * 2 * 1000 / 0.025)  # unchanged where normal


@pytest.mark.parametrize("algorithm", ["car-cond", "car-verify", "car-parallel"])
def test_tiny_delta_ends(algorithm):
    """Before: delta = 1e-300 made every radius infinite (ln of an overflowed quotient) and the run
    drew duels to its budget without deciding; now it identifies the Condorcet winner."""
    from boundcalc.cpe.algorithms import run_algorithm

    mu = [[0.5, 0.9, 0.9], [0.1, 0.5, 0.6], [0.1, 0.4, 0.5]]
    res = run_algorithm(algorithm, mu, delta=1e-300, seed=0, max_duels=3_000_000)
    assert res.stopped == "identified" and res.matching == (0,)


def test_explore_has_a_default_duel_budget_and_says_when_it_is_reached(capsys):
    from boundcalc.cli import DEFAULT_MAX_DUELS, build_parser

    args = build_parser().parse_args(["explore", "--example", "table2", "-a", "car-cond", "--delta", "0.1"])
    assert args.max_duels == DEFAULT_MAX_DUELS == 10**7
    assert (
        main(
            [
                "explore",
                "--example",
                "table2",
                "-a",
                "car-cond",
                "--delta",
                "1e-300",
                "--runs",
                "2",
                "--workers",
                "0",
                "--max-duels",
                "500",
                "--json",
            ]
        )
        == 0
    )
    cap = capsys.readouterr()
    assert json.loads(cap.out)["stopped"] == {"budget": 2}
    assert "2 of 2 runs reached the duel budget (--max-duels 500)" in cap.err


# ----------------------------------------------------------------------------- 5. Dask
@pytest.mark.parametrize(
    "address, needle",
    [
        ("htp://127.0.0.1:8786", "unknown scheme 'htp'"),
        ("tcp://127.0.0.1", "no port"),
        ("tcp://:8786", "no host"),
        ("tcp://127.0.0.1:99999", "Port out of range"),
        ("tcp://host:8786/path", "a path or query"),
    ],
)
def test_scheduler_address_checked_before_connecting(address, needle, capsys):
    one_line_error(
        capsys,
        ["simulate", "--example", "table2", "-T", "10", "--runs", "1", "--scheduler", address],
        f"--scheduler {address!r}",
        needle,
    )


@pytest.mark.slow
def test_a_listener_that_is_not_a_scheduler_is_detected(monkeypatch):
    """Before: distributed.Client waited without end on a plain TCP server."""
    pytest.importorskip("distributed")
    import boundcalc.runner.executor as ex

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    port = srv.getsockname()[1]
    held = []
    stop = threading.Event()

    def accept():  # accepts and says nothing (a silent service)
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(srv.accept()[0])
            except OSError:
                pass

    th = threading.Thread(target=accept, daemon=True)
    th.start()
    try:
        with pytest.raises(ConnectionError, match=r"no answer within 2 s \(nothing listening, or not a Dask"):
            ex.probe_scheduler(f"tcp://127.0.0.1:{port}", timeout=2)
    finally:
        stop.set()
        th.join()
        for c in held:
            c.close()
        srv.close()


def test_lost_cluster_is_one_line_and_rows_are_kept(tmp_path):
    """A future cancelled under the runner (as when the last worker or the scheduler is lost) ends
    in ClusterLost naming the kept rows and 'rerun', not a FutureCancelledError traceback."""
    distributed = pytest.importorskip("distributed")
    from boundcalc.runner import JsonlStore, run_tasks
    from boundcalc.runner.executor import ClusterLost

    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
        path = tmp_path / "rows.jsonl"
        tasks = [{"index": i} for i in range(6)]
        with pytest.raises(ClusterLost, match=r"rows finished so far are kept in .*rows.jsonl; rerun"):
            run_tasks(
                _cancel_at_3,
                tasks,
                shared={"address": client.scheduler.address},
                store=JsonlStore(path, {}),
                scheduler=client,
                chunk_size=1,
            )
        kept = [json.loads(x)["index"] for x in path.read_text().splitlines()[1:]]
        assert 3 not in kept and set(kept) <= {0, 1, 2, 4, 5}


def _cancel_at_3(task, shared):
    if task["index"] == 3:
        from distributed.client import FutureCancelledError

        raise FutureCancelledError("x", "lost")  # what fut.result() raises for a cancelled future
    return {"index": task["index"]}


# ----------------------------------------------------------------------------- 6. rows that prove themselves
def _store_rows(path):
    from boundcalc.runner import JsonlStore

    with JsonlStore(path, {"seed": 1}) as st:
        st.append([{"index": i, "value": 0.5 + i} for i in range(4)])


@pytest.mark.parametrize(
    "edit",
    [
        lambda r: r.__setitem__("value", 9.0),  # a wrong value
        lambda r: r.__setitem__("value", float("nan")),  # NaN
        lambda r: r.__setitem__("value", float("inf")),  # Infinity
        lambda r: r.__setitem__("index", 7),  # a changed index
        lambda r: r.__setitem__("label", "x"),  # a new field
    ],
)
def test_an_edited_row_is_refused_by_line(tmp_path, edit):
    """Before: 12 of 26 hand edits of row files were kept silently."""
    from boundcalc.runner import JsonlStore, StoreError, load_store

    path = tmp_path / "rows.jsonl"
    _store_rows(path)
    lines = path.read_text().splitlines()
    row = json.loads(lines[3])
    edit(row)
    lines[3] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n")
    for read in (lambda: load_store(path), lambda: JsonlStore(path, {"seed": 1})):
        with pytest.raises(StoreError, match=r"rows.jsonl:4: corrupt row \(line 4: .*checksum\); recompute them"):
            read()


def test_a_row_of_another_job_does_not_verify_but_one_of_the_same_job_does(tmp_path):
    from boundcalc.runner import JsonlStore, StoreError, load_store

    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    _store_rows(a)
    with JsonlStore(b, {"seed": 1, "note": "other machine"}, identity=["seed"]) as st:
        st.append([{"index": 9, "value": 1.0}])
    with JsonlStore(c, {"seed": 2}) as st:
        st.append([{"index": 9, "value": 1.0}])
    # b was written with identity ["seed"], a with every field ({"seed"} too): the same key
    a.write_text(a.read_text() + b.read_text().splitlines(keepends=True)[1])
    assert [r["index"] for r in load_store(a)[1]] == [0, 1, 2, 3, 9]
    a.write_text(a.read_text() + c.read_text().splitlines(keepends=True)[1])
    with pytest.raises(StoreError, match="rows.jsonl|a.jsonl:7"):
        load_store(a)


def test_files_before_checksums_are_read_with_a_warning(tmp_path):
    from boundcalc.runner import StoreWarning, load_store

    stored = ROOT / "benchmarks" / "results" / "figure1" / "c-ecw-rmed.jsonl"
    with pytest.warns(StoreWarning, match="read unverified"):
        head, rows = load_store(stored)
    assert len(rows) == 100 and head["kind"] == "simulate"


def test_the_lock_covers_a_header_only_file(tmp_path):
    """Before: a file holding only a truncated header was rewritten without the lock
    (runner/store.py:259), so a second writer was not refused."""
    from boundcalc.runner import JsonlStore, StoreLocked

    path = tmp_path / "rows.jsonl"
    path.write_text('{"boundcalc_run": {"se')
    first = JsonlStore(path, {"seed": 1})
    try:
        with pytest.raises(StoreLocked):
            JsonlStore(path, {"seed": 1})
    finally:
        first.close()


# ----------------------------------------------------------------------------- the smallest delta, an unwritable --out
def test_theorem_expressions_are_exact_at_the_smallest_delta():
    """Before: ``explore --delta 5e-324`` printed numpy's 'divide by zero' warning (``delta * d**2``
    underflowed to 0 in Theorem 4's expression).  Every expression is ``A + B ln(1/delta)``: the
    value at 5e-324 must be the line through two ordinary deltas, extrapolated."""
    from boundcalc.cpe import CPEInstance
    from boundcalc.cpe.theorems import sample_complexity_expressions

    inst = CPEInstance.from_matrix([[0.5, 0.7, 0.8], [0.3, 0.5, 0.6], [0.2, 0.4, 0.5]])
    x1, x2, x = -math.log(1e-2), -math.log(1e-5), -math.log(5e-324)
    with np.errstate(all="raise"):
        e1, e2, e = (sample_complexity_expressions(inst, d, 0.1) for d in (1e-2, 1e-5, 5e-324))
    for k in ("theorem3", "theorem4", "theorem6"):  # linear in ln(1/delta)
        slope = (e2[k].value - e1[k].value) / (x2 - x1)
        assert e[k].value == pytest.approx(e1[k].value + slope * (x - x1), rel=1e-9), k
    # Theorem 3 by hand: H^B ln(1/delta), ln(1/5e-324) = 744.44007...
    assert e["theorem3"].value / e1["theorem3"].value == pytest.approx(x / x1, rel=1e-12)


def test_clucb_exact_epoch_delta_below_the_normal_floats():
    """Before: CLUCB-Borda-Exact's delta / (2 q^2) underflowed to 0 at delta = 5e-324 and
    ln(4K / delta_q) raised ZeroDivisionError; now delta_q keeps its logarithm (004 Algorithm 2)."""
    from boundcalc.cpe.algorithms import _Delta, _log_4K_delta, run_algorithm

    d = _Delta(5e-324, 0, 2.0 * 3 * 3)
    assert _log_4K_delta(6, d) == pytest.approx(math.log(24) - math.log(5e-324) + math.log(18), rel=1e-14)
    assert _log_4K_delta(6, _Delta(0.05, 0, 8.0)) == math.log(24 / (0.05 / 8.0))  # unchanged where normal
    with np.errstate(all="raise"):
        res = run_algorithm("clucb-borda-exact", [[0.5, 0.9], [0.1, 0.5]], delta=5e-324, seed=0, max_duels=2000)
    assert res.stopped in ("identified", "budget")


@pytest.mark.slow
def test_explore_at_the_smallest_delta_prints_no_numpy_warning():
    out = subprocess.run(
        EXE
        + ["explore", "--example", "table2", "-a", "car-cond", "--delta", "5e-324", "--runs", "1"]
        + ["--workers", "0", "--max-duels", "100", "--json"],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "warning" not in out.stderr and "divide" not in out.stderr, out.stderr
    # Theorem 3 = H^B ln(1/delta), H^B = 400 for table2 (the line printed at delta = 0.1 gives 921.03 = 400 ln 10)
    assert json.loads(out.stdout)["hardness"]["expressions"]["theorem3"] == pytest.approx(
        400 * -math.log(5e-324), rel=1e-12
    )


@pytest.mark.skipif(not os.path.exists("/proc/version"), reason="needs Linux's /proc/version")
def test_a_write_error_names_the_file(capsys):
    """Before: ``--out /proc/version`` (open succeeds, the write fails with EIO) printed
    'Input/output error' without the file's name."""
    one_line_error(
        capsys,
        ["explore", "--example", "table2", "-a", "car-cond", "--delta", "0.1", "--runs", "1", "--workers", "0"]
        + ["--out", "/proc/version"],
        "/proc/version",
        code=1,
    )
