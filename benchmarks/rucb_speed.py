"""RUCB's whole-run kernel on the 16-arm MSLR submatrix of ``benchmarks/policies.py`` (K = 16, seed 0):
CPU microseconds per step of ``simulate(..., runs=3, horizon=10^5)``, this checkout against another
(``--landed DIR``, e.g. ``git archive main | tar -x -C /tmp/main``), each measured in its own process,
interleaved, so that a busy machine slows both alike; beside the C++ figure the issue quotes for
the RMED authors' library on that matrix (1.39 us a step).

    BOUNDCALC_SHARED=/path/to/shared python3 benchmarks/rucb_speed.py --landed DIR [--repeat 5]

Prints a table and writes ``benchmarks/results/rucb_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: The RMED authors' C++ (``jkomiyama/duelingbanditlib``) on this matrix, as quoted beside the kernel.
CPP_US = 1.39

PROBE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from policies import mslr_submatrix, _kernel
m16 = mslr_submatrix(16, 0)
if m16 is None:
    raise SystemExit("the MSLR informational matrix is absent: set BOUNDCALC_SHARED")
print(json.dumps(_kernel("rucb", m16, 100_000, 3) * 1e6))
"""


def probe(path: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(path))
    p = subprocess.run([sys.executable, "-c", PROBE, str(HERE)], env=env, capture_output=True, text=True, cwd=str(path))
    if p.returncode:
        raise RuntimeError(p.stderr[-2000:])
    return float(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--landed", required=True, help="the checkout to compare with")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=str(HERE / "results" / "rucb_speed.json"))
    a = ap.parse_args()
    versions = {"this": HERE.parent, "landed": Path(a.landed).resolve()}
    us: dict[str, list[float]] = {v: [] for v in versions}
    for r in range(a.repeat):
        for v, path in versions.items():
            us[v].append(probe(path))
            print(f"run {r + 1} {v:7s} {us[v][-1]:.3f} us a step", flush=True)
    rows = {v: {"us": xs, "min": min(xs), "median": statistics.median(xs)} for v, xs in us.items()}
    for v, row in rows.items():
        print(f"{v:7s} min {row['min']:.3f}  median {row['median']:.3f}  C++ / this {CPP_US / row['min']:.2f}x")
    Path(a.out).write_text(
        json.dumps(
            {
                "matrix": "mslr16 (benchmarks/policies.py, seed 0)",
                "horizon": 100_000,
                "runs": 3,
                "cpp_us_quoted": CPP_US,
                "rows": rows,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
