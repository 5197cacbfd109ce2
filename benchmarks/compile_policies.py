"""Cold compile CPU of the policy kernels: the 19 policies other than ECW-RMED and CW-RMED
(or, with ``--policies all``, all 21).

Each measurement is a fresh process on an empty ``NUMBA_CACHE_DIR`` that records numba's compile
events (``numba:compile``, ``time.process_time``), for this checkout and, with ``--landed DIR``, an
older checkout measured by the same code (interleaved run by run, so that a busy machine slows both
alike):

* **all**: ``simulate --example table2 --policies <the 19> --horizon 1000 --workers 0`` in-process
  (the CLI's own code): the CPU of every outermost compile (what the command compiles), per
  whole-run kernel (inclusive of the functions compiled inside it; the first also compiles the
  shared machinery of :mod:`boundcalc.kernels.policy`), the number of functions compiled, the
  process's peak RSS and the CPU of its garbage collections by generation (``gc.callbacks``; 2: the
  full collections); ``--repeat`` runs each, every run kept;
* **alone**: ``simulate(mu, [policy], runs=1, horizon=100)`` per policy: the outermost compiles'
  CPU, and the exclusive CPU of the functions of :mod:`boundcalc.kernels.policy` and ``kl`` (the
  shared machinery); their difference is the estimate ``boundcalc.kernels.COMPILE_SECONDS`` gives
  the policy's kernel module.

Prints a table and writes ``benchmarks/results/compile_policies.json``.  ``--write-costs`` then
(or alone, from the stored file) writes the compile notice's estimates,
``boundcalc/data/compile_costs.json`` (:func:`compile_costs`): the package reads them there.

    python3 benchmarks/compile_policies.py [--landed DIR] [--repeat 3] [--no-alone] [--policies all --out F]
    python3 benchmarks/compile_policies.py --write-costs-only
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: The compile notice's estimates, read by :mod:`boundcalc.kernels` (``COMPILE_SECONDS``).
COSTS = ROOT / "boundcalc" / "data" / "compile_costs.json"
#: The kernel module that ECW-RMED and CW-RMED share, measured by ``benchmarks/startup.py`` instead.
SKIPPED_MODULE = "cw_rmed"


def registry_policies() -> tuple[str, list[str]]:
    """From the registry: the command's policies (every compiled policy whose whole-run kernel is
    not in :data:`SKIPPED_MODULE`, comma-separated: the 19) and one policy per whole-run kernel
    module (the first registered: RMED1 for ``rmed_run``, D-TS for ``dts_run``), the one-policy runs."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # this checkout's registry
    from boundcalc.policies import POLICIES as REGISTERED

    names, first = [], {}
    for name, cls in REGISTERED.items():
        if not cls.compiled:
            continue
        module = cls.kernels[2].py_func.__module__.rsplit(".", 1)[1]
        if module != SKIPPED_MODULE:
            names.append(name)
            first.setdefault(module, name)
    return ",".join(names), list(first.values())


#: The probe run in each process: the compile events' CPU, outermost and per function.
PROBE = r"""
import gc, json, resource, sys, time
from numba.core import event
gcs, gc0 = {}, [0.0]
def _gc(phase, info):
    if phase == "start":
        gc0[0] = time.process_time()
    else:
        g = str(info["generation"])
        gcs[g] = gcs.get(g, 0.0) + time.process_time() - gc0[0]
gc.callbacks.append(_gc)
stack, top, mach, n = [], {}, [0.0], [0]
class Listener(event.Listener):
    def on_start(self, ev):
        stack.append([time.process_time(), 0.0, ev.data["dispatcher"].py_func])
    def on_end(self, ev):
        t0, inner, f = stack.pop()
        dur = time.process_time() - t0
        n[0] += 1
        if f.__module__.endswith(".kernels.policy"):
            mach[0] += dur - inner
        if stack:
            stack[-1][1] += dur
        else:
            key = f.__module__.rsplit(".", 1)[1] + "." + f.__name__
            top[key] = top.get(key, 0.0) + dur
event.register("numba:compile", Listener())
what = sys.argv[1]
if what == "all":
    from boundcalc.cli import main
    sys.argv = ["boundcalc", "simulate", "--example", "table2", "--policies", sys.argv[2], "--horizon", "1000",
                "--workers", "0", "--quiet"]
    try:
        main()
    except SystemExit as e:
        if e.code:
            raise
else:
    from boundcalc.datasets import load_example
    from boundcalc.simulate import simulate
    simulate(load_example("table2").mu, [what], runs=1, horizon=100, seed=0, workers=0, progress=False, bounds=False)
print(json.dumps({"cpu": time.process_time(), "compile": sum(top.values()), "kernels": top, "machinery": mach[0], "functions": n[0],
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "gc_seconds": gcs}))
"""


def probe(path: Path, *args: str) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PYTHONPATH=str(path), NUMBA_CACHE_DIR=cache)
        env.pop("NUMBA_DISABLE_JIT", None)
        p = subprocess.run(
            [sys.executable, "-c", PROBE, *args], env=env, capture_output=True, text=True, cwd=tempfile.gettempdir()
        )
    if p.returncode:
        raise RuntimeError(f"{path} {args} failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def compile_costs(stored: dict, previous: dict) -> dict:
    """The compile notice's estimates from the stored one-policy runs ``stored["alone"]["this"]``:
    each whole-run kernel module (the module of the run's outermost compile other than the shared
    :mod:`boundcalc.kernels.policy`) its compile CPU less the shared machinery's, ``policy`` the
    largest machinery measured, to 0.1 s.  Modules these runs do not measure (the LP core's, CPE's,
    CW-RMED's, the protocol-only step modules) keep their entries of ``previous`` (the file as it
    stands, with the source of each).
    """
    measured: dict[str, float] = {}
    for run in stored["alone"]["this"].values():
        modules = {k.split(".", 1)[0] for k in run["kernels"]} - {"policy"}
        (module,) = modules
        measured[module] = round(run["compile"] - run["machinery"], 1)
    measured["policy"] = round(max(run["machinery"] for run in stored["alone"]["this"].values()), 1)
    seconds = dict(previous.get("seconds", {}))
    seconds.update(measured)
    sources = dict(previous.get("sources", {}))
    for module in measured:
        sources[module] = "benchmarks/results/compile_policies.json, alone"
    order = sorted(seconds, key=lambda m: -seconds[m])
    return {
        "about": "CPU seconds each kernel module takes to compile on an empty numba cache (2-core machine):"
        " the estimate boundcalc's compile notice gives; written by benchmarks/compile_policies.py --write-costs",
        "seconds": {m: seconds[m] for m in order},
        "sources": {m: sources[m] for m in order},
    }


def write_costs(results: Path) -> None:
    """Write :data:`COSTS` from the stored measurements ``results``."""
    previous = json.loads(COSTS.read_text()) if COSTS.exists() else {}
    costs = compile_costs(json.loads(results.read_text()), previous)
    COSTS.write_text(json.dumps(costs, indent=1) + "\n")
    print(f"wrote {COSTS}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--landed", default=None, help="an older checkout, measured the same way")
    ap.add_argument("--repeat", type=int, default=3, help="runs of the 19-policy command per version")
    ap.add_argument("--no-alone", action="store_true", help="leave out the one-policy runs")
    policies, alone = registry_policies()
    ap.add_argument("--policies", default=policies, help="the command's --policies (default: the 19; all: the 21)")
    ap.add_argument("--out", default=str(HERE / "results" / "compile_policies.json"))
    ap.add_argument("--write-costs", action="store_true", help="then write boundcalc/data/compile_costs.json")
    ap.add_argument(
        "--write-costs-only", action="store_true", help="only write boundcalc/data/compile_costs.json from --out"
    )
    a = ap.parse_args()
    if a.write_costs_only:
        write_costs(Path(a.out))
        return
    versions = {"this": ROOT}
    if a.landed:
        versions["landed"] = Path(a.landed).resolve()
    out: dict = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "load": os.getloadavg()},
        "policies": a.policies,
        "all": {v: [] for v in versions},
        "alone": {v: {} for v in versions},
    }
    for r in range(a.repeat):
        for v, path in versions.items():
            m = probe(path, "all", a.policies)
            out["all"][v].append(m)
            print(
                f"all   {v:7s} run {r + 1}: process {m['cpu']:6.2f} s CPU, compile {m['compile']:6.2f}, "
                f"{m['functions']} functions, "
                f"peak RSS {m['maxrss_mb']:.0f} MB, garbage collection {sum(m['gc_seconds'].values()):.2f} s "
                f"(full {m['gc_seconds'].get('2', 0.0):.2f})",
                flush=True,
            )
    if not a.no_alone:
        for name in alone:
            for v, path in versions.items():
                m = probe(path, name)
                out["alone"][v][name] = m
                print(
                    f"alone {v:7s} {name:20s} compile {m['compile']:5.2f}  machinery {m['machinery']:5.2f}  "
                    f"module {m['compile'] - m['machinery']:5.2f}",
                    flush=True,
                )
    out["machine"]["load_after"] = os.getloadavg()
    print("\nper whole-run kernel, the 19-policy command (median of the runs, CPU s):")
    names = sorted({k for v in versions for m in out["all"][v] for k in m["kernels"]})
    med = {v: {k: statistics.median(m["kernels"].get(k, 0.0) for m in out["all"][v]) for k in names} for v in versions}
    for k in sorted(names, key=lambda k: -med["this"][k]):
        print(f"  {k:32s}" + "".join(f" {v} {med[v][k]:5.2f}" for v in versions))
    for v in versions:
        print(f"  {'all (median)':32s} {v} {statistics.median(m['compile'] for m in out['all'][v]):5.2f}")
    for v in versions:
        print(f"  {'process CPU (median)':32s} {v} {statistics.median(m['cpu'] for m in out['all'][v]):5.2f}")
    Path(a.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {a.out}")
    if a.write_costs:
        write_costs(Path(a.out))


if __name__ == "__main__":
    main()
