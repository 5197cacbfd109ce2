#!/usr/bin/env python
"""The cost model behind ``boundcalc cpe --monte-carlo N``'s estimate and memory check.

:func:`boundcalc.cpe.estimate_edge_rewards` (the Monte-Carlo edge rewards of an instance too large
for the exact subset DP, more than 20 positions) timed (``time.process_time``) and its peak memory
measured (tracemalloc) on random bipartite instances (``tests/builders.py``'s
``random_cpe_instance``, seed 0) at 21-40 positions, 25-60 candidates and edge densities 0.3-0.9,
``--samples`` samples each after a warm-up of 100.  Reported per sample: the CPU nanoseconds per
edge of the instance (the CLI's ``CPE_SAMPLE_NS_PER_EDGE`` is their largest) and the peak bytes
as a fraction of :func:`boundcalc.cpe.borda.estimate_edge_rewards_bytes` (the refusal's model).

    python benchmarks/cpe_sampling_cost.py [--samples N] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
import tracemalloc
from pathlib import Path

import boundcalc
from boundcalc import cpe
from boundcalc.cpe.borda import estimate_edge_rewards_bytes

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent / "tests"))
from builders import random_cpe_instance  # noqa: E402

CASES = [(21, 25, 0.5), (30, 40, 0.5), (40, 60, 0.3), (25, 30, 0.9)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=20_000)
    ap.add_argument("--out", default=str(ROOT / "results" / "cpe_sampling_cost.json"))
    args = ap.parse_args()
    rows = []
    for positions, candidates, p_edge in CASES:
        inst = random_cpe_instance(0, n_pos=positions, n_cand=candidates, p_edge=p_edge)
        cpe.estimate_edge_rewards(inst, 100, rng=0)
        t = time.process_time()
        cpe.estimate_edge_rewards(inst, args.samples, rng=0)
        sec = time.process_time() - t
        tracemalloc.start()
        cpe.estimate_edge_rewards(inst, args.samples, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        row = {
            "positions": positions,
            "candidates": candidates,
            "edges": inst.n_edges,
            "ns_per_sample_edge": sec / args.samples / inst.n_edges * 1e9,
            "peak_over_model": peak / estimate_edge_rewards_bytes(inst, args.samples),
        }
        rows.append(row)
        print(row, flush=True)
    out = {
        "meta": {
            "benchmark": "cpe_sampling_cost",
            "boundcalc_version": boundcalc.__version__,
            "python": platform.python_version(),
            "platform": platform.platform(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "parameters": {"samples": args.samples},
        },
        "rows": rows,
        "max_ns_per_sample_edge": max(r["ns_per_sample_edge"] for r in rows),
        "max_peak_over_model": max(r["peak_over_model"] for r in rows),
    }
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(
        f"largest: {out['max_ns_per_sample_edge']:.1f} ns per sample and edge; peak/model {out['max_peak_over_model']:.2f}"
    )


if __name__ == "__main__":
    main()
