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
    "bounds": ["--break-ties", "--method", "--key"],
    "compare": ["--alpha", "--break-ties", "--keys"],
    "cpe": ["--monte-carlo", "--seed", "--key"],
    "batch": ["--size", "--count", "--seed", "--min-gap", "--alpha", "--chunk-size", "--out"],
    "simulate": ["--horizon", "--runs", "--seed", "--per-decade", "--param", "--first-run", "--scheduler", "--out"],
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
