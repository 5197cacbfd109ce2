#!/usr/bin/env python
"""The "Choose a policy" table (docs/howto/choose-policy.md): regret per ln T at ``T = 10^5`` of every registered policy on
``mslr5-condorcet``, ``mslr5-noncondorcet`` (001 App. D.1.3) and ``table2`` (000 Table 2).

Mean +- standard error over ``--runs`` (20) runs, seed 0, common random numbers, every policy's
compiled kernel in-process (``boundcalc.simulate.simulate(..., workers=0)``); CW-RMED over its first
``--cw-runs`` (5) runs of the same seed (with common random numbers run ``r`` of a policy draws the
same numbers whatever the number of runs).  Prints a table and writes JSON
(``benchmarks/results/choose_policy.json``): per matrix the bounds and, per policy, runs, the regret
at T per ln T and its standard error, and the CPU seconds of the runs.

    python3 benchmarks/choose_policy.py [--horizon 100000] [--runs 20] [--cw-runs 5] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MATRICES = ["mslr5-condorcet", "mslr5-noncondorcet", "table2"]


def main(argv: list[str] | None = None) -> int:
    from boundcalc import __version__
    from boundcalc.datasets import load_example
    from boundcalc.policies import policy_names
    from boundcalc.simulate import simulate

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--horizon", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--cw-runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(HERE / "results" / "choose_policy.json"))
    a = ap.parse_args(argv)
    others = [p for p in policy_names() if p != "cw-rmed"]
    record = {
        "horizon": a.horizon,
        "runs": a.runs,
        "cw_runs": a.cw_runs,
        "seed": a.seed,
        "boundcalc_version": __version__,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "matrices": {},
    }
    ln_t = math.log(a.horizon)
    for name in MATRICES:
        pm = load_example(name)
        entry: dict = {"policies": {}}
        for pols, runs in ((others, a.runs), (["cw-rmed"], a.cw_runs)):
            sim = simulate(pm, pols, horizon=a.horizon, runs=runs, seed=a.seed, workers=0, progress=False)
            entry["lower_bound"], entry["ecw"] = sim.lower_bound, sim.ecw
            for s, p in zip(sim.table(), sim.policies):
                entry["policies"][p.name] = {
                    "runs": runs,
                    "per_ln_T": s["mean"] / ln_t,
                    "stderr_per_ln_T": s["stderr"] / ln_t,
                    "cpu_seconds": p.cpu_seconds,
                    "label": p.label,
                    "revision": p.revision,
                }
        record["matrices"][name] = entry
        print(f"{name}: C* {entry['lower_bound']:.1f}, C^E* {entry['ecw']:.1f}")
        for pol, r in entry["policies"].items():
            print(
                f"  {pol:9s} {r['per_ln_T']:8.1f} +- {r['stderr_per_ln_T']:.1f}  ({r['runs']} runs, {r['cpu_seconds']:.1f} s CPU)"
            )
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
