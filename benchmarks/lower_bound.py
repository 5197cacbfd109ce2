#!/usr/bin/env python
"""Speed of the exact Copeland lower bound (000 Theorem 2), offline and online, against the landed
version and the naive reference.

Cases (every offline solve is cold: a fresh solver):

* the three 136 x 136 MSLR matrices (informational, navigational, perfect): time, rounds, rows
  in the final model, and peak memory of the solve (resident set size above the process's
  size before the solve, sampled every 0.5 ms in a fresh subprocess after a small warm-up
  solve has loaded the imports and compiled kernels);
* random 16- and 64-arm submatrices of the informational matrix: median and max time;
* a 200-arm ranker-like synthetic matrix (:func:`boundcalc.datasets.utility_matrix`, seed 0);
* online (CW-RMED's use, 000 Algorithm 1): a 16-arm empirical matrix built from counts, one
  duel added per step; the warm re-solve (structure unchanged) and the violation query
  (check (3)) per call;
* the naive reference: every row enumerated and solved through cvxpy (small K only), whose
  value must agree with the cutting plane.

The *landed* version is the package at ``--baseline`` (a git revision, default ``7b5b900``,
the last commit before the LP core was rebuilt), extracted with ``git archive`` into a
temporary folder and imported in this same process as ``boundcalc_landed``; its figures are
printed beside ours.  ``--no-baseline`` skips it (e.g. outside a git checkout).

Prints a table and writes JSON (``benchmarks/results/lower_bound.json`` by default).  Skips
what it cannot find: the data are read from ``../shared/data/public`` (or ``$BOUNDCALC_SHARED``).
Timings are wall-clock, best of ``--repeat`` runs for single matrices, and depend on the
machine's load: compare columns of one run, not runs of different days.

    python benchmarks/lower_bound.py [--quick] [--no-baseline] [--out FILE]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

import numpy as np

import boundcalc
from boundcalc import PreferenceMatrix
from boundcalc.datasets import random_matrix, utility_matrix
from boundcalc.lp import CopelandFamily, CopelandLPSolver, empirical_mu, empirical_structure
from boundcalc.lp.full import lower_bound_enumerate

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def shared_dir() -> Path:
    env = os.environ.get("BOUNDCALC_SHARED")
    return Path(env) if env else REPO.parent / "shared"


def best_of(f, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def load_landed(rev: str, tmp: Path):
    """Import the package at git revision ``rev`` as ``boundcalc_landed`` (None if impossible)."""
    try:
        data = subprocess.run(["git", "-C", str(REPO), "archive", rev, "boundcalc"], check=True,
                              capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"landed version skipped: git archive {rev} failed ({exc})", file=sys.stderr)
        return None
    import io
    import tarfile

    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        tf.extractall(tmp, filter="data")
    (tmp / "boundcalc").rename(tmp / "boundcalc_landed")
    sys.path.insert(0, str(tmp))
    try:
        return importlib.import_module("boundcalc_landed")
    except Exception as exc:  # noqa: BLE001 - report and go on without it
        print(f"landed version skipped: import failed ({exc!r})", file=sys.stderr)
        return None


_MEM_SCRIPT = r"""
import sys, threading, time
if sys.argv[3]:
    sys.path.insert(0, sys.argv[3])
mod = __import__(sys.argv[1])
def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0
pm = mod.PreferenceMatrix.from_file(sys.argv[2])
small = mod.PreferenceMatrix(pm.mu[:6, :6])
mod.CopelandLPSolver().solve(small)  # imports, compiled kernels loaded: not part of the solve
before = rss_kb()
peak = [before]
done = threading.Event()
def sample():
    while not done.is_set():
        peak[0] = max(peak[0], rss_kb())
        time.sleep(0.0005)
th = threading.Thread(target=sample)
th.start()
mod.CopelandLPSolver().solve(pm)
done.set()
th.join()
peak[0] = max(peak[0], rss_kb())
print((peak[0] - before) / 1024)
"""


def peak_memory_mb(module: str, path: Path, extra_path: str = "") -> float | None:
    """Peak resident memory (MB) of one cold solve above the process's size before it (sampled
    every 0.5 ms; imports and compiled kernels are loaded by a small solve first)."""
    if not Path("/proc/self/status").exists():
        return None
    try:
        out = subprocess.run([sys.executable, "-c", _MEM_SCRIPT, module, str(path), extra_path],
                             check=True, capture_output=True, text=True, timeout=600).stdout
        return float(out.strip().splitlines()[-1])
    except Exception as exc:  # noqa: BLE001
        print(f"memory of {module} on {path.name} not measured: {exc}", file=sys.stderr)
        return None


def online_case(K: int = 16, steps: int = 400, seed: int = 1, info=None):
    """A sequence of empirical matrices, one duel apart, and how often the structure is unchanged."""
    rng = np.random.default_rng(seed)
    while True:  # one Copeland winner: the LP path (with two or more, Theorem 6 answers in closed form)
        pm = info.submatrix(np.sort(rng.choice(info.K, K, replace=False))) if info is not None else \
            random_matrix(K, rng, min_gap=0.02)
        if pm.n_winners == 1:
            break
    mu = pm.mu
    N = np.triu(rng.integers(300, 700, (K, K)), 1)
    N = N + N.T
    W = np.triu(rng.binomial(N, mu), 1)
    W = W + np.tril(N - W.T, -1)
    seq = []
    for _ in range(steps):
        i, j = rng.choice(K, 2, replace=False)
        if rng.random() < mu[i, j]:
            W[i, j] += 1
        else:
            W[j, i] += 1
        seq.append(empirical_mu(W))
    return pm, seq


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer submatrices and repeats (a smoke run)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="runs per single matrix (best is reported)")
    ap.add_argument("--baseline", default="7b5b900", help="git revision of the landed version")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--max-rows", type=int, default=20_000, help="enumerate only below this many rows")
    ap.add_argument("--out", default=str(HERE / "results" / "lower_bound.json"))
    args = ap.parse_args(argv)

    data = shared_dir() / "data" / "public"
    info_path = data / "nightingal3_MSLR_Informational_PMat.npz"
    if not info_path.exists():
        print(f"skipped: {info_path} not found (set BOUNDCALC_SHARED)", file=sys.stderr)
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="boundcalc_landed_"))
    landed = None if args.no_baseline else load_landed(args.baseline, tmp)
    repeat = 1 if args.quick else args.repeat
    records: list[dict] = []

    def add(case, ours, landed_s=None, target=None, **kw):
        rec = {"case": case, "seconds": ours, "landed_seconds": landed_s, "target_seconds": target}
        rec.update(kw)
        records.append(rec)
        print(f"  {case}: {ours * 1e3:.3f} ms" + (f" (landed {landed_s * 1e3:.1f} ms)" if landed_s else ""),
              file=sys.stderr)

    # ---- full MSLR matrices
    for name, target in (("Informational", 0.1), ("Navigational", 0.1), ("Perfect", 0.1)):
        p = data / f"nightingal3_MSLR_{name}_PMat.npz"
        if not p.exists():
            print(f"skipped: {p}", file=sys.stderr)
            continue
        pm = PreferenceMatrix.from_file(p)
        t, res = best_of(lambda: CopelandLPSolver().solve(pm), repeat)
        lt = lval = None
        if landed is not None:
            lpm = landed.PreferenceMatrix(pm.mu)
            lt, lres = best_of(lambda: landed.CopelandLPSolver().solve(lpm), 1 if args.quick else 2)
            lval = lres.value
            if abs(lval - res.value) > 1e-7 * res.value:
                print(f"MISMATCH {name}: {res.value} vs landed {lval}", file=sys.stderr)
                return 1
        mem = peak_memory_mb("boundcalc", p)
        lmem = peak_memory_mb("boundcalc_landed", p, str(tmp)) if landed is not None else None
        add(f"MSLR {name.lower()} 136x136", t, lt, target, value=res.value, rounds=res.stats["rounds"],
            rows=res.stats["rows"], rows_added=res.stats["rows_added"], peak_mb=mem, landed_peak_mb=lmem,
            target_peak_mb=120, gap=res.certificate.gap, max_violation=res.certificate.max_violation,
            landed_rounds=None if landed is None else lres.stats["rounds"])

    # ---- submatrices
    info = PreferenceMatrix.from_file(info_path)
    rng = np.random.default_rng(args.seed)
    counts = {16: 40, 64: 6} if not args.quick else {16: 8, 64: 2}
    for K, n in counts.items():
        ts, lts, n_enum, en_t = [], [], 0, []
        for _ in range(n):
            pm = info.submatrix(np.sort(rng.choice(info.K, K, replace=False)))
            t, res = best_of(lambda: CopelandLPSolver().solve(pm), repeat)
            ts.append(t)
            if landed is not None:
                lpm = landed.PreferenceMatrix(pm.mu)
                lts.append(best_of(lambda: landed.CopelandLPSolver().solve(lpm), repeat)[0])
            if K <= 16 and sum(CopelandFamily(pm, w).n_rows() for w in pm.copeland_winners) <= args.max_rows:
                te, en = best_of(lambda: lower_bound_enumerate(pm, max_rows=args.max_rows), 1)
                en_t.append(te)
                n_enum += 1
                if abs(en.value - res.value) > 1e-6 * max(1.0, res.value):
                    print(f"MISMATCH K={K}: cutting plane {res.value} vs enumeration {en.value}", file=sys.stderr)
                    return 1
        add(f"MSLR-info submatrices K={K} (median of {n})", statistics.median(ts),
            statistics.median(lts) if lts else None, 0.003 if K == 16 else 0.04, max_seconds=max(ts),
            enumerate_median_seconds=statistics.median(en_t) if en_t else None, enumerated=n_enum)

    # ---- 200 arms: a ranker-like synthetic matrix (Bradley-Terry utilities plus noise)
    pm200 = utility_matrix(200, 0, noise=0.05)
    t, res = best_of(lambda: CopelandLPSolver().solve(pm200), 1)
    lt = None
    if landed is not None and not args.quick:
        lt, lres = best_of(lambda: landed.CopelandLPSolver().solve(landed.PreferenceMatrix(pm200.mu)), 1)
        if abs(lres.value - res.value) > 1e-7 * res.value:
            print(f"MISMATCH K=200: {res.value} vs landed {lres.value}", file=sys.stderr)
            return 1
    add("synthetic K=200 (utility_matrix seed 0, noise 0.05)", t, lt, None, value=res.value,
        rounds=res.stats["rounds"], rows=res.stats["rows"])

    # ---- online: warm re-solve and check (3) on a 16-arm empirical matrix
    pm16, seq = online_case(16, 400 if not args.quick else 150, 1, info)
    st0 = empirical_structure(seq[0])
    same = all(np.array_equal(empirical_structure(m).beats, st0.beats) for m in seq)
    lwarm = None
    if landed is not None:  # the landed warm re-solve on validated matrices (no ties allowed there)
        lsolver = landed.CopelandLPSolver()
        lmats = [landed.PreferenceMatrix(m) for m in seq]
        for m in lmats[: len(lmats) // 4]:
            lsolver.solve(m)
        t0 = time.perf_counter()
        for m in lmats[len(lmats) // 4:]:
            lsolver.solve(m)
        lwarm = (time.perf_counter() - t0) / (len(lmats) - len(lmats) // 4)
    for label, kw, tgt in (("LP (certify=True)", dict(certify=True), None), ("online default", {}, 0.0005)):
        solver = CopelandLPSolver()
        warm = seq[: len(seq) // 4]
        for m in warm:
            solver.solve_empirical(m, **kw)
        rest = seq[len(seq) // 4:]
        t0 = time.perf_counter()
        for m in rest:
            r = solver.solve_empirical(m, **kw)
        t = (time.perf_counter() - t0) / len(rest)
        add(f"online warm re-solve K=16, {label}", t, lwarm, tgt, winners=int(st0.winners.size),
            structure_unchanged=bool(same), method=r.method)
    solver = CopelandLPSolver()
    res = solver.solve_empirical(seq[-1])
    st = empirical_structure(seq[-1])
    w = res.winner
    q = res.allocations[w] * 1.05
    n = 2000
    tq = min(timeit.repeat(lambda: solver.violation(st, q, w, rows=False), number=n, repeat=5)) / n
    ltq = None
    if landed is not None:  # the landed check (3): contains() on a validated matrix, warm
        lsolver = landed.CopelandLPSolver()
        lpm = landed.PreferenceMatrix(seq[-1])
        lsolver.solve(lpm)
        ltq = min(timeit.repeat(lambda: lsolver.contains(lpm, q, w), number=n // 4, repeat=5)) / (n // 4)
    add("violation query K=16 (structure given)", tq, ltq, 5e-5)
    tq2 = min(timeit.repeat(lambda: solver.violation(seq[-1], q, w, rows=False), number=n // 4, repeat=5)) / (n // 4)
    add("violation query K=16 (from mu_hat)", tq2, None, None)
    calib = min(timeit.repeat(lambda: np.where(pm16.mu > 0.5, pm16.mu, 1.0), number=n, repeat=5)) / n
    add("calibration: one numpy np.where on 16x16", calib, None, None)

    # ---- table
    def ms(x):
        return "-" if x is None else (f"{x * 1e3:.3f}" if x < 0.01 else f"{x * 1e3:.1f}")

    hdr = ["case", "ours ms", "landed ms", "speed-up", "target ms", "rounds", "rows", "peak MB (landed)"]
    table = []
    for r in records:
        sp = f"{r['landed_seconds'] / r['seconds']:.1f}x" if r.get("landed_seconds") else "-"
        mem = "-" if r.get("peak_mb") is None else f"{r['peak_mb']:.0f}" + (
            f" ({r['landed_peak_mb']:.0f})" if r.get("landed_peak_mb") is not None else "")
        table.append([r["case"], ms(r["seconds"]), ms(r.get("landed_seconds")), sp, ms(r.get("target_seconds")),
                      r.get("rounds", "-"), r.get("rows", "-"), mem])
    widths = [max(len(str(x)) for x in col) for col in zip(hdr, *table)]
    print("  ".join(h.ljust(w) for h, w in zip(hdr, widths)))
    for row in table:
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"boundcalc": boundcalc.__version__, "python": platform.python_version(), "numpy": np.__version__,
            "machine": platform.machine(), "cpus": os.cpu_count(), "seed": args.seed,
            "baseline": None if landed is None else args.baseline, "load_average": os.getloadavg()}
    out.write_text(json.dumps({"meta": meta, "results": records}, indent=2, default=float))
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
