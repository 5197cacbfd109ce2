"""benchmarks/policies.py's argument handling and labels (no timing is asserted: speed is the
script's output, not a test's).  A horizon of 0 leaves CW-RMED's one-run measurement out instead of
ending in simulate's refusal of a horizon below 1; a negative one is refused by the parser; the
C++ figures, quoted from the D-TS authors' library and not measured by the script, say so in the
printed table and in the JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "policies.py"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=cwd, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_zero_horizons_leave_the_runs_out_and_cpp_is_labelled_quoted(tmp_path):
    out = tmp_path / "p.json"
    proc = run(
        "--policies",
        "cw-rmed,rmed1",
        "--steps",
        "300",
        "--cw-steps",
        "200",
        "--horizon",
        "500",
        "--runs",
        "1",
        "--cw-horizon",
        "0",
        "--cw-horizon-64",
        "0",
        "--out",
        str(out),
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    rec = json.loads(out.read_text())
    assert rec["cw_rmed"] == []  # both one-run measurements left out
    assert {r["policy"] for r in rec["rows"]} == {"cw-rmed", "rmed1"}
    assert "quoted" in rec["cpp_source"] and all("cpp_us_quoted" in r for r in rec["rows"])
    assert [r["cpp_us_quoted"] for r in rec["rows"] if r["policy"] == "rmed1" and r["K"] == 5] == [0.56, 0.56]
    assert "C++ quoted" in proc.stdout and "not measured here" in proc.stdout


def test_a_negative_horizon_is_refused(tmp_path):
    proc = run("--cw-horizon-64", "-1", "--out", str(tmp_path / "p.json"), cwd=ROOT)
    assert proc.returncode == 2 and "--cw-horizon-64 = -1 must be >= 0" in proc.stderr
    assert "Traceback" not in proc.stderr
