"""Logs of duels read and counted: the one reader of comparison data in the package.

:func:`read_duels` reads a log of duels, one per row -- a :class:`pandas.DataFrame`, a CSV file
(header line; ``,`` separated, ``.tsv`` tab separated; UTF-8), a JSON Lines file (``.jsonl`` /
``.ndjson``: one JSON object per line) or a Parquet file (``.parquet``; needs pyarrow) -- and
counts it into a :class:`DuelLog`: the arm names, ``wins[i, j]`` (duels arm i won against arm j,
a tie half a win to each) and the ties per pair.  Columns ``a`` and ``b`` name the two arms of
the duel; ``winner`` names ``a``'s or ``b``'s arm, or is empty (an empty cell, ``null``, NaN) for
a tie; other column names by option.  :meth:`PreferenceMatrix.from_duels
<boundcalc.PreferenceMatrix.from_duels>` and the command line's ``--duels FILE`` call it, and
:meth:`PreferenceMatrix.from_counts <boundcalc.PreferenceMatrix.from_counts>` turns the counts
into the estimate ``mu_ij = W_ij / (W_ij + W_ji)`` (a table of win counts in a file, ``--counts
FILE``, is read by :func:`boundcalc.matrix.read_counts`, the matrix-file reader's sibling).  This
module imports nothing of boundcalc, so the matrix module can call it.

Bounds (what is read is limited before it is read): a duel file is at most :data:`MAX_BYTES`
bytes and :data:`MAX_ROWS` rows, with at most :data:`MAX_ARMS` distinct arms (a K x K count table
is held in memory); each is an argument (``max_bytes``, ``max_rows``, ``max_arms``).  Errors are
:class:`DuelLogError` (a ``ValueError``) naming the file, the line (row) and the column.

>>> import pandas as pd
>>> log = read_duels(pd.DataFrame({"a": ["x", "x", "y", "x"], "b": ["y", "z", "z", "y"],
...                                "winner": ["x", "z", "y", None]}))
>>> log.names, log.wins.tolist(), log.n_duels, log.n_ties
(('x', 'y', 'z'), [[0.0, 1.5, 0.0], [0.5, 0.0, 1.0], [1.0, 0.0, 0.0]], 4, 1)
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["DuelLog", "DuelLogError", "read_duels", "MAX_BYTES", "MAX_ROWS", "MAX_ARMS", "DUEL_FORMATS"]

#: Largest duel file read (bytes; ``max_bytes`` to change it).
MAX_BYTES = 2**30
#: Most duels read from one log (``max_rows`` to change it).
MAX_ROWS = 50_000_000
#: Most distinct arms in one log (the counts are a K x K table in memory; ``max_arms``).
MAX_ARMS = 4096
#: The duel-log formats by suffix (anything else is read as CSV).
DUEL_FORMATS = {
    ".csv": "csv",
    ".tsv": "csv",
    ".txt": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}


class DuelLogError(ValueError):
    """A duel log cannot be read or counted; the message names the file, the line (row) and the column."""


@dataclass(frozen=True)
class DuelLog:
    """Counts read from a log of duels (:func:`read_duels`).

    Attributes
    ----------
    names : tuple of str
        The arms, in index order.
    wins : ndarray (K, K)
        ``wins[i, j]``: duels arm i won against arm j, a tie counting half to each.
    tie_counts : ndarray (K, K) of int
        Ties per pair (symmetric).
    n_duels, n_ties : int
        Duels read, of which ties.
    source : str
        Where they came from (a path or ``"DataFrame"``).
    """

    names: tuple
    wins: np.ndarray
    tie_counts: np.ndarray
    n_duels: int
    n_ties: int
    source: str

    @property
    def K(self) -> int:
        return len(self.names)

    @property
    def pair_counts(self) -> np.ndarray:
        """``n_ij = W_ij + W_ji``, the duels of each pair."""
        return self.wins + self.wins.T


# ----------------------------------------------------------------------------- duel logs
class _Counter:
    """Counts duels row by row; every error names the source and the row's location."""

    def __init__(self, source: str, names: Sequence[str] | None, max_rows: int, max_arms: int):
        self.source = source
        self.fixed = names is not None
        self.index: dict[str, int] = {n: k for k, n in enumerate(names)} if names is not None else {}
        self.max_rows, self.max_arms = max_rows, max_arms
        self.i: list[int] = []
        self.j: list[int] = []
        self.out: list[float] = []  # 1: a won, 0: b won, 0.5: tie
        self.rows = 0

    def _arm(self, value: Any, where: str) -> int:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            raise DuelLogError(f"{self.source}: {where}: no arm named (empty cell)")
        name = str(value).strip()
        if not name:
            raise DuelLogError(f"{self.source}: {where}: no arm named (empty cell)")
        k = self.index.get(name)
        if k is None:
            if self.fixed:
                raise DuelLogError(
                    f"{self.source}: {where}: arm {name!r} is not among the names given ({len(self.index)} arms)"
                )
            if len(self.index) >= self.max_arms:
                raise DuelLogError(f"{self.source}: {where}: more than {self.max_arms:,} distinct arms")
            k = self.index[name] = len(self.index)
        return k

    def add(self, a: Any, b: Any, w: Any, where: str, col: dict[str, str]) -> None:
        self.rows += 1
        if self.rows > self.max_rows:
            raise DuelLogError(f"{self.source}: more than {self.max_rows:,} duels (the limit; max_rows=...)")
        i = self._arm(a, f"{where}, {col['a']}")
        j = self._arm(b, f"{where}, {col['b']}")
        if i == j:
            raise DuelLogError(
                f"{self.source}: {where}: a duel of arm {str(a).strip()!r} with itself,"
                " which says nothing about mu; remove such rows"
            )
        if w is None or (isinstance(w, float) and math.isnan(w)) or not str(w).strip():
            o = 0.5
        else:
            wn = str(w).strip()
            if wn == str(a).strip():
                o = 1.0
            elif wn == str(b).strip():
                o = 0.0
            else:
                raise DuelLogError(
                    f"{self.source}: {where}, {col['winner']}: winner {wn!r} is neither arm of the duel"
                    f" ({str(a).strip()!r} vs {str(b).strip()!r}); leave it empty for a tie"
                )
        self.i.append(i)
        self.j.append(j)
        self.out.append(o)

    def log(self) -> DuelLog:
        if not self.rows:
            raise DuelLogError(f"{self.source}: no duels (the log has no rows)")
        names = list(self.index)
        K = len(names)
        if K < 2:
            raise DuelLogError(f"{self.source}: only one arm ({names[0]!r}) in the log")
        i, j, o = np.asarray(self.i), np.asarray(self.j), np.asarray(self.out)
        if not self.fixed:  # arms by name, whatever the order of the log
            order = sorted(range(K), key=lambda k: names[k])
            rank = np.empty(K, dtype=np.int64)
            rank[order] = np.arange(K)
            i, j, names = rank[i], rank[j], [names[k] for k in order]
        W = np.zeros((K, K))
        np.add.at(W, (i, j), o)
        np.add.at(W, (j, i), 1.0 - o)
        T = np.zeros((K, K))
        tie = o == 0.5
        np.add.at(T, (i[tie], j[tie]), 1.0)
        np.add.at(T, (j[tie], i[tie]), 1.0)
        return DuelLog(tuple(names), W, T, int(self.rows), int(tie.sum()), self.source)


def _columns(a: str, b: str, winner: str) -> dict[str, str]:
    cols = {"a": str(a), "b": str(b), "winner": str(winner)}
    if len(set(cols.values())) != 3:
        raise DuelLogError(f"the columns a={a!r}, b={b!r}, winner={winner!r} must be three different names")
    return cols


def _check_header(header: Sequence[str], cols: dict[str, str], source: str) -> dict[str, int]:
    pos = {}
    for role, c in cols.items():
        if c not in header:
            raise DuelLogError(
                f"{source}: no column {c!r} (for {role!r}); the columns are {list(header)}; name them with"
                " a=..., b=..., winner=... (CLI --columns A,B,WINNER)"
            )
        pos[role] = list(header).index(c)
    return pos


def _csv_rows(path: Path, cols: dict[str, str], counter: _Counter) -> None:
    delim = "\t" if path.suffix.lower() == ".tsv" else ","
    with open(path, "rb") as fb:
        head = fb.read(4096)
    if b"\x00" in head:
        raise DuelLogError(f"{path}: binary data, not a CSV duel log (give .csv, .jsonl or .parquet)")
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh, delimiter=delim)
        try:
            header = next(reader)
        except StopIteration:
            raise DuelLogError(f"{path}: empty file (expected a header line {','.join(cols.values())})") from None
        except UnicodeDecodeError as exc:
            raise DuelLogError(f"{path}: not UTF-8 text ({exc.reason})") from None
        header = [h.strip() for h in header]
        pos = _check_header(header, cols, str(path))
        label = {r: f"column {pos[r] + 1} ({c!r})" for r, c in cols.items()}
        need = max(pos.values()) + 1
        try:
            for row in reader:
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue  # a blank line
                where = f"line {reader.line_num}"
                if len(row) < need:
                    raise DuelLogError(f"{path}: {where} has {len(row)} fields; the header has {len(header)}")
                counter.add(row[pos["a"]], row[pos["b"]], row[pos["winner"]], where, label)
        except UnicodeDecodeError as exc:
            raise DuelLogError(f"{path}: not UTF-8 text near line {reader.line_num + 1} ({exc.reason})") from None
        except csv.Error as exc:
            raise DuelLogError(f"{path}: line {reader.line_num}: {exc}") from None


def _jsonl_rows(path: Path, cols: dict[str, str], counter: _Counter) -> None:
    label = {r: f"key {c!r}" for r, c in cols.items()}
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw.decode("utf-8-sig" if n == 1 else "utf-8"))
            except UnicodeDecodeError as exc:
                raise DuelLogError(f"{path}: line {n}: not UTF-8 text ({exc.reason})") from None
            except json.JSONDecodeError as exc:
                raise DuelLogError(f"{path}: line {n}, column {exc.colno}: not valid JSON ({exc.msg})") from None
            if not isinstance(obj, dict):
                raise DuelLogError(
                    f"{path}: line {n}: a JSON {type(obj).__name__}, not an object"
                    " with the keys " + ", ".join(repr(c) for c in cols.values())
                )
            for r in ("a", "b"):
                if cols[r] not in obj:
                    raise DuelLogError(f"{path}: line {n}: no key {cols[r]!r} (for {r!r}); the keys are {sorted(obj)}")
            if isinstance(obj.get(cols["winner"]), (dict, list)):
                raise DuelLogError(f"{path}: line {n}, key {cols['winner']!r}: not an arm name")
            counter.add(obj[cols["a"]], obj[cols["b"]], obj.get(cols["winner"]), f"line {n}", label)


def _table_rows(columns: dict[str, Iterable], cols: dict[str, str], counter: _Counter, first: int = 1) -> None:
    label = {r: f"column {c!r}" for r, c in cols.items()}
    for n, (x, y, w) in enumerate(zip(columns["a"], columns["b"], columns["winner"]), first):
        counter.add(x, y, w, f"row {n}", label)


def read_duels(
    table: Any,
    *,
    a: str = "a",
    b: str = "b",
    winner: str = "winner",
    names: Sequence[Any] | None = None,
    max_rows: int = MAX_ROWS,
    max_bytes: int = MAX_BYTES,
    max_arms: int = MAX_ARMS,
    format: str | None = None,
) -> DuelLog:
    """Read and count a log of duels (see the module text): a :class:`pandas.DataFrame` or a path.

    Parameters
    ----------
    table : DataFrame or path
        One duel per row.  A path's format comes from ``format`` (``"csv"``, ``"jsonl"``,
        ``"parquet"``) or its suffix (:data:`DUEL_FORMATS`; CSV otherwise).
    a, b, winner : str
        The column names (default ``a``, ``b``, ``winner``).
    names : sequence, optional
        The arms in index order (every arm of the log must be one of them; an arm never seen
        leaves its pairs uncompared).  Default: the arms of the log, sorted by name.
    max_rows, max_bytes, max_arms : int
        Limits (:data:`MAX_ROWS`, :data:`MAX_BYTES`, :data:`MAX_ARMS`).

    Raises
    ------
    DuelLogError
        Naming the file, line (row) and column: a missing column, an empty arm, a winner that is
        neither arm, a duel of an arm with itself, bad JSON or text, a limit exceeded.
    FileNotFoundError
        No such file.
    ImportError
        A Parquet file without pyarrow.
    """
    cols = _columns(a, b, winner)
    if names is not None:
        if isinstance(names, (str, bytes)):
            raise DuelLogError(f"names must be a sequence of arm names, not one string {names!r}")
        names = [str(x) for x in names]
        if len(set(names)) != len(names):
            raise DuelLogError(f"the names given repeat: {sorted({x for x in names if names.count(x) > 1})}")
    if hasattr(table, "columns") and hasattr(table, "iloc"):  # a pandas DataFrame
        source = "DataFrame"
        _check_header([str(c) for c in table.columns], cols, source)
        if len(table) > max_rows:
            raise DuelLogError(f"{source}: {len(table):,} duels, more than {max_rows:,} (max_rows=...)")
        counter = _Counter(source, names, max_rows, max_arms)
        _table_rows({r: table[c].tolist() for r, c in cols.items()}, cols, counter)
        return counter.log()
    if not isinstance(table, (str, os.PathLike)):
        raise TypeError(f"a duel log is a pandas DataFrame or a file path; got {type(table).__name__}")
    path = Path(table)
    if not path.exists():
        raise FileNotFoundError(f"no such duel log: {path}")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a duel log")
    size = path.stat().st_size
    if size > max_bytes:
        raise DuelLogError(f"{path}: {size:,} bytes, more than a duel log may have ({max_bytes:,}; max_bytes=...)")
    fmt = format or DUEL_FORMATS.get(path.suffix.lower(), "csv")
    counter = _Counter(str(path), names, max_rows, max_arms)
    if fmt == "csv":
        _csv_rows(path, cols, counter)
    elif fmt == "jsonl":
        _jsonl_rows(path, cols, counter)
    elif fmt == "parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise ImportError(
                f"{path}: reading Parquet needs pyarrow (pip install pyarrow); or save the log as CSV or JSON Lines"
            ) from None
        try:
            pf = pq.ParquetFile(path)
        except Exception as exc:  # pyarrow's own error types
            raise DuelLogError(f"{path}: not a readable Parquet file ({exc})") from None
        _check_header(pf.schema_arrow.names, cols, str(path))
        if pf.metadata.num_rows > max_rows:
            raise DuelLogError(f"{path}: {pf.metadata.num_rows:,} duels, more than {max_rows:,} (max_rows=...)")
        t = pf.read(columns=list(cols.values()))
        _table_rows({r: t.column(c).to_pylist() for r, c in cols.items()}, cols, counter)
    else:
        raise ValueError(f"unknown duel-log format {fmt!r}; choose csv, jsonl or parquet")
    return counter.log()
