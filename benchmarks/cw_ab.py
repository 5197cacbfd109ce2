"""CW-RMED's CPU per run, this checkout against an older one, interleaved: on a shared machine the
load changes within minutes, so each repetition runs both versions back to back (in their own
processes, the order alternating) and the table keeps every run, the smallest of each and the
ratio of the smallest (``benchmarks/policies.py`` runs one version's rows, then the other's).

Each run: ``simulate(example, ["cw-rmed"], horizon=steps, runs=1, seed=0)`` after a 200-step run that
loads the compiled kernels; CPU by ``time.process_time``; the final regret is recorded too (the
decisions must be the same: equal regrets to the last digit, the same regret curve and the same
counters but those of LP work, :data:`LP_WORK`).

    python3 benchmarks/cw_ab.py --landed DIR [--cases table2:100000,fig1a:100000,mslr16:100000,fig1c:20000:2]
        (cases: an example's name, ``mslr16`` or ``mslr64``: benchmarks/policies.py's MSLR submatrices)
        [--reps 3] [--out benchmarks/results/cw_speed/cw_ab.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from _results import write_result  # benchmarks/_results.py (the script's own directory is on sys.path)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

WORKER = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, {bench!r})
from boundcalc.simulate import simulate
from boundcalc.matrix import PreferenceMatrix
name, steps = {name!r}, {steps!r}
if name == "mslr16":
    from policies import mslr_submatrix
    pm = PreferenceMatrix(np.array(mslr_submatrix(16, 16, 0.005)))
elif name == "mslr64":  # benchmarks/policies.py's 64-arm MSLR submatrix (gaps down to 1e-6)
    from policies import mslr_submatrix
    pm = PreferenceMatrix(np.array(mslr_submatrix(64, 64, 1e-6)))
else:
    from boundcalc.datasets import load_example
    pm = load_example(name)
simulate(pm, ["cw-rmed"], horizon=200, runs=1, seed=0, bounds=False, workers=0)
t0 = time.process_time()
r = simulate(pm, ["cw-rmed"], horizon=steps, runs=1, seed=0, bounds=False, workers=0)
cpu = time.process_time() - t0
p = r.policies[0]
reg = np.ascontiguousarray(np.asarray(p.regret[r.units[0]], dtype=float))
import hashlib
print(json.dumps(dict(cpu=cpu, regret=float(reg[0, -1]), curve=hashlib.sha256(reg.tobytes()).hexdigest(), stats=p.stats)))
"""

#: CW-RMED's counters that count LP work, not decisions: HiGHS runs and line-11 answers given
#: without one (a faster LP core changes them with the same pairs); every other counter, the final
#: regret and the whole stored regret curve (its SHA-256) must be equal for "the same decisions".
#: ``check_bound`` too: check (3) is evaluated again when a decision resumes after Python's LP (the
#: resumed check answered by its bound), so it counts those returns (fewer with the compiled simplex)
LP_WORK = ("lp_solves", "warm_answers", "check_bound")


def decisions(r: dict) -> tuple:
    """What must be equal in two runs that chose the same pairs."""
    return (r["regret"], r.get("curve"), {k: v for k, v in r["stats"].items() if k not in LP_WORK})


def run(tree: Path, name: str, steps: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    if tree.resolve() != ROOT:  # numba's cache of another checkout's kernels kept apart (never written there)
        env.setdefault("NUMBA_CACHE_DIR", str(Path(os.environ.get("TMPDIR", "/tmp")) / "cw_ab_numba"))
    code = WORKER.format(bench=str(HERE), name=name, steps=steps)
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=str(tree), capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{tree} {name}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--landed", required=True, help="the older checkout")
    ap.add_argument("--cases", default="table2:100000,fig1a:100000,mslr16:100000,fig1c:20000")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=str(HERE / "results" / "cw_speed" / "cw_ab.json"))
    a = ap.parse_args()
    landed = Path(a.landed).resolve()
    rows = []
    print(f"{'case':14s} {'steps':>7s} {'now s (runs)':>28s} {'landed s (runs)':>28s} {'min ratio':>9s} same")
    for case in a.cases.split(","):
        name, steps, *more = case.split(":")  # name:steps[:reps]
        steps = int(steps)
        reps = int(more[0]) if more else a.reps
        now, old = [], []
        for rep in range(reps):
            order = [("now", ROOT), ("landed", landed)][:: 1 if rep % 2 == 0 else -1]
            for label, tree in order:
                (now if label == "now" else old).append(run(tree, name, steps))
        same = all(decisions(r) == decisions(old[0]) for r in now + old)
        cn, co = [r["cpu"] for r in now], [r["cpu"] for r in old]
        row = dict(
            case=name,
            steps=steps,
            reps=reps,
            now_cpu=cn,
            landed_cpu=co,
            now_min=min(cn),
            landed_min=min(co),
            ratio_of_min=min(cn) / min(co),
            same_decisions=same,
            regret=now[0]["regret"],
            stats=now[0]["stats"],
            landed_stats=old[0]["stats"],
        )
        rows.append(row)
        f = lambda xs: " ".join(f"{x:.2f}" for x in xs)  # noqa: E731
        print(f"{name:14s} {steps:7d} {f(cn):>28s} {f(co):>28s} {row['ratio_of_min']:9.2f} {same}", flush=True)
    write_result(
        a.out,
        rows=rows,
        landed=str(landed),
        reps=a.reps,
        compared=f"regret, regret curve, counters but {', '.join(LP_WORK)}",
    )


if __name__ == "__main__":
    main()
