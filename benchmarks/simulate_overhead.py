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

    python3 benchmarks/simulate_overhead.py [--repeat 5]

Prints a table and writes ``benchmarks/results/simulate_overhead.json``.
"""

from __future__ import annotations

import argparse
import json
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
    call, kernel = min(calls), min(kernels)
    return {
        "call_s": calls,
        "kernel_s": kernels,
        "overhead_ms": (call - kernel) * 1e3,
        "overhead_share": (call - kernel) / kernel,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--horizon", type=int, default=100_000)
    ap.add_argument("--out", default=str(HERE / "results" / "simulate_overhead.json"))
    a = ap.parse_args()
    from policies import mslr_submatrix

    import boundcalc as bc

    matrices = {"mslr5-condorcet": bc.load_example("mslr5-condorcet").mu}
    m16 = mslr_submatrix(16, 0)
    if m16 is not None:
        matrices["mslr16"] = np.array(m16)
    rows = []
    print(f"{'policy':20s} {'matrix':16s} {'call ms':>8s} {'kernel ms':>9s} {'overhead ms':>11s} {'share':>6s}")
    for mname, mu in matrices.items():
        for name in POLICIES:
            r = {"policy": name, "matrix": mname, "K": int(mu.shape[0]), **measure(name, mu, a.horizon, a.repeat)}
            rows.append(r)
            print(
                f"{name:20s} {mname:16s} {min(r['call_s']) * 1e3:8.2f} {min(r['kernel_s']) * 1e3:9.2f} "
                f"{r['overhead_ms']:11.2f} {r['overhead_share']:6.0%}",
                flush=True,
            )
    Path(a.out).write_text(json.dumps({"horizon": a.horizon, "repeat": a.repeat, "rows": rows}, indent=1) + "\n")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
