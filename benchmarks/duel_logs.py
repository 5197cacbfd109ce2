#!/usr/bin/env python
"""CPU time of the whole ``boundcalc bounds --duels LOG`` command on a 2,000,000-row log.

The logs are simulated (seeded): ``--arms`` arms with Bradley-Terry strengths evenly spaced in
[-3, 3], every duel between two arms drawn uniformly, one in ten a tie, written twice -- in the
arena layout (``model_a,model_b,winner`` with ``model_a`` / ``model_b`` / ``tie``) and in the
``a,b,winner`` layout (winner the arm's name, empty for a tie).  Each command runs as a child
process (``python -m boundcalc``, the installed command's code) and its CPU time is the child's
user + system time (``resource.getrusage(RUSAGE_CHILDREN)``): interpreter start, imports, reading
and counting the log, the estimate or the Bradley-Terry fit, and the lower bound's LP.  The median
of ``--repeats`` runs per command.  The target: under 3 s of CPU (6 s at most).
``--baseline DIR`` also times the ``a,b,winner`` command with another checkout's code (e.g. the
main branch: its reader parses every row with the csv module), stored as ``baseline``.

    python3 benchmarks/duel_logs.py [--rows 2000000] [--arms 60] [--repeats 3] [--baseline DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import write_result  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "duel_logs.json"


def write_logs(rows: int, arms: int, seed: int, where: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    names = np.array([f"model-{k:03d}" for k in range(arms)])
    strengths = np.linspace(3.0, -3.0, arms)
    i = rng.integers(0, arms, rows)
    j = (i + rng.integers(1, arms, rows)) % arms
    p = 1 / (1 + np.exp(strengths[j] - strengths[i]))
    u = rng.random(rows)
    outcome = np.where(u < 0.1, 2, np.where(rng.random(rows) < p, 0, 1))  # 0: a won, 1: b won, 2: tie
    arena = where / "arena.csv"
    plain = where / "duels.csv"
    a, b = names[i], names[j]
    arena_w = np.array(["model_a", "model_b", "tie"])[outcome]
    plain_w = np.where(outcome == 0, a, np.where(outcome == 1, b, ""))
    arena.write_text("model_a,model_b,winner\n" + "".join(f"{x},{y},{w}\n" for x, y, w in zip(a, b, arena_w)))
    plain.write_text("a,b,winner\n" + "".join(f"{x},{y},{w}\n" for x, y, w in zip(a, b, plain_w)))
    return arena, plain


def child_cpu(args: list[str], env: dict) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-m", "boundcalc", *args], capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"boundcalc {' '.join(args)} failed: {proc.stderr.strip()}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--arms", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--baseline", type=Path, default=None, help="another checkout to time the a,b,winner log with")
    args = ap.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        arena, plain = write_logs(args.rows, args.arms, args.seed, Path(tmp))
        sizes = {"arena": arena.stat().st_size, "duels": plain.stat().st_size}
        commands = {
            "arena layout, ties half": ["bounds", "--duels", str(arena), "--json"],
            "a,b,winner layout": ["bounds", "--duels", str(plain), "--json"],
            "arena layout, --model bradley-terry": [
                "bounds",
                "--duels",
                str(arena),
                "--model",
                "bradley-terry",
                "--json",
            ],
            "startup only (--version)": ["--version"],
        }
        for label, cmd in commands.items():
            times = [child_cpu(cmd, env) for _ in range(args.repeats)]
            results.append({"command": label, "cpu_seconds": times, "median": statistics.median(times)})
            print(f"{label:40s} {statistics.median(times):6.2f} s CPU (runs: {', '.join(f'{t:.2f}' for t in times)})")
        baseline = None
        if args.baseline is not None:
            env_b = dict(os.environ, PYTHONPATH=str(args.baseline.resolve()))
            cmd = ["bounds", "--duels", str(plain), "--json"]
            times = [child_cpu(cmd, env_b) for _ in range(args.repeats)]
            baseline = {"code": str(args.baseline), "command": "a,b,winner layout", "cpu_seconds": times}
            baseline["median"] = statistics.median(times)
            print(f"{'baseline ' + str(args.baseline):40s} {baseline['median']:6.2f} s CPU")
    write_result(
        args.out,
        rows=args.rows,
        arms=args.arms,
        seed=args.seed,
        bytes=sizes,
        target_cpu_seconds=3.0,
        results=results,
        baseline=baseline,
        note="CPU of the child process (user + system), median of the runs; the machine was shared (2 cores)",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
