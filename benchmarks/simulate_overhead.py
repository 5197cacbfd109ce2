"""What ``simulate()`` costs beyond its policy's whole-run kernel, at T = 10^5.

For each policy and matrix: the CPU of one whole ``simulate(pm, [policy], horizon=T, runs=1,
bounds=False, workers=0)`` call, and of the policy's whole-run kernel alone on the same horizon
(:meth:`~boundcalc.policies.kernel.CompiledPolicy.run_environment`, run 0's policy, duel keys and
regret units: the very run the call makes), each the least of ``--repeat`` runs after a compiling
run; their difference is the simulator's overhead (the seeds, the policy and environment set-up,
the checkpoints, the runner, the result), reported per call and as a share of the kernel.

On a loaded machine the least call and the least kernel seldom fall on equally quiet moments, so
that difference also holds the kernel's own spread.  The call is therefore also split from within:
``in_call`` is, per call, its CPU outside its own kernel call (``run_environment`` timed inside
the call), the least over the calls; ``in_call_share`` is that over the least kernel.

The policies are those whose whole call came nearest a C++ peer (Interleaved Filter, Beat-the-Mean,
Sparring, SAVAGE, RUCB), or those of ``--policies`` (``all``: every registered one); the matrices
001's 5-arm MSLR matrix and the 16-arm MSLR submatrix of ``benchmarks/policies.py``
(``BOUNDCALC_SHARED``; left out when absent).

With ``--landed PATH`` every cell is also measured on the checkout at ``PATH`` (another tree of
this repository, e.g. the main branch): both trees run in child processes (``PYTHONPATH``), one per
tree and round, in alternating order for ``--rounds`` rounds of ``--repeat`` calls per cell, so
that a shared machine's load falls on both alike; each side keeps its least figures over all
rounds.

    python3 benchmarks/simulate_overhead.py [--repeat 5] [--landed /work/main --rounds 3] [--policies all]

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


def measure(name: str, mu: np.ndarray, T: int, repeat: int) -> dict[str, list[float]]:
    """``repeat`` calls of one cell: each call's CPU, its CPU outside its kernel, and the kernel's
    CPU alone on the same run."""
    from boundcalc.matrix import PreferenceMatrix
    from boundcalc.policies import get_policy
    from boundcalc.policies.kernel import CompiledPolicy, new_env
    from boundcalc.simulate import _new_policy, checkpoints, regret_matrices, run_seeds, simulate

    inner: list[float] = []
    cls = get_policy(name)
    own = "run_environment" in vars(cls)  # ECW-RMED and CW-RMED have their own
    plain = cls.run_environment

    def timed(policy: CompiledPolicy, env: object) -> None:
        c0 = time.process_time()
        plain(policy, env)
        inner.append(time.process_time() - c0)

    pm = PreferenceMatrix(mu)
    simulate(pm, [name], horizon=200, runs=1, seed=0, bounds=False, workers=0, progress=False)
    calls, outside, kernels = [], [], []
    cps = checkpoints(T)
    regrets = np.stack(list(regret_matrices(pm).values()))
    k0, k1, _, _ = run_seeds(0, 0, name)
    for _ in range(repeat):
        setattr(cls, "run_environment", timed)  # noqa: B010 (the policy's class, patched for the call)
        try:
            c0 = time.process_time()
            simulate(pm, [name], horizon=T, runs=1, seed=0, bounds=False, workers=0, progress=False)
            calls.append(time.process_time() - c0)
        finally:
            if own:
                setattr(cls, "run_environment", plain)  # noqa: B010
            else:
                delattr(cls, "run_environment")
        outside.append(calls[-1] - inner[-1])
        policy = _new_policy(get_policy(name), pm.K, run_seeds(0, 0, name)[2], {})  # run 0's policy and duels
        _, env = new_env(mu, T, k0, k1, cps, regrets)
        c0 = time.process_time()
        policy.run_environment(env)
        kernels.append(time.process_time() - c0)
    return {"call_s": calls, "outside_s": outside, "kernel_s": kernels}


def summary(got: dict[str, list[float]]) -> dict:
    """A cell's runs and their least figures: the call less the kernel (the overhead), and the
    least CPU a call spent outside its kernel."""
    call, kernel, outside = min(got["call_s"]), min(got["kernel_s"]), min(got["outside_s"])
    return {
        **got,
        "overhead_ms": (call - kernel) * 1e3,
        "overhead_share": (call - kernel) / kernel,
        "in_call_ms": outside * 1e3,
        "in_call_share": outside / kernel,
    }


def matrices() -> dict[str, np.ndarray]:
    """The benchmark's matrices by name (the 16-arm one only where ``BOUNDCALC_SHARED`` has it)."""
    from policies import mslr_submatrix

    import boundcalc as bc

    out = {"mslr5-condorcet": np.array(bc.load_example("mslr5-condorcet").mu)}
    m16 = mslr_submatrix(16, 0)
    if m16 is not None:
        out["mslr16"] = np.array(m16)
    return out


def policy_list(text: str | None) -> list[str]:
    """The policies of ``--policies`` (comma-separated names, or ``all``); :data:`POLICIES` without it."""
    if not text:
        return list(POLICIES)
    from boundcalc.policies import resolve_policy_list

    return resolve_policy_list(text)


def cells(policies: list[str]) -> list[tuple[str, str]]:
    return [(name, mname) for mname in matrices() for name in policies]


def measure_all(horizon: int, repeat: int, policies: list[str]) -> dict[str, dict[str, list[float]]]:
    """:func:`measure` of every cell, keyed ``policy matrix``."""
    mats = matrices()
    return {f"{n} {m}": measure(n, mats[m], horizon, repeat) for n, m in cells(policies)}


def in_tree(tree: str, horizon: int, repeat: int, policies: list[str]) -> dict[str, dict[str, list[float]]]:
    """:func:`measure_all` in a child process importing ``boundcalc`` from ``tree``."""
    tree = str(Path(tree).resolve())
    proc = subprocess.run(
        [sys.executable, __file__, "--tree", tree, "--horizon", str(horizon), "--repeat", str(repeat)]
        + ["--policies", ",".join(policies)],
        env=dict(os.environ, PYTHONPATH=tree),
        capture_output=True,
        text=True,
    )
    if proc.returncode:
        raise SystemExit(f"{tree}: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compared(horizon: int, repeat: int, rounds: int, landed: str, policies: list[str]) -> dict[str, dict]:
    """Every cell on this tree and on ``landed``, one child process per tree and round."""
    trees = {"this": str(HERE.parent), "landed": landed}
    runs: dict[str, dict[str, dict[str, list[float]]]] = {"this": {}, "landed": {}}
    for r in range(rounds):
        for side in ("this", "landed") if r % 2 == 0 else ("landed", "this"):
            for cell, got in in_tree(trees[side], horizon, repeat, policies).items():
                mine = runs[side].setdefault(cell, {k: [] for k in got})
                for k, v in got.items():
                    mine[k] += v
            print(f"round {r + 1}/{rounds}: {side} measured", file=sys.stderr, flush=True)
    return {cell: {**summary(got), "landed": summary(runs["landed"][cell])} for cell, got in runs["this"].items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--horizon", type=int, default=100_000)
    ap.add_argument("--landed", help="another checkout to measure beside this one (child processes)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds per side with --landed")
    ap.add_argument("--policies", help="comma-separated policy names, or 'all' (default: the five of the module text)")
    ap.add_argument("--tree", help=argparse.SUPPRESS)  # a child of --landed: measure, print JSON
    ap.add_argument("--out", default=str(HERE / "results" / "simulate_overhead.json"))
    a = ap.parse_args()
    if a.tree:
        sys.path.insert(0, a.tree)  # this tree's boundcalc, not the script's
        print(json.dumps(measure_all(a.horizon, a.repeat, policy_list(a.policies))))
        return
    policies = policy_list(a.policies)
    if a.landed:
        got = compared(a.horizon, a.repeat, a.rounds, a.landed, policies)
    else:
        got = {cell: summary(m) for cell, m in measure_all(a.horizon, a.repeat, policies).items()}
    mats = matrices()
    rows = []
    head = f"{'policy':20s} {'matrix':16s} {'call ms':>8s} {'kernel ms':>9s} {'overhead ms':>11s} {'share':>6s}"
    head += f" {'in-call ms':>10s} {'share':>6s}"
    print(head + (f" {'landed: overhead':>16s} {'share':>6s} {'in-call':>7s} {'share':>6s}" if a.landed else ""))
    for name, mname in cells(policies):
        r = {"policy": name, "matrix": mname, "K": int(mats[mname].shape[0]), **got[f"{name} {mname}"]}
        rows.append(r)
        line = (
            f"{name:20s} {mname:16s} {min(r['call_s']) * 1e3:8.2f} {min(r['kernel_s']) * 1e3:9.2f} "
            f"{r['overhead_ms']:11.2f} {r['overhead_share']:6.0%} {r['in_call_ms']:10.2f} {r['in_call_share']:6.0%}"
        )
        if a.landed:
            la = r["landed"]
            line += f" {la['overhead_ms']:16.2f} {la['overhead_share']:6.0%} {la['in_call_ms']:7.2f} {la['in_call_share']:6.0%}"
        print(line, flush=True)
    meta = {"horizon": a.horizon, "repeat": a.repeat, "policies": policies}
    if a.landed:
        meta |= {"landed": str(Path(a.landed).resolve()), "rounds": a.rounds}
    Path(a.out).write_text(json.dumps({**meta, "rows": rows}, indent=1) + "\n")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
