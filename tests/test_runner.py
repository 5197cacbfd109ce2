"""Tests of boundcalc.runner on its own, with trivial picklable task functions: rows sorted by
index and identical in-process, on a new two-worker local cluster and on an existing one with
any chunk size; resuming after an interrupted run (a task raising, a cut last line); error
rows retried; headers that differ refused; bad tasks and rows named.

The expected rows are computed here by calling the task function directly on each task, so
every comparison is against the runner's job description, not against the runner.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from boundcalc.runner import JsonlStore, StoreError, StoreLocked, StoreMismatch, load_store, run_tasks


# ----------------------------------------------------------------------------- task functions
def noisy_sum(task, shared):
    """A row that depends on the task's seed and on every part of ``shared`` (a dict)."""
    rng = np.random.default_rng([shared["seed"], task["index"]])
    x = rng.normal(size=3) @ shared["weights"]
    return {
        "index": task["index"],
        "label": task["label"],
        "x": float(x),
        "draws": rng.integers(0, 100, size=2).tolist(),
    }


def fail_once(task, shared):
    """Raises for index ``shared["bad"]`` until the marker file exists (it creates it)."""
    marker = Path(shared["marker"])
    if task["index"] == shared["bad"] and not marker.exists():
        marker.write_text("failed once")
        raise RuntimeError(f"task {task['index']} failed")
    return {"index": task["index"], "y": task["index"] ** 2}


def slow_square(task, shared):
    """Sleeps ``shared["sleep"]`` seconds, then marks its task finished (a file) and returns."""
    import time

    time.sleep(shared["sleep"])
    (Path(shared["dir"]) / f"done-{task['index']}").write_text("")
    return {"index": task["index"], "y": task["index"] ** 2}


class InterruptedStore(JsonlStore):
    """A store whose ``interrupt_at``-th append raises ``KeyboardInterrupt`` (Ctrl-C arriving while
    rows come in), after noting which tasks had finished on the workers by then."""

    interrupt_at = 3
    finished_then: set[int] = set()

    def append(self, rows):
        self.appends = getattr(self, "appends", 0) + 1
        if self.appends == self.interrupt_at:
            self.finished_then = {int(p.name.split("-")[1]) for p in self.path.parent.glob("done-*")}
            raise KeyboardInterrupt
        return super().append(rows)


def wait_after(task, shared):
    """Tasks below ``shared["k"]`` return at once; the others wait (at most 30 s) for the file
    ``shared["release"]``, so that a chunk is half done for as long as the test needs."""
    import time

    if task["index"] >= shared["k"]:
        release, end = Path(shared["release"]), time.monotonic() + 30
        while not release.exists() and time.monotonic() < end:
            time.sleep(0.01)
    if task["index"] == shared.get("fail"):
        raise RuntimeError(f"task {task['index']} failed")
    return {"index": task["index"], "x": 0.1 * task["index"], "draws": [task["index"], -1]}


def _interrupt_when_stored(path: Path, n: int, seconds: float = 20.0):
    """A thread that interrupts the main thread (as Ctrl-C does) once the row file at ``path``
    holds ``n`` rows, or after ``seconds``."""
    import _thread
    import threading
    import time

    def watch():
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if path.exists() and len(path.read_text().splitlines()) - 1 >= n:
                break
            time.sleep(0.01)
        _thread.interrupt_main()

    th = threading.Thread(target=watch, daemon=True)
    th.start()
    return th


@pytest.fixture
def sigint_raises():
    """SIGINT raising ``KeyboardInterrupt`` for the test: a shell's background job starts with SIGINT
    ignored, and ``_thread.interrupt_main`` then does nothing."""
    import signal

    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def error_row(task, shared):
    """Records its own failure as an error row while the marker file is absent."""
    if task["index"] % 3 == 1 and not Path(shared).exists():
        return {"index": task["index"], "y": None, "error": "RuntimeError: transient"}
    return {"index": task["index"], "y": task["index"] ** 2}


def wrong_index(task, shared):
    return {"index": task["index"] + 1}


def not_json(task, shared):
    return {"index": task["index"], "value": {1, 2}}


SHARED = {"seed": 7, "weights": np.array([1.0, -2.0, 0.5])}


def _tasks(n: int, order_seed: int = 0) -> list[dict]:
    """Tasks with indices 0..n-1 in a shuffled order."""
    idx = np.random.default_rng(order_seed).permutation(n)
    return [{"index": int(i), "label": f"t{int(i)}"} for i in idx]


def _expected(tasks) -> list[dict]:
    return [noisy_sum(t, SHARED) for t in sorted(tasks, key=lambda t: t["index"])]


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    import logging

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
    ) as c:
        yield c


# ----------------------------------------------------------------------------- order and identity
def test_in_process_rows_sorted_by_index():
    tasks = _tasks(12)
    assert [t["index"] for t in tasks] != list(range(12))  # really shuffled
    rows = run_tasks(noisy_sum, tasks, shared=SHARED)
    assert [r["index"] for r in rows] == list(range(12))
    assert rows == _expected(tasks)
    assert rows.stats == {
        **rows.stats,
        "tasks": 12,
        "resumed": 0,
        "computed": 12,
        "errors": 0,
        "backend": "in-process",
        "workers": 0,
    }


@pytest.mark.slow
def test_identical_rows_on_a_new_local_cluster():
    tasks = _tasks(20, 1)
    rows = run_tasks(noisy_sum, tasks, shared=SHARED, workers=2)
    assert rows.stats["backend"] == "dask" and rows.stats["workers"] == 2
    assert rows == _expected(tasks) == run_tasks(noisy_sum, tasks, shared=SHARED)


@pytest.mark.parametrize("chunk_size", [1, 3, 100])
@pytest.mark.slow
def test_identical_rows_whatever_the_chunk_size(cluster, chunk_size, tmp_path):
    tasks = _tasks(17, 2)
    store = JsonlStore(tmp_path / "rows.jsonl", {"run": "chunks"})
    rows = run_tasks(noisy_sum, tasks, shared=SHARED, scheduler=cluster, chunk_size=chunk_size, store=store)
    assert rows.stats["chunk_size"] == chunk_size and rows.stats["backend"] == "dask"
    assert rows == _expected(tasks)
    head, stored = load_store(store.path)
    assert head == {"run": "chunks"} and stored == rows  # the file holds every row once
    assert len(store.path.read_text().splitlines()) == 18


def test_scheduler_address_string(cluster):
    tasks = _tasks(5, 3)
    rows = run_tasks(noisy_sum, tasks, shared=SHARED, scheduler=cluster.scheduler_address)
    assert rows.stats["workers"] == 2 and rows == _expected(tasks)


# ----------------------------------------------------------------------------- resuming
def test_resume_after_a_task_raised(tmp_path):
    path = tmp_path / "rows.jsonl"
    shared = {"marker": str(tmp_path / "marker"), "bad": 4}
    tasks = [{"index": i} for i in range(8)]
    with pytest.raises(RuntimeError, match="task 4 failed"):
        run_tasks(fail_once, tasks, shared=shared, store=JsonlStore(path, {"n": 8}))
    # in-process the tasks run in the given order: 0..3 are stored, nothing for 4 (no error row)
    assert [r["index"] for r in load_store(path)[1]] == [0, 1, 2, 3]
    rows = run_tasks(fail_once, tasks, shared=shared, store=JsonlStore(path, {"n": 8}))
    assert (rows.stats["resumed"], rows.stats["computed"]) == (4, 4)
    assert rows == [{"index": i, "y": i * i} for i in range(8)]
    assert load_store(path)[1] == rows


def test_resume_on_dask_after_a_task_raised(cluster, tmp_path):
    path = tmp_path / "rows.jsonl"
    shared = {"marker": str(tmp_path / "marker"), "bad": 5}
    tasks = [{"index": i} for i in range(12)]
    with pytest.raises(RuntimeError, match="task 5 failed"):
        run_tasks(fail_once, tasks, shared=shared, store=JsonlStore(path, {"n": 12}), scheduler=cluster, chunk_size=1)
    kept = {r["index"] for r in load_store(path)[1]}
    assert 5 not in kept
    rows = run_tasks(
        fail_once, tasks, shared=shared, store=JsonlStore(path, {"n": 12}), scheduler=cluster, chunk_size=2
    )
    assert rows.stats["resumed"] == len(kept) and rows.stats["computed"] == 12 - len(kept)
    assert rows == [{"index": i, "y": i * i} for i in range(12)]


@pytest.mark.parametrize("where", ["in-process", "dask"])
@pytest.mark.slow
def test_an_interrupted_run_keeps_every_finished_row_and_resumes(where, cluster, tmp_path):
    """Ctrl-C while rows arrive: every task finished on a worker before it is in the file (Dask:
    the chunks that ended are fetched before the queue is cancelled), and a rerun computes only the
    rest.  Before: a Dask run kept nothing when its large chunks had not come back."""
    path = tmp_path / "rows.jsonl"
    shared = {"sleep": 0.3, "dir": str(tmp_path)}
    tasks = [{"index": i} for i in range(16)]
    kw = {"scheduler": cluster} if where == "dask" else {}
    store = InterruptedStore(path, {"n": 16})
    with pytest.raises(KeyboardInterrupt):
        run_tasks(slow_square, tasks, shared=shared, store=store, **kw)
    kept = {r["index"] for r in load_store(path)[1]}
    finished = store.finished_then
    if where == "dask":  # every task finished when Ctrl-C came is kept, the chunk being appended too
        assert finished <= kept and len(kept) < 16
    else:  # in-process the interrupted append is the task running in the main thread: it is lost
        assert kept == finished - {max(finished)} == {0, 1}
    rows = run_tasks(slow_square, tasks, shared={**shared, "sleep": 0.0}, store=JsonlStore(path, {"n": 16}), **kw)
    assert (rows.stats["resumed"], rows.stats["computed"]) == (len(kept), 16 - len(kept))
    assert rows == [{"index": i, "y": i * i} for i in range(16)]


@pytest.mark.parametrize("publish", [None, 0.0])
def test_dask_interrupted_mid_chunk_keeps_the_chunks_finished_rows(
    publish, cluster, tmp_path, monkeypatch, sigint_raises
):
    """Ctrl-C while one chunk of six tasks is half done (three returned, three waiting): the three
    finished rows reached the row file while the chunk still ran (the worker publishes each row
    as it ends; default interval and at once), they are kept, and a rerun computes only the other
    three; every row is the one an in-process run gives."""
    from boundcalc.runner import executor

    if publish is not None:
        monkeypatch.setattr(executor, "PUBLISH_SECONDS", publish)
    path, release = tmp_path / "rows.jsonl", tmp_path / "release"
    shared = {"k": 3, "release": str(release)}
    tasks = [{"index": i} for i in range(6)]
    watch = _interrupt_when_stored(path, 3)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_tasks(
                wait_after, tasks, shared=shared, store=JsonlStore(path, {"n": 6}), scheduler=cluster, chunk_size=6
            )
        watch.join()
    finally:
        release.write_text("")  # the waiting tasks end (their chunk was cancelled)
    assert [r["index"] for r in load_store(path)[1]] == [0, 1, 2]
    rows = run_tasks(
        wait_after, tasks, shared=shared, store=JsonlStore(path, {"n": 6}), scheduler=cluster, chunk_size=6
    )
    assert (rows.stats["resumed"], rows.stats["computed"]) == (3, 3)
    assert rows == run_tasks(wait_after, tasks, shared=shared) == load_store(path)[1]


def test_dask_task_failing_mid_chunk_keeps_the_rows_before_it(cluster, tmp_path):
    """A task raising in the middle of a chunk: the chunk's rows finished before it are in the
    file (sent before the exception), the exception is the task's own."""
    path = tmp_path / "rows.jsonl"
    shared = {"k": 6, "release": str(tmp_path / "release"), "fail": 4}
    with pytest.raises(RuntimeError, match="task 4 failed"):
        run_tasks(
            wait_after,
            [{"index": i} for i in range(6)],
            shared=shared,
            store=JsonlStore(path, {"n": 6}),
            scheduler=cluster,
            chunk_size=6,
        )
    assert [r["index"] for r in load_store(path)[1]] == [0, 1, 2, 3]


@pytest.mark.slow
def test_an_interrupted_cluster_start_leaves_nothing_behind():
    """SIGTERM (as the CLI raises it) while the local cluster starts: the interruption propagates,
    the worker processes started for it end, and dask's at-exit close does not see it (before, it
    printed an "AssertionError: Status.init" traceback after the one line)."""
    distributed = pytest.importorskip("distributed")
    import _thread
    import multiprocessing
    import signal
    import threading
    import time

    from distributed.deploy.spec import SpecCluster

    from boundcalc.runner.executor import dask_client

    def terminated(signum, frame):
        raise KeyboardInterrupt

    before, clusters = set(multiprocessing.active_children()), set(SpecCluster._instances)
    old = signal.signal(signal.SIGTERM, terminated)
    try:
        threading.Timer(0.5, _thread.interrupt_main, args=(signal.SIGTERM,)).start()
        with pytest.raises(KeyboardInterrupt):
            with dask_client(workers=2):
                time.sleep(30)  # not reached: the start takes longer than the timer
    finally:
        signal.signal(signal.SIGTERM, old)
    assert set(SpecCluster._instances) <= clusters  # the one started here is not closed at exit
    end = time.monotonic() + 10
    while any(c.is_alive() for c in set(multiprocessing.active_children()) - before) and time.monotonic() < end:
        time.sleep(0.1)
    assert not set(multiprocessing.active_children()) - before
    assert distributed  # imported for the skip


def _sigint_kept_out_of_every_thread() -> list[bool]:
    """For each thread of this process, whether SIGINT cannot reach it: blocked in the thread, or
    ignored by the process (Linux /proc)."""
    import signal

    def has_sigint(status: Path, key: str) -> bool:
        line = next(ln for ln in status.read_text().splitlines() if ln.startswith(key))
        return bool(int(line.split()[1], 16) >> (signal.SIGINT - 1) & 1)

    ignored = has_sigint(Path("/proc/self/status"), "SigIgn:")
    return [ignored or has_sigint(status, "SigBlk:") for status in Path("/proc/self/task").glob("*/status")]


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_local_workers_never_take_sigint_restarted_ones_too():
    """A terminal's Ctrl-C reaches the workers of a local cluster too: none of their threads takes
    it, so none prints a KeyboardInterrupt, nor of a worker its nanny starts after one died
    (before, a restarted worker took Ctrl-C's default, Python's KeyboardInterrupt); the client's
    thread still takes it."""
    pytest.importorskip("distributed")
    import os
    import signal
    import time

    from boundcalc.runner.executor import dask_client

    with dask_client(workers=1) as client:
        assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())  # the caller's mask
        (first,) = client.run(os.getpid).values()
        assert all(next(iter(client.run(_sigint_kept_out_of_every_thread).values())))
        os.kill(first, signal.SIGKILL)
        deadline, now = time.monotonic() + 60, first
        while now == first and time.monotonic() < deadline:
            time.sleep(0.2)
            try:
                now = next(iter(client.run(os.getpid).values()), first)
            except Exception:  # the nanny is restarting it
                continue
        assert now != first, "the worker was not restarted"
        assert all(next(iter(client.run(_sigint_kept_out_of_every_thread).values())))


def die_after(task, shared):
    """Tasks below ``shared["k"]`` return at once; the next ends its worker process after 0.3 s."""
    import os
    import time

    if task["index"] >= shared["k"]:
        time.sleep(0.3)
        os._exit(3)
    return {"index": task["index"], "y": task["index"] ** 2}


@pytest.mark.slow
def test_dask_worker_dying_mid_chunk_keeps_the_chunks_finished_rows(tmp_path):
    """The worker of a chunk of six tasks dies after three of them returned (the scheduler allows
    no retry): ClusterLost, the three rows are in the file, a rerun computes only the rest."""
    distributed = pytest.importorskip("distributed")
    import logging

    import dask

    from boundcalc.runner.executor import ClusterLost

    path = tmp_path / "rows.jsonl"
    tasks = [{"index": i} for i in range(6)]
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.CRITICAL
        ) as one:
            with pytest.raises(ClusterLost, match=r"workers died while running a task\): the 3 rows finished so far"):
                run_tasks(die_after, tasks, shared={"k": 3}, store=JsonlStore(path, {}), scheduler=one, chunk_size=6)
    assert [r["index"] for r in load_store(path)[1]] == [0, 1, 2]
    rows = run_tasks(die_after, tasks, shared={"k": 6}, store=JsonlStore(path, {}))
    assert (rows.stats["resumed"], rows.stats["computed"]) == (3, 3)


@pytest.mark.slow
def test_dask_chunks_grow_from_single_tasks_to_fill_their_seconds(cluster, tmp_path):
    """Without a chunk size, a chunk holds about CHUNK_SECONDS of work: single tasks while the
    time per task is unknown or long, up to MAX_CHUNK tiny tasks; the rows are the same."""
    from boundcalc.runner.executor import MAX_CHUNK

    tiny = run_tasks(noisy_sum, _tasks(400, 5), shared=SHARED, scheduler=cluster)
    assert 1 < tiny.stats["chunk_size"] <= MAX_CHUNK and tiny == _expected(_tasks(400, 5))
    slow = run_tasks(
        slow_square, [{"index": i} for i in range(6)], shared={"sleep": 0.3, "dir": str(tmp_path)}, scheduler=cluster
    )
    assert slow.stats["chunk_size"] == 1


def test_error_rows_are_stored_and_retried(tmp_path):
    path = tmp_path / "rows.jsonl"
    marker = tmp_path / "healthy"
    tasks = [{"index": i} for i in range(7)]
    first = run_tasks(error_row, tasks, shared=str(marker), store=JsonlStore(path, {}))
    assert first.stats["errors"] == 2 and [r["index"] for r in first if "error" in r] == [1, 4]
    marker.write_text("")
    again = run_tasks(error_row, tasks, shared=str(marker), store=JsonlStore(path, {}))
    assert (again.stats["resumed"], again.stats["computed"], again.stats["errors"]) == (5, 2, 0)
    assert again == [{"index": i, "y": i * i} for i in range(7)]
    assert load_store(path)[1] == again  # the retried rows supersede the error rows


def test_partial_last_line_is_dropped_and_recomputed(tmp_path):
    path = tmp_path / "rows.jsonl"
    tasks = _tasks(6)
    run_tasks(noisy_sum, tasks, shared=SHARED, store=JsonlStore(path, {"v": 1}))
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:4]) + "\n" + lines[4][:10])  # header, 3 rows, a cut row
    store = JsonlStore(path, {"v": 1})
    assert store.resumed and store.dropped_bytes == 10 and len(store.done) == 3
    rows = run_tasks(noisy_sum, tasks, shared=SHARED, store=store)
    assert (rows.stats["resumed"], rows.stats["computed"]) == (3, 3)
    assert rows == _expected(tasks) == load_store(path)[1]
    assert len(path.read_text().splitlines()) == 7  # the cut line gone


def test_a_finished_store_starts_no_cluster(tmp_path):
    path = tmp_path / "rows.jsonl"
    tasks = _tasks(4)
    run_tasks(noisy_sum, tasks, shared=SHARED, store=JsonlStore(path, {}))
    rows = run_tasks(noisy_sum, tasks, shared=SHARED, store=JsonlStore(path, {}), workers=2)
    assert (rows.stats["backend"], rows.stats["resumed"], rows.stats["computed"]) == ("in-process", 4, 0)
    # fewer tasks than stored: only those are returned, the file keeps the others
    assert run_tasks(noisy_sum, tasks[:2], shared=SHARED, store=JsonlStore(path, {})) == _expected(tasks[:2])
    assert len(load_store(path)[1]) == 4


# ----------------------------------------------------------------------------- headers and files
def test_header_mismatch_is_refused_and_the_file_untouched(tmp_path):
    path = tmp_path / "rows.jsonl"
    head = {"seed": 3, "keys": ["a", "b"], "created": "monday"}
    ident = {"seed": (lambda v: v), "keys": sorted}
    run_tasks(noisy_sum, _tasks(3), shared=SHARED, store=JsonlStore(path, head, identity=ident))
    before = path.read_bytes()
    with pytest.raises(StoreMismatch, match=r"seed: file 3, now 4") as exc:
        JsonlStore(path, dict(head, seed=4, keys=["a"]), identity=ident)
    assert [d[0] for d in exc.value.differences] == ["seed", "keys"]
    assert path.read_bytes() == before
    # informational fields and the order of a normalised field do not matter
    st = JsonlStore(path, dict(head, created="tuesday", keys=["b", "a"]), identity=ident)
    assert st.resumed and st.header["created"] == "monday" and st.header["keys"] == ["a", "b"]
    # while st holds the file, a second writer is refused, even with overwrite
    with pytest.raises(StoreLocked, match="locked"):
        JsonlStore(path, dict(head, created="tuesday", keys=["b", "a"]), identity=ident)
    with pytest.raises(StoreLocked):
        JsonlStore(path, {"seed": 4}, overwrite=True)
    assert path.read_bytes() == before
    st.close()
    # by default every field counts
    with pytest.raises(StoreMismatch, match="created"):
        JsonlStore(path, dict(head, created="tuesday"))
    # overwrite discards the file
    rows = run_tasks(noisy_sum, _tasks(2), shared=SHARED, store=JsonlStore(path, {"seed": 4}, overwrite=True))
    assert load_store(path) == ({"seed": 4}, rows) and rows.stats["resumed"] == 0


def test_mismatch_message_names_the_differing_items_in_one_short_line(tmp_path):
    # a long list header (a simulate run's policies, whose SAVAGE label carries the horizon) differs
    # in one item: the message names that item, cuts long values short and gives the CLI's option
    path = tmp_path / "run.jsonl"
    pols = [
        {"label": f"policy-{k}", "params": {"alpha": 0.51, "beta": 0.01, "delta_scale": 1.0, "horizon": 2000}}
        for k in range(8)
    ]
    st = JsonlStore(path, {"horizon": 2000, "policies": pols}).open()
    st.close()
    new = [dict(p) for p in pols]
    new[5] = {"label": "policy-5", "params": {"alpha": 0.51, "beta": 0.01, "delta_scale": 1.0, "horizon": 3000}}
    with pytest.raises(StoreMismatch) as exc:
        JsonlStore(path, {"horizon": 3000, "policies": new})
    msg = str(exc.value)
    assert "horizon: file 2000, now 3000; policies: [5] file {'label': 'policy-5'" in msg
    assert "[4]" not in msg and "policy-4" not in msg and "..." in msg
    assert msg.endswith("(overwrite=True; CLI --overwrite).") and len(msg) < 450
    assert exc.value.differences[1] == ("policies", pols, new)  # the full values stay on the exception


def test_foreign_and_corrupt_files_are_refused(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my precious notes\n")
    with pytest.raises(StoreError, match="not a boundcalc run file"):
        JsonlStore(notes, {})
    assert notes.read_text() == "my precious notes\n"
    path = tmp_path / "rows.jsonl"
    run_tasks(noisy_sum, _tasks(3), shared=SHARED, store=JsonlStore(path, {}, tag="my_tag"))
    with pytest.raises(StoreError, match="'boundcalc_run' header"):
        JsonlStore(path, {})  # another tag
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:2] + ['{"no index": 1}'] + lines[3:]) + "\n")
    with pytest.raises(StoreError, match=r"rows.jsonl:3: corrupt row"):
        JsonlStore(path, {}, tag="my_tag")
    cut = tmp_path / "cut.jsonl"
    cut.write_text('{"boundcalc_run": {"a"')  # only a header cut short: started afresh
    assert not JsonlStore(cut, {"a": 1}).resumed


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "tasks, exc, match",
    [
        ([{"index": 0}, {"index": 0}], ValueError, "index 0 occurs twice"),
        ([{"index": 0}, {"label": "x"}], TypeError, "task 1 has index None"),
        ([{"index": 1.0}], TypeError, "integer 'index'"),
        ([[0, 1]], TypeError, "task 0 is a list"),
    ],
)
def test_bad_tasks_are_named(tasks, exc, match):
    with pytest.raises(exc, match=match):
        run_tasks(wrong_index, tasks)


def test_bad_rows_and_arguments_are_named():
    with pytest.raises(ValueError, match="task 0: .* row with index 1"):
        run_tasks(wrong_index, [{"index": 0}])
    with pytest.raises(TypeError, match="task 2: the row is not JSON-serialisable"):
        run_tasks(not_json, [{"index": 2}])
    with pytest.raises(ValueError, match="workers"):
        run_tasks(noisy_sum, _tasks(1), shared=SHARED, workers=-1)
    with pytest.raises(ValueError, match="chunk_size"):
        run_tasks(noisy_sum, _tasks(1), shared=SHARED, chunk_size=0)


def test_progress_bar_on_stderr_only_when_asked(capsys):
    run_tasks(noisy_sum, _tasks(3), shared=SHARED, progress=True, desc="squares")
    err = capsys.readouterr().err
    assert "squares" in err and "3/3" in err
    run_tasks(noisy_sum, _tasks(3), shared=SHARED)
    assert capsys.readouterr().err == ""


def test_rows_are_returned_as_json_reads_them_back():
    def tuple_row(task, shared):
        return {"index": task["index"], "pair": (1, 2), "v": np.float64(0.1).item()}

    assert run_tasks(tuple_row, [{"index": 0}]) == [{"index": 0, "pair": [1, 2], "v": 0.1}]
    assert json.dumps(run_tasks(tuple_row, [{"index": 0}])[0]) == '{"index": 0, "pair": [1, 2], "v": 0.1}'


def test_unreachable_scheduler_is_named():
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    with dask.config.set({"distributed.comm.timeouts.connect": "0.5s"}):
        with pytest.raises(ConnectionError, match="Dask scheduler at 'tcp://127.0.0.1:9'"):
            run_tasks(noisy_sum, _tasks(2), shared=SHARED, scheduler="tcp://127.0.0.1:9")


# ----------------------------------------------------------------------------- the runner entry
def test_default_workers_without_dask_run_in_process(monkeypatch, capsys):
    """``pip install .`` (no Dask): every long command runs in its default form, in-process, quietly;
    asking for workers names the install and the in-process option."""
    from boundcalc.runner import job

    monkeypatch.setattr(job, "dask_available", lambda: False)
    assert job.resolve_workers(None) == 0 and job.resolve_workers(None) == 0
    assert capsys.readouterr().err == ""
    with pytest.raises(ImportError, match="--workers 0"):
        job.resolve_workers(2)
    with pytest.raises(ImportError, match="boundcalc\\[dask\\]"):
        job.resolve_workers(None, "tcp://127.0.0.1:1")
    assert job.resolve_workers(0) == 0


def test_default_is_in_process_even_with_dask(monkeypatch):
    """The default backend is in-process whether Dask is installed or not (resolve_workers' docstring:
    benchmarks/results/table1-300*.json, where 300 submatrices ran faster in-process in both orders);
    a cluster is started only for an explicit worker count, and a scheduler is used only when named."""
    import json
    from pathlib import Path

    from boundcalc.runner import job

    results = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
    for name in ("table1-300", "table1-300-inprocess-first"):
        t = json.loads((results / f"{name}.json").read_text())["timings"]
        assert t["in-process"]["wall_seconds"] < t["dask"]["wall_seconds"], name
    monkeypatch.setattr(job, "dask_available", lambda: True)
    assert job.resolve_workers(None) == 0
    assert job.resolve_workers(3) == 3 and job.resolve_workers(None, "tcp://127.0.0.1:1") == 0
    with pytest.raises(ValueError, match="not both"):
        job.resolve_workers(3, "tcp://127.0.0.1:1")


def test_run_job_opens_the_store_before_building_tasks(tmp_path):
    """An unusable --out is refused before any task is built (the task builder never runs)."""
    from boundcalc.runner import JsonlStore, StoreLocked
    from boundcalc.runner.job import Job, run_job

    path = tmp_path / "rows.jsonl"
    built = []
    job = Job("demo", noisy_sum, shared=SHARED, header={"v": 1}, tasks=lambda: built.append(1) or _tasks(2))
    holder = JsonlStore(path, {"v": 1})
    with pytest.raises(StoreLocked):
        run_job(job, out=path, workers=0)
    holder.close()
    assert built == []
    rows = run_job(job, out=path, workers=0)
    assert built == [1] and rows.stats["computed"] == 2 and load_store(path)[0] == {"v": 1}


def test_seed_sequence_is_the_spawned_child():
    """Task r's randomness is the r-th child of SeedSequence(seed).spawn(n) (the module's promise)."""
    from boundcalc.runner.job import check_seed, seed_sequence

    kids = np.random.SeedSequence(42).spawn(5)
    for r in range(5):
        assert np.array_equal(seed_sequence(42, r).generate_state(4), kids[r].generate_state(4))
    for bad in (-1, 2**63, 1.5, True, "3"):
        with pytest.raises(ValueError):
            check_seed(bad)


def test_derive_seed_gives_each_apps_former_numbers():
    """The runner's one derivation reproduces, draw for draw, what batch (default_rng(seed)), the
    bootstrap and simulate's shuffle (default_rng of the spawned child), simulate's kernel keys
    (generate_state of the child) and explore's integer seeds (the child's first word >> 1) drew
    before they moved into the runner, written here with numpy's own calls."""
    from boundcalc.runner.job import MAX_SEED, derive_seed, root_seed

    assert np.array_equal(derive_seed(9, form="generator").random(6), np.random.default_rng(9).random(6))
    kid = np.random.SeedSequence(9).spawn(4)[3]
    assert np.array_equal(
        derive_seed(9, 3, form="generator").beta(2.0, 3.0, 5), np.random.default_rng(kid).beta(2.0, 3.0, 5)
    )
    assert derive_seed(9, 3, form="words", n=2) == tuple(int(w) for w in kid.generate_state(2, np.uint64))
    assert derive_seed(9, 3, form="int63") == int(kid.generate_state(1, np.uint64)[0]) // 2
    grand = np.random.SeedSequence(9).spawn(4)[3].spawn(2)[1]
    assert np.array_equal(derive_seed(9, 3, 1).generate_state(3), grand.generate_state(3))
    assert 0 <= root_seed(None) <= MAX_SEED and root_seed(5) == 5
    with pytest.raises(ValueError, match="seed must be an integer"):
        root_seed(-2)
    with pytest.raises(ValueError, match="form must be one of"):
        derive_seed(1, form="int")


def test_the_store_gives_the_one_refusal_message(tmp_path):
    """The store alone names why a row file is refused (runner.store.refusal): decisions revisions
    when only they differ (a list of policies, or an algorithm's top-level revision, a missing one
    read as revision 1), an earlier boundcalc when the file lacks a field, else the settings."""
    from boundcalc.runner.store import DEFAULT_TAG, revision, same

    def refused(old, new, identity=None):
        path = tmp_path / f"f{len(list(tmp_path.iterdir()))}.jsonl"
        path.write_text(json.dumps({DEFAULT_TAG: old}) + "\n")
        with pytest.raises(StoreMismatch) as info:
            JsonlStore(path, new, identity=identity)
        return str(info.value)

    pol = lambda r: [{"label": "rmed1", "params": {}}, {"label": "dts", "params": {}, "revision": r}]  # noqa: E731
    msg = refused(
        {"seed": 1, "policies": pol(None)}, {"seed": 1, "policies": pol(2)}, {"seed": same, "policies": revision}
    )
    assert "other decisions" in msg and "dts revision 1 in the file, 2 here" in msg and "rmed1 revision" not in msg
    msg = refused(
        {"algorithm": "car-cond", "revision": 3},
        {"algorithm": "car-cond", "revision": 4},
        {"algorithm": same, "revision": revision},
    )
    assert "car-cond revision 3 in the file, 4 here" in msg
    msg = refused({"seed": 1}, {"seed": 1, "layout": "run-major"})
    assert "earlier boundcalc" in msg and "'layout'" in msg
    msg = refused({"seed": 1, "revision": 1}, {"seed": 2, "revision": 2})
    assert "other settings" in msg and "seed: file 1, now 2" in msg and "other decisions" not in msg


# ----------------------------------------------------------------------------- a frozen scheduler
@pytest.fixture
def scheduler_process(tmp_path):
    """A Dask scheduler in a process of its own: ``(Popen, address)``; killed after."""
    pytest.importorskip("distributed")
    import signal
    import subprocess
    import sys
    import time

    info = tmp_path / "scheduler.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0"]
        + ["--no-dashboard", "--scheduler-file", str(info)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        end = time.monotonic() + 60
        while not info.exists() or not info.read_text().strip():
            assert proc.poll() is None and time.monotonic() < end, "the scheduler did not start"
            time.sleep(0.05)
        yield proc, json.loads(info.read_text())["address"]
    finally:
        proc.send_signal(signal.SIGCONT)
        proc.kill()
        proc.wait()


@pytest.mark.slow
def test_a_scheduler_without_workers_or_frozen_ends_in_one_line(scheduler_process, tmp_path, monkeypatch, request):
    """A scheduler no worker joins: one line naming it and the remedy after the connect timeout,
    not a wait without end or dask's "No valid workers found".  Then, a worker joined, the scheduler
    stops answering (SIGSTOP) while tasks run: the client ends within seconds (the silence and
    check intervals made short here) with ClusterLost, which the CLI prints as one line with exit
    status 1, naming the kept rows and the rerun."""
    import os
    import signal
    import subprocess
    import sys
    import time

    import dask

    from boundcalc.cli import failure_line
    from boundcalc.runner import executor

    proc, address = scheduler_process
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(
            ConnectionError, match=r"at 'tcp://127.0.0.1:\d+' has no workers \(none joined within 1 s\)"
        ):
            run_tasks(noisy_sum, _tasks(2), shared=SHARED, scheduler=address)
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "distributed.cli.dask_worker",
            address,
            "--no-nanny",
            "--nthreads",
            "1",
            "--no-dashboard",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    request.addfinalizer(lambda: (worker.kill(), worker.wait()))
    monkeypatch.setattr(executor, "SCHEDULER_CHECK_SECONDS", 0.2)
    monkeypatch.setattr(executor, "SCHEDULER_SILENCE_SECONDS", 1.0)
    watch = executor._watch_scheduler

    def freeze_then_watch(client):  # the tasks are submitted: the scheduler freezes
        os.kill(proc.pid, signal.SIGSTOP)
        return watch(client)

    monkeypatch.setattr(executor, "_watch_scheduler", freeze_then_watch)
    path = tmp_path / "rows.jsonl"
    tasks, shared = [{"index": i} for i in range(4)], {"k": 0, "release": str(tmp_path / "never")}
    t0 = time.monotonic()
    with pytest.raises(executor.ClusterLost) as info:
        run_tasks(wait_after, tasks, shared=shared, store=JsonlStore(path, {}), scheduler=address)
    assert time.monotonic() - t0 < 20
    code, line = failure_line(info.value)
    assert code == 1 and "\n" not in line
    assert (
        line.startswith("boundcalc: error: the Dask scheduler stopped answering (") and "no answer within 1 s" in line
    )
    assert line.endswith(f"the 0 rows finished so far are kept in {path}; rerun the same command to resume")


@pytest.mark.parametrize("ignored", [False, True])
def test_the_scheduler_watch_interrupts_the_main_thread_with_sigint_ignored_or_not(ignored):
    """The watch's interruption reaches the main thread where SIGINT is Python's and where it is
    ignored (a shell's background job: ``_thread.interrupt_main`` alone would do nothing there)."""
    import signal
    import threading
    import time

    from boundcalc.runner.executor import _interrupt_main

    old = signal.signal(signal.SIGINT, signal.SIG_IGN if ignored else signal.default_int_handler)
    try:
        threading.Timer(0.2, _interrupt_main).start()
        end = time.monotonic() + 10
        with pytest.raises(KeyboardInterrupt):
            while time.monotonic() < end:
                time.sleep(0.01)
        assert time.monotonic() < end
    finally:
        signal.signal(signal.SIGINT, old)
