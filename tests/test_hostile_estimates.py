"""Hostile input, long work: the bootstrap's memory checked before the first draw, ``batch``'s
CPU-time estimate and ``--max-seconds``, and names on stderr escaped (the notes and the progress
bar's description; the bar's own carriage returns kept).  The command-line tests run the installed
``boundcalc`` script as a user does."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from boundcalc.cli import BATCH_KEY_COST, BATCH_ROW_S, _duration, batch_submatrix_seconds
from boundcalc.comparison import check_options
from boundcalc.uncertainty import MAX_BOOTSTRAP_BYTES, bootstrap, check_bootstrap_memory

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
EXE = [shutil.which("boundcalc", path=os.environ.get("PATH")) or ""]
if not EXE[0]:
    EXE = [sys.executable, "-m", "boundcalc"]


def run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([*EXE, *args], env=ENV, capture_output=True, text=True, timeout=timeout)


def only_line(stderr: str) -> str:
    lines = [ln for ln in stderr.strip().splitlines() if not ln.startswith("boundcalc: compiling")]
    assert len(lines) == 1, stderr
    assert "internal error" not in lines[0] and "Traceback" not in stderr
    return lines[0]


def _counts(K: int) -> np.ndarray:
    W = np.full((K, K), 3.0)
    np.fill_diagonal(W, 0.0)
    return W


# ----------------------------------------------------------------------------- 3. bootstrap memory
def test_bootstrap_memory_is_refused_before_the_first_draw(tmp_path):
    """K = 700, 2,000 draws: the pair statistics alone would hold 2,000 x 244,650 gaps in 9 float64
    arrays, 32.8 GiB.  By hand: a draw costs 1,024 + 2 x 128 bytes of row plus 244,650 x 8 x 9 =
    17,614,800 of pair statistics, 17,616,080 in all; 243 draws (4,280,707,440 bytes) fit in 2^32,
    244 (4,298,323,520) do not."""
    assert 243 * 17_616_080 <= MAX_BOOTSTRAP_BYTES == 2**32 < 244 * 17_616_080
    rows = tmp_path / "rows.jsonl"
    t = time.process_time()
    with pytest.raises(ValueError) as exc:
        bootstrap(_counts(700), 2000, out=rows)
    assert time.process_time() - t < 5 and not rows.exists()  # nothing drawn, nothing written
    msg = str(exc.value)
    assert "\n" not in msg
    for part in ("2,000 draws at K = 700", "32.8 GiB", "244,650 pairs", "4 GiB limit", "at most 243 draws", "top=0"):
        assert part in msg, (part, msg)
    check_bootstrap_memory(700, 243, 2)
    with pytest.raises(ValueError):
        check_bootstrap_memory(700, 244, 2)
    check_bootstrap_memory(700, 10**5, 2, top=0)  # rows alone: 10^5 x 1,280 bytes


def test_bootstrap_memory_refusal_is_one_line_with_exit_2(tmp_path):
    path = tmp_path / "counts.json"
    path.write_text(json.dumps(_counts(700).astype(int).tolist()))
    res = run_cli("bounds", "--counts", str(path), "--bootstrap", "2000")
    line = only_line(res.stderr)
    assert res.returncode == 2, res.stderr
    assert line.startswith("boundcalc: error: bootstrap of 2,000 draws at K = 700 keeps about")
    assert "GiB" in line and "ask for at most" in line
    assert res.stdout == ""


# ----------------------------------------------------------------------------- 5. batch
def test_batch_cost_model_is_the_stored_fit_for_every_key():
    """The CLI's constants are benchmarks/batch_cost.py's fit, for every key compare computes."""
    data = json.loads((ROOT / "benchmarks" / "results" / "batch_cost.json").read_text())
    _, _, keys, _ = check_options(keys=None)
    assert set(keys) <= set(BATCH_KEY_COST)
    for key, (a, b) in BATCH_KEY_COST.items():
        fit = data["model"][key]
        assert a == pytest.approx(fit["a"], rel=5e-3) and b == pytest.approx(fit["b"], abs=5e-3), key
    assert BATCH_ROW_S == pytest.approx(data["row_seconds"], rel=5e-3)
    # by hand at k = 32: the row, plus a 2^b per key
    (a1, b1), (a2, b2) = BATCH_KEY_COST["ecw"], BATCH_KEY_COST["rmed1"]
    assert batch_submatrix_seconds(32, ["ecw", "rmed1"]) == pytest.approx(BATCH_ROW_S + a1 * 2**b1 + a2 * 2**b2)


@pytest.mark.slow
def test_batch_beyond_max_seconds_is_refused_in_one_line():
    expect = _duration(10**6 * batch_submatrix_seconds(3, check_options(keys=None)[2]))
    res = run_cli("batch", "--example", "mslr5-condorcet", "--size", "3", "--count", "1000000", "--max-seconds", "60")
    assert res.returncode == 2, res.stderr
    line = only_line(res.stderr)
    assert line.startswith("boundcalc: error: --max-seconds 60: batch of 1,000,000 submatrices of 3 arms")
    assert f"is estimated at {expect} of CPU time" in line
    res = run_cli("batch", "--example", "mslr5-condorcet", "--size", "3", "--count", "2", "--max-seconds", "60")
    assert res.returncode == 0, res.stderr


def test_batch_estimate_comes_within_seconds_before_the_work(tmp_path):
    """A batch estimated above 10 s says so on stderr at once (here: within 15 s of wall time on a
    loaded machine, most of it the interpreter's start), with a number; the run is then stopped."""
    proc = subprocess.Popen(
        [*EXE, "batch", "--example", "mslr5-condorcet", "--size", "4", "--count", "1000000", "--quiet"],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        t0 = time.monotonic()
        assert proc.stderr is not None
        line = proc.stderr.readline()
        elapsed = time.monotonic() - t0
    finally:
        proc.kill()
        proc.wait()
    assert line.startswith("boundcalc: estimate: batch of 1,000,000 submatrices of 4 arms"), line
    assert " min of CPU time" in line and elapsed < 15


# ----------------------------------------------------------------------------- 7. names on stderr
EVIL = "a\x1b[2K\rcertified"


@pytest.mark.slow
def test_names_in_stderr_notes_are_escaped(tmp_path):
    """A pair never compared is named in a note on stderr: its escape sequence and carriage return
    are shown escaped, not acted on."""
    log = tmp_path / "evil.csv"
    with open(log, "w", newline="") as f:
        w = csv.writer(f)
        w.writerows([["a", "b", "winner"]] + [[EVIL, "b", EVIL]] * 3 + [["b", "c", "b"]] * 2)
    res = run_cli("bounds", "--duels", str(log), "--prior", "half")
    note = [ln for ln in res.stderr.splitlines() if ln.startswith("boundcalc: note:")]
    assert len(note) == 1, res.stderr
    assert "a\\x1b[2K\\x0dcertified" in note[0]
    assert "\x1b" not in res.stderr and "\r" not in res.stderr
    res = run_cli("bounds", "--example", "mslr5-condorcet", "--x\x1b[2Ky")  # a stray argument, shown escaped
    assert res.returncode == 2 and "x\\x1b[2Ky" in only_line(res.stderr) and "\x1b" not in res.stderr


def test_progress_bar_escapes_its_description_not_its_redraws(capsys):
    from boundcalc.runner.executor import _progress_bar

    bar = _progress_bar(3, 0, True, f"bootstrap {EVIL}")
    assert bar is not None
    bar.update(3)
    bar.close()
    err = capsys.readouterr().err
    assert "bootstrap a\\x1b[2K\\x0dcertified" in err
    assert "\x1b" not in err and "\r" in err  # tqdm's own carriage returns stay


# ----------------------------------------------------------------------------- 3 and 5. cpe --monte-carlo
@pytest.fixture
def large_instance(tmp_path):
    """30 positions, 40 candidates, 597 edges: beyond the exact subset DP (20 positions)."""
    from builders import random_cpe_instance

    inst = random_cpe_instance(0, n_pos=30, n_cand=40, p_edge=0.5)
    path = tmp_path / "inst.json"
    path.write_text(json.dumps(inst.to_json()))
    return inst, str(path)


@pytest.mark.slow
def test_monte_carlo_memory_is_refused_before_sampling(large_instance):
    """By hand: the widest position has 26 edges, so a sample holds 40 + 8 x 30 + 8 + 24 x 26 = 912
    bytes; 10^8 samples are 91.2e9 bytes (84.9 GiB), and 2^32 // 912 = 4,709,393 samples fit."""
    from boundcalc import cpe
    from boundcalc.cpe.borda import MAX_SAMPLE_BYTES, estimate_edge_rewards_bytes

    inst, path = large_instance
    assert max(len(ix) for ix in inst.position_edges) == 26
    assert estimate_edge_rewards_bytes(inst, 10**8) == 912 * 10**8 and MAX_SAMPLE_BYTES // 912 == 4_709_393
    with pytest.raises(ValueError, match="at most 4,709,393 samples"):
        cpe.estimate_edge_rewards(inst, 10**8)
    res = run_cli("cpe", path, "--monte-carlo", "100000000")
    assert res.returncode == 2, res.stderr
    line = only_line(res.stderr)
    assert "84.9 GiB" in line and "at most 4,709,393 samples (--monte-carlo)" in line and res.stdout == ""


@pytest.mark.slow
def test_monte_carlo_estimate_and_max_seconds(large_instance):
    from boundcalc.cli import CPE_SAMPLE_NS_PER_EDGE

    data = json.loads((ROOT / "benchmarks" / "results" / "cpe_sampling_cost.json").read_text())
    assert CPE_SAMPLE_NS_PER_EDGE >= data["max_ns_per_sample_edge"] and data["max_peak_over_model"] < 1
    _, path = large_instance
    res = run_cli("cpe", path, "--monte-carlo", "1000000", "--max-seconds", "5")
    assert res.returncode == 2, res.stderr
    # 10^6 samples x 597 edges x 36 ns = 21.5 s
    assert only_line(res.stderr).startswith("boundcalc: error: --max-seconds 5: --monte-carlo 1,000,000 (597 edges)")
    assert "estimated at 21 s of CPU time" in res.stderr
    res = run_cli("cpe", path, "--monte-carlo", "500", "--max-seconds", "5")
    assert res.returncode == 0 and res.stderr == "", res.stderr
