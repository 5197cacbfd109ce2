"""Issue 32, point 7: hypothesis over argv and file bytes, each case run as a subprocess of the
installed ``boundcalc`` command (PYTHONPATH pointing at this tree).  For every case: exit status in
{0, 1, 2, 130}, no "Traceback" on stderr, nothing on stdout unless the exit status is 0.

Derandomized (the project's ``--hypothesis-seed=0`` plus ``derandomize=True``), time-bounded (a
fixed number of examples, each run with a timeout) and in the ``slow`` set.  The wider corpus of
hand-built bad inputs is ``tests/fuzz/fuzz_cli.py`` (a script, minutes).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
_exe = shutil.which("boundcalc")
EXE = [_exe] if _exe else [sys.executable, "-m", "boundcalc"]
ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
ENV.pop("BOUNDCALC_DEBUG", None)
TIMEOUT = 180

pytestmark = pytest.mark.slow

COMMANDS = {
    "bounds": [],
    "compare": ["--keys", "lower_bound,ecw,dts_prop1"],
    "cpe": [],
    "batch": ["--size", "2", "--count", "2", "--workers", "0", "--keys", "ecw"],
    "simulate": ["--horizon", "50", "--runs", "1", "--workers", "0", "--policies", "rmed1"],
    "explore": ["--algorithm", "car-cond", "--delta", "0.2", "--runs", "1", "--workers", "0", "--max-duels", "20000"],
}
OPTIONS = {
    "bounds": ["--break-ties", "--method", "--key", "--max-seconds"],
    "compare": ["--alpha", "--break-ties", "--keys"],
    "cpe": ["--monte-carlo", "--seed", "--key"],
    "batch": ["--size", "--count", "--seed", "--min-gap", "--alpha", "--chunk-size", "--out"],
    "simulate": [
        "--horizon",
        "--runs",
        "--seed",
        "--per-decade",
        "--param",
        "--first-run",
        "--scheduler",
        "--out",
        "--workers",
        "--max-seconds",
    ],
    "explore": ["--delta", "--epsilon", "--seed", "--max-duels", "--runs", "--scheduler", "--out"],
}
VALUES = st.one_of(
    st.sampled_from(
        [
            "0",
            "-1",
            "1e5",
            "1e308",
            "1e-300",
            "nan",
            "inf",
            "0**-1",
            "7**999999999",
            "",
            "abc",
            "2",
            "0.5",
            "1.5",
            "9" * 40,
            "rmed1.f_power=1e308",
            "rmed1.nope=1",
            "htp://x:1",
            "tcp://:1",
            "/dev/null",
            "/dev/zero",
            ".",
            "x" * 300,
            "tcp://127.0.0.1",
            "5e-324",
            "1.7976931348623157e308",
            "merge-dts.delta=5e-324",
            "sparring.alpha=1e308",
        ]
    ),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12),
)


def _npy(shape, payload: bytes) -> bytes:
    import io

    from numpy.lib import format as npf

    buf = io.BytesIO()
    npf.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": shape})
    return buf.getvalue() + payload


FILES = st.one_of(
    st.binary(max_size=300),
    st.builds(_npy, st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)), st.binary(max_size=80)),
    st.builds(lambda n: ("[" * n + "]" * n).encode(), st.integers(1, 5000)),
    st.builds(
        lambda m: json.dumps({"mu": m}).encode(),
        st.lists(
            st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=4), min_size=1, max_size=4
        ),
    ),
    st.builds(
        lambda rows: "\n".join(" ".join(map(str, r)) for r in rows).encode(),
        st.lists(st.lists(st.floats(-1, 2), min_size=1, max_size=4), min_size=1, max_size=4),
    ),
)


def _check(proc: subprocess.CompletedProcess, argv) -> None:
    assert proc.returncode in (0, 1, 2, 130), (argv, proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, (argv, proc.stderr[-3000:])
    if proc.returncode != 0:
        assert proc.stdout == "", (argv, proc.stdout[:500])


@settings(max_examples=12, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(cmd=st.sampled_from(sorted(COMMANDS)), data=FILES, suffix=st.sampled_from([".txt", ".json", ".npy", ".npz", ""]))
def test_fuzz_file_bytes(tmp_path_factory, cmd, data, suffix):
    d = tmp_path_factory.mktemp("fz")
    p = d / f"m{suffix}"
    p.write_bytes(data)
    argv = [cmd, str(p), *COMMANDS[cmd]]
    _check(
        subprocess.run(
            EXE + argv, capture_output=True, text=True, env=ENV, timeout=TIMEOUT, stdin=subprocess.DEVNULL, cwd=d
        ),
        argv,
    )


@settings(max_examples=12, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(cmd=st.sampled_from(sorted(COMMANDS)), opt=st.data(), value=VALUES, stdin=st.booleans())
def test_fuzz_argv(tmp_path_factory, cmd, opt, value, stdin):
    d = tmp_path_factory.mktemp("fz")
    option = opt.draw(st.sampled_from(OPTIONS[cmd]))
    base = list(COMMANDS[cmd])
    if option in base:
        i = base.index(option)
        del base[i : i + 2]
    source = ["-"] if stdin else ["--example", "chen2020-fig1" if cmd in ("cpe", "explore") else "table2"]
    argv = [cmd, *source, *base, option, value]
    mu = np.array([[0.5, 0.75], [0.25, 0.5]])
    text = "\n".join(" ".join(map(str, r)) for r in mu)
    _check(
        subprocess.run(
            EXE + argv,
            capture_output=True,
            text=True,
            env=ENV,
            timeout=TIMEOUT,
            input=text if stdin else None,
            stdin=None if stdin else subprocess.DEVNULL,
            cwd=d,
        ),
        argv,
    )


# ----------------------------------------------------------------------------- second round's kinds
EDGE_FLOATS = st.one_of(
    st.sampled_from(
        ["5e-324", "1e-310", "1e-300", "1e-12", "1e12", "1e13", "1e154", "1e300", "1.7976931348623157e308"]
    ),
    st.floats(min_value=5e-324, allow_nan=False, allow_infinity=False).map(repr),
)


def _real_parameters() -> list[tuple[str, str]]:
    from boundcalc.policies import POLICIES
    from boundcalc.policies.base import Real

    return [(n, k) for n, c in POLICIES.items() for k, h in c.hyperparameters.items() if isinstance(h, Real)]


def _hyperparameter_argv(case: tuple[str, str], value: str) -> list[str]:
    name, key = case
    argv = ["simulate", "--example", "table2", "--horizon", "200", "--runs", "1", "--workers", "0"]
    return argv + ["--policies", name, "--param", f"{name}.{key}={value}"]


def _check_hyperparameter_result(code: int, stderr: str, argv) -> None:
    assert "internal error" not in stderr, (argv, stderr)
    if code:
        assert len(stderr.strip().splitlines()) == 1, (argv, stderr)


@settings(max_examples=4, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(case=st.sampled_from(_real_parameters()), value=EDGE_FLOATS)
def test_fuzz_policy_hyperparameters_at_float_edges(tmp_path_factory, case, value):
    """Any real hyperparameter of any policy at a float edge: a result or one line, never an
    "internal error" (before: MergeDTS's subnormal delta, overflowing scales).  A few cases as a
    subprocess of the installed command; the space itself: the in-process test below."""
    argv = _hyperparameter_argv(case, value)
    proc = subprocess.run(
        EXE + argv, capture_output=True, text=True, env=ENV, timeout=TIMEOUT, stdin=subprocess.DEVNULL
    )
    _check(proc, argv)
    _check_hyperparameter_result(proc.returncode, proc.stderr, argv)


@settings(max_examples=40, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(case=st.sampled_from(_real_parameters()), value=EDGE_FLOATS)
def test_policy_hyperparameters_at_float_edges_in_process(capsys, case, value):
    """The same argv by :func:`boundcalc.cli.main` in this process: exit 0 or 2 (an exception
    fails the test), nothing on stdout unless 0, a result or one line."""
    from boundcalc.cli import main

    argv = _hyperparameter_argv(case, value)
    capsys.readouterr()
    code = main(argv)
    got = capsys.readouterr()
    assert code in (0, 2), (argv, code, got.err)
    if code:
        assert got.out == "", (argv, got.out[:500])
    _check_hyperparameter_result(code, got.err, argv)


NAMES = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters='\x00,"\n\r'), min_size=1, max_size=8
)


@settings(max_examples=12, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(
    names=st.lists(NAMES, min_size=2, max_size=3, unique=True).map(lambda ns: [n + "\x1b[2K" for n in ns]),
    option=st.sampled_from([[], ["--plan", "--plan-delta"], ["--bootstrap", "4", "--workers", "0", "--prior"]]),
    value=EDGE_FLOATS,
)
def test_fuzz_duel_logs_with_escapes_and_edge_options(tmp_path_factory, names, option, value):
    """A duel log whose arm names carry terminal escapes, with --plan-delta or --prior at a float
    edge: no control character reaches the text output, and every result is finite or refused."""
    import csv

    d = tmp_path_factory.mktemp("fz")
    log = d / "d.csv"
    with open(log, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["a", "b", "winner"])
        for k in range(40):
            a, b = names[k % len(names)], names[(k + 1) % len(names)]
            w.writerow([a, b, a if k % 3 else b])
    argv = ["bounds", "--duels", str(log), *option] + ([value] if option else [])
    proc = subprocess.run(
        EXE + argv, capture_output=True, text=True, env=ENV, timeout=TIMEOUT, stdin=subprocess.DEVNULL
    )
    _check(proc, argv)
    assert "\x1b" not in proc.stdout and "internal error" not in proc.stderr, (argv, proc.stdout[:500])
    assert "inf" not in proc.stdout.split() and "nan" not in proc.stdout.split(), (argv, proc.stdout)
