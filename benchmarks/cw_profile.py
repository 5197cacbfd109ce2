"""Where CW-RMED's time goes: one run through ``simulate`` under cProfile, split into HiGHS's runs,
the rest of the LP core's Python (cutting-plane loop, row building, basis reads), the compiled
whole-run kernel (decisions between Python calls: check (3), Theorem 6, the warm-basis test), and
the rest (CW-RMED's Python side, loading bases, the simulator).

Categories, from cProfile's per-function *own* (tottime) CPU time:

* ``highs_run``: ``Highs.run`` (the simplex runs);
* ``highs_other``: every other highspy method (model edits, solution and basis reads,
  ``getBasisTransposeSolve``) and pybind11's own call records;
* ``lp_python``: functions defined in ``boundcalc/lp/`` (the cutting-plane loop, rows, the
  LP core's warm-basis test wrapper), and numpy called from there is counted under ``rest``
  (cProfile attributes a builtin's time to the builtin, not its caller);
* ``kernel``: the compiled functions (numba dispatchers show as one builtin call each);
* ``rest``: the remainder.

    python3 benchmarks/cw_profile.py [--panels a,c] [--steps 20000,5000] [--out benchmarks/results/cw_profile.json]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def classify(stats: pstats.Stats) -> dict:
    out = {"highs_run": 0.0, "highs_other": 0.0, "lp_python": 0.0, "kernel": 0.0, "rest": 0.0}
    calls = {"highs_run_calls": 0}
    for (fname, _, func), (_, nc, tt, _, _) in stats.stats.items():
        path = fname.replace(os.sep, "/")
        if (
            "highspy" in func or "pybind11" in func
        ):  # a pybind11 method: cProfile names it "<built-in method highspy._core.run>"
            key = "highs_run" if func.endswith(".run>") else "highs_other"
            if key == "highs_run":
                calls["highs_run_calls"] += nc
        elif "boundcalc/kernels/" in path:  # a numba dispatcher is profiled under its Python definition
            key = "kernel"
        elif "boundcalc/lp/" in path:
            key = "lp_python"
        else:
            key = "rest"
        out[key] += tt
    return {**out, **calls}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--panels", default="a,c")
    ap.add_argument("--steps", default="20000,5000")
    ap.add_argument("--out", default=str(HERE / "results" / "cw_profile.json"))
    ap.add_argument("--top", type=int, default=12)
    a = ap.parse_args()
    from figure1 import PANELS, shared_dir, submatrix

    from boundcalc.simulate import simulate

    path = shared_dir() / "data" / "public" / "nightingal3_MSLR_Informational_PMat.npz"
    with np.load(path) as z:
        full = np.asarray(z[z.files[0]], dtype=float)
    rows = []
    for key, steps in zip(a.panels.split(","), [int(s) for s in a.steps.split(",")]):
        _, K, condorcet, gap = PANELS[key]
        pm = submatrix(full, K, condorcet, gap, seed=1000 + K + int(condorcet))[0]
        simulate(pm, ["cw-rmed"], horizon=200, runs=1, seed=0, bounds=False, workers=0)  # compile
        prof = cProfile.Profile(time.process_time)
        t0 = time.process_time()
        prof.enable()
        simulate(pm, ["cw-rmed"], horizon=steps, runs=1, seed=0, bounds=False, workers=0)
        prof.disable()
        total = time.process_time() - t0
        st = pstats.Stats(prof)
        parts = classify(st)
        top = sorted(
            ((tt, nc, f"{Path(f).name}:{ln}({fn})") for (f, ln, fn), (_, nc, tt, _, _) in st.stats.items()),
            reverse=True,
        )[: a.top]
        row = dict(
            panel=key,
            K=K,
            steps=steps,
            cpu_seconds=total,
            parts=parts,
            top=[dict(function=n, calls=c, own_seconds=t) for t, c, n in top],
        )
        rows.append(row)
        print(f"panel ({key}) K = {K}, {steps} steps: {total:.2f} s CPU")
        for k, v in parts.items():
            print(f"  {k:12s} {v:10.2f}" if isinstance(v, float) else f"  {k:12s} {v:10d}")
        for t, c, n in top:
            print(f"    {t:8.2f} s {c:8d} calls  {n}")
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(dict(rows=rows, python=platform.python_version(), machine=platform.machine()), indent=1) + "\n"
    )
    print(f"written {out}")


if __name__ == "__main__":
    main()
