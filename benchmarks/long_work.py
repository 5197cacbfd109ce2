#!/usr/bin/env python
"""The cost models behind the CLI's "this will take about ..." lines.

Two measurements, CPU seconds of this process (``time.process_time``):

* ``bounds`` / ``compare`` at large K: :func:`boundcalc.cli.compute_bounds` (paper 000's exact
  lower bound by the cutting-plane LP, then the ECW constant: what ``boundcalc bounds`` runs) on
  uniform random tournaments (:func:`boundcalc.datasets.tournament_matrix`, the hard family of
  ``benchmarks/lower_bound.py``) and on random submatrices of a larger tournament, at
  K = 50, 100, 200, 300 (and 400 without ``--quick``); the median over ``--seeds`` matrices per
  K and family.  The model is ``seconds = a K^b``, least squares of ln(seconds) on ln K over the
  points with K >= ``--fit-from`` (default 200: below it fixed overheads flatten the curve and
  the exponent comes out too small for the K where an estimate is printed); both families (the
  estimate is of a typical hard matrix, not a bound).  One tournament at ``--check-k`` (default
  600, not in the fit) is timed against the model's prediction (stored as ``check``).
* ``explore`` at tiny delta: every algorithm of 004 run at ``delta = 5e-324`` on 000's Table 2
  instance (its runs do not stop before the budget, the case the estimate is for) with a budget of
  ``--duels`` duels; the CPU microseconds per duel.  And the duels a run draws per unit of 004's
  bracketed expression for the algorithm (:func:`boundcalc.cpe.theorems.sample_complexity_expressions`;
  Theorem 1, 2, 4 and 5 for CLUCB-Borda-PAC, -Exact, CAR-Cond and CAR-Parallel; Theorem 5 for
  CAR-Verify, whose run is the verification that theorem's ``H^C_ver`` term counts): the mean
  over ``--seeds`` + 1 seeded runs at delta = 1e-10 (``epsilon`` 0.01), divided by the expression.
  The CLI estimates a run's duels as ``min(--max-duels, ratio x expression(delta))`` and
  multiplies by runs and the microseconds per duel (a calibration on one instance: the ratio
  varies between instances, the estimate says "about").

``boundcalc/cli.py`` holds the fitted constants (``LB_COST_A``, ``LB_COST_B``,
``EXPLORE_US_PER_DUEL``); ``tests/test_long_work.py`` checks them against the JSON written here
(``benchmarks/results/long_work.json``).  Rerun this script and copy the printed constants into
the CLI when the solver changes.  Machine load moves times by 20-40 %: the CLI says "about".

    python benchmarks/long_work.py [--quick] [--seeds N] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import boundcalc
from boundcalc import PreferenceMatrix
from boundcalc.cli import compute_bounds
from boundcalc.cpe import CPEInstance
from boundcalc.cpe.algorithms import ALGORITHMS, run_algorithm
from boundcalc.datasets import load_example, tournament_matrix

#: 004's theorem whose bracketed expression scales each algorithm's sample complexity.
EXPRESSION = {
    "clucb-borda-pac": "theorem1",
    "clucb-borda-exact": "theorem2",
    "car-cond": "theorem4",
    "car-verify": "theorem5",
    "car-parallel": "theorem5",
}
OUT = Path(__file__).resolve().parent / "results" / "long_work.json"


def _cpu(fn, *args) -> float:
    t0 = time.process_time()
    fn(*args)
    return time.process_time() - t0


def _submatrix(K: int, seed: int) -> PreferenceMatrix:
    """K arms drawn at random from a 2K-arm random tournament."""
    rng = np.random.default_rng(seed)
    big = tournament_matrix(2 * K, rng).mu
    idx = np.sort(rng.choice(2 * K, size=K, replace=False))
    return PreferenceMatrix(big[np.ix_(idx, idx)], name=f"sub{K}")


def fit_power(ks: list[int], secs: list[float]) -> tuple[float, float]:
    """``(a, b)`` of ``seconds = a K^b`` by least squares of ln(seconds) on ln K."""
    b, ln_a = np.polyfit(np.log(ks), np.log(secs), 1)
    return float(math.exp(ln_a)), float(b)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="K up to 300 and fewer duels")
    ap.add_argument("--seeds", type=int, default=2, help="matrices per K and family (default 2)")
    ap.add_argument("--duels", type=int, default=300_000, help="duel budget per explore run (default 3e5)")
    ap.add_argument("--fit-from", type=int, default=200, help="smallest K in the fit (default 200)")
    ap.add_argument("--check-k", type=int, default=600, help="K of the out-of-fit check (0: none)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--ks", type=str, default="", help="comma-separated K of the bounds rows (default 50,...,400)")
    ap.add_argument(
        "--bounds-only", action="store_true", help="measure the bounds part only; keep the stored explore part of --out"
    )
    a = ap.parse_args(argv)
    ks = [50, 100, 200, 300] if a.quick else [50, 100, 200, 300, 400]
    if a.ks:
        ks = [int(k) for k in a.ks.split(",")]
    compute_bounds(tournament_matrix(20, 0))  # imports and compiled kernels outside the timings

    rows = []
    print(f"{'family':12s} {'K':>5s} {'CPU s (median)':>15s}")
    for K in ks:
        for family, make in (
            ("tournament", lambda s: tournament_matrix(K, s)),
            ("submatrix", lambda s: _submatrix(K, s)),
        ):
            secs = [_cpu(compute_bounds, make(seed)) for seed in range(a.seeds)]
            med = statistics.median(secs)
            rows.append({"family": family, "K": K, "seconds": secs, "median_seconds": med})
            print(f"{family:12s} {K:5d} {med:15.3f}", flush=True)
    fitted = [r for r in rows if r["K"] >= a.fit_from]
    A, B = fit_power([r["K"] for r in fitted], [r["median_seconds"] for r in fitted])
    print(f"fit: seconds = {A:.6g} * K^{B:.6g}  (K = 1000: {A * 1000**B:.0f} s, K = 2000: {A * 2000**B:.0f} s)")
    check = None
    if a.check_k:
        sec = _cpu(compute_bounds, tournament_matrix(a.check_k, 0))
        check = {"family": "tournament", "K": a.check_k, "seconds": sec, "predicted_seconds": A * a.check_k**B}
        print(f"check: tournament K = {a.check_k}: {sec:.2f} s measured, {A * a.check_k**B:.2f} s predicted")

    if a.bounds_only:
        doc = json.loads(a.out.read_text())
        doc["meta"]["bounds_argv"] = sys.argv[1:]
        doc["meta"]["bounds_load_average"] = list(os.getloadavg())
        doc["bounds"] = {
            "rows": rows,
            "model": "seconds = a * K**b",
            "fit_from_K": a.fit_from,
            "a": A,
            "b": B,
            "check": check,
        }
        a.out.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"\nwrote {a.out}")
        return 0
    inst = CPEInstance.from_matrix(load_example("table2").mu)
    duels = a.duels // 3 if a.quick else a.duels
    per_duel = {}
    run_algorithm("car-cond", inst, delta=0.1, seed=0, max_duels=1000)  # warm-up (compiled paths)
    print(f"\n{'algorithm':20s} {'duels':>9s} {'CPU us/duel':>12s}")
    for name, spec in ALGORITHMS.items():
        eps = 0.01 if spec.needs_epsilon else None
        box: dict = {}

        def one(name=name, eps=eps, box=box) -> None:
            box["r"] = run_algorithm(name, inst, delta=5e-324, epsilon=eps, seed=0, max_duels=duels)

        sec = _cpu(one)
        n = int(box["r"].n_duels)
        per_duel[name] = {"duels": n, "seconds": sec, "us_per_duel": sec / n * 1e6, "stopped": box["r"].stopped}
        print(f"{name:20s} {n:9d} {sec / n * 1e6:12.4f}", flush=True)

    from boundcalc.cpe.theorems import sample_complexity_expressions

    print(f"\n{'algorithm':20s} {'mean duels':>11s} {'expression':>11s} {'ratio':>8s}  (delta 1e-10)")
    for name, spec in ALGORITHMS.items():
        eps = 0.01 if spec.needs_epsilon else None
        thm = EXPRESSION[name]
        expr = sample_complexity_expressions(inst, 1e-10, eps)[thm].value
        ns = [
            int(run_algorithm(name, inst, delta=1e-10, epsilon=eps, seed=s, max_duels=10**8).n_duels)
            for s in range(a.seeds + 1)
        ]
        ratio = statistics.mean(ns) / expr
        per_duel[name].update(
            expression=thm, calibration_duels=ns, calibration_expression=expr, duels_per_expression=ratio
        )
        print(f"{name:20s} {statistics.mean(ns):11.0f} {expr:11.0f} {ratio:8.4f}", flush=True)

    doc = {
        "meta": {
            "boundcalc": boundcalc.__version__,
            "python": platform.python_version(),
            "numpy": np.__version__,
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "timer": "process_time",
            "load_average": list(os.getloadavg()),
            "argv": sys.argv[1:],
        },
        "bounds": {
            "rows": rows,
            "model": "seconds = a * K**b",
            "fit_from_K": a.fit_from,
            "a": A,
            "b": B,
            "check": check,
        },
        "explore": {"instance": "table2", "delta": 5e-324, "algorithms": per_duel},
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"\nwrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
