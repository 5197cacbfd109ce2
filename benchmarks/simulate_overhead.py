"""What ``simulate()`` costs beyond its policy's whole-run kernel, at T = 10^5.

For each policy and matrix: the CPU of one whole ``simulate(pm, [policy], horizon=T, runs=1,
bounds=False, workers=0)`` call, and of the policy's whole-run kernel alone on the same horizon
(:meth:`~boundcalc.policies.kernel.CompiledPolicy.run_environment`, run 0's policy, duel keys and
regret units: the very run the call makes), each the
least of ``--repeat`` runs after a compiling run; their difference is the simulator's overhead (the
seeds, the policy and environment set-up, the checkpoints, the runner, the result), reported per
call and as a share of the kernel.  The policies are those whose whole call came nearest a C++ peer
(Interleaved Filter, Beat-the-Mean, Sparring, SAVAGE, RUCB); the matrices 001's 5-arm MSLR matrix
and the 16-arm MSLR submatrix of ``benchmarks/policies.py`` (``BOUNDCALC_SHARED``; left out when absent).

With ``--landed PATH`` each cell is also measured on the checkout at ``PATH`` (another tree of
this repository, e.g. the main branch): both trees run in child processes (``PYTHONPATH``), in
alternating rounds of ``--repeat`` calls, so that a shared machine's load falls on both alike; each
side keeps its least call and least kernel over all its rounds.

    python3 benchmarks/simulate_overhead.py [--repeat 5] [--landed /work/main --rounds 3]

Prints a table and writes ``benchmarks/results/simulate_overhead.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
POLICIES = ("interleaved-filter", "beat-the-mean", "sparring", "savage", "rucb")


def measure(name: str, mu: np.ndarray, T: int, repeat: int) -> dict:
    from boundcalc.matrix import PreferenceMatrix
    from boundcalc.policies import get_policy
    from boundcalc.policies.kernel import new_env
    from boundcalc.simulate import _new_policy, checkpoints, regret_matrices, run_seeds, simulate

    pm = PreferenceMatrix(mu)
    simulate(pm, [name], horizon=200, runs=1, seed=0, bounds=False, workers=0, progress=False)
    calls, kernels = [], []
    cps = checkpoints(T)
    regrets = np.stack(list(regret_matrices(pm).values()))
    k0, k1, _, _ = run_seeds(0, 0, name)
    for _ in range(repeat):
        c0 = time.process_time()
        simulate(pm, [name], horizon=T, runs=1, seed=0, bounds=False, workers=0, progress=False)
        calls.append(time.process_time() - c0)
        policy = _new_policy(get_policy(name), pm.K, run_seeds(0, 0, name)[2], {})  # run 0's policy and duels
        _, env = new_env(mu, T, k0, k1, cps, regrets)
        c0 = time.process_time()
        policy.run_environment(env)
        kernels.append(time.process_time() - c0)
    return summary(calls, kernels)


def matrices() -> dict[str, np.ndarray]:
    """The benchmark's matrices by name (the 16-arm one only where ``BOUNDCALC_SHARED`` has it)."""
    from policies import mslr_submatrix

    import boundcalc as bc

    out = {"mslr5-condorcet": np.array(bc.load_example("mslr5-condorcet").mu)}
    m16 = mslr_submatrix(16, 0)
    if m16 is not None:
        out["mslr16"] = np.array(m16)
    return out


def summary(calls: list[float], kernels: list[float]) -> dict:
    """The least call and least kernel of a cell's runs, and their difference: the overhead."""
    call, kernel = min(calls), min(kernels)
    return {
        "call_s": calls,
        "kernel_s": kernels,
        "overhead_ms": (call - kernel) * 1e3,
        "overhead_share": (call - kernel) / kernel,
    }


def in_tree(tree: str, name: str, matrix: str, horizon: int, repeat: int) -> dict:
    """:func:`measure` of one cell in a child process importing ``boundcalc`` from ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
    args = ["--cell", name, matrix, "--tree", str(Path(tree).resolve())]
    proc = subprocess.run(
        [sys.executable, __file__, *args, "--horizon", str(horizon), "--repeat", str(repeat)],
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode:
        raise SystemExit(f"{tree}: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compared(name: str, matrix: str, horizon: int, repeat: int, rounds: int, landed: str) -> dict:
    """One cell on this tree and on ``landed``, in alternating rounds of child processes."""
    sides: dict[str, dict[str, list[float]]] = {t: {"call_s": [], "kernel_s": []} for t in ("this", "landed")}
    trees = {"this": str(HERE.parent), "landed": landed}
    for r in range(rounds):
        for side in ("this", "landed") if r % 2 == 0 else ("landed", "this"):
            got = in_tree(trees[side], name, matrix, horizon, repeat)
            sides[side]["call_s"] += got["call_s"]
            sides[side]["kernel_s"] += got["kernel_s"]
    this = summary(sides["this"]["call_s"], sides["this"]["kernel_s"])
    return {**this, "landed": summary(sides["landed"]["call_s"], sides["landed"]["kernel_s"])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--horizon", type=int, default=100_000)
    ap.add_argument("--landed", help="another checkout to measure beside this one (child processes)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds per side with --landed")
    ap.add_argument("--cell", nargs=2, metavar=("POLICY", "MATRIX"), help=argparse.SUPPRESS)
    ap.add_argument("--tree", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(HERE / "results" / "simulate_overhead.json"))
    a = ap.parse_args()
    if a.tree:  # a child of --landed: this tree's boundcalc, not the script's
        sys.path.insert(0, a.tree)
    if a.cell:
        name, mname = a.cell
        print(json.dumps(measure(name, matrices()[mname], a.horizon, a.repeat)))
        return
    rows = []
    head = f"{'policy':20s} {'matrix':16s} {'call ms':>8s} {'kernel ms':>9s} {'overhead ms':>11s} {'share':>6s}"
    print(head + (f" {'landed ms':>9s} {'share':>6s}" if a.landed else ""))
    for mname, mu in matrices().items():
        for name in POLICIES:
            if a.landed:
                got = compared(name, mname, a.horizon, a.repeat, a.rounds, a.landed)
            else:
                got = measure(name, mu, a.horizon, a.repeat)
            r = {"policy": name, "matrix": mname, "K": int(mu.shape[0]), **got}
            rows.append(r)
            line = (
                f"{name:20s} {mname:16s} {min(r['call_s']) * 1e3:8.2f} {min(r['kernel_s']) * 1e3:9.2f} "
                f"{r['overhead_ms']:11.2f} {r['overhead_share']:6.0%}"
            )
            if a.landed:
                line += f" {r['landed']['overhead_ms']:9.2f} {r['landed']['overhead_share']:6.0%}"
            print(line, flush=True)
    meta = {"horizon": a.horizon, "repeat": a.repeat}
    if a.landed:
        meta |= {"landed": str(Path(a.landed).resolve()), "rounds": a.rounds}
    Path(a.out).write_text(json.dumps({**meta, "rows": rows}, indent=1) + "\n")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
