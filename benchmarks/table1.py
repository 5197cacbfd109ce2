#!/usr/bin/env python
"""Time the full reproduction of paper 000's Table 1 with ``boundcalc.batch.run_batch``.

Table 1 of Komiyama, Honda & Nakagawa (ICML 2016) averages the optimal Copeland constant,
ECW-RMED's constant and CCB's over random 16-arm submatrices of the 136 x 136 MSLR
informational matrix (submatrices with a gap below 0.005 left out).  This script draws
``--count`` (default 10^4) accepted submatrices, evaluates every constant of
:func:`boundcalc.compare` on each, on a local Dask cluster of ``--workers`` (default 2)
single-threaded processes, and -- for comparison -- in-process; checks that both give the
same rows; prints the timings and the means next to the paper's; and writes JSON
(``benchmarks/results/table1.json`` by default).  The data are read from
``../shared/data/public`` (or ``$BOUNDCALC_SHARED``); without them the script says so and exits 0.

    python benchmarks/table1.py [--count N] [--workers N] [--no-inprocess] [--inprocess-first] [--out FILE]

Wall time and this process's CPU time (``time.process_time``; the Dask workers' CPU is not in it) per
backend; run it in both orders on a shared machine, where the order matters.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import boundcalc
from boundcalc import PreferenceMatrix
from boundcalc.batch import run_batch

HERE = Path(__file__).resolve().parent
DATA_NAME = "nightingal3_MSLR_Informational_PMat.npz"
#: 000 Table 1 (MSLR, 16 arms), all in 000's regret unit.
PAPER = {"lower_bound": 6.7e2, "ecw": 7.3e2, "ccb": 8.8e5}
LABELS = {"lower_bound": "optimal (000 Thm 2)", "ecw": "ECW-RMED (000 Thm 5)", "ccb": "CCB (002 Thm 3), 000 unit"}


def shared_dir() -> Path:
    env = os.environ.get("BOUNDCALC_SHARED")
    return Path(env) if env else HERE.parent.parent / "shared"


def _table(headers, rows) -> str:
    cells = [list(map(str, headers))] + [[str(c) for c in r] for r in rows]
    w = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(cells[0]))]
    lines.append("  ".join("-" * x for x in w))
    for r in cells[1:]:
        lines.append("  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(r)))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=10_000, help="accepted submatrices (Table 1: 10^4)")
    ap.add_argument("--size", type=int, default=16)
    ap.add_argument("--min-gap", type=float, default=0.005)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2, help="local Dask cluster size (default 2)")
    ap.add_argument("--no-inprocess", action="store_true", help="skip the in-process comparison run")
    ap.add_argument(
        "--inprocess-first",
        action="store_true",
        help="run the in-process pass before the Dask one (default: Dask first)",
    )
    ap.add_argument("--progress", action="store_true", help="progress bars on stderr")
    ap.add_argument("--out", default=str(HERE / "results" / "table1.json"))
    args = ap.parse_args(argv)

    path = shared_dir() / "data" / "public" / DATA_NAME
    if not path.exists():
        print(f"table1 benchmark skipped: public data absent ({path}); set BOUNDCALC_SHARED", file=sys.stderr)
        return 0
    pm = PreferenceMatrix.from_file(path)
    common = dict(
        size=args.size, count=args.count, min_gap=args.min_gap, seed=args.seed, progress=args.progress or None
    )

    runs = {}
    wall: dict[str, float] = {}
    cpu: dict[str, float] = {}  # this process's CPU (time.process_time): Dask workers' CPU is not in it
    order = (
        ["dask"] if args.no_inprocess else (["in-process", "dask"] if args.inprocess_first else ["dask", "in-process"])
    )
    for name in order:
        t0, c0 = time.perf_counter(), time.process_time()
        runs[name] = run_batch(pm, workers=args.workers if name == "dask" else 0, **common)
        wall[name], cpu[name] = time.perf_counter() - t0, time.process_time() - c0
    runs = {"dask": runs["dask"], **{k: v for k, v in runs.items() if k != "dask"}}
    ref = runs["dask"]
    same = None
    if "in-process" in runs:
        same = runs["in-process"].rows == ref.rows

    print(
        f"000 Table 1: {args.count} accepted {args.size}-arm submatrices of {path.name} (K = {pm.K}),"
        f" gaps >= {args.min_gap:g}, seed {args.seed}; every constant of boundcalc.compare"
        f" ({len(ref.meta['keys'])} rows per submatrix)"
    )
    print(
        f"{ref.stats['drawn']} candidates drawn (acceptance {ref.stats['acceptance_rate']:.2%}),"
        f" draw {ref.stats['seconds_draw']:.2f} s\n"
    )
    trows = []
    for name, res in runs.items():
        st = res.stats
        w = st["workers"] if name == "dask" else 1
        trows.append(
            (
                name,
                w,
                st["chunk_size"],
                f"{wall[name]:.1f}",
                f"{cpu[name]:.1f}",
                f"{st['seconds_cluster']:.1f}",
                f"{st['seconds_evaluate']:.1f}",
                f"{args.count / wall[name]:.0f}",
                f"{wall['in-process'] / wall[name]:.2f}" if "in-process" in wall else "-",
            )
        )
    print(
        _table(
            [
                "backend",
                "workers",
                "chunk",
                "wall s",
                "client CPU s",
                "cluster start s",
                "evaluate s",
                "submatrices/s",
                "speed-up",
            ],
            trows,
        )
    )
    if same is not None:
        print(f"\nrows identical in-process and on Dask: {same}")

    s = ref.constants_dict()
    prow = []
    for k, paper in PAPER.items():
        m, se = s[k]["mean_000"], s[k]["se_000"]
        prow.append(
            (LABELS[k], f"{paper:.2g}", f"{m:.4g}", f"{se:.3g}", f"{m / paper:.3f}", f"{(m - paper) / se:+.1f}")
        )
    print()
    print(_table(["constant (000's unit)", "paper", "mean", "s.e.", "mean/paper", "(mean-paper)/s.e."], prow))
    print()
    print(ref.summary())

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "meta": {
            "benchmark": "table1",
            "boundcalc_version": boundcalc.__version__,
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "data": path.name,
            "parameters": {k: v for k, v in vars(args).items() if k not in ("out", "progress")},
        },
        "order": order,
        "timings": {
            name: {
                "wall_seconds": wall[name],
                "client_cpu_seconds": cpu[name],
                "workers": res.stats["workers"],
                "chunk_size": res.stats["chunk_size"],
                "seconds_draw": res.stats["seconds_draw"],
                "seconds_cluster": res.stats["seconds_cluster"],
                "seconds_evaluate": res.stats["seconds_evaluate"],
            }
            for name, res in runs.items()
        },
        "identical_rows": same,
        "draw": {"drawn": ref.stats["drawn"], "acceptance_rate": ref.stats["acceptance_rate"]},
        "paper": {k: {"paper": PAPER[k], "mean": s[k]["mean_000"], "se": s[k]["se_000"]} for k in PAPER},
        "constants": ref.constants,
        "errors": ref.stats["errors"],
    }
    out.write_text(json.dumps(record, indent=2))
    print(f"\nwrote {out}")
    return 0 if (same is not False and ref.stats["errors"] == 0) else 1


if __name__ == "__main__":
    sys.exit(main())
