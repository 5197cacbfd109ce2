"""RCS's whole-run kernel beside the C++ figures quoted for it, and what both spend on random numbers.

RCS (Zoghi et al., WSDM 2014) draws a simulated tournament every round: ``K (K - 1) / 2`` Beta
variates, each two Gamma variates.  Its C++ (``Alg_RCS.cpp`` of the D-TS authors' library, quoted
in ``benchmarks/policies.py``: 1.75 us a step at K = 5, 19.1 at K = 16, g++ -O2, its simulator
included) draws the same with ``std::gamma_distribution<>`` on ``std::mt19937``, and its simulator
draws the round's whole ``beat`` matrix, ``K (K + 1) / 2`` ``rand()`` calls.  Per cell of
``benchmarks/policies.py`` (001's two 5-arm MSLR matrices, the 16-arm MSLR submatrix; the latter
only with ``BOUNDCALC_SHARED``):

* **kernel**: CPU microseconds per step of ``simulate(..., runs=R, horizon=T)`` (RCS's whole-run
  kernel, ``benchmarks/policies.py``'s ``_kernel``), in this checkout and, with ``--landed DIR``,
  in another, each in its own process, interleaved over ``--repeat`` rounds (least of each side);
* **draws**: the same run's random numbers alone -- a compiled loop replaying one run of RCS (its
  pairs and outcomes from :meth:`~boundcalc.policies.Policy.run` on the matrix) that makes, per
  round, the tournament's Beta draws on that round's counts (:func:`~boundcalc.kernels.stats.held_beta`,
  as :func:`~boundcalc.kernels.rcs.rcs_select` makes them) and the duel's uniform
  (:func:`~boundcalc.kernels.stats.duel_uniform`), and nothing else: the kernel's random-number
  floor, and its share of the kernel's step on the same run;
* **C++ draws** (with ``--cxx``, default ``g++``): the same replay in C++, written here (standard
  library only, ``-O2``): per round ``K (K + 1) / 2`` ``rand()`` calls for the simulator's ``beat``
  matrix and the tournament's ``2 x K (K - 1) / 2`` ``std::gamma_distribution<>(W + 1, 2.0)``
  draws on ``std::mt19937`` as the peer makes them -- the C++'s random-number floor, beside its
  quoted step.

    BOUNDCALC_SHARED=/path/to/shared python3 benchmarks/rcs_speed.py --landed DIR [--repeat 3]

Prints a table and writes ``benchmarks/results/rcs_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

#: The C++ figures of RCS quoted beside the kernel (``benchmarks/policies.py``'s ``CPP``), by K.
CPP_US = {5: 1.75, 16: 19.1}

PROBE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from policies import _kernel
print(json.dumps(_kernel("rcs", json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])) * 1e6))
"""

CXX_FLOOR = r"""
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <vector>

// argv: K, T, a file of T rounds (i, j, i won) as int64 triples; prints CPU microseconds per round
int main(int argc, char** argv) {
    int K = std::atoi(argv[1]);
    long T = std::atol(argv[2]);
    std::vector<long long> log(3 * T);
    FILE* f = std::fopen(argv[3], "rb");
    if (!f || std::fread(log.data(), sizeof(long long), 3 * T, f) != (size_t)(3 * T)) return 2;
    std::fclose(f);
    std::vector<std::vector<double>> W(K, std::vector<double>(K, 0.0));
    std::vector<std::vector<int>> beat(K, std::vector<int>(K, 0));
    std::mt19937 engine(12345);
    std::srand(12345);
    double sink = 0.0;
    std::clock_t c0 = std::clock();
    for (long t = 0; t < T; t++) {
        for (int a = 0; a < K; a++) {  // the simulator's beat matrix
            for (int b = 0; b < a; b++) {
                beat[a][b] = int(double(std::rand()) / RAND_MAX < 0.5);
                beat[b][a] = 1 - beat[a][b];
            }
            beat[a][a] = int(double(std::rand()) / RAND_MAX < 0.5);
        }
        for (int a = 0; a < K; a++) {  // the tournament
            for (int b = 0; b < a; b++) {
                std::gamma_distribution<> g1(W[a][b] + 1.0, 2.0);
                std::gamma_distribution<> g2(W[b][a] + 1.0, 2.0);
                double x = g1(engine);
                double y = g2(engine);
                sink += x / (x + y);
            }
        }
        long long i = log[3 * t], j = log[3 * t + 1], won = log[3 * t + 2];
        if (i != j) {
            if (won) W[i][j] += 1.0; else W[j][i] += 1.0;
        }
        sink += beat[0][0];
    }
    double us = 1e6 * double(std::clock() - c0) / CLOCKS_PER_SEC / double(T);
    std::printf("%.6f %g\n", us, sink);
    return 0;
}
"""


def cells() -> dict[str, list[list[float]]]:
    """The matrices of ``benchmarks/policies.py``'s RCS rows (the 16-arm one with ``BOUNDCALC_SHARED``)."""
    from policies import mslr_submatrix

    import boundcalc as bc

    out = {name: np.array(bc.load_example(name).mu).tolist() for name in ("mslr5-condorcet", "mslr5-noncondorcet")}
    m16 = mslr_submatrix(16, 0)
    if m16 is not None:
        out["mslr16"] = m16
    return out


def kernel_us(tree: Path, mu: list[list[float]], horizon: int, runs: int) -> float:
    """RCS's kernel, CPU microseconds per step, in a process importing ``boundcalc`` from ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    p = subprocess.run(
        [sys.executable, "-c", PROBE, str(HERE), json.dumps(mu), str(horizon), str(runs)],
        env=env,
        capture_output=True,
        text=True,
        cwd=str(tree),
    )
    if p.returncode:
        raise RuntimeError(p.stderr[-2000:])
    return float(p.stdout.strip().splitlines()[-1])


def one_run(mu: np.ndarray, horizon: int) -> tuple[np.ndarray, float]:
    """One run of RCS on ``mu`` (policy stream seed 1, duel keys of seed 2): its log (pairs and
    outcomes, ``T x 3``) and the CPU microseconds per step of its whole-run kernel."""
    from boundcalc.kernels.policy import new_env
    from boundcalc.policies import get_policy

    cls = get_policy("rcs")
    K = mu.shape[0]
    k0, k1 = (int(x) for x in np.random.SeedSequence(2).generate_state(2, np.uint64))
    pairs, won = cls.with_stream(K, 1, rng=np.random.default_rng(0)).run(mu, horizon, seed=2)
    best = float("inf")
    for _ in range(3):
        policy = cls.with_stream(K, 1, rng=np.random.default_rng(0))
        _, env = new_env(mu, horizon, k0, k1, np.zeros(0, dtype=np.int64), np.zeros((0, K, K)))
        c0 = time.process_time()
        policy.run_environment(env)
        best = min(best, time.process_time() - c0)
    log = np.column_stack([pairs, won.astype(np.int64)]).astype(np.int64)
    return log, best / horizon * 1e6


def draws_us(mu: np.ndarray, log: np.ndarray) -> float:
    """CPU microseconds per step of RCS's random numbers alone on the run ``log`` (module text)."""
    from numba import njit

    from boundcalc.kernels.stats import duel_uniform, held_beta

    @njit(cache=False)
    def replay(K, log, state, spare):
        W = np.zeros((K, K), dtype=np.int64)
        counts = np.zeros(K * K, dtype=np.int64)
        g = (state[0], spare[0] != 0.0, spare[1])
        sink = 0.0
        for t in range(log.shape[0]):
            for i in range(K):  # the tournament, as rcs_select draws it
                for j in range(i + 1, K):
                    g, x = held_beta(g, W[i, j] + 1.0, W[j, i] + 1.0)
                    sink += x
            i, j, won = log[t, 0], log[t, 1], log[t, 2]
            lo = j if j < i else i
            hi = j if j > i else i
            code = lo * K + hi
            sink += duel_uniform(np.uint64(1), np.uint64(2), code, counts[code])  # the duel's draw
            counts[code] += 1
            if i != j:
                if won:
                    W[i, j] += 1
                else:
                    W[j, i] += 1
        return sink

    K = mu.shape[0]
    replay(K, log[:10], np.array([1], dtype=np.uint64), np.zeros(2))  # compile
    best = float("inf")
    for _ in range(3):
        c0 = time.process_time()
        replay(K, log, np.array([1], dtype=np.uint64), np.zeros(2))
        best = min(best, time.process_time() - c0)
    return best / log.shape[0] * 1e6


def cxx_draws_us(cxx: str, K: int, log: np.ndarray) -> float | None:
    """The C++ floor's CPU microseconds per step on ``log`` (module text); None without a compiler."""
    with tempfile.TemporaryDirectory() as tmp:
        src, exe, data = Path(tmp) / "floor.cpp", Path(tmp) / "floor", Path(tmp) / "log.bin"
        src.write_text(CXX_FLOOR)
        try:
            subprocess.run([cxx, "-O2", "-std=c++11", "-o", str(exe), str(src)], check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError):
            return None
        np.ascontiguousarray(log, dtype=np.int64).tofile(data)
        best = float("inf")
        for _ in range(3):
            out = subprocess.run(
                [str(exe), str(K), str(log.shape[0]), str(data)], check=True, capture_output=True, text=True
            )
            best = min(best, float(out.stdout.split()[0]))
        return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--landed", help="another checkout whose kernel is measured beside this one's")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--horizon", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--cxx", default="g++", help="the C++ compiler of the C++ floor ('' to skip it)")
    ap.add_argument("--out", default=str(HERE / "results" / "rcs_speed.json"))
    a = ap.parse_args()
    trees = {"this": HERE.parent} | ({"landed": Path(a.landed).resolve()} if a.landed else {})
    rows = []
    for name, mu in cells().items():
        K = len(mu)
        us: dict[str, list[float]] = {v: [] for v in trees}
        for r in range(a.repeat):
            for v, tree in trees.items() if r % 2 == 0 else reversed(trees.items()):
                us[v].append(kernel_us(tree, mu, a.horizon, a.runs))
        arr = np.array(mu)
        log, run_us = one_run(arr, a.horizon)
        floor = draws_us(arr, log)
        cxx_floor = cxx_draws_us(a.cxx, K, log) if a.cxx else None
        row = {
            "matrix": name,
            "K": K,
            "kernel_us": min(us["this"]),
            "kernel_us_runs": us["this"],
            "cpp_us_quoted": CPP_US[K],
            "cpp_over_kernel": CPP_US[K] / min(us["this"]),
            "run_us": run_us,
            "draws_us": floor,
            "draws_share": floor / run_us,
            "cpp_draws_us": cxx_floor,
            "cpp_draws_share": None if cxx_floor is None else cxx_floor / CPP_US[K],
            "cpp_draws_over_draws": None if cxx_floor is None else cxx_floor / floor,
            "cpp_draws_over_run": None if cxx_floor is None else cxx_floor / run_us,
        }
        if "landed" in us:
            row |= {"landed_kernel_us": min(us["landed"]), "landed_kernel_us_runs": us["landed"]}
        rows.append(row)
        cx = "-" if cxx_floor is None else f"{cxx_floor:.2f} ({cxx_floor / CPP_US[K]:.0%})"
        print(
            f"{name:20s} K={K:2d} kernel {row['kernel_us']:.3f} us (C++ {CPP_US[K]} us: {row['cpp_over_kernel']:.2f}x)"
            + (f" landed {row['landed_kernel_us']:.3f}" if "landed" in us else "")
            + f"; one run {run_us:.3f}, its draws {floor:.3f} ({row['draws_share']:.0%}); C++ draws {cx}",
            flush=True,
        )
    meta = {
        "horizon": a.horizon,
        "runs": a.runs,
        "repeat": a.repeat,
        "landed": str(trees["landed"]) if "landed" in trees else None,
        "cxx": a.cxx or None,
        "machine": platform.machine(),
        "python": platform.python_version(),
    }
    Path(a.out).write_text(json.dumps({**meta, "rows": rows}, indent=1) + "\n")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
