"""Constants of many random submatrices: the engine of ``boundcalc batch`` and of 000's Table 1.

Paper 000 (Komiyama, Honda & Nakagawa, ICML 2016), Sec. 5 / Table 1 averages the optimal
Copeland constant, ECW-RMED's constant and CCB's over random 16-arm submatrices of the
136-ranker MSLR matrix, leaving out submatrices with a pair closer than 0.005 to a tie.
:func:`run_batch` does this for any matrix, submatrix size, count, gap threshold and set of
constants (any rows of :func:`~boundcalc.bounds.compare.compare`), in-process or on Dask.

The draw (deterministic, done in the driver)
    Candidate subsets come one after another from ``numpy.random.default_rng(seed)``: keys
    are drawn as blocks ``rng.random((1024, K))`` and each row of a block gives the candidate
    "the ``size`` arms with the smallest keys" (a uniform random subset), listed in increasing
    order.  Candidates are independent, so a subset can recur.  A candidate whose smallest gap ``min_{i != j} |mu_ij - 1/2|`` is below
    ``min_gap`` is rejected; accepted candidate number ``i`` is submatrix ``i``.  The draw is
    cheap and sequential, so submatrix ``i`` is the same whatever the parallelism, the count or
    the chunking (:func:`draw_submatrices`).

Evaluation (parallel, any order)
    Each accepted submatrix is evaluated by :func:`~boundcalc.bounds.compare.compare` and gives
    one row: ``index``, ``arms`` (indices into the parent matrix), ``min_gap`` of the
    submatrix, and for every constant ``KEY`` its value in the paper's own unit and
    ``KEY_000``, the value in 000's regret unit (None where no exact conversion exists, or
    when the bound does not apply to that submatrix).  In-process (``workers=0``) or on a
    Dask cluster: the parent matrix is scattered to the workers once and each task takes a
    chunk of index arrays.

Rows on disk (JSON Lines, resumable)
    With ``out=FILE`` the first line is a header ``{"boundcalc_batch": {...}}`` recording the
    matrix's SHA-256, ``size``, ``min_gap``, ``seed``, the constants, ``alpha``/``beta`` and
    the draw scheme; every row is appended (and flushed) as soon as it is computed, in
    completion order.  Rerunning with the same arguments reads the file, checks every stored
    row against the draw, and computes only the missing indices (a larger ``count`` extends
    the run; rows that ended in an error are retried).  A file made with other arguments is
    refused (:class:`BatchFileMismatch`) unless ``overwrite=True``.  :func:`load_batch` reads a
    file back.

The summary (:func:`summarize`) is over indices ``0 .. count-1``: per constant, the number of
rows where it applies, the mean and the standard error of the mean, in its own unit and in
000's.

>>> from boundcalc.datasets import load_example
>>> res = run_batch(load_example("arithmetic8"), size=4, count=3, min_gap=0.09, seed=1,
...                 keys=["lower_bound", "ccb"], workers=0, progress=False)
>>> [r["index"] for r in res.rows], res.rows[0]["arms"], round(res.rows[0]["lower_bound"], 4)
([0, 1, 2], [1, 3, 5, 7], 14.9224)
>>> all(r["min_gap"] >= 0.09 for r in res.rows), res.stats["drawn"]   # 16 candidates rejected
(True, 19)
>>> s = res.summary_dict()["ccb"]
>>> s["n"], round(s["mean_000"]), s["unit"]
(3, 800, "002 regret (2x 000's) per ln T")
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from .bounds.compare import check_options, compare
from .matrix import PreferenceMatrix, as_preference_matrix

__all__ = [
    "run_batch",
    "BatchResult",
    "draw_submatrices",
    "iter_candidates",
    "evaluate_submatrix",
    "summarize",
    "load_batch",
    "BatchFileError",
    "BatchFileMismatch",
    "DRAW_SCHEME",
    "FORMAT_VERSION",
]

#: Version of the row-file layout.
FORMAT_VERSION = 1
#: Name of the candidate-drawing scheme (recorded in row files; changing the scheme changes it).
DRAW_SCHEME = "smallest-of-uniform-keys/block-1024/v1"
_DRAW_BLOCK = 1024
#: Header fields that must match for a row file to be resumed.
_IDENTITY = ("format", "draw", "matrix_sha256", "K", "size", "min_gap", "seed", "keys", "alpha", "beta")
#: Suffix of the column holding a constant's value in 000's unit.
SUFFIX_000 = "_000"


class BatchFileError(ValueError):
    """A row file cannot be used (not a batch file, or corrupt); the message says why."""


class BatchFileMismatch(BatchFileError):
    """A row file was made with other arguments (or another matrix) than the current run."""


# ----------------------------------------------------------------------------- the draw
def _gap_matrix(pm: PreferenceMatrix) -> np.ndarray:
    g = np.array(pm.gap, dtype=float)
    np.fill_diagonal(g, np.inf)
    return g


def iter_candidates(K: int, size: int, seed: int) -> Iterator[np.ndarray]:
    """Candidate subsets of ``size`` arms out of ``K``, in draw order (before any rejection).

    Blocks of keys ``numpy.random.default_rng(seed).random((1024, K))``; each key row gives the
    ``size`` arms with the smallest keys, sorted (:data:`DRAW_SCHEME`).  Yields blocks, arrays
    of shape ``(1024, size)``.

    >>> blk = next(iter_candidates(10, 3, seed=0))
    >>> blk.shape, blk[0].tolist()
    ((1024, 3), [1, 2, 3])
    """
    if not (1 <= size <= K):
        raise ValueError(f"size must lie in 1..K = {K}; got {size}")
    rng = np.random.default_rng(seed)
    while True:
        keys = rng.random((_DRAW_BLOCK, K))
        if size == K:
            cand = np.broadcast_to(np.arange(K), (_DRAW_BLOCK, K)).copy()
        else:
            # the set of the `size` smallest keys is unique (ties have probability ~2^-53)
            cand = np.argpartition(keys, size - 1, axis=1)[:, :size]
            cand.sort(axis=1)
        yield cand


@dataclass(frozen=True)
class Draws:
    """Accepted submatrices of a draw (:func:`draw_submatrices`)."""

    arms: np.ndarray  #: (count, size) arm indices of each accepted submatrix, increasing
    min_gaps: np.ndarray  #: (count,) smallest gap of each accepted submatrix
    drawn: int  #: candidates drawn until the last acceptance (accepted + rejected)


def draw_submatrices(matrix, size: int, count: int, min_gap: float = 0.0, seed: int = 0, *,
                     max_draws: int | None = None) -> Draws:
    """The first ``count`` candidates of :func:`iter_candidates` whose smallest gap is ``>= min_gap``.

    Submatrix ``i`` depends only on ``(matrix, size, min_gap, seed)`` and ``i``: drawing more
    (a larger ``count``) extends the list without changing its beginning.

    Raises ``ValueError`` when fewer than ``count`` are accepted after ``max_draws`` candidates
    (default ``max(10**6, 1000 * count)``): the threshold is too strict for this size.

    >>> from boundcalc.datasets import load_example
    >>> d = draw_submatrices(load_example("arithmetic8"), 3, 4, min_gap=0.09, seed=0)
    >>> d.arms.tolist(), d.drawn, bool(d.min_gaps.min() >= 0.09)
    ([[3, 5, 7], [0, 3, 7], [1, 3, 6], [0, 5, 7]], 7, True)
    """
    pm = as_preference_matrix(matrix)
    size, count = int(size), int(count)
    if not (2 <= size <= pm.K):
        raise ValueError(f"size must lie in 2..K = {pm.K}; got {size}")
    if count < 0:
        raise ValueError(f"count must be >= 0; got {count}")
    min_gap = float(min_gap)
    if not (math.isfinite(min_gap) and 0.0 <= min_gap <= 0.5):
        raise ValueError(f"min_gap must lie in [0, 1/2]; got {min_gap}")
    if max_draws is None:
        max_draws = max(10**6, 1000 * count)
    G = _gap_matrix(pm)
    arms, gaps, drawn = [], [], 0
    accepted = 0
    it = iter_candidates(pm.K, size, seed)
    while accepted < count:
        if drawn >= max_draws:
            raise ValueError(
                f"only {accepted} of {count} {size}-arm submatrices have every gap >= {min_gap:g} after"
                f" {drawn} candidates (acceptance {accepted / drawn:.2e}); lower min_gap or size,"
                " or raise max_draws"
            )
        cand = next(it)
        g = G[cand[:, :, None], cand[:, None, :]].min(axis=(1, 2))
        ok = np.flatnonzero(g >= min_gap)
        need = count - accepted
        if ok.size >= need:  # the last acceptance lies in this block
            ok = ok[:need]
            drawn += int(ok[-1]) + 1
        else:
            drawn += cand.shape[0]
        arms.append(cand[ok])
        gaps.append(g[ok])
        accepted += ok.size
    if arms:
        a, g = np.concatenate(arms).astype(np.int64), np.concatenate(gaps)
    else:
        a, g = np.zeros((0, size), dtype=np.int64), np.zeros(0)
    return Draws(a, g, drawn)


# ----------------------------------------------------------------------------- evaluation
def _submatrix(mu: np.ndarray, arms) -> PreferenceMatrix:
    idx = np.asarray(arms, dtype=np.int64)
    return PreferenceMatrix(mu[np.ix_(idx, idx)])


def _row(index: int, arms, sub: PreferenceMatrix, keys: Sequence[str], alpha: float, beta: float) -> dict:
    row: dict[str, Any] = {"index": int(index), "arms": [int(a) for a in arms], "min_gap": float(sub.min_gap)}
    try:
        cmp = compare(sub, alpha=alpha, beta=beta, keys=keys)
    except Exception as exc:  # one failed submatrix must not end a long run; the row says why
        for k in keys:
            row[k] = None
            row[k + SUFFIX_000] = None
        row["error"] = f"{type(exc).__name__}: {exc}"
        return row
    for c in cmp.rows:
        row[c.key] = c.value
        row[c.key + SUFFIX_000] = c.value_in_000_unit
    return row


def evaluate_submatrix(matrix, arms, keys: Iterable[str] | None = None, *, index: int = 0,
                       alpha: float = 0.51, beta: float = 2.0) -> dict:
    """The batch row of one submatrix: ``index``, ``arms``, ``min_gap``, ``KEY`` and ``KEY_000``
    for every constant (exactly what :func:`run_batch` stores for it).

    >>> from boundcalc.datasets import load_example
    >>> row = evaluate_submatrix(load_example("arithmetic8"), [0, 2, 5], keys=["ccb"])
    >>> row["arms"], round(row["ccb"]), round(row["ccb_000"])   # 2*3*(1+0+1)/0.1**2
    ([0, 2, 5], 1200, 600)
    """
    pm = as_preference_matrix(matrix)
    alpha, beta, keys, _ = check_options(alpha=alpha, beta=beta, keys=keys)
    return _row(index, arms, _submatrix(pm.mu, arms), keys, alpha, beta)


def _eval_chunk(mu: np.ndarray, indices, arms, keys, alpha, beta) -> list[dict]:
    """Worker task: the rows of submatrices ``arms[t]`` (numbered ``indices[t]``) of ``mu``."""
    mu = np.asarray(mu)
    return [_row(int(i), a, _submatrix(mu, a), keys, alpha, beta) for i, a in zip(indices, arms)]


# ----------------------------------------------------------------------------- summary
def _stats(vals: list[float]) -> tuple[int, float | None, float | None]:
    n = len(vals)
    if n == 0:
        return 0, None, None
    a = np.asarray(vals, dtype=float)
    mean = float(a.mean())
    se = float(a.std(ddof=1) / math.sqrt(n)) if n > 1 else None
    return n, mean, se


def summarize(rows: Sequence[dict], keys: Sequence[str], units: dict | None = None) -> list[dict]:
    """Per constant: ``n`` (rows where it applies), ``mean`` and ``se`` (standard error of the
    mean, ``std(ddof=1)/sqrt(n)``) in its own unit, and ``n_000``, ``mean_000``, ``se_000`` in
    000's unit; None where undefined.  Rows with an ``error`` count for no constant.

    >>> rows = [{"index": 0, "x": 1.0, "x_000": 0.5}, {"index": 1, "x": 3.0, "x_000": 1.5},
    ...         {"index": 2, "x": None, "x_000": None}]
    >>> s = summarize(rows, ["x"])[0]
    >>> s["n"], s["mean"], s["se"], s["mean_000"]
    (2, 2.0, 1.0, 1.0)
    """
    units = units or {}
    out = []
    for k in keys:
        own = [r[k] for r in rows if r.get(k) is not None and not r.get("error")]
        conv = [r[k + SUFFIX_000] for r in rows if r.get(k + SUFFIX_000) is not None and not r.get("error")]
        n, mean, se = _stats(own)
        n0, mean0, se0 = _stats(conv)
        out.append({"key": k, "unit": units.get(k), "n": n, "mean": mean, "se": se,
                    "n_000": n0, "mean_000": mean0, "se_000": se0})
    return out


def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def format_summary(summary: Sequence[dict]) -> str:
    """An aligned text table of :func:`summarize`'s output."""
    head = ["constant", "n", "mean", "s.e.", "mean (000 unit)", "s.e. (000 unit)", "unit"]
    cells = [head] + [[s["key"], _fmt(s["n"]), _fmt(s["mean"]), _fmt(s["se"]), _fmt(s["mean_000"]),
                       _fmt(s["se_000"]), s.get("unit") or "-"] for s in summary]
    w = [max(len(r[i]) for r in cells) for i in range(len(head))]
    lines = []
    for n, r in enumerate(cells):
        parts = [r[0].ljust(w[0])] + [r[i].rjust(w[i]) for i in range(1, 6)] + [r[6]]
        lines.append("  ".join(parts).rstrip())
        if n == 0:
            lines.append("  ".join("-" * x for x in w))
    return "\n".join(lines)


@dataclass
class BatchResult:
    """What :func:`run_batch` returns.

    Attributes
    ----------
    rows : list[dict]
        One per accepted submatrix, sorted by ``index`` (``0 .. count-1``): ``index``, ``arms``,
        ``min_gap``, ``KEY`` / ``KEY_000`` per constant, and ``error`` when it failed.
    summary : list[dict]
        :func:`summarize` over the rows (one dict per constant).
    meta : dict
        The run's header (what a row file records): matrix SHA-256 and name, ``K``, ``size``,
        ``min_gap``, ``seed``, ``keys``, ``alpha``, ``beta``, ``units``, the draw scheme.
    stats : dict
        ``drawn`` candidates, ``acceptance_rate``, ``resumed`` rows read from the file,
        ``computed`` rows, ``errors``, ``backend``, ``workers`` (Dask worker threads),
        ``chunk_size``, and ``seconds`` (total), ``seconds_draw``, ``seconds_cluster`` (starting or
        connecting to Dask), ``seconds_evaluate``.
    """

    rows: list
    summary: list
    meta: dict
    stats: dict = field(default_factory=dict)

    @property
    def keys(self) -> list[str]:
        return list(self.meta["keys"])

    def summary_dict(self) -> dict[str, dict]:
        """The summary keyed by constant."""
        return {s["key"]: s for s in self.summary}

    def values(self, key: str, unit: str = "own") -> np.ndarray:
        """The column of constant ``key`` over the rows (NaN where it does not apply);
        ``unit="000"`` for 000's unit."""
        col = key + SUFFIX_000 if unit == "000" else key
        if key not in self.meta["keys"]:
            raise KeyError(f"constant {key!r} was not computed; this batch has {self.meta['keys']}")
        return np.array([np.nan if r.get(col) is None else r[col] for r in self.rows], dtype=float)

    def to_frame(self):
        """The rows as a :class:`pandas.DataFrame` indexed by ``index`` (needs pandas)."""
        import pandas as pd

        cols = ["index", "arms", "min_gap"]
        for k in self.meta["keys"]:
            cols += [k, k + SUFFIX_000]
        if any("error" in r for r in self.rows):
            cols.append("error")
        return pd.DataFrame(self.rows, columns=cols).set_index("index")

    def summary_frame(self):
        """The summary as a :class:`pandas.DataFrame` indexed by constant (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.summary).set_index("key")

    def format_summary(self) -> str:
        return format_summary(self.summary)

    def to_dict(self) -> dict:
        """``meta``, ``stats`` and ``summary`` (not the rows), JSON-ready."""
        return {"meta": self.meta, "stats": self.stats, "summary": self.summary}


# ----------------------------------------------------------------------------- row files
def matrix_sha256(pm: PreferenceMatrix) -> str:
    """SHA-256 of the matrix's shape and float64 entries (identifies it in row files)."""
    h = hashlib.sha256(f"{pm.K}x{pm.K}:float64:".encode())
    h.update(np.ascontiguousarray(pm.mu, dtype=np.float64).tobytes())
    return h.hexdigest()


def _read_file(path: Path) -> tuple[dict | None, dict[int, dict], int]:
    """Header, rows by index (the last row of an index wins), bytes of a dropped partial line."""
    data = path.read_bytes()
    dropped = 0
    if data and not data.endswith(b"\n"):  # interrupted in the middle of a line
        cut = data.rfind(b"\n") + 1
        dropped = len(data) - cut
        data = data[:cut]
    lines = data.decode("utf-8", errors="replace").splitlines()
    if not lines:
        if not path.read_bytes().startswith(b'{"boundcalc_batch"'):  # never overwrite a foreign file
            raise BatchFileError(f"{path}: not a boundcalc batch file (its first line is not a batch header)")
        return None, {}, dropped  # only a header cut short: start afresh
    try:
        head = json.loads(lines[0])
    except json.JSONDecodeError:
        head = None
    if not isinstance(head, dict) or "boundcalc_batch" not in head:
        raise BatchFileError(f"{path}: not a boundcalc batch file (its first line is not a batch header)")
    rows: dict[int, dict] = {}
    for n, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
            i = int(r["index"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            raise BatchFileError(f"{path}:{n}: corrupt row (not a JSON object with an index)") from None
        rows[i] = r
    return head["boundcalc_batch"], rows, dropped


def load_batch(path) -> tuple[dict, list[dict]]:
    """Read a row file: ``(header, rows sorted by index)`` (a partial last line is ignored)."""
    head, rows, _ = _read_file(Path(path))
    if head is None:
        raise BatchFileError(f"{path}: empty file")
    return head, [rows[i] for i in sorted(rows)]


def _mismatch(path, old: dict, new: dict) -> str | None:
    diffs = []
    for f in _IDENTITY:
        a, b = old.get(f), new.get(f)
        if f == "keys" and a is not None and b is not None:
            same = sorted(a) == sorted(b)
        else:
            same = a == b
        if not same:
            label = "matrix (SHA-256)" if f == "matrix_sha256" else f
            if f == "matrix_sha256":
                a = f"{old.get('matrix_name') or '?'} {str(a)[:12]}"
                b = f"{new.get('matrix_name') or '?'} {str(b)[:12]}"
            diffs.append(f"{label}: file {a!r}, now {b!r}")
    if not diffs:
        return None
    return (f"{path} was made by a batch run with other arguments ({'; '.join(diffs)}). Use another"
            " output file, rerun with the file's arguments to resume it, or overwrite it"
            " (overwrite=True; CLI --overwrite).")


# ----------------------------------------------------------------------------- execution
@contextlib.contextmanager
def _client(workers: int, scheduler):
    """A ``distributed.Client``: the given one, one connected to ``scheduler`` (an address or a
    cluster object), or one on a new ``LocalCluster`` of ``workers`` single-threaded processes."""
    try:
        import distributed
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("running on Dask needs dask.distributed (pip install 'boundcalc[dask]');"
                          " use workers=0 (CLI --no-dask) to run in-process") from None
    if isinstance(scheduler, distributed.Client):
        yield scheduler
        return
    if scheduler is not None:
        target = scheduler if isinstance(scheduler, str) else getattr(scheduler, "scheduler_address", scheduler)
        client = distributed.Client(target, set_as_default=False)
        try:
            yield client
        finally:
            client.close()
        return
    import logging

    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.ERROR)
    client = distributed.Client(cluster, set_as_default=False)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def _progress_bar(total: int, initial: int, progress):
    if progress is None:
        progress = bool(getattr(sys.stderr, "isatty", lambda: False)())
    if not progress:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is optional
        return None
    return tqdm(total=total, initial=initial, file=sys.stderr, unit="submatrix", desc="batch", dynamic_ncols=True)


def run_batch(matrix, size: int, count: int, min_gap: float = 0.0, seed: int | None = 0, out=None, *,
              keys: Iterable[str] | None = None, alpha: float = 0.51, beta: float = 2.0,
              workers: int | None = None, scheduler=None, chunk_size: int | None = None,
              progress: bool | None = None, overwrite: bool = False,
              max_draws: int | None = None) -> BatchResult:
    """Evaluate constants on ``count`` random ``size``-arm submatrices whose gaps are all ``>= min_gap``.

    The submatrices are drawn in the driver (:func:`draw_submatrices`; submatrix ``i`` is fixed
    by the matrix, ``size``, ``min_gap``, ``seed`` and ``i``) and evaluated by
    :func:`~boundcalc.bounds.compare.compare` in-process or on Dask; every row records its
    submatrix's arm indices.  See the module docstring for the row format and the file.

    Parameters
    ----------
    matrix : PreferenceMatrix, array_like or path
        The parent matrix (e.g. 000's 136 x 136 MSLR matrix).
    size, count : int
        Arms per submatrix; number of accepted submatrices.
    min_gap : float
        Reject a candidate whose smallest ``|mu_ij - 1/2|`` (i != j) is below this (000 Table 1:
        0.005).
    seed : int or None
        Seed of ``numpy.random.default_rng``; None draws a fresh one (recorded in ``meta``).
    out : path, optional
        JSON Lines row file: header line plus one row per submatrix, appended as computed.  An
        existing file made with the same arguments is resumed; one made otherwise is refused
        (:class:`BatchFileMismatch`) unless ``overwrite``.
    keys : iterable of str, optional
        Constants to compute (rows of :func:`~boundcalc.bounds.compare.compare`; default all of
        :data:`~boundcalc.bounds.compare.COMPARE_KEYS`).
    alpha, beta : float
        D-TS's parameters, passed to :func:`~boundcalc.bounds.compare.compare`.
    workers : int, optional
        Size of a local Dask cluster (single-threaded worker processes); default the number of
        cores (in-process when dask.distributed is not installed); ``0`` evaluates in-process.
        The rows are the same whatever the choice.
    scheduler : str, distributed.Client or cluster, optional
        Use an existing Dask cluster (an address like ``"tcp://host:8786"``) instead of a local
        one; ``workers`` is then ignored.
    chunk_size : int, optional
        Submatrices per Dask task (default: enough for about 4 tasks per worker thread, at
        most 100).
    progress : bool, optional
        tqdm progress bar on stderr; default only when stderr is a terminal.
    overwrite : bool
        Discard an existing ``out`` file instead of resuming it.
    max_draws : int, optional
        Give up (``ValueError``) after this many candidates (default ``max(10**6, 1000 count)``).

    Returns
    -------
    BatchResult
        ``rows`` (sorted by index), ``summary``, ``meta``, ``stats``; ``to_frame()`` for pandas.

    Raises
    ------
    ValueError
        Bad arguments, or too few candidates pass ``min_gap``.
    BatchFileError, BatchFileMismatch
        ``out`` is not a batch file, is corrupt, or was made with other arguments.
    """
    t_start = time.perf_counter()
    pm = as_preference_matrix(matrix)
    alpha, beta, keys, _ = check_options(alpha=alpha, beta=beta, keys=keys)
    size, count = int(size), int(count)
    if count < 1:
        raise ValueError(f"count must be >= 1; got {count}")
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**63))
    seed = int(seed)
    if workers is None:  # default: a local cluster on every core, in-process without dask installed
        workers = (os.cpu_count() or 1) if importlib.util.find_spec("distributed") else 0
    workers = int(workers)
    if workers < 0:
        raise ValueError(f"workers must be >= 0; got {workers}")
    use_dask = scheduler is not None or workers > 0

    draws = draw_submatrices(pm, size, count, min_gap, seed, max_draws=max_draws)
    t_draw = time.perf_counter() - t_start

    meta: dict[str, Any] = {
        "format": FORMAT_VERSION,
        "draw": DRAW_SCHEME,
        "matrix_sha256": matrix_sha256(pm),
        "matrix_name": pm.name,
        "K": pm.K,
        "size": size,
        "min_gap": float(min_gap),
        "seed": seed,
        "keys": list(keys),
        "alpha": alpha,
        "beta": beta,
    }

    done: dict[int, dict] = {}
    dropped = 0
    path = Path(out) if out is not None else None
    head = None
    if path is not None and path.exists() and path.stat().st_size > 0 and not overwrite:
        head, stored, dropped = _read_file(path)
        if head is not None:
            msg = _mismatch(path, head, meta)
            if msg:
                raise BatchFileMismatch(msg)
            for i, r in stored.items():
                if i >= count or r.get("error"):
                    continue  # beyond this run's count, or failed before: retried
                if r.get("arms") != draws.arms[i].tolist():
                    raise BatchFileMismatch(
                        f"{path}: row {i} has arms {r.get('arms')} but the draw gives"
                        f" {draws.arms[i].tolist()}; the file was not made by this run's draw"
                        " (use another output file or overwrite it)")
                if any(k not in r for k in keys):
                    raise BatchFileError(f"{path}: row {i} lacks some of the constants {list(keys)}")
                done[i] = r
            meta = dict(head, count=count)
            keys = tuple(head["keys"])  # the file's order
    if head is None:
        first = compare(_submatrix(pm.mu, draws.arms[0]), alpha=alpha, beta=beta, keys=keys)
        meta["units"] = {c.key: c.unit for c in first.rows}
        meta["count"] = count
        meta["boundcalc_version"] = _version()
        meta["created"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    fh = None
    if path is not None:
        if head is not None:
            if dropped:  # a line cut short by an interruption: drop it, then append
                with open(path, "r+b") as f:
                    f.truncate(path.stat().st_size - dropped)
            fh = open(path, "a", encoding="utf-8")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            fh = open(path, "w", encoding="utf-8")
            fh.write(json.dumps({"boundcalc_batch": meta}) + "\n")
            fh.flush()

    resumed = len(done)
    todo = np.array([i for i in range(count) if i not in done], dtype=np.int64)
    bar = _progress_bar(count, resumed, progress)
    state = {"computed": 0}

    def consume(rows: list[dict]) -> None:
        for r in rows:
            done[r["index"]] = r
        if fh is not None:
            fh.write("".join(json.dumps(r) + "\n" for r in rows))
            fh.flush()
        state["computed"] += len(rows)
        if bar is not None:
            bar.update(len(rows))

    backend, n_threads, cs = "in-process", 0, 1
    t0 = time.perf_counter()
    t_start_cluster = 0.0
    try:
        if todo.size and use_dask:
            backend = "dask"
            with _client(workers, scheduler) as client:
                n_threads = max(1, sum(client.nthreads().values()))
                t_start_cluster = time.perf_counter() - t0
                t0 = time.perf_counter()
                cs = int(chunk_size) if chunk_size else max(1, min(100, math.ceil(todo.size / (4 * n_threads))))
                _run_dask(client, pm.mu, todo, draws.arms, keys, alpha, beta, cs, consume)
                t_eval = time.perf_counter() - t0
        else:
            for i in todo:
                consume(_eval_chunk(pm.mu, [i], draws.arms[[i]], keys, alpha, beta))
            t_eval = time.perf_counter() - t0
    finally:
        if bar is not None:
            bar.close()
        if fh is not None:
            fh.close()

    rows = [done[i] for i in range(count)]
    errors = sum(1 for r in rows if r.get("error"))
    stats = {
        "drawn": draws.drawn,
        "accepted": count,
        "acceptance_rate": count / draws.drawn,
        "resumed": resumed,
        "computed": state["computed"],
        "errors": errors,
        "backend": backend,
        "workers": n_threads,
        "chunk_size": cs,
        "dropped_partial_line_bytes": dropped,
        "seconds": time.perf_counter() - t_start,
        "seconds_draw": t_draw,
        "seconds_cluster": t_start_cluster,
        "seconds_evaluate": t_eval,
    }
    return BatchResult(rows, summarize(rows, keys, meta.get("units")), meta, stats)


def _run_dask(client, mu, todo, arms, keys, alpha, beta, chunk_size, consume) -> None:
    """Scatter ``mu`` once, submit chunks of indices (a bounded number in flight), consume rows
    in completion order."""
    from distributed import as_completed

    mu_f = client.scatter(np.asarray(mu), broadcast=True)
    chunks = (todo[s:s + chunk_size] for s in range(0, todo.size, chunk_size))
    in_flight = max(4, 2 * sum(client.nthreads().values()))

    def submit(ch):
        return client.submit(_eval_chunk, mu_f, ch, arms[ch], keys, alpha, beta, pure=False)

    ac = as_completed([submit(ch) for _, ch in zip(range(in_flight), chunks)], loop=client.loop)
    try:
        for fut in ac:
            consume(fut.result())
            fut.release()
            nxt = next(chunks, None)
            if nxt is not None:
                ac.add(submit(nxt))
    except BaseException:
        ac.clear()  # drop (and so release) what is still queued
        raise


def _version() -> str:
    from . import __version__

    return __version__
