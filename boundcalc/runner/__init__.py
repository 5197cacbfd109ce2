"""One runner for long work: many independent tasks, in-process or on Dask, into a resumable
JSON Lines file.

The apps (:mod:`boundcalc.batch`, :mod:`boundcalc.simulate`, :mod:`boundcalc.explore`, the
bootstrap of :mod:`boundcalc.uncertainty`) are each a :class:`Job` (a task function, its tasks and
the store's identity) and one call of :func:`run_job`, which checks the run options, opens or
resumes the :class:`JsonlStore`, picks the executor (:func:`resolve_workers`: in-process unless
workers or a scheduler are given) and runs the tasks through :func:`run_tasks`.  Seeds come from
:func:`derive_seed` and :func:`root_seed` alone (see :mod:`boundcalc.runner.job`).

>>> import tempfile, pathlib
>>> def double(task, shared):
...     return {"index": task["index"], "y": 2 * task["x"]}
>>> path = pathlib.Path(tempfile.mkdtemp()) / "run.jsonl"
>>> tasks = [{"index": i, "x": i + 0.5} for i in range(4)]
>>> rows = run_job(Job("doubling", double, header={"what": "doubling"}, tasks=tasks[:2]), out=path)
>>> again = run_job(Job("doubling", double, header={"what": "doubling"}, tasks=tasks), out=path)
>>> [r["y"] for r in again], again.stats["resumed"], again.stats["computed"]
([1.0, 3.0, 5.0, 7.0], 2, 2)
>>> load_store(path)[0]
{'what': 'doubling'}
"""

from .executor import Rows, dask_client, default_workers, run_tasks
from .job import Job, check_count, check_seed, derive_seed, resolve_workers, root_seed, run_job, seed_sequence
from .store import DEFAULT_TAG, JsonlStore, StoreError, StoreLocked, StoreMismatch, StoreWarning, load_store

__all__ = [
    "Job",
    "run_job",
    "derive_seed",
    "root_seed",
    "seed_sequence",
    "check_seed",
    "check_count",
    "resolve_workers",
    "run_tasks",
    "Rows",
    "default_workers",
    "dask_client",
    "JsonlStore",
    "StoreError",
    "StoreMismatch",
    "StoreLocked",
    "load_store",
    "StoreWarning",
    "DEFAULT_TAG",
]
