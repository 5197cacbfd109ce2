"""Constants of many random submatrices: the engine of ``boundcalc batch`` and of 000's Table 1.

Paper 000 (Komiyama, Honda & Nakagawa, ICML 2016), Sec. 5 / Table 1 averages the optimal
Copeland constant, ECW-RMED's constant and CCB's over random 16-arm submatrices of the
136-ranker MSLR matrix, leaving out submatrices with a pair closer than 0.005 to a tie.
:func:`run_batch` does this for any matrix, submatrix size, count, gap threshold and set of
constants (any rows of :func:`boundcalc.compare`), in-process or on Dask.  It has three parts:
the draw (here), the evaluation of one submatrix (here, :func:`evaluate_task`), and the
execution and storage, done by the generic runner :func:`boundcalc.runner.run_job` with a
:class:`boundcalc.runner.JsonlStore`.

The draw (deterministic, done in the driver)
    Candidate subsets come one after another from ``numpy.random.default_rng(seed)``: keys
    are drawn as blocks ``rng.random((1024, K))`` and each row of a block gives the candidate
    "the ``size`` arms with the smallest keys" (a uniform random subset), listed in increasing
    order.  Candidates are independent, so a subset can recur.  A candidate whose smallest gap ``min_{i != j} |mu_ij - 1/2|`` is below
    ``min_gap`` is rejected; accepted candidate number ``i`` is submatrix ``i``.  The draw is
    cheap and sequential, so submatrix ``i`` is the same whatever the parallelism, the count or
    the chunking (:func:`draw_submatrices`).

Evaluation (one task per submatrix, any order)
    Task ``{"index": i, "arms": [...]}`` is evaluated by :func:`boundcalc.compare` on the
    submatrix of the parent matrix (which the runner sends to every Dask worker once) and gives
    one row: ``index``, ``arms`` (indices into the parent matrix), ``min_gap`` of the
    submatrix, and for every constant ``KEY`` its value in the paper's own unit and
    ``KEY_000``, the value in 000's regret unit (None where no exact conversion exists, or
    when the bound does not apply to that submatrix).  A submatrix whose evaluation raises
    gives a row with every constant None and an ``error`` field; one where a constant comes
    back ``"failed"`` (e.g. a HiGHS failure) keeps the other values, that constant None, and an
    ``error`` field naming it.  One failure does not end a long run; error rows count for no
    constant in the summary and are retried when the run is resumed.

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
>>> s = res.constants_dict()["ccb"]
>>> s["n"], round(s["mean_000"]), s["unit"]
(3, 800, "002 regret (2x 000's) per ln T")
"""

from __future__ import annotations

import hashlib
import math
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .comparison import check_options, compare
from .matrix import MatrixLike, PreferenceMatrix, as_preference_matrix
from .registry import get_constant
from .result import RichResult
from .runner import JsonlStore, StoreError, StoreMismatch, load_store
from .runner.job import MAX_TASKS, Job, check_count, derive_seed, root_seed, run_job
from .runner.store import same

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "run_batch",
    "BatchResult",
    "draw_submatrices",
    "iter_candidates",
    "evaluate_submatrix",
    "evaluate_task",
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
#: Key of the header object on a row file's first line.
HEADER_TAG = "boundcalc_batch"
#: Header fields that must match for a row file to be resumed (``keys`` as a set).
_IDENTITY = ("format", "draw", "matrix_sha256", "K", "size", "min_gap", "seed", "keys", "alpha", "beta")
#: Suffix of the column holding a constant's value in 000's unit.
SUFFIX_000 = "_000"


class BatchFileError(StoreError):
    """A row file cannot be used (not a batch file, or corrupt); the message says why."""


class BatchFileMismatch(BatchFileError, StoreMismatch):
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
    rng = derive_seed(seed, form="generator")  # the root stream: default_rng(seed)
    while True:
        keys = rng.random((_DRAW_BLOCK, K))
        if size == K:
            cand = np.broadcast_to(np.arange(K), (_DRAW_BLOCK, K)).copy()
        else:
            # the set of the `size` smallest keys is unique (ties have probability ~2^-53)
            cand = np.argpartition(keys, size - 1, axis=1)[:, :size]
            cand.sort(axis=1)
        yield cand


#: Largest default candidate budget of :func:`draw_submatrices` (about a minute of drawing).
MAX_DRAWS = 10**8
#: Candidates drawn before the acceptance rate is trusted to project the budget.
_PROJECT_AFTER = 10**5


def check_min_gap(pm: PreferenceMatrix, size: int, min_gap: float) -> None:
    """Refuse at once a ``min_gap`` that no ``size``-arm submatrix of ``pm`` can meet (the check
    :func:`run_batch` makes first; the CLI makes it before its estimate of the work)."""
    _check_feasible(_gap_matrix(pm), size, float(min_gap))


def _check_feasible(G: np.ndarray, size: int, min_gap: float) -> None:
    """Refuse at once a ``min_gap`` that no ``size``-arm submatrix can meet.

    Arms pairwise at gap ``>= min_gap`` form a clique of the graph of such pairs, so each needs
    ``size - 1`` such partners among the others: removing arms with fewer, repeatedly (the
    ``(size - 1)``-core), must leave ``size`` arms.  (A necessary condition; a draw that still
    finds nothing stops at its budget.)
    """
    good = G >= min_gap
    alive = np.ones(G.shape[0], dtype=bool)
    while True:
        deg = (good & alive[None, :] & alive[:, None]).sum(axis=1)
        drop = alive & (deg < size - 1)
        if not drop.any():
            break
        alive &= ~drop
    if alive.sum() < size:
        best = np.sort(G[np.isfinite(G)])[::-1]
        raise ValueError(
            f"no {size}-arm submatrix has every gap >= {min_gap:g}: after removing arms with fewer than"
            f" {size - 1} partners at that gap, {int(alive.sum())} arms remain (the largest gap of the"
            f" matrix is {best[0] if best.size else 0:.4g}); lower min_gap or size"
        )


@dataclass(frozen=True, repr=False)
class Draws(RichResult):
    """Accepted submatrices of a draw (:func:`draw_submatrices`)."""

    arms: np.ndarray  #: (count, size) arm indices of each accepted submatrix, increasing
    min_gaps: np.ndarray  #: (count,) smallest gap of each accepted submatrix
    drawn: int  #: candidates drawn until the last acceptance (accepted + rejected)

    def __repr__(self) -> str:
        return f"<Draws: {self.arms.shape[0]} submatrices of {self.arms.shape[1]} arms, {self.drawn} drawn>"

    def summary(self) -> str:
        n = self.arms.shape[0]
        rate = f" (acceptance {n / self.drawn:.2%})" if self.drawn else ""
        return f"{n} {self.arms.shape[1]}-arm submatrices accepted of {self.drawn} candidates{rate}"

    def to_dict(self) -> dict:
        return {"arms": self.arms.tolist(), "min_gaps": self.min_gaps.tolist(), "drawn": int(self.drawn)}


def draw_submatrices(
    matrix: MatrixLike, size: int, count: int, min_gap: float = 0.0, seed: int = 0, *, max_draws: int | None = None
) -> Draws:
    """The first ``count`` candidates of :func:`iter_candidates` whose smallest gap is ``>= min_gap``.

    Submatrix ``i`` depends only on ``(matrix, size, min_gap, seed)`` and ``i``: drawing more
    (a larger ``count``) extends the list without changing its beginning.

    Raises ``ValueError`` at once when no ``size``-arm submatrix can meet ``min_gap`` (a core
    argument, :func:`_check_feasible`), and when fewer than ``count`` are accepted within
    ``max_draws`` candidates (default ``min(max(10**6, 1000 count), 10**8)``), as soon as the
    acceptance rate seen after ``10**5`` candidates projects past that budget.

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
        max_draws = min(max(10**6, 1000 * count), MAX_DRAWS)
    G = _gap_matrix(pm)
    if count > 0:
        _check_feasible(G, size, min_gap)
    arms, gaps, drawn = [], [], 0
    accepted = 0
    it = iter_candidates(pm.K, size, seed)
    while accepted < count:
        # give up as soon as the acceptance seen so far says the budget cannot be enough
        # (with none accepted yet, optimistically as if the next candidate were accepted)
        projected = drawn * count / max(accepted, 1)
        if drawn >= max_draws or (drawn >= _PROJECT_AFTER and projected > max_draws):
            rate = accepted / drawn
            raise ValueError(
                f"only {accepted} of {count} {size}-arm submatrices have every gap >= {min_gap:g} after"
                f" {drawn:,} candidates (acceptance {rate:.2e}; {count} would need"
                f" {'more than ' if not accepted else 'about '}{projected:,.0f} candidates, the budget is"
                f" {max_draws:,}); lower min_gap or size, or raise max_draws"
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
def _submatrix(mu: np.ndarray, arms: ArrayLike) -> PreferenceMatrix:
    idx = np.asarray(arms, dtype=np.int64)
    return PreferenceMatrix(mu[np.ix_(idx, idx)])


def _row(
    index: int, arms: Iterable[int], sub: PreferenceMatrix, keys: Sequence[str], alpha: float, beta: float
) -> dict:
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
    failed = [c for c in cmp.rows if c.status == "failed"]
    if failed:  # reported (and retried on resume), never summarised as "does not apply"
        row["error"] = "; ".join(f"{c.key} failed: {c.message}" for c in failed)
    return row


def evaluate_submatrix(
    matrix: MatrixLike,
    arms: ArrayLike,
    keys: Iterable[str] | None = None,
    *,
    index: int = 0,
    alpha: float = 0.51,
    beta: float = 2.0,
) -> dict:
    """The batch row of one submatrix: ``index``, ``arms``, ``min_gap``, ``KEY`` and ``KEY_000``
    for every constant (exactly what :func:`run_batch` stores for it).

    >>> from boundcalc.datasets import load_example
    >>> row = evaluate_submatrix(load_example("arithmetic8"), [0, 2, 5], keys=["ccb"])
    >>> row["arms"], round(row["ccb"]), round(row["ccb_000"])   # 2*3*(1+0+1)/0.1**2
    ([0, 2, 5], 1200, 600)
    """
    pm = as_preference_matrix(matrix)
    alpha, beta, keys, _ = check_options(alpha=alpha, beta=beta, keys=keys)
    idx = np.asarray(arms, dtype=np.int64)
    return _row(index, idx.tolist(), _submatrix(pm.mu, idx), keys, alpha, beta)


def evaluate_task(task: dict, shared: dict) -> dict:
    """The runner's task function (:func:`boundcalc.runner.run_job`): the row of submatrix
    ``task["arms"]`` (numbered ``task["index"]``) of ``shared["mu"]``, with the constants
    ``shared["keys"]`` and D-TS's ``shared["alpha"]``, ``shared["beta"]``.

    >>> from boundcalc.datasets import load_example
    >>> shared = {"mu": load_example("arithmetic8").mu, "keys": ["ccb"], "alpha": 0.51, "beta": 2.0}
    >>> evaluate_task({"index": 4, "arms": [0, 2, 5]}, shared) == evaluate_submatrix(
    ...     load_example("arithmetic8"), [0, 2, 5], keys=["ccb"], index=4)
    True
    """
    mu = np.asarray(shared["mu"])
    return _row(
        task["index"], task["arms"], _submatrix(mu, task["arms"]), shared["keys"], shared["alpha"], shared["beta"]
    )


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
        out.append(
            {
                "key": k,
                "unit": units.get(k),
                "n": n,
                "mean": mean,
                "se": se,
                "n_000": n0,
                "mean_000": mean0,
                "se_000": se0,
            }
        )
    return out


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def format_summary(summary: Sequence[dict]) -> str:
    """An aligned text table of :func:`summarize`'s output."""
    head = ["constant", "n", "mean", "s.e.", "mean (000 unit)", "s.e. (000 unit)", "unit"]
    cells = [head] + [
        [
            s["key"],
            _fmt(s["n"]),
            _fmt(s["mean"]),
            _fmt(s["se"]),
            _fmt(s["mean_000"]),
            _fmt(s["se_000"]),
            s.get("unit") or "-",
        ]
        for s in summary
    ]
    w = [max(len(r[i]) for r in cells) for i in range(len(head))]
    lines = []
    for n, r in enumerate(cells):
        parts = [r[0].ljust(w[0])] + [r[i].rjust(w[i]) for i in range(1, 6)] + [r[6]]
        lines.append("  ".join(parts).rstrip())
        if n == 0:
            lines.append("  ".join("-" * x for x in w))
    return "\n".join(lines)


@dataclass(repr=False)
class BatchResult(RichResult):
    """What :func:`run_batch` returns.

    Attributes
    ----------
    rows : list[dict]
        One per accepted submatrix, sorted by ``index`` (``0 .. count-1``): ``index``, ``arms``,
        ``min_gap``, ``KEY`` / ``KEY_000`` per constant, and ``error`` when it failed.
    constants : list[dict]
        :func:`summarize` over the rows: one dict per constant (``n``, ``mean``, ``se`` in its
        own unit and in 000's).
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
    constants: list
    meta: dict
    stats: dict = field(default_factory=dict)

    @property
    def keys(self) -> list[str]:
        return list(self.meta["keys"])

    def __repr__(self) -> str:
        name = f" of {self.meta.get('matrix_name')!r}" if self.meta.get("matrix_name") else ""
        return (
            f"<BatchResult{name}: {len(self.rows)} {self.meta['size']}-arm submatrices,"
            f" {len(self.keys)} constants, seed {self.meta['seed']}>"
        )

    def constants_dict(self) -> dict[str, dict]:
        """:attr:`constants` keyed by constant."""
        return {s["key"]: s for s in self.constants}

    def values(self, key: str, unit: str = "own") -> np.ndarray:
        """The column of constant ``key`` over the rows (NaN where it does not apply);
        ``unit="000"`` for 000's unit."""
        col = key + SUFFIX_000 if unit == "000" else key
        if key not in self.meta["keys"]:
            raise KeyError(f"constant {key!r} was not computed; this batch has {self.meta['keys']}")
        return np.array([np.nan if r.get(col) is None else r[col] for r in self.rows], dtype=float)

    def to_frame(self) -> pd.DataFrame:
        """The rows as a :class:`pandas.DataFrame` indexed by ``index`` (needs pandas)."""
        import pandas as pd

        cols = ["index", "arms", "min_gap"]
        for k in self.meta["keys"]:
            cols += [k, k + SUFFIX_000]
        if any("error" in r for r in self.rows):
            cols.append("error")
        return pd.DataFrame(self.rows, columns=cols).set_index("index")

    def constants_frame(self) -> pd.DataFrame:
        """:attr:`constants` as a :class:`pandas.DataFrame` indexed by constant (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.constants).set_index("key")

    def summary(self) -> str:
        """A short text: the draw, the work done, and per constant its mean and standard error
        over the submatrices where it applies (what the CLI prints)."""
        m, st = self.meta, self.stats
        name = f" of {m['matrix_name']}" if m.get("matrix_name") else ""
        how = st["backend"] + (
            f", {st['workers']} workers, {st['chunk_size']} per task" if st["backend"] == "dask" else ""
        )
        return (
            f"batch: {len(self.rows)} accepted {m['size']}-arm submatrices{name} (K = {m['K']}),"
            f" every gap >= {m['min_gap']:g}, seed {m['seed']}\n"
            f"{st['drawn']} candidates drawn (acceptance {st['acceptance_rate']:.2%});"
            f" {st['resumed']} rows resumed, {st['computed']} computed ({how}) in {st['seconds']:.1f} s wall\n"
            "mean and standard error over the submatrices where each constant applies (n):\n\n"
            + format_summary(self.constants)
        )

    def to_dict(self) -> dict:
        """``meta``, ``stats`` and ``constants`` (the per-constant summary; not the rows), JSON-ready."""
        return {"meta": self.meta, "stats": self.stats, "constants": self.constants}


# ----------------------------------------------------------------------------- row files
def matrix_sha256(pm: PreferenceMatrix) -> str:
    """SHA-256 of the matrix's shape and float64 entries (identifies it in row files)."""
    h = hashlib.sha256(f"{pm.K}x{pm.K}:float64:".encode())
    h.update(np.ascontiguousarray(pm.mu, dtype=np.float64).tobytes())
    return h.hexdigest()


def load_batch(path: str | os.PathLike) -> tuple[dict, list[dict]]:
    """Read a row file: ``(header, rows sorted by index)`` (a partial last line is ignored)."""
    try:
        return load_store(path, tag=HEADER_TAG)
    except StoreError as exc:
        raise BatchFileError(str(exc)) from None


def _open_store(path: str | os.PathLike, meta: dict, overwrite: bool) -> JsonlStore:
    """The row file as a :class:`~boundcalc.runner.JsonlStore`; errors as batch errors (a mismatch
    with the store's message, :func:`boundcalc.runner.store.refusal`)."""
    identity = {f: (sorted if f == "keys" else same) for f in _IDENTITY}
    try:
        return JsonlStore(path, meta, overwrite=overwrite, tag=HEADER_TAG, identity=identity)
    except StoreMismatch as exc:  # the store's one refusal message, as a batch error
        raise BatchFileMismatch(str(exc), exc.path, exc.differences) from None
    except StoreError as exc:
        raise BatchFileError(str(exc)) from None


# ----------------------------------------------------------------------------- execution
def run_batch(
    matrix: MatrixLike,
    size: int,
    count: int,
    min_gap: float = 0.0,
    seed: int | None = 0,
    out: str | os.PathLike | None = None,
    *,
    keys: Iterable[str] | None = None,
    alpha: float = 0.51,
    beta: float = 2.0,
    workers: int | None = 0,
    scheduler: Any = None,
    chunk_size: int | None = None,
    progress: bool | None = None,
    overwrite: bool = False,
    max_draws: int | None = None,
) -> BatchResult:
    """Evaluate constants on ``count`` random ``size``-arm submatrices whose gaps are all ``>= min_gap``.

    The submatrices are drawn in the driver (:func:`draw_submatrices`; submatrix ``i`` is fixed
    by the matrix, ``size``, ``min_gap``, ``seed`` and ``i``) and evaluated by
    :func:`boundcalc.compare` through :func:`boundcalc.runner.run_job`, in-process or on
    Dask; every row records its submatrix's arm indices.  See the module docstring for the row format and the file.

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
        Constants to compute (rows of :func:`boundcalc.compare`; default all of them).
    alpha, beta : float
        D-TS's parameters, passed to :func:`boundcalc.compare`.
    workers : int or None
        ``0`` (default): in-process; ``n``: a local Dask cluster of ``n`` single-threaded worker
        processes; None: in-process as well (:func:`boundcalc.runner.job.resolve_workers` says
        why).  The rows are the same whatever the choice.
    scheduler : str, distributed.Client or cluster, optional
        Use an existing Dask cluster (an address like ``"tcp://host:8786"``) instead of a local
        one; ``workers`` is then ignored.
    chunk_size : int, optional
        Submatrices per Dask task (default: sized by the runner to about
        :data:`~boundcalc.runner.executor.CHUNK_SECONDS` of work, at most 100).
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
    size = check_count(size, "size", low=2, high=pm.K)
    count = check_count(count, "count", low=1, high=MAX_TASKS)
    seed = root_seed(seed)

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
    # the row file is opened (and locked) before the draw, so an unusable file is refused at once
    store = _open_store(out, meta, overwrite) if out is not None else None
    try:
        draws = draw_submatrices(pm, size, count, min_gap, seed, max_draws=max_draws)
        t_draw = time.perf_counter() - t_start
        if store is not None and store.resumed:
            for i, r in store.done.items():
                if i >= count:
                    continue  # beyond this run's count: kept in the file, not part of this run
                if r.get("arms") != draws.arms[i].tolist():
                    raise BatchFileMismatch(
                        f"{out}: row {i} has arms {r.get('arms')} but the draw gives"
                        f" {draws.arms[i].tolist()}; the file was not made by this run's draw"
                        " (use another output file or overwrite it)",
                        store.path,
                        [("arms", r.get("arms"), draws.arms[i].tolist())],
                    )
                if any(k not in r for k in keys):
                    raise BatchFileError(f"{out}: row {i} lacks some of the constants {list(keys)}")
            meta = dict(store.header, count=count)
            keys = tuple(store.header["keys"])  # the file's order
        else:
            meta["units"] = {k: get_constant(k).unit for k in keys}
            meta["count"] = count
            meta["boundcalc_version"] = _version()
            meta["created"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            if store is not None:
                store.header = dict(meta)  # written on the first line when the runner opens the store
        job = Job(
            "batch",
            evaluate_task,
            header=meta,
            tag=HEADER_TAG,
            shared={"mu": np.asarray(pm.mu), "keys": list(keys), "alpha": alpha, "beta": beta},
            tasks=[{"index": i, "arms": a} for i, a in enumerate(draws.arms.tolist())],
        )
        dropped = store.dropped_bytes if store is not None else 0
        rows = run_job(job, store=store, workers=workers, scheduler=scheduler, chunk_size=chunk_size, progress=progress)
    finally:
        if store is not None:
            store.close()
    rs = rows.stats
    stats = {
        "drawn": draws.drawn,
        "accepted": count,
        "acceptance_rate": count / draws.drawn,
        "resumed": rs["resumed"],
        "computed": rs["computed"],
        "errors": rs["errors"],
        "backend": rs["backend"],
        "workers": rs["workers"],
        "chunk_size": rs["chunk_size"],
        "dropped_partial_line_bytes": dropped,
        "seconds": time.perf_counter() - t_start,
        "seconds_draw": t_draw,
        "seconds_cluster": rs["seconds_cluster"],
        "seconds_evaluate": rs["seconds_run"],
    }
    rows_l = list(rows)
    return BatchResult(rows_l, summarize(rows_l, keys, meta.get("units")), meta, stats)  # rows, constants, meta, stats


def _version() -> str:
    from . import __version__

    return __version__
