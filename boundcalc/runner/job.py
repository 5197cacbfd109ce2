"""The one entry point of long work: a :class:`Job` (what to compute) and :func:`run_job` (how).

``boundcalc batch``, ``simulate`` and ``explore`` (and their Python functions) are each a task
definition plus one call of :func:`run_job`, which

* validates the run options the three share, with the same names and defaults everywhere:
  ``seed`` (:func:`check_seed`), ``out`` / ``overwrite`` (the resumable, exclusively locked
  :class:`~boundcalc.runner.store.JsonlStore`), ``workers`` / ``scheduler`` / ``chunk_size``
  (the executor, :func:`resolve_workers`) and ``progress`` (a bar on stderr, by default only
  on a terminal);
* opens or resumes the store *before* anything is computed, so a wrong or busy ``out`` file is
  refused at once;
* bounds the number of tasks (:data:`MAX_TASKS`) before building them;
* runs the tasks through :func:`~boundcalc.runner.executor.run_tasks` and closes the store.

Seeds
    The runner alone derives seeds: :func:`root_seed` gives a job's root seed (fresh OS entropy,
    recorded by the caller, when none is given) and :func:`derive_seed` everything drawn from it.
    Task ``r`` of a job with root seed ``s`` draws from ``SeedSequence(s, spawn_key=(r,))`` --
    the ``r``-th child of ``SeedSequence(s).spawn(n)`` -- and its descendants
    (``spawn_key=(r, ...)``), so a task's numbers depend on ``(s, r)`` alone, not on the number
    of tasks, the chunking or the workers.  A job whose tasks are one sequence of draws (``batch``'s
    candidate subsets) draws from the root ``SeedSequence(s)`` itself (the empty key).

>>> import tempfile, pathlib
>>> def square(task, shared):
...     return {"index": task["index"], "y": task["x"] ** 2 + shared}
>>> job = Job("demo", square, shared=1, header={"what": "squares"},
...           tasks=lambda: [{"index": i, "x": i} for i in range(3)])
>>> rows = run_job(job, out=pathlib.Path(tempfile.mkdtemp()) / "rows.jsonl", workers=0)
>>> [r["y"] for r in rows], rows.stats["computed"]
([1, 2, 5], 3)
"""

from __future__ import annotations

import importlib.util
import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from .executor import Rows, run_tasks
from .store import DEFAULT_TAG, JsonlStore

__all__ = [
    "Job",
    "run_job",
    "check_seed",
    "check_count",
    "resolve_workers",
    "seed_sequence",
    "derive_seed",
    "root_seed",
    "MAX_TASKS",
    "MAX_SEED",
    "dask_available",
]

#: Most tasks one job may have (each is a dict held in memory and a row in the store).
MAX_TASKS = 1_000_000
#: Seeds are integers in ``[0, MAX_SEED]`` (they are stored in JSON and fit a signed 64-bit integer).
MAX_SEED = 2**63 - 1


def check_count(value: Any, what: str, *, low: int = 1, high: int | None = None) -> int:
    """``value`` as an int in ``[low, high]``; ``ValueError`` naming ``what`` otherwise.

    >>> check_count(3.0, "runs")
    3
    >>> check_count(0, "runs")
    Traceback (most recent call last):
    ...
    ValueError: runs must be an integer >= 1; got 0
    """
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not ok and isinstance(value, float) and value.is_integer():
        ok = True
    v = int(value) if ok else low - 1
    if v < low or (high is not None and v > high):  # the message formatted only here: a check runs per call
        rng = f">= {low}" if high is None else f"in [{low}, {high:,}]"
        raise ValueError(f"{what} must be an integer {rng}; got {value!r}")
    return v


def check_seed(seed: Any, what: str = "seed") -> int:
    """A root seed: an integer in ``[0, 2**63 - 1]``.

    >>> check_seed(7)
    7
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be an integer in [0, 9,223,372,036,854,775,807]; got -1
    """
    return check_count(seed, what, low=0, high=MAX_SEED)


def seed_sequence(seed: int, *key: int) -> np.random.SeedSequence:
    """``SeedSequence(seed, spawn_key=key)``: the randomness of task ``key[0]`` of a job (module text).

    >>> a = seed_sequence(0, 3)
    >>> a.spawn_key, seed_sequence(0, 3, 1).spawn_key == a.spawn(2)[1].spawn_key
    ((3,), True)
    """
    return np.random.SeedSequence(int(seed), spawn_key=tuple(int(k) for k in key))


def derive_seed(seed: int, *key: int, form: str = "sequence", n: int = 2) -> Any:
    """The one derivation of a job's randomness: ``SeedSequence(seed, spawn_key=key)`` in ``form``.

    ``form`` is how the caller consumes it, each a fixed function of the SeedSequence ``ss``:

    * ``"sequence"``: ``ss`` itself;
    * ``"generator"``: ``numpy.random.default_rng(ss)`` (with no ``key`` the same stream as
      ``default_rng(seed)``);
    * ``"words"``: the ``n`` integers ``ss.generate_state(n, uint64)`` (a compiled kernel's keys);
    * ``"int63"``: ``ss.generate_state(1, uint64)[0] >> 1``, a non-negative 63-bit integer for an
      API that takes an integer seed.

    >>> g = derive_seed(3, form="generator")
    >>> bool(g.random() == np.random.default_rng(3).random())
    True
    >>> derive_seed(0, 5, form="words", n=1)[0] >> 1 == derive_seed(0, 5, form="int63")
    True
    >>> derive_seed(0, form="bytes")
    Traceback (most recent call last):
    ...
    ValueError: form must be one of 'sequence', 'generator', 'words', 'int63'; got 'bytes'
    """
    if form not in _FORMS:
        raise ValueError(f"form must be one of {', '.join(map(repr, _FORMS))}; got {form!r}")
    ss = seed_sequence(seed, *key)
    if form == "sequence":
        return ss
    if form == "generator":
        return np.random.default_rng(ss)
    if form == "words":
        return tuple(int(w) for w in ss.generate_state(n, np.uint64))
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


_FORMS = ("sequence", "generator", "words", "int63")


def root_seed(seed: Any) -> int:
    """A job's root seed: ``seed`` checked (:func:`check_seed`), or, for None, a fresh one from the
    operating system's entropy (the caller records it so the run can be repeated).

    >>> root_seed(7), 0 <= root_seed(None) <= MAX_SEED
    (7, True)
    """
    if seed is None:
        # a SeedSequence made without entropy draws an int from the OS (numpy's stub also allows other kinds)
        return int(cast(int, np.random.SeedSequence().entropy) % (2**63))
    return check_seed(seed)


def dask_available() -> bool:
    """Whether ``dask.distributed`` is installed (``pip install 'boundcalc[dask]'``)."""
    return importlib.util.find_spec("distributed") is not None


def resolve_workers(workers: Any = None, scheduler: Any = None) -> int:
    """The size of the local Dask cluster to start (0: in-process).

    The default (``workers=None``, no ``scheduler``) is in-process, whether or not Dask is
    installed; a local cluster is started only when asked for (``workers=n > 0``, CLI
    ``--workers n``) and an existing one used only when named (``scheduler``, CLI ``--scheduler``).

    Why: Dask pays only once a job needs well more CPU than the cluster takes to start, and the
    runner cannot know a job's CPU before running it (a task of ``simulate`` at ``T = 10^5`` costs
    ~10^4 times one of ``batch``).  Measured by ``benchmarks/table1.py`` on a 2-core machine
    (``benchmarks/results/table1*.json``, each size in both orders): 10^4 submatrices (41-42 s of
    CPU) took 77 and 163 s on 2 local workers against 201 and 256 s in-process, but 300
    submatrices (1.5-1.6 s of CPU) took 9.7 and 18.1 s on Dask against 9.4 and 8.8 s in-process,
    the cluster alone taking 3.0-7.7 s to start; a 1000-draw bootstrap on 136 arms
    (``benchmarks/results/bootstrap.json``, ECW only, 6.4 s of CPU) took 24.1 s on Dask, 4.0 s of
    it starting the cluster, against 20.0 s in-process.  The small jobs, the common ones, lose up
    to twice by a cluster; the large ones lose at most about 2.6 times by running in-process, and
    whoever starts one knows it is large.

    ``workers=n > 0`` or a ``scheduler`` without dask.distributed raises ``ImportError`` saying how
    to install it or run in-process.  With a ``scheduler`` the local size does not matter (0 is
    returned).

    >>> resolve_workers(), resolve_workers(0)
    (0, 0)
    """
    if scheduler is not None:
        if workers not in (None, 0):
            raise ValueError("give a scheduler address or a number of local workers, not both")
        if not dask_available():
            raise ImportError("a Dask scheduler needs dask.distributed: pip install 'boundcalc[dask]'")
        return 0
    if workers is None:
        return 0
    n = check_count(workers, "workers", low=0, high=4096)
    if n > 0 and not dask_available():
        raise ImportError(
            f"{n} workers need dask.distributed: pip install 'boundcalc[dask]',"
            " or run in-process with 0 workers (CLI: --workers 0)"
        )
    return n


@dataclass
class Job:
    """A long run's definition: the task function, its tasks and what identifies the run.

    Attributes
    ----------
    kind : str
        Short name (the progress bar's label unless ``desc`` is given), e.g. ``"simulate"``.
    fn : callable
        ``fn(task, shared) -> row``, a module-level function (Dask pickles it by reference).
    shared : object
        What every task needs (sent to each Dask worker once).
    header : dict
        The store's header: the run's identity (what must agree for a file to be resumed).
    tasks : sequence of dict or callable
        Each task a dict with a unique integer ``"index"``; a callable is called after the
        store was opened (so an unusable ``out`` file is refused before the work of building
        them).
    identity : sequence of str or mapping, optional
        The header fields that must agree to resume (default all); see
        :class:`~boundcalc.runner.store.JsonlStore`.
    tag : str
        The store's header key.
    desc : str, optional
        The progress bar's label.
    check_row : callable, optional
        ``check_row(task, row, shared)``: why a resumed row is not one ``fn`` writes for ``task``,
        or None (:func:`~boundcalc.runner.executor.run_tasks`).
    """

    kind: str
    fn: Callable[[dict, Any], dict]
    shared: Any = None
    header: dict = field(default_factory=dict)
    tasks: Sequence[dict] | Callable[[], Sequence[dict]] = ()
    identity: Sequence[str] | Mapping[str, Callable] | None = None
    tag: str = DEFAULT_TAG
    desc: str | None = None
    check_row: Callable[[dict, dict, Any], str | None] | None = None

    def open_store(self, out: str | os.PathLike | None, overwrite: bool = False) -> JsonlStore | None:
        """The job's store at ``out`` (None: no store; a :class:`JsonlStore` is used as it is)."""
        if out is None or isinstance(out, JsonlStore):
            return out
        return JsonlStore(out, self.header, overwrite=overwrite, tag=self.tag, identity=self.identity)


def run_job(
    job: Job,
    *,
    out: str | os.PathLike | None = None,
    overwrite: bool = False,
    workers: int | None = None,
    scheduler: Any = None,
    chunk_size: int | None = None,
    progress: bool | None = None,
    store: JsonlStore | None = None,
) -> Rows:
    """Run ``job``: open or resume the store, build the tasks, compute what is missing, close.

    Parameters
    ----------
    job : Job
    out : path or JsonlStore, optional
        The resumable JSON Lines row file (locked while the job runs).
    overwrite : bool
        Discard an existing ``out`` file instead of resuming it.
    workers, scheduler, chunk_size
        The executor (:func:`resolve_workers`; ``chunk_size`` tasks per Dask task).
    progress : bool or None
        Progress bar on stderr; None: only when stderr is a terminal.
    store : JsonlStore, optional
        An already opened store (the caller opened it, e.g. to check rows against its draw);
        it is closed on return like one opened here.

    Returns
    -------
    Rows
        The rows of every task, sorted by index, with the run's figures in ``.stats``.
    """
    n_workers = resolve_workers(workers, scheduler)
    if chunk_size is not None:
        chunk_size = check_count(chunk_size, "chunk_size", low=1)
    if store is None:
        store = job.open_store(out, overwrite)
    try:
        tasks = job.tasks() if callable(job.tasks) else job.tasks
        if len(tasks) > MAX_TASKS:
            raise ValueError(
                f"{job.kind}: {len(tasks):,} tasks is more than one run holds ({MAX_TASKS:,});"
                " split the work into several runs"
            )
        return run_tasks(
            job.fn,
            tasks,
            shared=job.shared,
            store=store,
            workers=n_workers,
            scheduler=scheduler,
            chunk_size=chunk_size,
            progress=progress,
            desc=job.desc or job.kind,
            check_row=job.check_row,
        )
    finally:
        if store is not None:
            store.close()
