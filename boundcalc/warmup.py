"""Compile every numba kernel of boundcalc ahead (``boundcalc warmup``), in parallel on the available cores.

numba compiles a kernel the first time it runs and keeps the machine code in its on-disk cache
(``__pycache__`` beside the source, or ``NUMBA_CACHE_DIR``), keyed on the source files and the CPU:
a fresh install, every ``pip install -U`` and every CI run start with an empty cache.  Without a
warm-up, the first command that runs a policy or a CPE algorithm pays its compilation (one line on
stderr says so, :func:`boundcalc.kernels.compile_notice`); ``boundcalc warmup`` pays all of it at
once, one task per policy, one for the LP core's kernels and one for the CPE algorithms, spread
over worker processes (numba writes each cache entry atomically, so workers compiling a shared
callee do not clash).

Each task runs its public entry points on a tiny instance -- the protocol's ``select_pair`` /
``update``, :meth:`~boundcalc.policies.Policy.run` on a matrix, the simulator's whole-run kernel;
the LP core with ``compiled=True``; every registered CPE algorithm -- so exactly the
specialisations a user's command meets are compiled.

>>> tasks = warmup_tasks()
>>> tasks[0], sorted(tasks[1:3]), "rmed1" in tasks   # the longest first: CPE's loops, the Copeland RMED kernel
('cpe', ['cw-rmed', 'ecw-rmed'], True)
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import TextIO

__all__ = ["warmup_tasks", "cached_tasks", "run_task", "warmup", "WarmupTimes"]


def _policy(name: str) -> None:
    import numpy as np

    from .datasets import load_example
    from .policies.registry import make_policy
    from .simulate import simulate

    # 5 arms: every policy's kernels, and CW-RMED's compiled LP path too (the kernels' types do not depend on K)
    mu = load_example("mslr5-noncondorcet").mu
    rng = np.random.default_rng(0)
    p = make_policy(name, mu.shape[0], rng=np.random.default_rng(0))
    for _ in range(30):
        i, j = p.select_pair()
        p.update(i, j, bool(rng.random() < mu[i, j]))
    p.run(mu, 30)  # the compiled run on a matrix
    simulate(mu, [name], runs=1, horizon=100, seed=0, workers=0, progress=False, bounds=False)


def _lp() -> None:
    import numpy as np

    from .datasets import random_matrix
    from .lp import CopelandLPSolver
    from .lp.rule import LIFTED_MIN_ARMS

    pm = random_matrix(12, 0)
    solver = CopelandLPSolver(online=LIFTED_MIN_ARMS)  # the compiled kernels of the lifted online path
    solver.solve(pm)
    mu = np.clip(pm.mu + 0.01 * (np.arange(12)[:, None] - np.arange(12)[None, :]) / 12, 0, 1)
    np.fill_diagonal(mu, 0.5)
    solver.solve_empirical(mu, certify=True)
    solver.violation(pm.mu, np.ones((12, 12)) - np.eye(12), int(pm.copeland_winners[0]))


def _cpe() -> None:
    from .cpe.algorithms import ALGORITHMS
    from .datasets import load_example
    from .explore import explore

    mu = load_example("table2").mu
    for name, spec in ALGORITHMS.items():
        explore(mu, name, delta=0.1, epsilon=0.1 if spec.needs_epsilon else None, runs=1, workers=0, progress=False)


def warmup_tasks() -> list[str]:
    """The task names, longest first: every compiled policy of the registry, ``lp``, ``cpe``."""
    from .kernels import COMPILE_SECONDS
    from .policies.registry import POLICIES

    names = [name for name, cls in POLICIES.items() if cls.compiled] + ["lp", "cpe"]
    return sorted(names, key=lambda n: -COMPILE_SECONDS.get(_module_of(n), 1.0))


def _module_of(task: str) -> str:
    """The kernel module a task compiles (for its estimate)."""
    if task in ("lp", "cpe"):
        return task
    from .policies.kernel import CompiledPolicy
    from .policies.registry import POLICIES

    cls = POLICIES[task]
    assert issubclass(cls, CompiledPolicy), task  # warmup_tasks lists compiled policies only
    return cls.kernels[2].py_func.__module__.rsplit(".", 1)[1]


def run_task(task: str) -> tuple[str, float]:
    """Run one warm-up task in this process; ``(task, CPU seconds)``."""
    name, cpu, _ = _run_detail(task)
    return name, cpu


def _compilations() -> int:
    """Specialisations numba compiled in this process so far (not loaded from its cache), over the
    dispatchers of the kernel modules imported: each ``Dispatcher.stats`` counts its cache misses."""
    n = 0
    for name, mod in list(sys.modules.items()):
        if name.startswith("boundcalc.kernels.") and mod is not None:
            for obj in vars(mod).values():
                misses = getattr(getattr(obj, "stats", None), "cache_misses", None)  # a numba Dispatcher's
                if misses is not None and hasattr(obj, "py_func"):
                    n += sum(misses.values())
    return n


def _run_detail(task: str) -> tuple[str, float, bool]:
    """Run one warm-up task; ``(task, CPU seconds, whether numba compiled anything for it)``."""
    import contextlib
    import io

    before = _compilations()
    c0 = time.process_time()
    fn: Callable[[], None] = _lp if task == "lp" else _cpe if task == "cpe" else (lambda: _policy(task))
    with contextlib.redirect_stderr(io.StringIO()):  # the compile notices: compiling is what was asked
        fn()
    return task, time.process_time() - c0, _compilations() > before


def _run_tasks(tasks: list[str]) -> list[tuple[str, float, bool]]:
    """Run several warm-up tasks one after the other in this process."""
    return [_run_detail(t) for t in tasks]


def _jobs(tasks: list[str]) -> list[list[str]]:
    """The tasks grouped by the kernel module they compile, in order: policies sharing a whole-run
    kernel (ECW-RMED and CW-RMED; RMED1, RMED2 and RMED2FH; D-TS and D-TS+) go to one worker,
    which compiles that kernel once and loads it for the others, instead of two workers compiling
    it at the same time.

    >>> sorted(sorted(j) for j in _jobs(warmup_tasks()) if len(j) > 1)
    [['cw-rmed', 'ecw-rmed'], ['dts', 'dts+'], ['rmed1', 'rmed2', 'rmed2fh']]
    """
    groups: dict[str, list[str]] = {}
    for t in tasks:
        groups.setdefault(_module_of(t), []).append(t)
    return list(groups.values())


def _ignore_interrupts() -> None:
    """A worker's initializer: Ctrl-C in the terminal reaches the whole process group; the parent
    alone answers it (and stops the workers), so no worker prints a ``KeyboardInterrupt``."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(pool: ProcessPoolExecutor) -> None:
    """End the pool's worker processes at once (SIGTERM): a compile in progress is not waited for."""
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(Exception):
            proc.terminate()


class WarmupTimes(dict):
    """``{task: CPU seconds}`` of a warm-up, and ``compiled``: the tasks for which numba compiled
    code (the others loaded all of theirs from its cache)."""

    def __init__(self, times: dict, compiled: list[str]) -> None:
        super().__init__(times)
        self.compiled = list(compiled)


def cached_tasks(tasks: list[str]) -> set[str]:
    """The tasks whose kernel module numba's on-disk cache already holds: running them loads the
    machine code (milliseconds to a second) instead of compiling it."""
    from .kernels import cached

    return {t for t in tasks if cached(_module_of(t))}


def warmup(
    workers: int | None = None,
    progress: bool | None = None,
    tasks: list[str] | None = None,
    report: TextIO | None = None,
) -> WarmupTimes:
    """Compile every kernel ahead; ``{task: CPU seconds}`` (its worker's CPU for that task), with
    ``.compiled`` the tasks that compiled code.

    ``workers``: processes (default: the available cores; 0 runs in this process);
    ``progress``: a tqdm bar on stderr naming the tasks still running (default: when stderr is a
    terminal and tqdm is installed); otherwise, and whenever ``report`` is given, one line per
    task on ``report`` (default stderr) as it ends, saying whether it compiled its kernels or
    loaded them from numba's cache. The first line, before any compilation, names every task.
    """
    tasks = warmup_tasks() if tasks is None else list(tasks)
    if workers is None:
        workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if progress is None:
        progress = bool(getattr(sys.stderr, "isatty", lambda: False)())
    stream = sys.stderr if report is None else report
    expected = cached_tasks(tasks)
    where = "in this process" if workers <= 0 or len(tasks) <= 1 else f"on {min(workers, len(_jobs(tasks)))} processes"
    print(
        f"boundcalc warmup: {len(tasks)} kernel tasks, {len(tasks) - len(expected)} not in numba's cache,"
        f" {where}: {', '.join(tasks)}",
        file=stream,
        flush=True,
    )
    bar = None
    if progress:
        try:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(tasks), file=sys.stderr, desc="warmup", unit="task", dynamic_ncols=True)
        except ImportError:  # pragma: no cover - tqdm is optional
            bar = None
    running = list(tasks)
    out: dict = {}
    compiled: list[str] = []

    def done(task: str, cpu: float, did_compile: bool) -> None:
        out[task] = cpu
        if task in running:
            running.remove(task)
        what = "compiled" if did_compile else "loaded"
        if did_compile:
            compiled.append(task)
        if bar is not None:
            bar.set_postfix_str(f"{what} {task}; running: {', '.join(running[:3])}" if running else f"{what} {task}")
            bar.update(1)
        if bar is None or report is not None:
            print(f"  {what} {task} ({cpu:.1f} s CPU)", file=stream, flush=True)

    if bar is not None:
        bar.set_postfix_str(f"running: {', '.join(running[:3])}")
    if workers <= 0 or len(tasks) <= 1:
        for t in tasks:
            done(*_run_detail(t))
    else:
        jobs = _jobs(tasks)
        pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)), initializer=_ignore_interrupts)
        try:
            futures = [pool.submit(_run_tasks, job) for job in jobs]
            for f in as_completed(futures):
                for task, cpu, did_compile in f.result():
                    done(task, cpu, did_compile)
        except BaseException:  # Ctrl-C, SIGTERM, a failed compile: stop the workers now, not after their compiles
            _stop(pool)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    if bar is not None:
        bar.close()
    return WarmupTimes(out, compiled=compiled)
