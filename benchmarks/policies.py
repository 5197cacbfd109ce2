"""Speed of the online policies: time per run-step, runs batched, against the D-TS paper's C++.

Measures, for ECW-RMED and RMED1 at K = 5 (the two 5-arm MSLR matrices of 001) and K = 16
(16-arm submatrices of the MSLR informational matrix, gaps >= 0.005 as 000 Sec. 5 / Table 1;
a seeded random matrix when ../shared/data is absent):

* the compiled path (:mod:`boundcalc.policies.fast`, what ``simulate`` uses): R runs of T rounds,
  one after another in this process (the batch), wall time / (R T), the duel draws and the
  regret bookkeeping included, compilation excluded (warmed first);
* the protocol path (the Python classes driven step by step through ``select_pair``/``update``)
  on a shorter horizon, to show what compiling buys;
* CW-RMED (no compiled kernel: the exact LP online, :mod:`boundcalc.policies.cw_rmed`), one run of
  ``--cw-horizon`` steps through the protocol, with its seconds per 10^5 steps (issue 7's goal on
  16 arms: under 60 s).

The C++ figures (D-TS paper's code, g++ -O2, one run at a time, per step including its
simulator) are those quoted in issue 7: ECW-RMED 2.3 us (K = 5) and 10.3 us (K = 16), RMED1
0.56 us and 2.9 us; and in issue 8: RUCB 0.7 us and 4.0 us, D-TS 3.1 us and 28.9 us, D-TS+
3.1 us (K = 5), CCB 1.9 us and 10.2 us, SCB 0.29 us and 1.2 us.  RUCB, D-TS, D-TS+, CCB and
SCB are randomized: their
compiled path draws from the kernels' own stream (:mod:`boundcalc.policies.fast`), their
protocol path from numpy's Generator.  Prints one table and writes benchmarks/results/policies.json.

    python3 benchmarks/policies.py [--horizon 100000] [--runs 10] [--protocol-horizon 2000] [--cw-horizon 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from boundcalc.datasets import load_example, random_matrix
from boundcalc.matrix import PreferenceMatrix
from boundcalc.simulate import checkpoints, regret_matrices, run_one

CPP_US = {("ecw-rmed", 5): 2.3, ("ecw-rmed", 16): 10.3, ("rmed1", 5): 0.56, ("rmed1", 16): 2.9}
# issue 8's figures of the same C++ (D-TS+ at K = 16 is not quoted there)
CPP_US.update({("rucb", 5): 0.7, ("rucb", 16): 4.0, ("dts", 5): 3.1, ("dts", 16): 28.9, ("dts+", 5): 3.1})
CPP_US.update({("ccb", 5): 1.9, ("ccb", 16): 10.2})
# issue 8: SAVAGE 0.28 us and 1.9 us; RMED2 has no quoted figure (measured only)
CPP_US.update({("savage", 5): 0.28, ("savage", 16): 1.9})
CPP_US.update({("scb", 5): 0.29, ("scb", 16): 1.2})


def shared_dir() -> Path:
    env = os.environ.get("BOUNDCALC_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared"


def matrices(seed: int = 0) -> list[tuple[str, PreferenceMatrix]]:
    out = [("mslr5-condorcet", load_example("mslr5-condorcet")),
           ("mslr5-noncondorcet", load_example("mslr5-noncondorcet"))]
    path = shared_dir() / "data" / "public" / "nightingal3_MSLR_Informational_PMat.npz"
    if path.exists():
        from boundcalc.batch import draw_submatrices

        P = PreferenceMatrix.from_file(path, key="PMat")
        d = draw_submatrices(P, 16, 600, min_gap=0.005, seed=seed)  # 1 in ~250 has no Condorcet winner
        got = {}
        for k, arms in enumerate(d.arms):
            sub = P.submatrix(arms)
            kind = "condorcet" if sub.condorcet_winner is not None else "noncondorcet"
            got.setdefault(kind, (f"mslr16-{kind} (draw {k})", sub))
        out += [got[k] for k in sorted(got)]
    else:
        out.append(("random16 (seed 0)", random_matrix(16, 0, min_gap=0.005)))
    return out


def time_runs(policy: str, pm: PreferenceMatrix, T: int, R: int, fast: bool) -> tuple[float, dict]:
    reg = regret_matrices(pm)
    regs = np.stack([reg[u] for u in reg])
    cps = checkpoints(T)
    run_one(policy, {}, pm.mu, 10, checkpoints(10), regs, seed=0, run=0, fast=fast)  # warm-up / compile
    t0 = time.perf_counter()
    last = None
    for r in range(R):
        last = run_one(policy, {}, pm.mu, T, cps, regs, seed=0, run=r, fast=fast)
    sec = time.perf_counter() - t0
    return 1e6 * sec / (R * T), last["stats"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--horizon", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--protocol-horizon", type=int, default=2000)
    ap.add_argument("--cw-horizon", type=int, default=10_000,
                    help="steps of the one CW-RMED run per matrix (protocol path, exact LP online); 0 skips it")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "policies.json"))
    args = ap.parse_args()
    rows = []
    for name, pm in matrices():
        for policy in ("ecw-rmed", "rmed1", "rucb", "dts", "dts+", "ccb", "scb", "rmed2", "savage"):
            us, st = time_runs(policy, pm, args.horizon, args.runs, fast=True)
            us_py, _ = time_runs(policy, pm, args.protocol_horizon, 1, fast=False)
            cpp = CPP_US.get((policy, 16 if pm.K >= 16 else 5))
            rows.append({"matrix": name, "K": pm.K, "policy": policy, "compiled_us_per_step": us,
                         "protocol_us_per_step": us_py, "cpp_us_per_step": cpp,
                         "speedup_vs_cpp": None if cpp is None else cpp / us, "horizon": args.horizon, "runs": args.runs,
                         "protocol_horizon": args.protocol_horizon, "stats_last_run": st})
        if args.cw_horizon > 0:  # CW-RMED has no compiled kernel: one run through the protocol
            us_cw, st_cw = time_runs("cw-rmed", pm, args.cw_horizon, 1, fast=False)
            rows.append({"matrix": name, "K": pm.K, "policy": "cw-rmed", "compiled_us_per_step": None,
                         "protocol_us_per_step": us_cw, "cpp_us_per_step": None, "speedup_vs_cpp": None,
                         "horizon": args.cw_horizon, "runs": 1, "protocol_horizon": args.cw_horizon,
                         "seconds_per_1e5_steps": 0.1 * us_cw, "stats_last_run": st_cw})
    head = f"{'matrix':34s} {'K':>3s} {'policy':9s} {'compiled us':>11s} {'protocol us':>11s} {'C++ us':>7s} {'C++/ours':>8s}"
    print(f"per run-step, {args.runs} runs x T = {args.horizon} batched in one process (compiled); "
          f"protocol path: 1 run x T = {args.protocol_horizon}")
    print(head)
    print("-" * len(head))
    for r in rows:
        if r["compiled_us_per_step"] is None:  # CW-RMED: protocol only, no C++ figure
            print(f"{r['matrix']:34s} {r['K']:3d} {r['policy']:9s} {'-':>11s} {r['protocol_us_per_step']:11.1f} "
                  f"{'-':>7s} {'-':>8s}   ({r['horizon']} steps; {r['seconds_per_1e5_steps']:.0f} s per 10^5)")
            continue
        cpp = "-" if r["cpp_us_per_step"] is None else f"{r['cpp_us_per_step']:.2f}"
        ratio = "-" if r["speedup_vs_cpp"] is None else f"{r['speedup_vs_cpp']:.1f}"
        print(f"{r['matrix']:34s} {r['K']:3d} {r['policy']:9s} {r['compiled_us_per_step']:11.3f} "
              f"{r['protocol_us_per_step']:11.1f} {cpp:>7s} {ratio:>8s}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    doc = {"machine": {"python": platform.python_version(), "processor": platform.processor(),
                       "cpu_count": os.cpu_count()},
           "cpp_source": "D-TS paper's C++ (g++ -O2), per step including its simulator, as quoted in issues 7 and 8",
           "rows": rows}
    out.write_text(json.dumps(doc, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
