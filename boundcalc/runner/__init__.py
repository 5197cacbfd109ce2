"""One runner for long work: many independent tasks, in-process or on Dask, into a resumable
JSON Lines file.

:func:`run_tasks` is generic over the task (``fn(task, shared) -> row``, see
:mod:`boundcalc.runner.executor`); :class:`JsonlStore` is the row file a rerun resumes (see
:mod:`boundcalc.runner.store`).  :mod:`boundcalc.batch` (random submatrices, 000's Table 1) and
the policy simulator are built on them.

>>> import tempfile, pathlib
>>> def double(task, shared):
...     return {"index": task["index"], "y": 2 * task["x"]}
>>> path = pathlib.Path(tempfile.mkdtemp()) / "run.jsonl"
>>> tasks = [{"index": i, "x": i + 0.5} for i in range(4)]
>>> rows = run_tasks(double, tasks[:2], store=JsonlStore(path, {"what": "doubling"}))
>>> again = run_tasks(double, tasks, store=JsonlStore(path, {"what": "doubling"}))
>>> [r["y"] for r in again], again.stats["resumed"], again.stats["computed"]
([1.0, 3.0, 5.0, 7.0], 2, 2)
>>> load_store(path)[0]
{'what': 'doubling'}
"""

from .executor import Rows, dask_client, default_workers, run_tasks
from .store import DEFAULT_TAG, JsonlStore, StoreError, StoreLocked, StoreMismatch, StoreWarning, load_store

__all__ = [
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
