"""Start-up cost of boundcalc's commands, warm and cold, beside another checkout of it.

Every figure is a fresh process (``python -m boundcalc ...``), its CPU (user + system of the child,
``resource.getrusage(RUSAGE_CHILDREN)``) and wall time, for two package versions run by the same code:
this checkout and the landed one (``git archive LANDED`` into a temporary directory, run with
``PYTHONPATH``).  Each version keeps its own numba cache (``NUMBA_CACHE_DIR``):

* **floor** -- ``python -c "import numpy, scipy.optimize, highspy"``, the imports no command avoids;
* **warm** (cache filled by a first run; best of ``--repeat``): ``bounds`` on both 136-arm MSLR
  matrices, ``bounds --example table2``, ``compare --example table2``, ``simulate --policies all
  --horizon 1000``; targets: floor + 0.15 s, + 0.1 s, + 0.3 s of CPU for the first three;
* **cold** (an empty ``NUMBA_CACHE_DIR`` per command): the first ``bounds`` on a 136-arm matrix
  (target floor + 2 s), ``simulate --policies all --horizon 1000`` (target 20 s of CPU) and the same
  simulation of the ten seed papers' policies (:data:`SEED_POLICIES`);
* **kernels** -- each kernel module's compile time (the first run of its warm-up task on an empty
  cache) and load time (the same task on the filled cache), in CPU seconds of the task's process
  minus that process's imports: one task per policy (the simulator's run first -- its CPU alone is
  ``simulate_compile_cpu``, what a simulation's first run pays -- then the protocol), the LP core's
  compiled path (online solves) and the CPE algorithms; a policy a version lacks is skipped;
* **in-process** (this checkout): the LP core's numpy and compiled paths on the 136-arm matrices
  (warm, best of three; the reason one-shot commands load no kernels), and ``Policy.run`` on a
  matrix (one compiled call) against the Python step loop over the same steps, per policy.

Prints tables and writes ``benchmarks/results/startup.json``.

    python3 benchmarks/startup.py [--landed af2278d] [--repeat 3] [--no-cold] [--no-kernels]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = Path(os.environ.get("BOUNDCALC_SHARED", ROOT.parent / "shared")) / "data" / "public"
MSLR = {
    "mslr-informational": DATA / "nightingal3_MSLR_Informational_PMat.npz",
    "mslr-navigational": DATA / "nightingal3_MSLR_Navigational_PMat.npz",
}
FLOOR = [sys.executable, "-c", "import numpy, scipy.optimize, highspy"]

#: One warm-up task per kernel module, as a script both versions run (their public API).
TASK = r"""
import sys, time
c0 = time.process_time()
import numpy as np
from boundcalc.datasets import load_example, random_matrix
from boundcalc.policies.registry import make_policy, POLICIES
from boundcalc.simulate import simulate
from boundcalc.lp import CopelandLPSolver
c1 = time.process_time()
task = sys.argv[1]
mu = load_example("table2").mu
if task == "lp":
    import inspect
    params = inspect.signature(CopelandLPSolver).parameters  # the compiled path, as each version spells it
    kw = {"online": 32} if "online" in params else {"compiled": True} if "compiled" in params else {}
    pm = random_matrix(12, 0)
    m = np.clip(pm.mu + 0.01 * (np.arange(12)[:, None] - np.arange(12)[None, :]) / 12, 0, 1)
    np.fill_diagonal(m, 0.5)
    CopelandLPSolver(**kw).solve_empirical(m, certify=True)
elif task == "cpe":
    from boundcalc.cpe.algorithms import ALGORITHMS
    from boundcalc.explore import explore
    for name, spec in ALGORITHMS.items():
        explore(mu, name, delta=0.1, epsilon=0.1 if spec.needs_epsilon else None, runs=1, workers=0, progress=False)
else:
    simulate(mu, [task], runs=1, horizon=100, seed=0, workers=0, progress=False, bounds=False)
    c2 = time.process_time()
    rng = np.random.default_rng(0)
    p = make_policy(task, 4, rng=np.random.default_rng(0))
    for _ in range(30):
        i, j = p.select_pair(); p.update(i, j, bool(rng.random() < mu[i, j]))
print(time.process_time() - c1, c1 - c0, (c2 if task not in ("lp", "cpe") else time.process_time()) - c1)
"""
#: Where a policy's compile time goes: numba's compile events per function (inclusive of the
#: callees compiled inside), on an empty cache, for the protocol's entry points and the run kernel.
PROFILE = r"""
import sys, time, json
from numba.core import event
from boundcalc.datasets import load_example
from boundcalc.policies import make_policy
rec, stack = {}, []
class Listener(event.Listener):
    def on_start(self, ev):
        stack.append(time.process_time())
    def on_end(self, ev):
        d = ev.data["dispatcher"].py_func
        key = d.__module__.rsplit(".", 1)[1] + "." + d.__name__
        rec[key] = rec.get(key, 0.0) + time.process_time() - stack.pop()
event.register("numba:compile", Listener())
mu = load_example("table2").mu
c0 = time.process_time()
p = make_policy(sys.argv[1], 4)
c1 = time.process_time()
p.run(mu, 200)
c2 = time.process_time()
top = dict(sorted(rec.items(), key=lambda kv: -kv[1])[:12])
print(json.dumps({"entry_points": c1 - c0, "run_on_matrix": c2 - c1, "functions_compiled": len(rec),
                  "inclusive": top}))
"""
TASKS = [
    "cw-rmed",
    "ecw-rmed",
    "rmed1",
    "rmed2",
    "rucb",
    "dts",
    "dts+",
    "ccb",
    "scb",
    "savage",
    "rcs",
    "self-sparring",
    "winner-stays",
    "doubler",
    "rmed2fh",
    "merge-rucb",
    "merge-dts",
    "versatile-db",
    "lp",
    "cpe",
]
#: The ten policies of the seed papers (000-003), the ``--policies`` of the second cold simulation.
SEED_POLICIES = "ecw-rmed,rmed1,cw-rmed,rucb,dts,dts+,rmed2,savage,ccb,scb"


def measure(cmd: list[str], env: dict, repeat: int = 1) -> dict:
    """Best CPU and wall of ``repeat`` runs of ``cmd`` (a fresh process each)."""
    best = None
    for _ in range(repeat):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        w0 = time.perf_counter()
        # cwd: a neutral directory (``python -m``/``-c`` put the working directory first on sys.path,
        # which would shadow PYTHONPATH's version)
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tempfile.gettempdir())
        wall = time.perf_counter() - w0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode not in (0,):
            raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        row = {"cpu": cpu, "wall": wall, "stdout": p.stdout, "stderr": p.stderr}
        if best is None or cpu < best["cpu"]:
            best = row
    return best


def version_env(path: Path, cache: Path) -> dict:
    # bytecode is written (and read by later runs) as an installed package's is: without it every
    # run would compile boundcalc's Python source again, a cost no user pays after `pip install`
    env = dict(os.environ, PYTHONPATH=str(path), NUMBA_CACHE_DIR=str(cache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    return env


def commands() -> dict[str, list[str]]:
    bc = [sys.executable, "-m", "boundcalc"]
    out = {f"bounds {k}": bc + ["bounds", str(p)] for k, p in MSLR.items() if p.exists()}
    out["bounds table2"] = bc + ["bounds", "--example", "table2"]
    out["compare table2"] = bc + ["compare", "--example", "table2"]
    out["simulate all T=1000"] = bc + [
        "simulate",
        "--example",
        "table2",
        "--policies",
        "all",
        "--horizon",
        "1000",
        "--workers",
        "0",
        "--quiet",
    ]
    return out


def cold_commands() -> dict[str, list[str]]:
    """The cold rows: the first 136-arm ``bounds``, ``simulate`` of every policy and of the ten seed
    papers' policies (an empty numba cache each)."""
    cmds = commands()
    out = {n: cmds[n] for n in [n for n in cmds if n.startswith("bounds mslr")][:1]}
    out["simulate all T=1000"] = cmds["simulate all T=1000"]
    out["simulate seed10 T=1000"] = [SEED_POLICIES if a == "all" else a for a in cmds["simulate all T=1000"]]
    return out


def solve_line(stdout: str) -> str:
    """The solve time the command printed (``bounds``: the lower bound's line)."""
    for line in stdout.splitlines():
        if line.startswith("lower bound  "):
            return line.split(",")[2].split(";")[0].strip() if line.count(",") >= 3 else line
    return ""


def in_process() -> dict:
    """This checkout's LP paths at 136 arms and Policy.run on a matrix against the step loop."""

    sys.path.insert(0, str(ROOT))
    import numpy as np

    from boundcalc import as_preference_matrix
    from boundcalc.datasets import load_example, random_matrix
    from boundcalc.policies import make_policy
    from boundcalc.policies.base import matrix_duel

    lp = {}
    for k, path in MSLR.items():
        if not path.exists():
            continue
        pm = as_preference_matrix(path)
        row = {}
        for compiled in (False, True):
            _solver(compiled).solve(pm)  # loads the path (kernels: numba's cache)
            times = []
            for _ in range(3):
                c = time.process_time()
                v = _solver(compiled).solve(pm).value
                times.append(time.process_time() - c)
            row["compiled" if compiled else "numpy"] = {"cpu": min(times), "value": v}
        lp[k] = row
    run = {}
    for K, mu in ((5, load_example("mslr5-condorcet").mu), (16, random_matrix(16, 1).mu)):
        for name in ("ecw-rmed", "rmed1", "rmed2", "rucb", "dts", "dts+", "ccb", "scb", "savage", "cw-rmed"):
            steps = 3000 if name == "cw-rmed" else 20000
            make_policy(name, K).run(mu, 50)  # compiled and loaded before timing: the run kernel,
            make_policy(name, K).run(matrix_duel(mu, 1), 5)  # the protocol's entry points (bound lazily)
            # one seed for both: a randomized policy's stream comes from its rng
            p = make_policy(name, K, rng=np.random.default_rng(0))
            c = time.process_time()
            a = p.run(mu, steps, seed=1)
            t_run = time.process_time() - c
            q = make_policy(name, K, rng=np.random.default_rng(0))
            duel = matrix_duel(mu, 1)
            c = time.process_time()
            b = q.run(duel, steps)
            t_loop = time.process_time() - c
            assert (a[0] == b[0]).all(), name
            run[f"{name} K={K}"] = {
                "steps": steps,
                "run_us": 1e6 * t_run / steps,
                "loop_us": 1e6 * t_loop / steps,
                "ratio": t_loop / t_run if t_run > 0 else float("inf"),
            }
    return {"lp_136": lp, "run_matrix": run}


def markdown(result: dict) -> str:
    """The start-up tables of a stored result, CPU seconds (``--markdown`` prints them; the docs'
    results page renders them with ``docs/hooks/results.py``)."""

    def cpu(row: dict, version: str, key: str = "cpu", digits: int = 2) -> str:
        v = row.get(version, {}).get(key)
        return "-" if v is None or v != v else f"{v:.{digits}f}"

    lines = [
        "| command | previous version | this version | printed solve time, wall (this / previous) |",
        "|---|---|---|---|",
    ]
    for name, row in result["warm"].items():
        printed = f"{row['this']['printed'] or '-'} / {row['landed']['printed'] or '-'}"
        lines.append(f"| warm: `{name}` | {cpu(row, 'landed')} | {cpu(row, 'this')} | {printed} |")
    for name, row in result["cold"].items():
        lines.append(f"| cold (empty numba cache): `{name}` | {cpu(row, 'landed')} | {cpu(row, 'this')} | |")
    lines += [
        "",
        "| kernel task | compile: previous | this | its simulation first: previous | this | load: previous | this |",
        "|---|---|---|---|---|---|---|",
    ]
    for task, row in result["kernels"].items():
        lines.append(
            f"| {task} | {cpu(row, 'landed', 'compile_cpu', 1)} | {cpu(row, 'this', 'compile_cpu', 1)} "
            f"| {cpu(row, 'landed', 'simulate_compile_cpu', 1)} | {cpu(row, 'this', 'simulate_compile_cpu', 1)} "
            f"| {cpu(row, 'landed', 'load_cpu')} | {cpu(row, 'this', 'load_cpu')} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--landed", default="af2278d", help="git revision of the landed version (default af2278d)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-cold", action="store_true")
    ap.add_argument("--no-kernels", action="store_true")
    ap.add_argument("--versions", default="this,landed", help="which versions to measure (comma-separated)")
    ap.add_argument("--no-in-process", action="store_true")
    ap.add_argument("--merge", action="store_true", help="update --out's sections instead of replacing the file")
    ap.add_argument("--out", default=str(HERE / "results" / "startup.json"))
    ap.add_argument(
        "--profile-only",
        action="store_true",
        help="only the compile profile of cw-rmed, ecw-rmed and rmed1 (this checkout), added to --out",
    )
    ap.add_argument("--markdown", action="store_true", help="print the docs' start-up tables from --out and stop")
    args = ap.parse_args(argv)
    if args.markdown:
        print(markdown(json.loads(Path(args.out).read_text())))
        return 0
    if args.profile_only:
        out = Path(args.out)
        result = json.loads(out.read_text()) if out.exists() else {}
        result["compile_profile"] = {}
        for name in ("cw-rmed", "ecw-rmed", "rmed1"):
            with tempfile.TemporaryDirectory() as cache:
                m = measure([sys.executable, "-c", PROFILE, name], version_env(ROOT, Path(cache)), 1)
            prof = json.loads(m["stdout"].strip().splitlines()[-1])
            result["compile_profile"][name] = prof
            print(
                f"{name}: entry points {prof['entry_points']:.2f} s, run kernel {prof['run_on_matrix']:.2f} s CPU,"
                f" {prof['functions_compiled']} functions compiled"
            )
            for k, v in prof["inclusive"].items():
                print(f"    {v:6.2f}  {k}")
        out.write_text(json.dumps(result, indent=1))
        return 0

    tmp = Path(tempfile.mkdtemp(prefix="boundcalc-startup-"))
    landed = tmp / "landed"
    landed.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.landed], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(landed)], input=archive, check=True)
    versions = {k: v for k, v in {"this": ROOT, "landed": landed}.items() if k in args.versions.split(",")}
    result = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "landed": args.landed,
        "floor": {},
        "warm": {},
        "cold": {},
        "kernels": {},
    }
    fl = measure(FLOOR, dict(os.environ), args.repeat)
    result["floor"] = {"cpu": fl["cpu"], "wall": fl["wall"]}
    floor = fl["cpu"]
    cmds = commands()
    for v, path in versions.items():
        warm_cache = tmp / f"cache-{v}"
        env = version_env(path, warm_cache)
        for name, cmd in cmds.items():
            measure(cmd, env, 1)  # fills the version's cache
            m = measure(cmd, env, args.repeat)
            result["warm"].setdefault(name, {})[v] = {
                "cpu": m["cpu"],
                "wall": m["wall"],
                "printed": solve_line(m["stdout"]),
            }
            print(
                f"warm {v:7s} {name:28s} cpu {m['cpu']:6.2f}  wall {m['wall']:6.2f}  {solve_line(m['stdout'])}",
                flush=True,
            )
        if not args.no_cold:
            for name, cmd in cold_commands().items():
                env = version_env(path, tmp / f"cold-{v}-{len(result['cold'])}-{name.replace(' ', '_')}")
                m = measure(cmd, env, 1)
                notice = [ln for ln in m["stderr"].splitlines() if "compiling" in ln]
                result["cold"].setdefault(name, {})[v] = {"cpu": m["cpu"], "wall": m["wall"], "notice": notice}
                print(f"cold {v:7s} {name:28s} cpu {m['cpu']:6.2f}  wall {m['wall']:6.2f}  {notice}", flush=True)
        if not args.no_kernels:
            for task in TASKS:
                cache = tmp / f"kern-{v}-{task}"
                env = version_env(path, cache)
                try:
                    cold = measure([sys.executable, "-c", TASK, task], env, 1)
                    warm = measure([sys.executable, "-c", TASK, task], env, 1)
                except RuntimeError as exc:  # a policy the version does not have
                    print(f"kernel {v:7s} {task:10s} skipped: {str(exc).splitlines()[-1]}", flush=True)
                    continue
                c_cold, _, c_sim = (float(x) for x in cold["stdout"].split())
                c_warm, _, _ = (float(x) for x in warm["stdout"].split())
                result["kernels"].setdefault(task, {})[v] = {
                    "compile_cpu": c_cold,
                    "simulate_compile_cpu": c_sim,
                    "load_cpu": c_warm,
                }
                print(
                    f"kernel {v:7s} {task:13s} compile (first run) {c_cold:6.2f} s (its simulation first: "
                    f"{c_sim:6.2f} s)   load (cached) {c_warm:6.2f} s",
                    flush=True,
                )
    out = Path(args.out)
    if args.merge and out.exists():
        old = json.loads(out.read_text())
        for sect in ("warm", "cold", "kernels"):
            for name, row in old.get(sect, {}).items():
                for v, cell in row.items():
                    result[sect].setdefault(name, {}).setdefault(v, cell)
        for key in ("in_process", "compile_profile", "notes"):
            if key in old:
                result[key] = old[key]
    if not args.no_in_process:
        result["in_process"] = in_process()

    nan = float("nan")
    NA = {"cpu": nan, "wall": nan, "compile_cpu": nan, "load_cpu": nan}  # a row a version lacks
    print(f"\nfloor (import numpy, scipy.optimize, highspy): {floor:.2f} s CPU\n")
    targets = {
        "bounds mslr-informational": 0.15,
        "bounds mslr-navigational": 0.15,
        "bounds table2": 0.1,
        "compare table2": 0.3,
    }
    print(
        f"{'warm':30s} {'landed cpu':>10s} {'this cpu':>9s} {'this-floor':>10s} {'target':>7s}  printed solve (this / landed)"
    )
    for name, row in result["warm"].items():
        tgt = targets.get(name)
        t = row["this"]["cpu"]
        print(
            f"{name:30s} {row['landed']['cpu']:10.2f} {t:9.2f} {t - floor:10.2f} "
            f"{f'+{tgt:.2f}' if tgt else '':>7s}  {row['this']['printed']} / {row['landed']['printed']}"
        )
    if result["cold"]:
        print(
            f"\n{'cold (empty numba cache)':30s} {'landed cpu':>10s} {'this cpu':>9s} {'landed wall':>11s} {'this wall':>9s}"
        )
        for name, row in result["cold"].items():
            ld, th = row.get("landed", NA), row.get("this", NA)
            print(f"{name:30s} {ld['cpu']:10.2f} {th['cpu']:9.2f} {ld['wall']:11.2f} {th['wall']:9.2f}")
    if result["kernels"]:
        print(
            f"\n{'kernel task':13s} {'compile landed':>14s} {'compile this':>12s} {'simulate landed':>15s} "
            f"{'simulate this':>13s} {'load landed':>11s} {'load this':>9s}"
        )
        for task, row in result["kernels"].items():
            ld, th = row.get("landed", NA), row.get("this", NA)
            print(
                f"{task:13s} {ld['compile_cpu']:14.2f} {th['compile_cpu']:12.2f} "
                f"{ld.get('simulate_compile_cpu', nan):15.2f} {th.get('simulate_compile_cpu', nan):13.2f} "
                f"{ld['load_cpu']:11.2f} {th['load_cpu']:9.2f}"
            )
    ip = result.get("in_process", {"lp_136": {}, "run_matrix": {}})
    print("\n136-arm solve in one process (CPU s): numpy path / compiled path")
    for k, row in ip["lp_136"].items():
        print(f"  {k}: {row['numpy']['cpu']:.4f} / {row['compiled']['cpu']:.4f}")
    print("\nPolicy.run on a matrix (one compiled call) vs the Python step loop, us per step")
    for k, row in ip["run_matrix"].items():
        print(f"  {k:16s} run {row['run_us']:7.2f}   loop {row['loop_us']:7.2f}   x{row['ratio']:.1f}")
    out.parent.mkdir(parents=True, exist_ok=True)
    for sect in ("warm", "cold"):
        for row in result[sect].values():
            for v in row.values():
                v.pop("stdout", None)
    out.write_text(json.dumps(result, indent=1))
    print(f"\nwrote {out}")
    return 0


def _solver(compiled: bool):
    """The offline solver with the LP core's compiled kernels or their numpy twins."""
    from boundcalc.lp import CopelandLPSolver

    s = CopelandLPSolver()
    s.compiled = compiled
    return s


if __name__ == "__main__":
    sys.exit(main())
