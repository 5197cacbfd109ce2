#!/usr/bin/env python
"""What publishing rows per task costs a Dask run (``boundcalc.runner.executor``).

Runs :func:`boundcalc.runner.run_tasks` on a new local cluster of ``--workers`` single-threaded
worker processes, default chunking, for two task sets:

* ``tiny``: ``--tiny`` tasks of a few microseconds each (chunks of up to ``MAX_CHUNK`` tasks: the
  case where a message per row would cost more than the row);
* ``busy``: ``--busy`` tasks of about ``--busy-ms`` milliseconds of CPU each (chunks of a few
  dozen: every row is published while its chunk runs).

For each: the wall seconds of the run (cluster start excluded), the client's CPU seconds
(``time.process_time``), and the rows the client received from the topic before their chunk's
result.  With ``--baseline DIR`` the same runs are made with the package of checkout ``DIR`` (in a
subprocess whose ``PYTHONPATH`` is ``DIR``) and shown beside.  Wall times move with the
machine's load; the rows are checked identical to an in-process run.

    python benchmarks/dask_rows.py [--baseline DIR] [--out benchmarks/results/dask_rows.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import write_result  # noqa: E402


def tiny(task: dict, shared: int) -> dict:
    """A task of a few microseconds."""
    return {"index": task["index"], "y": (task["index"] * 2654435761 + shared) % 1000003 / 7.0}


def busy(task: dict, shared: float) -> dict:
    """About ``shared`` seconds of CPU."""
    end = time.process_time() + shared
    n = 0
    while time.process_time() < end:
        n += 1
    return {"index": task["index"], "y": task["index"] ** 0.5}


def measure(workers: int, n_tiny: int, n_busy: int, busy_ms: float) -> dict:
    import logging

    import distributed

    from boundcalc.runner import executor, run_tasks

    out: dict = {}
    with distributed.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
    ) as cluster:
        cases = {
            "tiny": (tiny, [{"index": i} for i in range(n_tiny)], 12345),
            "busy": (busy, [{"index": i} for i in range(n_busy)], busy_ms / 1000),
        }
        for name, (fn, tasks, shared) in cases.items():
            received = [0]
            take = getattr(executor, "_RowPublisher", None)
            if take is not None:  # count the rows that come from the topic
                import distributed as d

                client = d.Client(cluster, set_as_default=False)
                client.subscribe_topic(
                    executor.ROWS_TOPIC, lambda e: received.__setitem__(0, received[0] + len(e[1]["rows"]))
                )
            else:
                client = None
            c0, w0 = time.process_time(), time.perf_counter()
            rows = run_tasks(fn, tasks, shared=shared, scheduler=cluster)
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
            if client is not None:
                client.close()
            expected = [fn(t, shared) for t in tasks] if name == "tiny" else None
            out[name] = {
                "tasks": len(tasks),
                "wall_seconds": round(wall, 3),
                "client_cpu_seconds": round(cpu, 3),
                "largest_chunk": rows.stats["chunk_size"],
                "rows_published": received[0],
                "identical_to_in_process": None if expected is None else rows == expected,
            }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--tiny", type=int, default=20000)
    ap.add_argument("--busy", type=int, default=200)
    ap.add_argument("--busy-ms", type=float, default=10.0)
    ap.add_argument("--baseline", help="a checkout to measure beside this one")
    ap.add_argument("--out", default="benchmarks/results/dask_rows.json")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    args = (a.workers, a.tiny, a.busy, a.busy_ms)
    if a.child:
        print(json.dumps(measure(*args)))
        return
    result = {"this": measure(*args)}
    if a.baseline:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([a.baseline, str(Path(__file__).resolve().parent)]))
        cmd = [sys.executable, __file__, "--child", "--workers", str(a.workers), "--tiny", str(a.tiny)]
        cmd += ["--busy", str(a.busy), "--busy-ms", str(a.busy_ms)]
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        result["baseline"] = json.loads(res.stdout.strip().splitlines()[-1])
    print(f"{'case':6} {'tree':7} {'tasks':>6} {'wall s':>7} {'client CPU s':>12} {'chunk':>5} {'published':>9}")
    for tree, cases in result.items():
        for name, r in cases.items():
            print(
                f"{name:6} {tree:7} {r['tasks']:6d} {r['wall_seconds']:7.2f} {r['client_cpu_seconds']:12.2f}"
                f" {r['largest_chunk']:5d} {r['rows_published']:9d}"
            )
    write_result(a.out, workers=a.workers, busy_ms=a.busy_ms, baseline=a.baseline, results=result)


if __name__ == "__main__":
    main()
