#!/usr/bin/env python
"""Time the exact Copeland lower bound (cutting plane vs enumeration) and the ECW closed form.

* random K-arm submatrices (K = 8, 16, 32, 64) of the 136 x 136 MSLR informational matrix;
* the three full 136 x 136 MSLR matrices (informational, navigational, perfect).

Every solve is cold (a fresh solver); the table reports the median over submatrices and the
best of ``--repeat`` runs for the full matrices.  Enumeration (cvxpy + Clarabel) runs where the
full LP has at most ``--max-rows`` rows, and its value is checked against the cutting plane.
Prints a table and writes JSON (``benchmarks/results/lower_bound.json`` by default).  Skips
what it cannot find: the data are read from ``../shared/data/public`` (or ``$BOUNDCALC_SHARED``).

    python benchmarks/lower_bound.py [--quick] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import boundcalc
from boundcalc import PreferenceMatrix, ecw_bound
from boundcalc.lp import CopelandFamily, CopelandLPSolver
from boundcalc.lp.full import lower_bound_enumerate

HERE = Path(__file__).resolve().parent


def shared_dir() -> Path:
    env = os.environ.get("BOUNDCALC_SHARED")
    return Path(env) if env else HERE.parent.parent / "shared"


def timed(f, repeat=1):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer submatrices (a smoke run)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="runs per full matrix (best is reported)")
    ap.add_argument("--max-rows", type=int, default=20_000, help="enumerate only below this many rows")
    ap.add_argument("--out", default=str(HERE / "results" / "lower_bound.json"))
    args = ap.parse_args(argv)

    data = shared_dir() / "data" / "public"
    info_path = data / "nightingal3_MSLR_Informational_PMat.npz"
    if not info_path.exists():
        print(f"skipped: {info_path} not found (set BOUNDCALC_SHARED)", file=sys.stderr)
        return 0
    rng = np.random.default_rng(args.seed)
    info = PreferenceMatrix.from_file(info_path)
    counts = {8: 40, 16: 40, 32: 10, 64: 5} if not args.quick else {8: 5, 16: 5, 32: 2, 64: 1}
    records = []

    for K, n in counts.items():
        cp_t, en_t, ecw_t, vals, ratios, rows, rounds = [], [], [], [], [], [], []
        n_enum = 0
        for _ in range(n):
            pm = info.submatrix(np.sort(rng.choice(info.K, K, replace=False)))
            t, res = timed(lambda: CopelandLPSolver().solve(pm))
            cp_t.append(t)
            vals.append(res.value)
            rounds.append(res.stats["rounds"])
            rows.append(sum(res.stats["rows_in_model"].values()))
            te, ecw = timed(lambda: ecw_bound(pm, certify=False), repeat=5)
            ecw_t.append(te)
            ratios.append(ecw.value / res.value)
            nrows = sum(CopelandFamily(pm, w).n_rows() for w in pm.copeland_winners)
            if nrows <= args.max_rows:
                t2, en = timed(lambda: lower_bound_enumerate(pm, max_rows=args.max_rows))
                en_t.append(t2)
                n_enum += 1
                if abs(en.value - res.value) > 1e-6 * max(1.0, res.value):
                    print(f"MISMATCH K={K}: cutting plane {res.value} vs enumeration {en.value}", file=sys.stderr)
                    return 1
        records.append({
            "case": f"MSLR-info submatrix K={K}", "K": K, "n": n,
            "cutting_plane_median_s": statistics.median(cp_t), "cutting_plane_max_s": max(cp_t),
            "enumerate_median_s": statistics.median(en_t) if en_t else None, "enumerated": n_enum,
            "ecw_median_s": statistics.median(ecw_t),
            "lower_bound_mean": float(np.mean(vals)), "ecw_over_lb_mean": float(np.mean(ratios)),
            "rounds_median": statistics.median(rounds), "rows_median": statistics.median(rows),
        })
        print(f"K={K}: done", file=sys.stderr)

    for name in ("Informational", "Navigational", "Perfect"):
        p = data / f"nightingal3_MSLR_{name}_PMat.npz"
        if not p.exists():
            print(f"skipped: {p}", file=sys.stderr)
            continue
        pm = PreferenceMatrix.from_file(p)
        t, res = timed(lambda: CopelandLPSolver().solve(pm), repeat=args.repeat)
        te, ecw = timed(lambda: ecw_bound(pm, certify=False), repeat=20)
        records.append({
            "case": f"MSLR {name.lower()} 136x136", "K": pm.K, "n": 1,
            "cutting_plane_median_s": t, "cutting_plane_max_s": t,
            "enumerate_median_s": None, "enumerated": 0, "ecw_median_s": te,
            "lower_bound_mean": res.value, "ecw_over_lb_mean": ecw.value / res.value,
            "rounds_median": res.stats["rounds"], "rows_median": sum(res.stats["rows_in_model"].values()),
            "certificate": res.certificate.to_dict(),
        })
        print(f"{name}: done", file=sys.stderr)

    def ms(x):
        return "-" if x is None else f"{x * 1e3:.2f}"

    hdr = ["case", "n", "cutting plane ms (median)", "max ms", "enumerate ms", "ECW ms", "rounds", "rows", "LB (mean)", "ECW/LB"]
    table = [[r["case"], r["n"], ms(r["cutting_plane_median_s"]), ms(r["cutting_plane_max_s"]),
              ms(r["enumerate_median_s"]) + (f" ({r['enumerated']})" if r["enumerated"] else ""),
              f"{r['ecw_median_s'] * 1e3:.3f}", r["rounds_median"], r["rows_median"],
              f"{r['lower_bound_mean']:.6g}", f"{r['ecw_over_lb_mean']:.4f}"] for r in records]
    widths = [max(len(str(x)) for x in col) for col in zip(hdr, *table)]
    print("  ".join(h.ljust(w) for h, w in zip(hdr, widths)))
    for row in table:
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"boundcalc": boundcalc.__version__, "python": platform.python_version(),
            "machine": platform.machine(), "cpus": os.cpu_count(), "seed": args.seed}
    out.write_text(json.dumps({"meta": meta, "results": records}, indent=2))
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
