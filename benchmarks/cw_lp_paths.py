"""CW-RMED's LP on the LP core's compiled kernels or on their numpy twins (with the basis inverse run
interpreted, ``basis_matrix.py_func``): which is faster end to end.

``boundcalc.lp.rule.COMPILED_MIN_ARMS`` chooses, by the number of arms, whether the plain LP of line 11 runs
the LP core's compiled kernels (:mod:`boundcalc.kernels.lp`: the oracle's rows, the empirical
structure, the certificate; the basis inverse) or their numpy twins (the inverse interpreted); that path saves their compilation on an empty
cache (about 1 s of CPU).  This script runs CW-RMED's whole-run kernel (``Policy.run`` on the
matrix, the simulator's duel stream) both ways on the same seeded stream, in one process, after a
short run each way that compiles / loads everything outside the clock, and prints the CPU seconds
(``time.process_time``, best of ``--repeat``) and whether the pairs are identical (they must be: the
two paths are tested equal bit for bit).  Beside it, **end to end**: the same run as the first work
of a fresh process with numba's cache warm (the run kernel loaded before the clock starts, as both
paths need it), so that the compiled path's one-time loading of the LP core's kernels from the cache
counts, as it does in every ``simulate`` command.  Matrices: 000's Table 2 (K = 4), 001's 5-arm MSLR matrix
without a Condorcet winner, and 6-, 8-, 12- and 16-arm MSLR informational submatrices (``../shared``;
skipped when absent).  Writes ``benchmarks/results/cw_lp_paths.json``.

    python3 benchmarks/cw_lp_paths.py [--steps 100000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))


def _run(mu: np.ndarray, steps: int, compiled: bool, seed: int = 3) -> tuple[float, np.ndarray, dict]:
    from boundcalc.lp import rule
    from boundcalc.policies.cw_rmed import CWRMED

    saved = rule.COMPILED_MIN_ARMS
    rule.COMPILED_MIN_ARMS = 0 if compiled else 10**9  # the size rule's two ends
    try:
        pol = CWRMED(mu.shape[0], rng=np.random.default_rng(seed))
    finally:
        rule.COMPILED_MIN_ARMS = saved
    assert pol.solver.compiled == (compiled and mu.shape[0] < rule.LIFTED_MIN_ARMS)
    t0 = time.process_time()
    pairs, _ = pol.run(mu, steps, seed=seed)
    return time.process_time() - t0, pairs, dict(pol.stats)


def _fresh(mu: np.ndarray, steps: int, compiled: bool) -> float:
    """CPU seconds of the run as the first work of a new process (see the module text)."""
    code = (
        "import json, sys, time, numpy as np; sys.path.insert(0, sys.argv[1]); from cw_lp_paths import _run; "
        "mu = np.array(json.loads(sys.argv[2])); _run(mu, 1, True); t = time.process_time(); "
        "_run(mu, int(sys.argv[3]), sys.argv[4] == '1'); print(time.process_time() - t)"
    )
    args = [
        sys.executable,
        "-c",
        code,
        str(ROOT / "benchmarks"),
        json.dumps(mu.tolist()),
        str(steps),
        str(int(compiled)),
    ]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return float(out.split()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "cw_lp_paths.json"))
    a = ap.parse_args()
    from policies import mslr_submatrix

    from boundcalc.datasets import load_example

    mats = {
        "table2 (K = 4)": load_example("table2").mu,
        "mslr5-noncondorcet (K = 5)": load_example("mslr5-noncondorcet").mu,
    }
    for K in (6, 8, 12, 16):
        sub = mslr_submatrix(K, seed=K)
        if sub is not None:
            mats[f"mslr K = {K}"] = np.array(sub)
    for compiled in (True, False):  # compile / load outside the clock
        _run(mats["table2 (K = 4)"], 300, compiled)
    rows = []
    print(
        f"{'matrix':28s} {'steps':>7s} {'compiled s':>11s} {'numpy s':>9s} {'numpy/comp':>10s} {'lp_solves':>9s} "
        f"{'same pairs':>10s} {'fresh comp':>10s} {'fresh numpy':>11s}"
    )
    for label, mu in mats.items():
        best = {}
        for compiled in (True, False):
            times = []
            for _ in range(a.repeat):
                sec, pairs, stats = _run(mu, a.steps, compiled)
                times.append(sec)
            best[compiled] = (min(times), pairs, stats)
        same = bool(np.array_equal(best[True][1], best[False][1])) and best[True][2] == best[False][2]
        fresh = (
            {c: min(_fresh(mu, a.steps, c) for _ in range(a.repeat)) for c in (True, False)} if mu.shape[0] <= 8 else {}
        )
        row = dict(
            matrix=label,
            K=int(mu.shape[0]),
            steps=a.steps,
            compiled_cpu_s=round(best[True][0], 4),
            numpy_cpu_s=round(best[False][0], 4),
            ratio=round(best[False][0] / best[True][0], 3),
            lp_solves=int(best[True][2]["lp_solves"]),
            same_pairs=same,
            fresh_process_compiled_cpu_s=round(fresh[True], 4) if fresh else None,
            fresh_process_numpy_cpu_s=round(fresh[False], 4) if fresh else None,
        )
        rows.append(row)
        print(
            f"{label:28s} {a.steps:7d} {row['compiled_cpu_s']:11.3f} {row['numpy_cpu_s']:9.3f} "
            f"{row['ratio']:10.3f} {row['lp_solves']:9d} {str(same):>10s} "
            + (f"{fresh[True]:10.3f} {fresh[False]:11.3f}" if fresh else f"{'-':>10s} {'-':>11s}")
        )
    Path(a.out).write_text(
        json.dumps(dict(machine=platform.platform(), python=platform.python_version(), rows=rows), indent=1) + "\n"
    )
    if not all(r["same_pairs"] for r in rows):
        raise SystemExit("the two paths chose different pairs")


if __name__ == "__main__":
    main()
