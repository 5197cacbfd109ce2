"""The installed ``boundcalc`` command, run as a subprocess: nothing but its results on stdout.

A C library writing to file descriptor 1 (highspy >= 1.16 prints a banner from the ``Highs()``
constructor) is invisible to tests that call the CLI in-process and capture ``sys.stdout``; these
tests run the console script in a child process, so what they parse is exactly what a user's
pipe receives.  Every subcommand's ``--json`` (and ``compare --csv``) must parse, and Dask
workers (separate processes that build their own HiGHS models) must not print either.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def boundcalc_command() -> list[str]:
    """The console script installed beside this interpreter (``pip install .`` puts it there);
    ``python -m boundcalc`` only when no script is installed (a source checkout on sys.path)."""
    script = Path(sys.executable).with_name("boundcalc")
    if script.exists():
        return [str(script)]
    found = shutil.which("boundcalc")
    if found and Path(found).parent == Path(sys.executable).parent:
        return [found]
    return [sys.executable, "-m", "boundcalc"]


def run_cli(*args: str, stdin: str | None = None, timeout: float = 240, cwd=None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.setdefault("PYTHONHASHSEED", "0")
    return subprocess.run(
        boundcalc_command() + list(args), input=stdin, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd
    )


def parse_json(proc: subprocess.CompletedProcess):
    assert proc.returncode == 0, proc.stderr
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as exc:  # pragma: no cover - the failure this file guards against
        raise AssertionError(f"stdout is not JSON ({exc}); it starts with {proc.stdout[:300]!r}") from None


@pytest.mark.slow
def test_bounds_json_is_the_whole_stdout():
    out = parse_json(run_cli("bounds", "--example", "table2", "--json"))
    assert out["lower_bound"] == pytest.approx(27.5487, abs=1e-4)
    assert "HiGHS" not in run_cli("bounds", "--example", "table2").stdout


@pytest.mark.slow
def test_a_reader_that_stops_early_is_not_an_error():
    # `boundcalc ... | head`: the pipe's read end is closed before the command writes (its start-up
    # alone takes longer), so every write fails with EPIPE; exit 0 and nothing on stderr
    for args in (["bounds", "--example", "table2", "--json"], ["compare", "--example", "table2", "--csv"]):
        proc = subprocess.Popen(boundcalc_command() + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=240) == 0 and err == "", (args, err)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash to start the command with stdout closed")
def test_closed_stdout_is_a_message_not_a_traceback():
    cmd = " ".join(boundcalc_command()) + " bounds --example table2 >&-"
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=240)
    assert proc.returncode == 2 and proc.stderr == (
        "boundcalc: error: standard output is closed; redirect it to a file or /dev/null\n"
    )


@pytest.mark.slow  # the full suite; test_bounds_json_is_the_whole_stdout is the quick one
def test_bounds_enumerate_json():
    # cvxpy's HiGHS interface builds its own Highs object: silenced too
    out = parse_json(run_cli("bounds", "--example", "table2", "--method", "enumerate", "--json"))
    assert out["lower_bound"] == pytest.approx(27.5487, abs=1e-4)


@pytest.mark.slow  # the full suite; test_bounds_json_is_the_whole_stdout is the quick one
def test_compare_json_and_csv():
    out = parse_json(
        run_cli("compare", "--example", "table2", "--json", "--keys", "lower_bound,ecw,cpe_condorcet_hardness")
    )
    keys = [r["key"] for r in out["rows"]]
    assert keys == ["lower_bound", "ecw", "cpe_condorcet_hardness"]
    proc = run_cli("compare", "--example", "table2", "--csv", "--keys", "lower_bound,ecw")
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert [r["key"] for r in rows] == ["lower_bound", "ecw"]


@pytest.mark.slow
def test_cpe_json():
    out = parse_json(run_cli("cpe", "--example", "chen2020-fig1", "--json"))
    assert out  # a non-empty report (its numbers are checked in test_cpe.py)


@pytest.mark.slow  # the full suite; test_bounds_json_is_the_whole_stdout is the quick one
def test_batch_json_in_process(tmp_path):
    out = parse_json(
        run_cli(
            "batch",
            "--example",
            "mslr5-condorcet",
            "--size",
            "3",
            "--count",
            "3",
            "--seed",
            "0",
            "--keys",
            "lower_bound,ecw",
            "--workers",
            "0",
            "--json",
            "--out",
            str(tmp_path / "rows.jsonl"),
        )
    )
    assert out


@pytest.mark.slow
def test_simulate_and_explore_json_on_two_dask_workers(tmp_path):
    """Dask worker processes build HiGHS models of their own (the CPE oracle, CW-RMED's LP):
    their banners must not reach the client's stdout."""
    pytest.importorskip("distributed")
    sim = parse_json(
        run_cli(
            "simulate",
            "--example",
            "table2",
            "--policies",
            "ecw-rmed,rmed1",
            "--horizon",
            "200",
            "--runs",
            "2",
            "--seed",
            "0",
            "--workers",
            "2",
            "--json",
        )
    )
    assert sim
    exp = parse_json(
        run_cli(
            "explore",
            "--example",
            "table2",
            "--algorithm",
            "car-cond",
            "--delta",
            "0.1",
            "--runs",
            "2",
            "--seed",
            "0",
            "--workers",
            "2",
            "--json",
        )
    )
    assert exp
