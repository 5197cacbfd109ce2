"""Run many independent tasks in-process or on Dask, optionally into a resumable row store.

:func:`run_tasks` is generic over the task: a task is a picklable dict with a unique integer
``"index"``, and a module-level function ``fn(task, shared) -> row`` turns it into a
JSON-serialisable dict that carries the same ``"index"``.  ``shared`` is one object every task
needs (a parent matrix, a policy configuration); on Dask it is scattered to every worker once.

Determinism
    Each row depends only on its task and ``shared``: the runner never passes seeds, worker
    ids or chunk positions, and every row is returned (and stored) as JSON reads it back, so
    the rows are identical in-process, on any number of workers, with any chunk size, and
    whether a row was computed now or resumed from the store.  Rows come back sorted by index.

Rows as they finish
    On Dask a worker publishes each row of a chunk as its task ends (a Dask event, within
    :data:`PUBLISH_SECONDS`), and the client stores it and advances the bar then; the chunk's
    result only confirms.  An interruption (Ctrl-C, SIGTERM), a dead worker or a failing task
    thus keeps every row that reached the client, and a rerun with the same store computes the
    rest.  (Two runs at once on one ``distributed.Client`` share its handler of the topic: the
    later one's rows come by the topic, the earlier one's by the chunks' results.)

Failures
    When ``fn`` raises, the exception propagates (in-process directly, on Dask from the
    future); the rows finished before it are already in the store and a rerun computes only
    the others.  The runner itself never records an error row.  A task that should not end a
    long run catches its own exception and returns ``{"index": i, "error": "...", ...}``: such
    a row is returned and stored like any other, and retried on resume (:attr:`JsonlStore.done
    <boundcalc.runner.store.JsonlStore.done>` leaves it out).

>>> def square(task, shared):
...     return {"index": task["index"], "y": task["x"] ** 2 + shared}
>>> rows = run_tasks(square, [{"index": i, "x": x} for i, x in enumerate([3, 1, 2])], shared=10)
>>> rows
[{'index': 0, 'y': 19}, {'index': 1, 'y': 11}, {'index': 2, 'y': 14}]
>>> rows.stats["backend"], rows.stats["computed"], rows.stats["resumed"]
('in-process', 3, 0)
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import logging
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from ..result import RichResult
from .store import JsonlStore

__all__ = [
    "run_tasks",
    "Rows",
    "default_workers",
    "dask_client",
    "ClusterLost",
    "check_scheduler_address",
    "probe_scheduler",
]

_T = TypeVar("_T")

#: Default upper bound on tasks per Dask chunk.
MAX_CHUNK = 100
#: Seconds of worker time a Dask chunk holds when the caller sets no chunk size: the first chunks
#: are single tasks, later ones as many tasks as the mean task time so far fits in this (at most
#: :data:`MAX_CHUNK`), so that many tiny tasks share one Dask task while the scheduler still
#: balances the work; the rows of a chunk reach the client task by task (:data:`PUBLISH_SECONDS`).
CHUNK_SECONDS = 0.25


class Rows(list, RichResult):
    """The rows :func:`run_tasks` returns (a plain ``list`` of dicts, sorted by index), with the
    run's figures in :attr:`stats`.

    Attributes
    ----------
    stats : dict
        ``tasks``, ``resumed`` (rows taken from the store), ``computed``, ``errors`` (rows with
        an ``"error"`` key), ``backend`` (``"in-process"`` or ``"dask"``), ``workers`` (Dask
        worker threads; 0 in-process), ``chunk_size`` (tasks per Dask task: the size asked for, else the largest
        chunk made; 1 in-process),
        ``seconds_cluster`` (starting or connecting to Dask) and ``seconds_run`` (computing).
    """

    stats: dict

    def __init__(self, rows: Iterable[Mapping[str, Any]] = (), stats: dict | None = None):
        super().__init__(rows)
        self.stats = dict(stats or {})

    def summary(self) -> str:
        st = self.stats
        where = st.get("backend", "in-process")
        if where == "dask":
            where += f" ({st.get('workers')} workers)"
        return (
            f"{len(self)} rows: {st.get('resumed', 0)} resumed, {st.get('computed', 0)} computed {where},"
            f" {st.get('errors', 0)} with an error"
        )

    def to_dict(self) -> dict:
        return {"rows": list(self), "stats": dict(self.stats)}


def default_workers() -> int:
    """The default size of a local cluster: the number of cores when dask.distributed is
    installed, else 0 (in-process)."""
    return (os.cpu_count() or 1) if importlib.util.find_spec("distributed") else 0


#: Seconds to wait at most for a Dask scheduler to answer (connect, then its identity) before giving
#: up; a shorter ``distributed.comm.timeouts.connect`` in dask's configuration is honoured
#: (:func:`connect_timeout`).
CONNECT_TIMEOUT = 10.0
#: Schemes of a Dask scheduler address (``distributed.comm``'s transports).
SCHEMES = ("tcp", "tls", "ucx", "ws", "wss", "inproc")


class ClusterLost(RuntimeError):
    """The Dask cluster went away mid-run (a worker or the scheduler lost): the rows finished so
    far are in the store, and rerunning the same call resumes."""


def check_scheduler_address(address: str) -> str:
    """A Dask scheduler address checked before any connection: ``[SCHEME://]HOST:PORT`` with a
    scheme of :data:`SCHEMES` (default ``tcp``), a host, and a port in 1..65535.  Returns it
    unchanged; raises ``ValueError`` naming the part that is wrong.

    >>> check_scheduler_address("tcp://127.0.0.1:8786")
    'tcp://127.0.0.1:8786'
    >>> check_scheduler_address("htp://host:8786")
    Traceback (most recent call last):
    ...
    ValueError: --scheduler 'htp://host:8786': unknown scheme 'htp' (use tcp, tls, ucx, ws, wss, inproc)
    """
    from urllib.parse import urlsplit

    text = str(address).strip()
    if not text or any(c.isspace() for c in text) or len(text) > 1000:
        raise ValueError(f"--scheduler {address!r}: not an address; give SCHEME://HOST:PORT, e.g. tcp://host:8786")
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    if scheme not in SCHEMES:
        raise ValueError(f"--scheduler {address!r}: unknown scheme {scheme!r} (use {', '.join(SCHEMES)})")
    if scheme == "inproc":
        return text
    try:
        parts = urlsplit(f"//{rest}")
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise ValueError(f"--scheduler {address!r}: {exc}; give SCHEME://HOST:PORT") from None
    if parts.path or parts.query or parts.fragment:
        raise ValueError(f"--scheduler {address!r}: a path or query after HOST:PORT; give SCHEME://HOST:PORT")
    if not host:
        raise ValueError(f"--scheduler {address!r}: no host; give SCHEME://HOST:PORT")
    if port is None or not 1 <= port <= 65535:
        raise ValueError(f"--scheduler {address!r}: no port (1-65535); give SCHEME://HOST:PORT, e.g. :8786")
    return text


def connect_timeout() -> float:
    """Seconds to wait for a scheduler: dask's ``distributed.comm.timeouts.connect`` (30 s unless
    configured), capped at :data:`CONNECT_TIMEOUT` -- a connect refused at once is retried by dask
    until this passes, so a wrong address is named within it.

    >>> import dask
    >>> with dask.config.set({"distributed.comm.timeouts.connect": "0.5s"}):
    ...     connect_timeout()
    0.5
    """
    import dask
    from dask.utils import parse_timedelta

    configured = parse_timedelta(dask.config.get("distributed.comm.timeouts.connect", CONNECT_TIMEOUT), default="s")
    return min(CONNECT_TIMEOUT, float(configured))


def probe_scheduler(address: str, timeout: float | None = None) -> dict:
    """Ask the listener at ``address`` who it is (Dask's ``identity`` message) within ``timeout``
    seconds: its identity when it is a Dask scheduler, else ``ConnectionError`` naming the address
    (nothing answers in time, or the reply is not Dask's protocol -- e.g. a web server).  Run
    before ``distributed.Client``, which waits without end on a listener that is not a scheduler.
    ``timeout``: :func:`connect_timeout` by default."""
    import asyncio

    if timeout is None:
        timeout = connect_timeout()

    async def ask() -> Any:
        from distributed.comm import connect

        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    where = f"the Dask scheduler at {address!r}"
    try:
        reply = asyncio.run(asyncio.wait_for(ask(), timeout))
    except (TimeoutError, asyncio.TimeoutError):
        raise ConnectionError(
            f"cannot connect to {where}: no answer within {timeout:g} s (nothing listening, or not a Dask scheduler)"
        ) from None
    except OSError as exc:
        raise ConnectionError(f"cannot connect to {where}: {exc}") from None
    except Exception as exc:  # a listener speaking another protocol: garbage frames, huge lengths, ...
        raise ConnectionError(
            f"{address!r} is not a Dask scheduler (its reply is not Dask's protocol: {type(exc).__name__})"
        ) from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise ConnectionError(
            f"{address!r} is not a Dask scheduler (it answered as"
            f" {reply.get('type') if isinstance(reply, dict) else type(reply).__name__!r})"
        )
    return reply


@contextlib.contextmanager
def _quiet_distributed() -> Iterator[None]:
    """The client side's distributed loggers at CRITICAL for the run (a lost scheduler is said
    in one line by the caller, not in dask's reconnect messages), unless BOUNDCALC_DEBUG is set."""
    if os.environ.get("BOUNDCALC_DEBUG", "") not in ("", "0"):
        yield
        return
    names = ["distributed"] + [n for n in list(logging.root.manager.loggerDict) if n.startswith("distributed.")]
    loggers = [logging.getLogger(n) for n in names]  # children with their own level (dask's config) too
    old = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, level in zip(loggers, old):
            lg.setLevel(level)


@contextlib.contextmanager
def _workers_block_sigint() -> Iterator[None]:
    """Block SIGINT in this thread while a local cluster starts, so that no worker process ever
    takes a Ctrl-C and a Ctrl-C during the start still ends the run.

    A terminal's Ctrl-C goes to the whole process group; a worker that took it would print a
    ``KeyboardInterrupt`` traceback, while the client stops the run in one line and closes the
    cluster.  The signal mask is inherited by the threads created in the block (the cluster's event
    loop, and the process-watch threads that fork the workers) and by child processes across fork
    and ``exec``, and Python's start-up keeps it: every thread of every worker keeps SIGINT
    blocked, including a worker its nanny restarts later from the same loop.  The client's own
    handler stays in place: a Ctrl-C during the start goes to a thread that does not block it (the
    CLI's signal watcher), which raises ``KeyboardInterrupt`` in this thread as soon as the start
    returns; or it waits, pending, until the mask is restored on leaving the block, which raises it
    there.  Ignoring SIGINT (``SIG_IGN``) instead would lose that Ctrl-C: the disposition is
    process-wide, the kernel discards an ignored signal, and a handler to record it would reach
    the workers as SIGINT's default after ``exec``, that is, as Python's ``KeyboardInterrupt``.
    Without signal masks (Windows) SIGINT is ignored during the start, as the only way to keep it
    from the workers."""
    import signal
    import threading

    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        ignored = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, ignored)
        return
    _start_resource_tracker()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)  # a Ctrl-C held meanwhile is raised here


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (it removes the semaphores of the workers' queues
    if the client dies) before the cluster, with SIGHUP blocked.  Its start unblocks SIGINT in the
    thread that starts it (``multiprocessing.resource_tracker.ResourceTracker.ensure_running``),
    which would otherwise be the thread forking the first worker; and it ignores SIGINT and
    SIGTERM but not SIGHUP, so a hangup of the process group would end it, and the client's
    relaunch of it print a ``KeyError`` traceback for each semaphore the new one never saw.  A
    tracker already running is left as it is; SIGHUP to this process meanwhile is raised on return."""
    import signal
    from multiprocessing import resource_tracker

    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    try:
        resource_tracker.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextlib.contextmanager
def dask_client(workers: int = 0, scheduler: Any = None) -> Iterator[Any]:
    """A ``distributed.Client``: ``scheduler`` itself when it is a client, one connected to
    ``scheduler`` (an address such as ``"tcp://host:8786"`` or a cluster object), or one on a
    new ``LocalCluster`` of ``workers`` single-threaded worker processes, closed on exit.

    Raises ``ConnectionError`` naming the address when the scheduler cannot be reached (after
    dask's ``distributed.comm.timeouts.connect``), ``ImportError`` without dask.distributed.
    """
    try:
        import distributed
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "running on Dask needs dask.distributed (pip install 'boundcalc[dask]'); use workers=0 to run in-process"
        ) from None
    if isinstance(scheduler, distributed.Client):
        yield scheduler
        return
    if scheduler is not None:
        target = scheduler if isinstance(scheduler, str) else getattr(scheduler, "scheduler_address", scheduler)
        if isinstance(target, str):
            check_scheduler_address(target)
            probe_scheduler(target)  # a listener that is not a scheduler: refused within the timeout
        try:
            client = distributed.Client(target, set_as_default=False, timeout=connect_timeout())
        except (OSError, TimeoutError) as exc:  # unreachable, refused, timed out
            raise ConnectionError(f"cannot connect to the Dask scheduler at {target!r}: {exc}") from None
        try:
            with _quiet_distributed():
                yield client
        finally:
            with _quiet_distributed(), contextlib.suppress(Exception):
                client.close(timeout=CONNECT_TIMEOUT)
        return
    import multiprocessing
    import warnings

    from distributed.deploy.spec import SpecCluster

    before, children = set(SpecCluster._instances), set(multiprocessing.active_children())
    try:  # an interruption while it starts, or held until it started: stop what was started, quietly
        with _workers_block_sigint(), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*already in use")  # the dashboard's port: none is used
            cluster = distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.CRITICAL,
            )
        client = distributed.Client(cluster, set_as_default=False)
    except BaseException:
        _abandon_clusters(set(SpecCluster._instances) - before, set(multiprocessing.active_children()) - children)
        raise
    try:
        with _quiet_distributed():
            yield client
    finally:
        with _quiet_distributed():
            client.close()
            cluster.close()


def _abandon_clusters(clusters: set, children: set) -> None:
    """Stop local clusters whose start was interrupted: the worker processes started for them
    (``children``) are terminated and their event loops stopped, and they leave dask's list of
    clusters to close at exit (whose close of a cluster that never ran ends in an
    ``AssertionError`` traceback); the process's ``asyncio`` log is silenced, as their unfinished
    start-up tasks report on it when collected (the caller reports the interruption)."""
    from distributed.deploy.spec import SpecCluster

    if not clusters:
        return
    logging.getLogger("asyncio").setLevel(logging.CRITICAL + 1)  # "Task exception was never retrieved"
    for c in clusters:
        SpecCluster._instances.discard(c)
        c.status = getattr(type(c.status), "closed", c.status)  # no "unclosed cluster" warning either
    for child in children:  # the nannies' worker processes
        with contextlib.suppress(Exception):
            child.terminate()
    for c in clusters:
        with contextlib.suppress(Exception):
            c._loop_runner.stop()


def _progress_bar(total: int, initial: int, progress: bool | None, desc: str | None) -> Any:
    if progress is None:
        progress = bool(getattr(sys.stderr, "isatty", lambda: False)())
    if not progress:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is optional
        return None
    from .._table import escape_control

    # the description may carry a name from a file: escaped, while the bar keeps its own "\r" redraws
    label = None if desc is None else escape_control(desc)
    return tqdm(total=total, initial=initial, file=sys.stderr, desc=label, unit="task", dynamic_ncols=True)


def _task_index(n: int, i: object) -> int:
    """The integer ``index`` ``i`` of task ``n`` (a Python or numpy integer, not a bool)."""
    if isinstance(i, int) and not isinstance(i, bool):
        return i
    try:
        import numpy as np

        if isinstance(i, np.integer):
            return int(i)
    except ImportError:  # pragma: no cover
        pass
    raise TypeError(f"task {n} has index {i!r}; every task needs an integer 'index'")


def _check_tasks(tasks: Iterable[_T]) -> list[_T]:
    out: list[_T] = []
    seen: set[int] = set()
    for n, t in enumerate(tasks):
        if not isinstance(t, Mapping):
            raise TypeError(f"task {n} is a {type(t).__name__}, not a dict with an integer 'index'")
        i = _task_index(n, t.get("index"))
        if i in seen:
            raise ValueError(f"task index {i} occurs twice; task indices must be unique")
        seen.add(i)
        out.append(t)
    return out


def _row_line(row: object, index: int) -> str:
    """The row of task ``index`` as a JSON line; check it is a dict carrying the task's index."""
    if not isinstance(row, Mapping):
        raise TypeError(f"task {index}: the task function returned a {type(row).__name__}, not a dict")
    try:
        line = json.dumps(row)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"task {index}: the row is not JSON-serialisable ({exc})") from None
    if row.get("index") != index:
        raise ValueError(f"task {index}: the task function returned a row with index {row.get('index')!r}")
    return line


def _normalise(row: object, index: int) -> dict:
    """The row as JSON reads it back (the form every row is returned and stored in)."""
    return json.loads(_row_line(row, index))


#: The Dask event topic (``Worker.log_event``, ``Client.subscribe_topic``) on which a worker
#: publishes the rows of a chunk as its tasks finish; each message carries its run's id.
ROWS_TOPIC = "boundcalc-rows"
#: Seconds a worker gathers the rows finishing in a chunk before it publishes them as one message:
#: a row reaches the client (row file, progress bar) within about this long after its task ends,
#: while many tiny tasks share a message.
PUBLISH_SECONDS = 0.05


class _RowPublisher:
    """Publishes a chunk's rows from its worker as its tasks finish (:data:`ROWS_TOPIC`): a row
    added is sent within ``seconds`` (a daemon thread gathers the rows finishing meanwhile into one
    message; at once when ``seconds`` is 0), so that rows finished inside a chunk still running
    reach the client even when the chunk never returns (an interruption, a lost worker).
    :meth:`close` drops what is unsent: the chunk's result carries every row."""

    def __init__(self, worker: Any, run: str, seconds: float) -> None:
        import threading

        self.worker, self.run, self.seconds = worker, run, float(seconds)
        self.lock = threading.Lock()
        self.unsent: list[str] = []
        self.due = threading.Event()
        self.closed = threading.Event()
        if self.seconds > 0:
            threading.Thread(target=self._gather, name="boundcalc-row-publisher", daemon=True).start()

    def add(self, line: str) -> None:
        with self.lock:
            self.unsent.append(line)
        if self.seconds > 0:
            self.due.set()
        else:
            self.flush()

    def flush(self) -> None:
        with self.lock:
            batch, self.unsent = self.unsent, []
            self.due.clear()
            if batch and not self.closed.is_set():
                with contextlib.suppress(Exception):  # a worker closing: the chunk's result has the rows
                    self.worker.log_event(ROWS_TOPIC, {"run": self.run, "rows": batch})

    def close(self) -> None:
        with self.lock:
            self.closed.set()
            self.unsent = []
        self.due.set()

    def _gather(self) -> None:
        while self.due.wait() and not self.closed.is_set():
            if self.closed.wait(self.seconds):  # the rows finishing meanwhile join the message
                return
            self.flush()


def _run_chunk(
    fn: Callable[[dict, Any], dict], chunk: list[dict], shared: Any, run: str | None = None, publish: float = 0.0
) -> tuple[list[str], float]:
    """Dask task: the JSON lines of a chunk's rows, in order, and the worker's seconds for them.
    With a ``run`` id, a chunk of several tasks also publishes each row as its task ends
    (:class:`_RowPublisher`, within ``publish`` seconds), and the rows finished before a task
    that raises are sent before the exception; the returned lines confirm them."""
    t0 = time.perf_counter()
    publisher = None
    if run is not None and len(chunk) > 1:
        with contextlib.suppress(ImportError, ValueError):  # ValueError: not on a Dask worker
            from distributed import get_worker

            publisher = _RowPublisher(get_worker(), run, publish)
    lines = []
    try:
        for t in chunk:
            line = _row_line(fn(t, shared), int(t["index"]))
            lines.append(line)
            if publisher is not None:
                publisher.add(line)
    except BaseException:
        if publisher is not None:
            publisher.flush()  # the rows finished before the failure are kept
        raise
    finally:
        if publisher is not None:
            publisher.close()
    return lines, time.perf_counter() - t0


def _check_resumed(
    store: JsonlStore, tasks: list[dict], done: dict[int, dict], check_row: Callable[..., str | None], shared: Any
) -> None:
    """Refuse resumed rows that ``check_row`` finds are not its task's (see :func:`run_tasks`)."""
    from .store import StoreError

    bad = []
    for t in tasks:
        i = int(t["index"])
        if i in done:
            try:
                why = check_row(t, done[i], shared)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                why = f"it cannot be read ({type(exc).__name__}: {exc})"
            if why:
                bad.append((i, why))
    if bad:
        i, why = bad[0]
        more = f" (and {len(bad) - 1} more rows)" if len(bad) > 1 else ""
        raise StoreError(
            f"{store.path}: the stored row of task {i} is not a row this run writes: {why}{more}; delete those"
            " lines and rerun the same command (only the missing rows are computed), or rerun with --overwrite"
            " (overwrite=True) to recompute all"
        )


def run_tasks(
    fn: Callable[[dict, Any], dict],
    tasks: Sequence[dict],
    *,
    shared: Mapping[str, Any] | None = None,
    store: JsonlStore | None = None,
    workers: int | None = 0,
    scheduler: Any = None,
    chunk_size: int | None = None,
    progress: bool | None = False,
    desc: str | None = None,
    check_row: Callable[[dict, dict, Any], str | None] | None = None,
) -> Rows:
    """Compute ``fn(task, shared)`` for every task not already in ``store``; rows sorted by index.

    Parameters
    ----------
    fn : callable
        ``fn(task, shared) -> dict``, a JSON-serialisable row carrying ``task["index"]``.  Must be
        a module-level function (Dask pickles it by reference).
    tasks : sequence of dict
        Picklable dicts, each with a unique integer ``"index"``.
    shared : object, optional
        Passed to every call; on Dask scattered to every worker once (broadcast), so a large
        matrix is sent once, not once per task.
    store : JsonlStore, optional
        Rows already :attr:`~boundcalc.runner.store.JsonlStore.done` there (same index, no
        ``"error"`` key) are returned without being computed; every new row is appended and
        flushed as soon as it arrives.  The store is opened (header written) even when nothing
        is left to compute, and closed on return.
    workers : int or None
        ``0``: in-process (default).  ``n > 0``: a new local Dask cluster of ``n``
        single-threaded worker processes, shut down on return.  None: :func:`default_workers`.
        Ignored when ``scheduler`` is given.  No cluster is started when nothing is left to do.
    scheduler : str, distributed.Client or cluster object, optional
        Run on an existing Dask cluster (e.g. ``"tcp://host:8786"``).
    chunk_size : int, optional
        Tasks per Dask task (default: single tasks first, then as many as fill
        :data:`CHUNK_SECONDS` of a worker's time, at most :data:`MAX_CHUNK`, so rows come back and
        are stored as they finish); results never depend on it.  Ignored in-process.
    progress : bool or None
        A tqdm bar on stderr (nothing when tqdm is not installed); None: only when stderr is a
        terminal.
    desc : str, optional
        The bar's label.
    check_row : callable, optional
        ``check_row(task, row, shared)``: why a row resumed from ``store`` is not one ``fn``
        writes for ``task`` (a wrong policy or run, a missing key, a non-finite number), or None.
        A row with a reason is refused with :class:`~boundcalc.runner.store.StoreError` naming
        the file, the task and the reason, before anything is computed.

    Returns
    -------
    Rows
        A ``list`` of the rows of all ``tasks`` (resumed or computed), sorted by index, each as
        JSON reads it back; ``.stats`` holds the run's figures (see :class:`Rows`).

    Raises
    ------
    TypeError, ValueError
        A task without a unique integer index; a row that is not a JSON-serialisable dict with
        its task's index; bad ``workers`` / ``chunk_size``.
    ConnectionError
        ``scheduler`` cannot be reached.
    Exception
        Whatever ``fn`` raises (rows finished before it are kept in ``store``).
    """
    tasks = _check_tasks(tasks)
    if workers is None:
        workers = default_workers()
    if isinstance(workers, bool) or int(workers) != workers or workers < 0:
        raise ValueError(f"workers must be an integer >= 0; got {workers!r}")
    workers = int(workers)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if workers > cores and scheduler is None:  # more local processes than cores: start-up and memory only
        import warnings

        warnings.warn(
            f"workers={workers} is more than the {cores} cores this machine gives the process; using {cores}",
            stacklevel=2,
        )
        workers = cores
    if chunk_size is not None and (int(chunk_size) != chunk_size or chunk_size < 1):
        raise ValueError(f"chunk_size must be an integer >= 1; got {chunk_size!r}")
    if not callable(fn):
        raise TypeError(f"fn must be callable; got {type(fn).__name__}")

    done: dict[int, dict] = {}
    if store is not None:
        stored = store.done
        done = {int(t["index"]): stored[int(t["index"])] for t in tasks if int(t["index"]) in stored}
        if check_row is not None:
            _check_resumed(store, tasks, done, check_row, shared)
    resumed = len(done)
    todo = [t for t in tasks if int(t["index"]) not in done]
    stats: dict[str, Any] = {
        "tasks": len(tasks),
        "resumed": resumed,
        "computed": 0,
        "errors": 0,
        "backend": "in-process",
        "workers": 0,
        "chunk_size": 1,
        "seconds_cluster": 0.0,
        "seconds_run": 0.0,
    }
    bar = _progress_bar(len(tasks), resumed, progress, desc)

    def consume(rows: list[dict]) -> None:  # rows as JSON reads them back
        if store is not None:
            store.append(rows)
        for back in rows:
            done[back["index"]] = back
        stats["computed"] += len(rows)
        if bar is not None:
            bar.update(len(rows))

    t0 = time.perf_counter()
    try:
        if store is not None:
            store.open()
        if todo and (scheduler is not None or workers > 0):
            stats["backend"] = "dask"
            with dask_client(workers, scheduler) as client:
                n_threads = _worker_threads(client)
                stats["workers"] = n_threads
                stats["seconds_cluster"] = time.perf_counter() - t0
                t0 = time.perf_counter()
                cs = int(chunk_size) if chunk_size else None
                try:
                    largest = _run_dask(client, fn, todo, shared, cs, n_threads, consume)
                    stats["chunk_size"] = cs or largest  # the size asked for, else the largest chunk made
                except ClusterLost as exc:
                    kept = (
                        (
                            f"the {stats['computed']} rows finished so far are kept in {store.path}; rerun the"
                            " same command to resume"
                        )
                        if store is not None
                        else "no row file was given (--out FILE keeps finished rows for a rerun)"
                    )
                    raise ClusterLost(f"{str(exc).split(': the rows')[0]}: {kept}") from exc
        else:
            for t in todo:
                consume([_normalise(fn(t, shared), int(t["index"]))])
    finally:
        stats["seconds_run"] = time.perf_counter() - t0
        if bar is not None:
            bar.close()
        if store is not None:
            store.close()
    rows = [done[int(t["index"])] for t in sorted(tasks, key=lambda t: int(t["index"]))]
    stats["errors"] = sum(1 for r in rows if "error" in r)
    return Rows(rows, stats)


def _worker_threads(client: Any) -> int:
    """The worker threads of ``client``'s cluster, waiting up to :func:`connect_timeout` for a first
    worker to join a scheduler that has none (``ConnectionError`` then: the tasks would wait
    without end)."""
    n = sum(client.nthreads().values())
    if n == 0:
        try:
            client.wait_for_workers(1, timeout=connect_timeout())
        except (TimeoutError, OSError):
            address = getattr(getattr(client, "scheduler", None), "address", "?")
            raise ConnectionError(
                f"the Dask scheduler at {address!r} has no workers (none joined within {connect_timeout():g} s):"
                f" start some (dask worker {address}) or run on a local cluster (--workers N)"
            ) from None
        n = sum(client.nthreads().values())
    return max(1, n)


def _run_dask(
    client: Any,
    fn: Callable[[dict, Any], dict],
    todo: list[dict],
    shared: Any,
    chunk_size: int | None,
    n_threads: int,
    consume: Callable[[list[dict]], None],
) -> int:
    """Scatter ``shared`` once, submit chunks (a bounded number in flight; ``chunk_size`` tasks
    each, or sized by :data:`CHUNK_SECONDS` when None) and consume rows as they arrive; return the
    largest chunk.

    Rows arrive per task: a worker publishes the rows of a chunk as its tasks end
    (:func:`_run_chunk`, on :data:`ROWS_TOPIC`), and a chunk's result then only confirms them
    (rows are consumed once, by task index; both forms are the same JSON line, so the rows are
    those of an in-process run).  On an exception (an interruption, a lost worker or scheduler, a
    failed task) the rows that reached the client and the chunks that finished are consumed first
    (:func:`_keep_arrived`) -- their rows reach the store -- then what is still queued is
    cancelled and the exception re-raised."""
    # wrapped in a list so that a list or dict is scattered as one object, not element-wise
    # hash=False: a key of its own per run, never one a previous run of the same data is releasing
    shared_f = client.scatter([shared], broadcast=True, hash=False)[0] if shared is not None else None
    run = _DaskRun(client, fn, todo, shared_f, chunk_size, consume)
    client.subscribe_topic(ROWS_TOPIC, run.on_event)
    for ch in (run.next_chunk() for _ in range(max(4, 2 * n_threads))):
        if ch is not None:
            run.submit(ch)
    watch = _watch_scheduler(client)
    item = None
    try:
        while run.pending:
            item = _next_arrival(run.arrived)
            if item is not None and run.handle(item):
                nxt = run.next_chunk()
                if nxt is not None:
                    run.submit(nxt)
            item = None
    except BaseException as exc:
        silent = watch["lost"]
        watch["stop"].set()
        if silent is not None and isinstance(exc, KeyboardInterrupt):  # the watch interrupted the wait
            _keep_arrived(run.arrived, item, run.pending, run.handle, grace=0.0)
            raise ClusterLost(
                f"the Dask scheduler stopped answering ({silent}): the rows finished so far are kept; rerun to resume"
            ) from None
        _keep_arrived(run.arrived, item, run.pending, run.handle, grace=GRACE_SECONDS)
        left = [f for f, _ in run.pending.values()]
        if left:
            with contextlib.suppress(Exception):
                client.cancel(left)
        raise
    finally:
        watch["stop"].set()
        with contextlib.suppress(Exception):
            client.unsubscribe_topic(ROWS_TOPIC)
        if shared_f is not None and watch["lost"] is None:
            with contextlib.suppress(Exception):
                shared_f.release()
    return run.largest


class _DaskRun:
    """The client's side of :func:`_run_dask`: the chunks (:meth:`next_chunk`, :meth:`submit`),
    what arrives for them in :attr:`arrived` -- ``("rows", [line, ...])`` from the topic
    (:meth:`on_event`) and ``("done", future)`` -- and its consumption (:meth:`handle`)."""

    def __init__(
        self,
        client: Any,
        fn: Callable[[dict, Any], dict],
        todo: list[dict],
        shared_f: Any,
        chunk_size: int | None,
        consume: Callable[[list[dict]], None],
    ) -> None:
        import queue
        import uuid

        self.client, self.fn, self.todo, self.shared_f = client, fn, todo, shared_f
        self.chunk_size, self.consume = chunk_size, consume
        self.id = uuid.uuid4().hex  # this run's rows on the topic (another client's runs publish there too)
        self.arrived: queue.SimpleQueue = queue.SimpleQueue()
        self.pending: dict = {}  # key -> (future, chunk)
        self.owner: dict[int, str] = {}  # index of a task whose row has not arrived -> its chunk's key
        self.pos = self.tasks = self.largest = 0
        self.seconds = 0.0

    def on_event(self, event: Any) -> None:
        """The topic's handler, on the client's event loop: hand this run's rows to the main thread."""
        msg = event[1] if isinstance(event, (tuple, list)) and len(event) == 2 else None  # (time, msg)
        if isinstance(msg, dict) and msg.get("run") == self.id and isinstance(msg.get("rows"), (list, tuple)):
            self.arrived.put(("rows", list(msg["rows"])))

    def next_chunk(self) -> list[dict] | None:
        size = self.chunk_size
        if size is None:  # the mean seconds per task so far fill CHUNK_SECONDS
            mean = self.seconds / self.tasks if self.tasks else math.inf
            size = max(1, min(MAX_CHUNK, int(CHUNK_SECONDS / mean) if mean > 0 else MAX_CHUNK))
        ch = self.todo[self.pos : self.pos + size]
        self.pos += len(ch)
        self.largest = max(self.largest, len(ch))
        return ch or None

    def submit(self, ch: list[dict]) -> None:
        fut = self.client.submit(_run_chunk, self.fn, ch, self.shared_f, self.id, PUBLISH_SECONDS, pure=False)
        self.pending[fut.key] = (fut, ch)
        self.owner.update((int(t["index"]), fut.key) for t in ch)
        fut.add_done_callback(lambda f: self.arrived.put(("done", f)))

    def take(self, lines: list[str]) -> None:
        """Consume the rows of ``lines`` not consumed yet."""
        fresh: dict[int, dict] = {}
        for line in lines:
            back = json.loads(line)
            if back["index"] in self.owner:
                fresh[back["index"]] = back
        if fresh:
            self.consume(list(fresh.values()))
            for i in fresh:
                del self.owner[i]

    def handle(self, item: tuple[str, Any], timeout: float | None = None) -> bool:
        """Consume an arrival; True when it ends a chunk (its future's exception is raised)."""
        kind, obj = item
        if kind == "rows":
            self.take(obj)
            return False
        if obj.key not in self.pending:  # cancelled after the run ended, or handled already
            return False
        try:
            lines, seconds = obj.result(timeout=timeout)
        except _cluster_errors() as exc:
            raise ClusterLost(
                f"the Dask cluster went away mid-run ({_lost(exc)}): the rows finished so far are kept; rerun to resume"
            ) from exc
        chunk = self.pending[obj.key][1]
        self.take([line for t, line in zip(chunk, lines) if int(t["index"]) in self.owner])
        del self.pending[obj.key]
        self.tasks += len(chunk)
        self.seconds += seconds
        obj.release()
        return True


def _next_arrival(arrived: Any) -> tuple[str, Any] | None:
    """The next item of ``arrived``, or None after a short wait (so that an interruption by the
    scheduler watch, which sets no signal, lands within it)."""
    import queue

    try:
        return arrived.get(timeout=0.1)
    except queue.Empty:
        return None


#: Seconds between the checks that a Dask scheduler still answers, and the silence after which the
#: run ends with :class:`ClusterLost` (a frozen or unreachable scheduler otherwise keeps the client
#: waiting without end).
SCHEDULER_CHECK_SECONDS = 5.0
SCHEDULER_SILENCE_SECONDS = 30.0


def _watch_scheduler(client: Any) -> dict[str, Any]:
    """Start a daemon thread that asks the client's scheduler who it is (:func:`probe_scheduler`, a
    connection of its own) every :data:`SCHEDULER_CHECK_SECONDS`; when it does not answer within
    :data:`SCHEDULER_SILENCE_SECONDS`, the thread records why in ``["lost"]`` and interrupts the
    main thread (:func:`_interrupt_main`), whose wait on the futures then ends.  ``["stop"]`` (an
    Event) ends the watch.  Off the main thread, or without a scheduler address, nothing is watched."""
    import threading

    state: dict[str, Any] = {"lost": None, "stop": threading.Event()}
    address = getattr(getattr(client, "scheduler", None), "address", None)
    if not isinstance(address, str) or threading.current_thread() is not threading.main_thread():
        return state

    def watch() -> None:
        while not state["stop"].wait(SCHEDULER_CHECK_SECONDS):
            try:
                probe_scheduler(address, SCHEDULER_SILENCE_SECONDS)
            except Exception as exc:  # no answer in time, or the connection refused
                if not state["stop"].is_set():
                    state["lost"] = str(exc)
                    _interrupt_main()
                return

    threading.Thread(target=watch, name="boundcalc-scheduler-watch", daemon=True).start()
    return state


def _interrupt_main() -> None:
    """Raise ``KeyboardInterrupt`` in the main thread: as SIGINT would where Python handles SIGINT,
    else (a shell's background job starts with SIGINT ignored, where ``_thread.interrupt_main``
    does nothing) as an asynchronous exception, which lands at the main thread's next bytecode."""
    import _thread
    import ctypes
    import signal
    import threading

    if signal.getsignal(signal.SIGINT) not in (signal.SIG_IGN, signal.SIG_DFL, None):
        _thread.interrupt_main()
        return
    main = threading.main_thread().ident
    if main is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(main), ctypes.py_object(KeyboardInterrupt))


#: Seconds to consume, after an interruption, the rows that reached the client and the chunks
#: that finished (their rows are kept), and within it the grace for rows and chunks on their way.
KEEP_SECONDS = 5.0
GRACE_SECONDS = 0.5


def _keep_arrived(
    arrived: Any,
    current: tuple[str, Any] | None,
    pending: dict,
    handle: Callable[..., bool],
    grace: float,
) -> None:
    """Consume what reached the client when a run stops: ``current`` (the arrival being consumed
    when the exception came, if any), then what is queued in ``arrived`` and what arrives within
    ``grace`` seconds while chunks are pending, in :data:`KEEP_SECONDS` in all; an arrival that
    cannot be consumed (a failed chunk, a store that cannot take it) is skipped, its rows are
    computed again by a rerun.  Chunks ended here leave ``pending``."""
    import queue

    start = time.monotonic()
    items = [current] if current is not None else []
    while True:
        now = time.monotonic()
        if now - start > KEEP_SECONDS:
            return
        if not items:
            wait = start + grace - now
            try:
                items.append(arrived.get(timeout=wait) if wait > 0 and pending else arrived.get_nowait())
            except queue.Empty:
                return
        item = items.pop()
        try:
            handle(item, timeout=max(0.0, start + KEEP_SECONDS - time.monotonic()))
        except Exception:
            if item[0] == "done":
                pending.pop(item[1].key, None)


def _cluster_errors() -> tuple[type[BaseException], ...]:
    """The exceptions of a future whose worker or scheduler was lost (not the task's own)."""
    import asyncio
    import concurrent.futures

    errs: list[type[BaseException]] = [asyncio.CancelledError, concurrent.futures.CancelledError]
    with contextlib.suppress(ImportError):
        from distributed.client import FutureCancelledError

        errs.append(FutureCancelledError)
    with contextlib.suppress(ImportError):
        from distributed.scheduler import KilledWorker

        errs.append(KilledWorker)
    with contextlib.suppress(ImportError):
        from distributed.comm.core import CommClosedError

        errs.append(CommClosedError)
    return tuple(errs)


def _lost(exc: BaseException) -> str:
    name = type(exc).__name__
    if name == "KilledWorker":
        return "workers died while running a task"
    if "Cancelled" in name:
        return "its tasks were cancelled: a worker or the scheduler was lost"
    return f"{name}: the connection to the scheduler closed"
