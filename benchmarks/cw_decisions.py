"""The long decision check of CW-RMED: the pairs it chooses on Figure 1's panels over long runs, this
checkout against an older one (a faster LP core must leave every decision as it was).

``tests/policy_decisions.py`` pins 3,000 steps of four small streams; the LP core's degenerate
vertices (a different solve path lands on another optimal vertex) show up later and on larger
matrices, so this script records, per case (an example's name, or ``mslr64``: the 64-arm MSLR
submatrix of ``benchmarks/policies.py``), the SHA-256 of every pair of one long run (the policy's
own loop, :meth:`~boundcalc.policies.Policy.run` against the matrix with ``seed = 0``: outcomes from
the simulator's duel stream) and of the whole-run kernel's regret curve and counters
(``simulate(..., seed=0)``: the path the benchmarks time), each checkout in its own process.

    python3 benchmarks/cw_decisions.py --landed /work/main [--cases fig1a:100000,fig1c:10000,mslr64:10000]
        [--out benchmarks/results/cw_speed/cw_decisions.json]

The landed checkout's runs are kept in the output and reused while its commit is the same (and its
tracked files clean).  Exit status 1 when any case differs (the counters of LP work, ``lp_solves`` and ``warm_answers``,
may differ: they count HiGHS runs, not decisions).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _results import write_result  # benchmarks/_results.py (the script's own directory is on sys.path)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

WORKER = r"""
import hashlib, json, time
import numpy as np
from boundcalc.datasets import load_example
from boundcalc.policies import make_policy
from boundcalc.simulate import simulate
name, steps = {name!r}, {steps!r}
if name == "mslr64":  # benchmarks/policies.py's 64-arm MSLR submatrix (gaps down to 1e-6)
    import sys
    sys.path.insert(0, {bench!r})
    from boundcalc.matrix import PreferenceMatrix
    from policies import mslr_submatrix
    pm = PreferenceMatrix(np.array(mslr_submatrix(64, 64, 1e-6)))
else:
    pm = load_example(name)
t0 = time.process_time()
pol = make_policy("cw-rmed", pm.K, rng=np.random.default_rng(0))
pairs, won = pol.run(pm.mu, steps, seed=0)
cpu_loop = time.process_time() - t0
t0 = time.process_time()
r = simulate(pm, ["cw-rmed"], horizon=steps, runs=1, seed=0, bounds=False, workers=0)
cpu_sim = time.process_time() - t0
p = r.policies[0]
reg = np.ascontiguousarray(np.asarray(p.regret[r.units[0]], dtype=float))
print(json.dumps(dict(
    pairs=hashlib.sha256(np.ascontiguousarray(pairs, dtype=np.int64).tobytes()).hexdigest(),
    wins=int(won.sum()),
    loop_stats={{k: int(v) for k, v in pol.stats.items()}},
    regret=float(reg[0, -1]),
    curve=hashlib.sha256(reg.tobytes()).hexdigest(),
    stats={{k: int(v) for k, v in p.stats.items()}},
    cpu_loop=cpu_loop,
    cpu_simulate=cpu_sim,
)))
"""

#: Counters of LP work (HiGHS runs, answers without one): a faster LP core may change them.
#: ``check_bound`` too: check (3) is evaluated again when a decision resumes after Python's LP (the
#: resumed check answered by its bound), so it counts those returns (fewer with the compiled simplex)
LP_WORK = ("lp_solves", "warm_answers", "check_bound")


def run_case(root: Path, name: str, steps: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root))
    if root.resolve() != ROOT:  # never write numba's cache into another checkout
        env.setdefault("NUMBA_CACHE_DIR", str(Path(os.environ.get("TMPDIR", "/tmp")) / "cw_decisions_numba"))
    out = subprocess.run(
        [sys.executable, "-c", WORKER.format(name=name, steps=steps, bench=str(HERE))],
        env=env,
        cwd=str(root),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def decisions(r: dict) -> tuple:
    """What two runs with the same pairs have equal."""
    drop = lambda s: {k: v for k, v in s.items() if k not in LP_WORK}  # noqa: E731
    return (r["pairs"], r["wins"], drop(r["loop_stats"]), r["regret"], r["curve"], drop(r["stats"]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--landed", required=True, help="the older checkout (its root directory)")
    ap.add_argument("--cases", default="fig1a:100000,fig1c:10000,mslr64:10000")
    ap.add_argument("--out", default=str(HERE / "results" / "cw_speed" / "cw_decisions.json"))
    a = ap.parse_args(argv)
    rows, bad = [], 0
    t0 = time.perf_counter()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=a.landed, capture_output=True, text=True).stdout.strip()
    out = Path(a.out)
    kept = {}  # the landed checkout's runs of an earlier call, when its commit is the same and clean
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], cwd=a.landed, capture_output=True, text=True
    ).stdout.strip()
    if out.exists() and head and not dirty:
        prev = json.loads(out.read_text())
        if prev.get("landed_commit") == head:
            kept = {(r["example"], r["steps"]): r["landed"] for r in prev["rows"]}
    for case in a.cases.split(","):
        name, steps = case.split(":")
        steps = int(steps)
        old = kept.get((name, steps)) or run_case(Path(a.landed), name, steps)
        new = run_case(ROOT, name, steps)
        same = decisions(old) == decisions(new)
        bad += not same
        rows.append(dict(example=name, steps=steps, same_decisions=same, landed=old, this=new))
        print(
            f"{name} {steps}: {'same' if same else 'DIFFERENT'} decisions; regret {new['regret']:.6f}"
            f" (landed {old['regret']:.6f}); lp_solves {new['stats'].get('lp_solves')}"
            f" (landed {old['stats'].get('lp_solves')}); simulate CPU {new['cpu_simulate']:.2f} s"
            f" (landed {old['cpu_simulate']:.2f} s)",
            flush=True,
        )
    write_result(out, rows=rows, landed=str(a.landed), landed_commit=head, wall_seconds=time.perf_counter() - t0)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
