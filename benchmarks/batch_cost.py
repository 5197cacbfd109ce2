#!/usr/bin/env python
"""The cost model behind ``boundcalc batch``'s estimate: CPU seconds per submatrix, per constant.

``batch`` evaluates :func:`boundcalc.compare` on ``--count`` random k-arm submatrices; its CPU
time is ``count x sum over the keys of the key's seconds at k``.  Here each key of
:func:`boundcalc.compare` is timed alone (``time.process_time``, this process) on ``--subs``
random k-arm submatrices of one uniform random tournament
(:func:`boundcalc.datasets.tournament_matrix`, 128 arms, gaps in [0.005, 0.5]: 000 Table 1's
``--min-gap``) at k = 8, 16, 32, 64 and 128, after one warm-up evaluation per key and k (numba kernels,
imports).  The model per key is ``seconds = a (k / 16)^b``, least squares of ln(seconds) on
ln(k / 16); ``boundcalc/cli.py`` holds the fitted ``BATCH_KEY_COST`` and
``tests/test_hostile_estimates.py`` checks it against the JSON written here
(``benchmarks/results/batch_cost.json``).  The sum over every key at k = 16 is also compared with
``benchmarks/results/table1.json`` (10,000 submatrices of 16 arms of the MSLR matrix, in-process
``seconds_evaluate`` / count, an older version), printed as ``table1_seconds_per_submatrix``.
The cost of a row beside its constants (the draw, the runner, the row) is
:func:`boundcalc.batch.run_batch`'s CPU time per submatrix with the cheapest key alone, less that
key's time (``row_seconds``, the CLI's ``BATCH_ROW_S``).

    python benchmarks/batch_cost.py [--subs N] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import time
from pathlib import Path

import numpy as np

import boundcalc
from boundcalc import PreferenceMatrix, compare
from boundcalc.batch import run_batch
from boundcalc.comparison import check_options
from boundcalc.datasets import tournament_matrix

SIZES = (8, 16, 32, 64, 128)
ROOT = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subs", type=int, default=20, help="submatrices per size (default 20)")
    ap.add_argument("--out", default=str(ROOT / "results" / "batch_cost.json"))
    ap.add_argument(
        "--write-costs",
        metavar="RESULT",
        help="measure nothing: write boundcalc/data/batch_costs.json (the estimates batch prints) from RESULT",
    )
    args = ap.parse_args()
    if args.write_costs:
        write_costs(json.loads(Path(args.write_costs).read_text()))
        return
    _, _, keys, _ = check_options(keys=None)
    mu = tournament_matrix(128, 0, low=0.005, high=0.5).mu
    rng = np.random.default_rng(1)
    seconds: dict[str, dict[str, float]] = {k: {} for k in keys}
    for size in SIZES:
        subs = [np.sort(rng.choice(128, size, replace=False)) for _ in range(args.subs)]
        mats = [PreferenceMatrix(mu[np.ix_(s, s)]) for s in subs]
        for key in keys:
            compare(mats[0], keys=[key])  # warm-up
            t = time.process_time()
            for pm in mats:
                compare(pm, keys=[key])
            seconds[key][str(size)] = (time.process_time() - t) / len(mats)
        print(size, {k: f"{v[str(size)] * 1e3:.2f} ms" for k, v in seconds.items()}, flush=True)
    model = {}
    x = np.log(np.array(SIZES) / 16)
    for key, by_size in seconds.items():
        y = np.log([max(by_size[str(s)], 1e-6) for s in SIZES])
        b, ln_a = np.polyfit(x, y, 1)
        model[key] = {"a": float(math.exp(ln_a)), "b": float(b)}
        print(f"    {key!r}: ({math.exp(ln_a):.3g}, {b:.2f}),")
    # the cost of a row beside its constants: run_batch (draw, runner, row) with the cheapest key
    cheap = min(model, key=lambda k: seconds[k]["16"])
    run_batch(PreferenceMatrix(mu), 16, 5, 0.005, 0, keys=[cheap], workers=0, progress=False)
    t = time.process_time()
    n_rows = 20 * args.subs
    run_batch(PreferenceMatrix(mu), 16, n_rows, 0.005, 1, keys=[cheap], workers=0, progress=False)
    row_seconds = (time.process_time() - t) / n_rows - seconds[cheap]["16"]
    print(f"per row beside the constants (run_batch with {cheap}): {row_seconds * 1e3:.2f} ms")
    t1 = json.loads((ROOT / "results" / "table1.json").read_text())
    t1_per = t1["timings"]["in-process"]["seconds_evaluate"] / t1["meta"]["parameters"]["count"]
    out = {
        "meta": {
            "benchmark": "batch_cost",
            "boundcalc_version": boundcalc.__version__,
            "python": platform.python_version(),
            "platform": platform.platform(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "parameters": {"subs": args.subs, "sizes": list(SIZES), "tournament_arms": 128, "low": 0.005},
        },
        "seconds": seconds,
        "model": model,
        "row_seconds": row_seconds,
        "row_key": cheap,
        "all_keys_at_16": sum(v["16"] for v in seconds.values()),
        "table1_seconds_per_submatrix": t1_per,
    }
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(f"all keys at k = 16: {out['all_keys_at_16'] * 1e3:.1f} ms; table1.json: {t1_per * 1e3:.1f} ms")


def write_costs(result: dict) -> None:
    """``boundcalc/data/batch_costs.json``: the fitted ``(a, b)`` of every key and the per-row cost,
    to three significant digits, with the result file they come from."""
    data = {
        "about": "CPU seconds of batch per k-arm submatrix: row_seconds plus a (k / 16)^b per key; written by"
        " benchmarks/batch_cost.py --write-costs from benchmarks/results/batch_cost.json",
        "row_seconds": float(f"{result['row_seconds']:.3g}"),
        "keys": {k: [float(f"{v['a']:.3g}"), float(f"{v['b']:.2f}")] for k, v in result["model"].items()},
    }
    path = ROOT.parent / "boundcalc" / "data" / "batch_costs.json"
    path.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
