"""Hostile input, second round: options at the edge of floating point, allocations proportional to
a user's number, row files that lost their checksum key, names that carry terminal escapes, and
SIGTERM / SIGHUP.  Each test failed on the code before its fix (an ``inf`` shown as a count, a
degenerate interval, an "internal error", a 75 GiB allocation, edited rows read with exit 0, an
escape sequence reaching the terminal, a silent exit without rows).
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boundcalc.cli import main
from boundcalc.policies import POLICIES, make_policy
from boundcalc.policies.base import MAX_POLICY_ARMS, MAX_RUN_STEPS, Real

ROOT = Path(__file__).resolve().parents[1]
EXE = [sys.executable, "-m", "boundcalc"]
ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
MU = np.array([[0.5, 0.6, 0.7, 0.8], [0.4, 0.5, 0.6, 0.7], [0.3, 0.4, 0.5, 0.6], [0.2, 0.3, 0.4, 0.5]])
COUNTS = [[0, 30, 40], [20, 0, 35], [10, 15, 0]]


def one_line_error(capsys, argv, *needles, code=2):
    got = main(argv)
    cap = capsys.readouterr()
    lines = [ln for ln in cap.err.strip().splitlines() if not ln.startswith("boundcalc: compiling the numba kernels")]
    assert got == code, (got, cap.err)
    assert len(lines) == 1 and lines[0].startswith("boundcalc: error: "), cap.err
    assert "internal error" not in lines[0]
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


@pytest.fixture
def counts_file(tmp_path):
    p = tmp_path / "counts.json"
    p.write_text(json.dumps(COUNTS))
    return str(p)


# ----------------------------------------------------------------------------- 1. floating-point edges
def test_plan_at_the_smallest_delta_uses_minus_log_delta(counts_file, capsys):
    """Before: ln(1/delta) overflowed for delta = 2^-1074 and the duels read inf.  -ln(2^-1074) is
    1074 ln 2 = 744.44, so each pair needs its Theorem 4 term times that."""
    assert main(["bounds", "--counts", counts_file, "--plan", "--plan-delta", "5e-324", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)["plan"]
    rows = plan["rows"]
    assert rows and all(r["needed_at_delta"] == pytest.approx(r["cpe_condorcet"] * 1074 * math.log(2)) for r in rows)
    # the gaps of the (0, 1) pair: mu = 0.6 (30 of 50): Theorem 4's term 1 / 0.1^2 = 100
    r01 = next(r for r in rows if r["arms"] == [0, 1])
    assert r01["needed_at_delta"] == pytest.approx(100 * 744.4400719213812, rel=1e-12)


@pytest.mark.parametrize("prior", ["1e-320", "1e13", "1.7e308"])
def test_a_prior_beyond_the_beta_sampler_is_refused(prior, counts_file, capsys):
    """Before: a = 1.7e308 made every draw exactly 0 (a degenerate interval with probability 1); a
    subnormal a drew 0 three times as often as 1 from the symmetric Beta(a, a)."""
    one_line_error(capsys, ["bounds", "--counts", counts_file, "--bootstrap", "5", "--prior", prior], "--prior", prior)
    from boundcalc.uncertainty import PRIOR_MAX, PRIOR_MIN, bootstrap

    with pytest.raises(ValueError, match="prior"):
        bootstrap(np.array(COUNTS, float), draws=2, prior=float(prior), workers=0)
    # the limits themselves are drawn faithfully: a symmetric prior alone gives 0 and 1 alike
    x = np.random.default_rng(0).beta(PRIOR_MIN, PRIOR_MIN, size=4000)
    assert abs((x > 0.5).mean() - 0.5) < 0.05
    y = np.random.default_rng(0).beta(PRIOR_MAX + 3, PRIOR_MAX, size=1000)
    assert np.all(np.abs(y - 0.5) > 1e-12) and y.std() > 1e-7


def test_merge_dts_with_a_subnormal_delta_names_merge_dts(capsys):
    """Before: "internal error: PolicyError: MergeRUCB: C = (inf)^..." for MergeDTS."""
    line = one_line_error(
        capsys,
        ["simulate", "--example", "table2", "-T", "100", "--runs", "1", "--workers", "0"]
        + ["--policies", "merge-dts", "--param", "merge-dts.delta=5e-324"],
        "--param merge-dts.delta=5e-324",
        "MergeDTS",
        "exceeds 2^53",
    )
    assert "MergeRUCB" not in line
    with pytest.raises(ValueError, match="MergeRUCB: C"):
        make_policy("merge-rucb", 4, delta=5e-324)


def test_savage_at_a_subnormal_delta_scale_is_finite():
    """Before: ZeroDivisionError (delta_scale / T underflowed to 0).  ln(K(K-1) T / delta) with
    delta = delta_scale / T is ln(K(K-1)) + 2 ln T - ln(delta_scale), summed."""
    from boundcalc.kernels.savage import savage_log_term

    assert savage_log_term(4, 1000, 5e-324) == pytest.approx(math.log(12) + 2 * math.log(1000) + 1074 * math.log(2))
    assert savage_log_term(5, 10**5, 1.0) == math.log(20 * 10**10)  # unchanged where the quotient is finite
    pairs, _ = make_policy("savage", 4, horizon=1000, delta_scale=5e-324).run(MU, 200)
    assert pairs.shape == (200, 2)


EXTREMES = st.one_of(
    st.sampled_from(
        [5e-324, 1e-310, 1e-300, 1e-13, 1e-12, 1e12, 1.0000001e12, 1e20, 1e154, 1e300, 1.7976931348623157e308]
    ),
    st.floats(min_value=5e-324, max_value=1.7976931348623157e308, allow_nan=False, allow_infinity=False),
)
REAL_PARAMETERS = [(n, k) for n, c in POLICIES.items() for k, h in c.hyperparameters.items() if isinstance(h, Real)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(case=st.sampled_from(REAL_PARAMETERS), value=EXTREMES)
def test_every_real_hyperparameter_is_finite_or_refused(case, value):
    """Any positive double for any real hyperparameter: the policy is refused with a ValueError
    naming it, or it plays 300 rounds with finite counts -- never an OverflowError,
    ZeroDivisionError or PolicyError from inside (before: rmed1.f_power, versatile-db.c,
    savage.delta_scale, merge-dts.delta)."""
    name, key = case
    try:
        p = make_policy(name, 4, seed=1, **{key: value})
    except ValueError as exc:
        assert key in str(exc) or "f(K)" in str(exc) or "C = " in str(exc), str(exc)
        return
    pairs, won = p.run(MU, 300, seed=2)
    assert pairs.shape == (300, 2) and np.all((pairs >= 0) & (pairs < 4))
    assert int(np.asarray(p.draws).sum()) <= 2 * 300


@pytest.mark.parametrize(
    "spec",
    ["sparring.alpha=1e308", "doubler.alpha=1e13", "self-sparring.eta=1e50", "rucb.alpha=1e20", "versatile-db.c=1e20"],
)
def test_scales_whose_radii_overflow_are_refused_at_parse_time(spec, capsys):
    """Before: sqrt(alpha ln n / N) = inf for every arm (or Beta draws without noise), so the
    regret followed the arms' labels (1 on one labelling, 899 on the reverse) and was shown as ok."""
    pol = spec.split(".")[0]
    one_line_error(
        capsys,
        ["simulate", "--example", "table2", "-T", "100", "--runs", "1", "--workers", "0", "--policies", pol]
        + ["--param", spec],
        f"--param '{spec}'",
        "<= 1e+12",
    )


_CLI_FLOATS = st.one_of(
    st.sampled_from(["5e-324", "1e-320", "1e-300", "1e-16", "0.5", "0.9999999999999999", "1e300", "1.7e308", "2"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    opt=st.sampled_from(["--plan-delta", "--plan-horizon", "--alpha", "--break-ties", "--prior", "--level"]),
    value=_CLI_FLOATS,
)
def test_every_numeric_option_gives_finite_numbers_or_one_line(opt, value, tmp_path_factory, capsys):
    """Extreme values of every numeric option of ``bounds`` / ``compare`` end in JSON whose every
    number is finite (``allow_nan=False`` would raise otherwise), or in one line and exit 2."""
    d = tmp_path_factory.mktemp("opt")
    (d / "c.json").write_text(json.dumps(COUNTS))
    cmd = "compare" if opt == "--alpha" else "bounds"
    argv = [cmd, "--counts", str(d / "c.json"), "--json", opt, value]
    if opt in ("--plan-delta", "--plan-horizon"):
        argv.append("--plan")
    if opt in ("--prior", "--level"):
        argv += ["--bootstrap", "8", "--workers", "0"]
    code = main(argv)
    cap = capsys.readouterr()
    if code == 0:
        json.loads(cap.out, parse_constant=lambda c: pytest.fail(f"{opt} {value}: {c} in the output"))
    else:
        lines = [ln for ln in cap.err.strip().splitlines() if not ln.startswith("boundcalc: compiling")]
        assert code == 2 and len(lines) == 1 and "internal error" not in lines[0], (code, cap.err)


# ----------------------------------------------------------------------------- 3. allocations
def test_a_policy_for_too_many_arms_is_refused_before_its_tables():
    """Before: MemoryError after trying 74 GiB (10^5 arms)."""
    t0 = time.process_time()
    with pytest.raises(ValueError, match=r"K = 100,000 arms .*74.5 GiB each.*MAX_POLICY_ARMS"):
        make_policy("rucb", 100_000, seed=0)
    assert time.process_time() - t0 < 1.0
    make_policy("rucb", MAX_POLICY_ARMS, seed=0)  # the limit itself is played


@pytest.mark.parametrize("steps", [10**12, 10**30, MAX_RUN_STEPS + 1])
def test_run_with_more_steps_than_one_record_holds_is_refused(steps):
    """Before: 22 TiB tried for 10^12 steps; "Python int too large to convert to C long" for 10^30."""
    p = make_policy("rucb", 4, seed=0)
    with pytest.raises(ValueError, match=r"steps = .*MAX_RUN_STEPS.*call run repeatedly"):
        p.run(MU, steps)
    with pytest.raises(ValueError, match="must be an integer"):
        p.run(MU, "1000")


def test_a_bad_matrix_for_run_names_the_entry():
    """Before: "entries in [0, 1] (got shape (4, 4))"; numpy's "inhomogeneous shape"."""
    p = make_policy("rucb", 4, seed=0)
    bad = MU.copy()
    bad[2, 1] = 1.5
    with pytest.raises(ValueError, match=r"entry \[2, 1\] = 1.5"):
        p.run(bad, 10)
    with pytest.raises(ValueError, match="of numbers; got list"):
        p.run([[0.5, 0.6], [0.4]], 10)
    with pytest.raises(ValueError, match=r"got shape \(3, 3\)"):
        p.run(np.full((3, 3), 0.5), 10)


def test_ragged_rows_and_huge_integers_are_named_in_the_users_terms():
    """Before: numpy's "inhomogeneous shape" and Python's "Exceeds the limit (4300 digits)"."""
    from boundcalc import PreferenceMatrix, PreferenceMatrixError

    with pytest.raises(PreferenceMatrixError, match=r"rows of unequal lengths \(row 0 has 2 entries, row 1 has 1\)"):
        PreferenceMatrix([[0.5, 0.6], [0.4]])
    with pytest.raises(PreferenceMatrixError, match="win counts has rows of unequal lengths"):
        PreferenceMatrix.from_counts([[0, 1], [2]])
    p = make_policy("rucb", 4, seed=0)
    with pytest.raises(ValueError, match="an integer of about 5,000 digits"):
        p.run(MU, 10**5000)
    with pytest.raises(ValueError, match=r"K = an integer of about 5,000 digits arms"):
        make_policy("rucb", 10**5000)
    with pytest.raises(
        ValueError, match=r"seed = an integer of about 5,000 digits must be an integer in \[0, 2\^128\)"
    ):
        make_policy("rucb", 4, seed=10**5000)


def test_more_names_than_the_arm_limit_are_refused_before_the_table(tmp_path, capsys):
    """Before: 10^5 names lifted the 4,096-arm limit of a log and a 10^5 x 10^5 table was allocated."""
    log = tmp_path / "d.csv"
    log.write_text("a,b,winner\nx,y,x\n")
    names = ",".join(f"n{i}" for i in range(5000))
    one_line_error(capsys, ["bounds", "--duels", str(log), "--names", names], "--names: 5,000 names", "4,096")


# ----------------------------------------------------------------------------- 7. row files and terminals
def _sim_rows(tmp_path):
    from boundcalc.simulate import simulate

    path = tmp_path / "rows.jsonl"
    simulate(MU, ["rucb"], horizon=100, runs=2, seed=0, out=path, workers=0)
    return path, [json.loads(x) for x in path.read_text().splitlines()]


def test_a_header_that_lost_its_checksum_key_is_corruption(tmp_path):
    """Before: deleting rows_key from the header made the file "older than checksums": the edited
    rows (a regret of 176.6 made 46,596.8) were read with a warning and exit 0."""
    from boundcalc.runner import StoreError, load_store
    from boundcalc.simulate import simulate

    path, lines = _sim_rows(tmp_path)
    assert lines[0]["rows_format"] == 2 and "rows_key" in lines[0]
    lines[1]["regret"]["000"][-1] *= 100
    for drop in (["rows_key"], ["rows_key", "rows_format"]):  # the key alone, or the version field too
        head = {k: v for k, v in lines[0].items() if k not in drop}
        path.write_text("".join(json.dumps(x) + "\n" for x in [head] + lines[1:]))
        with pytest.raises(StoreError, match=r"rows.jsonl:1: corrupt header: it has no 'rows_key'"):
            load_store(path)
        with pytest.raises(StoreError, match="corrupt header"):
            simulate(MU, ["rucb"], horizon=100, runs=2, seed=0, out=path, workers=0)


def test_names_with_terminal_escapes_are_shown_escaped(tmp_path, capsys):
    """Before: an arm name with ESC [2K and a carriage return erased the line on a terminal and
    printed a fake winner."""
    import csv

    from boundcalc._table import format_table

    evil, other = "a\x1b[2K\rcertified", "b\u202eevil"
    log = tmp_path / "evil.csv"
    with open(log, "w", newline="") as f:
        w = csv.writer(f)
        w.writerows([["a", "b", "winner"]] + [[evil, other, evil]] * 30 + [[evil, other, other]] * 10)
    for cmd in (["bounds"], ["compare", "--keys", "lower_bound"], ["bounds", "--plan"]):
        assert main([*cmd, "--duels", str(log)]) == 0
        out = capsys.readouterr().out
        assert "\x1b" not in out and "\r" not in out and "\u202e" not in out
        assert "a\\x1b[2K\\x0dcertified" in out
    assert main(["bounds", "--duels", str(log), "--json"]) == 0  # JSON keeps the name, escaped by JSON
    assert json.loads(capsys.readouterr().out)["names"][0] == evil
    assert format_table(["arm"], [["x\ny"]]).splitlines()[-1] == "x\\x0ay"


# ----------------------------------------------------------------------------- 6. signals
@pytest.mark.parametrize("sig", [signal.SIGTERM, pytest.param(signal.SIGHUP, marks=pytest.mark.slow)])
def test_sigterm_and_sighup_end_like_ctrl_c_with_rows_kept(sig, tmp_path):
    """Before: SIGTERM or SIGHUP ended the run without a word (in-process).  Now one line, exit
    128 + N, and the rows written so far verify and resume."""
    out = tmp_path / "rows.jsonl"
    cmd = EXE + ["simulate", "--example", "fig1a", "--policies", "rucb", "-T", "200000", "--runs", "200"]
    cmd += ["--workers", "0", "--out", str(out)]
    proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 3):
        time.sleep(0.1)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    lines = [
        ln for ln in err.strip().splitlines() if not ln.startswith(("boundcalc: estimate", "boundcalc: compiling"))
    ]
    assert proc.returncode == 128 + sig, err
    assert lines == [
        f"boundcalc: interrupted by {signal.Signals(sig).name}; rows finished so far are in {out};"
        " rerun the same command to resume"
    ], err
    from boundcalc.runner import load_store

    assert len(load_store(out)[1]) >= 2


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (Linux /proc)."""
    out: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                kids = [int(x) for x in (task / "children").read_text().split()]
            except OSError:
                continue
            out.update(kids)
            todo.extend(kids)
    return out


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for p in pids:
        try:
            state = Path(f"/proc/{p}/stat").read_text().split(")")[-1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(p)
    return alive


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_sigterm_stops_warmups_worker_processes(tmp_path):
    """Before: after SIGTERM, warmup's two worker processes went on compiling for over 10 minutes."""
    env = dict(ENV, NUMBA_CACHE_DIR=str(tmp_path / "cache"))  # an empty cache: minutes of compiling
    proc = subprocess.Popen(
        EXE + ["warmup", "--workers", "2", "--no-progress"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    kids: set[int] = set()
    while time.monotonic() < deadline and len(kids) < 2:
        time.sleep(0.5)
        kids = _descendants(proc.pid)
    assert kids, "no worker process started"
    time.sleep(2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and err.strip().splitlines()[-1] == "boundcalc: interrupted by SIGTERM", err
    t0 = time.monotonic()
    while _alive(kids) and time.monotonic() - t0 < 10:
        time.sleep(0.2)
    assert not _alive(kids), f"worker processes still running: {_alive(kids)}"
    assert "leaked semaphore" not in err


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: signal.Signals(s).name)
def test_a_signal_while_the_local_cluster_starts_ends_the_run(sig, tmp_path):
    """Before: Ctrl-C while ``--workers 2`` started its local cluster did nothing (SIGINT was
    ignored in the whole process so that the workers inherited it) and the run went on to exit 0.
    Now Ctrl-C, sent to the process group as a terminal does, ends the run like SIGTERM and SIGHUP
    in the same window: one line, exit 128 + N within seconds, no worker traceback, no child
    process left.  The signal goes out once the first worker process exists: the start is then
    under way (the workers still import and register) whatever the machine's load."""
    pytest.importorskip("distributed")
    from test_cli_stdout import boundcalc_command

    from boundcalc.runner import load_store

    out = tmp_path / "rows.jsonl"
    cmd = ["simulate", "--example", "fig1a", "--policies", "rucb", "-T", "100000", "--runs", "24"]
    cmd += ["--workers", "2", "--out", str(out)]
    proc = subprocess.Popen(
        boundcalc_command() + cmd,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    kids: set[int] = set()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(kids) < 2:  # multiprocessing's resource tracker and a worker
        kids |= _descendants(proc.pid)
        time.sleep(0.02)
    assert len(kids) >= 2, "no worker process started"
    time.sleep(0.3)
    os.killpg(proc.pid, sig)
    sent = time.monotonic()
    _, err = proc.communicate(timeout=60)
    took = time.monotonic() - sent
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith("boundcalc: compiling")]
    by = "" if sig == signal.SIGINT else f" by {signal.Signals(sig).name}"
    assert proc.returncode == 128 + sig, err
    assert lines == [
        f"boundcalc: interrupted{by}; rows finished so far are in {out}; rerun the same command to resume"
    ], err
    assert took < 15, f"{took:.1f} s from the signal to the exit"
    assert load_store(out)[1] == []  # stopped during the start: no run had finished
    t0 = time.monotonic()
    while _alive(kids) and time.monotonic() - t0 < 10:
        time.sleep(0.2)
    assert not _alive(kids), f"child processes still running: {_alive(kids)}"


@pytest.mark.slow
def test_ctrl_c_on_a_dask_simulation_keeps_every_finished_run(tmp_path):
    """Before: with --workers 2, Ctrl-C after 28-60 s kept 0 finished runs (chunks of many runs came
    back only whole) where the in-process run kept 68.  Now the rows written before Ctrl-C are
    in the file, untouched by the rerun, which computes only the rest.  Each worker holds one chunk
    of 12 runs: rows reach the file run by run while the chunks run (published by the workers)."""
    out = tmp_path / "rows.jsonl"
    cmd = EXE + ["simulate", "--example", "fig1a", "--policies", "rucb", "-T", "100000", "--runs", "24"]
    cmd += ["--out", str(out), "--quiet"]
    proc = subprocess.Popen(
        cmd + ["--workers", "2", "--chunk-size", "12"],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 4):
        time.sleep(0.1)
    before = out.read_text().splitlines()[1:]
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith(f"boundcalc: interrupted; rows finished so far are in {out}")
    kept = out.read_text().splitlines()[1:]
    assert len(kept) >= len(before) >= 3 and kept[: len(before)] == before
    assert len(before) < 12  # not a whole chunk at once
    if len(kept) < 24:
        rerun = subprocess.run(cmd + ["--workers", "0"], env=ENV, capture_output=True, text=True, timeout=600)
        assert rerun.returncode == 0, rerun.stderr
        after = out.read_text().splitlines()[1:]
        assert len(after) == 24 and after[: len(kept)] == kept  # the finished runs are not computed again


def test_more_workers_than_cores_are_capped_with_a_warning():
    """Before: --workers 1000 started a thousand Dask processes on two cores (they hung on scratch
    directory warnings).  No cluster starts here: the tasks are already done."""
    from boundcalc.runner import run_tasks

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    with pytest.warns(UserWarning, match=f"workers=1000 is more than the {cores} cores .*; using {cores}"):
        rows = run_tasks(_row, [], workers=1000)
    assert rows == [] and rows.stats["backend"] == "in-process"


def _row(task, shared):
    return {"index": task["index"]}


# ----------------------------------------------------------------------------- 9. third round, new inputs
def test_counts_whose_pair_total_overflows_are_refused_in_one_line(tmp_path, capsys):
    """Before: 1e308 wins each way summed to inf duels: three numpy overflow warnings, then a
    message about "1e+308 wins each of inf duels"."""
    from boundcalc import PreferenceMatrix, PreferenceMatrixError

    with pytest.raises(PreferenceMatrixError, match=r"W\[0, 1\] \+ W\[1, 0\] = 1e\+308 \+ 1e\+308 duels is beyond"):
        PreferenceMatrix.from_counts([[0, 1e308], [1e308, 0]])
    assert PreferenceMatrix.from_counts([[0, 1e308], [0, 0]]).mu[0, 1] == 1.0  # a finite total is read
    p = tmp_path / "counts.txt"
    p.write_text("0 1e308\n1.5e308 0\n")
    one_line_error(capsys, ["bounds", "--counts", str(p)], "counts.txt: W[0, 1] + W[1, 0]", "largest float")


def test_identification_at_a_subnormal_delta_is_finite():
    """Before: T* ln(1/delta) was inf at delta = 1e-320 (1/delta overflows) in a table with exit 0,
    and delta = 1 - 2^-53 was shown as "delta = 1"."""
    from boundcalc.identification import identify

    res = identify(MU, delta=1e-320, runs=1, max_duels=3000)
    st_ = res.statistics("track-and-stop")
    assert st_["t_star_log"] == pytest.approx(st_["t_star"] * 320 * math.log(10), rel=1e-3)  # -ln(1e-320) = 736.8
    assert math.isfinite(st_["t_star_log"]) and "inf" not in res.summary()
    assert "delta = 0.9999999999999999 " in identify(MU, delta=1 - 2**-53, runs=1, max_duels=3000).summary()


def test_one_simulation_run_shows_its_undefined_standard_error_as_a_dash():
    """Before: the table printed "nan" for the s.e. of one run (and for R(T)/ln T at T = 1)."""
    from boundcalc.simulate import simulate

    text = simulate(MU, ["rmed1"], horizon=1, runs=1, seed=0, workers=0).summary()
    row = next(ln for ln in text.splitlines() if ln.startswith("rmed1"))
    assert "nan" not in text and row.split()[2:5] == ["-", "-", "-"]


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (lambda r: r["regret"]["000"].__setitem__(-1, float("nan")), r"its regret\['000'\] is not \d+ finite numbers"),
        (lambda r: r["regret"]["000"].__setitem__(-1, 1e308), r"its regret\['000'\] exceeds what 50 steps can reach"),
        (lambda r: r.pop("regret"), "its 'regret' is not a list per unit"),
        (lambda r: r.__setitem__("run", 7), "it is of policy 'rmed1', run 7, not of 'rmed1', run 1"),
        (lambda r: r.__setitem__("cpu_seconds", -1.0), "its 'cpu_seconds' = -1.0 is not a number of seconds"),
    ],
)
def test_a_resumed_simulation_row_that_is_not_its_tasks_is_refused(edit, why, tmp_path):
    """A row edited and given a matching checksum (row_sum is public): before, a NaN regret was
    averaged into the table with exit 0, a missing key was an "internal error" (KeyError), a short
    list leaked numpy's "inhomogeneous shape"; now the file, the task and the reason, in one line."""
    from boundcalc.runner import StoreError
    from boundcalc.runner.store import SUM_FIELD, row_sum
    from boundcalc.simulate import simulate

    path = tmp_path / "sim.jsonl"
    kw = {"horizon": 50, "runs": 2, "seed": 0, "workers": 0, "out": path, "bounds": False}
    first = simulate(MU, ["rmed1"], **kw)
    lines = path.read_text().splitlines()
    key = json.loads(lines[0])["rows_key"]
    row = json.loads(lines[2])
    row.pop(SUM_FIELD)
    edit(row)
    lines[2] = json.dumps({**row, SUM_FIELD: row_sum(key, row)})
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(StoreError, match=rf"sim.jsonl: the stored row of task 1 is not a row this run writes: {why}"):
        simulate(MU, ["rmed1"], **kw)
    path.write_text("\n".join(lines[:2]) + "\n")  # the forged line deleted: resumes, computes it again
    assert simulate(MU, ["rmed1"], **kw).policies[0].regret["000"].tolist() == first.policies[0].regret["000"].tolist()
